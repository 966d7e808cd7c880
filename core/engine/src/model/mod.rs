//! Model clients. Every client — the Anthropic HTTP client, the OpenAI Chat Completions
//! client and the built-in mock — yields the same typed Messages-API stream events.
//! [`providers`] decides which client and endpoint serve a model name, [`pricing`] what it
//! costs, and [`retry`] how failed calls are retried.

pub mod accumulate;
pub mod anthropic;
pub mod events;
mod http;
pub mod mock;
pub mod openai;
pub mod pricing;
pub mod providers;
pub mod retry;
pub mod sse;

use std::pin::Pin;

use dcl_protocol::ContentBlock;
use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use events::{Delta, StreamEvent};

/// One message of the conversation as the Messages API takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiMessage {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// Extended thinking budget; `None` on the request means thinking off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkingConfig {
    pub budget_tokens: u32,
}

/// Everything one model call needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<ApiMessage>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    pub thinking: Option<ThinkingConfig>,
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The server answered with an HTTP error status.
    #[error("API Error: {status} {message}")]
    Http {
        status: u16,
        message: String,
        /// Seconds from a `retry-after` header.
        retry_after: Option<f64>,
    },
    /// Could not connect, or the connection broke.
    #[error("API connection error: {0}")]
    Connection(String),
    /// The stream carried an `error` event or malformed data.
    #[error("API stream error: {0}")]
    Stream(String),
    /// No key or base URL to reach the model.
    #[error("{0}")]
    Config(String),
    /// The turn was cancelled while the call ran.
    #[error("cancelled")]
    Cancelled,
}

impl ModelError {
    /// Whether a retry may help (429, 5xx, overloaded, broken connections).
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Http { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            ModelError::Connection(_) => true,
            ModelError::Stream(m) => m.contains("overloaded"),
            ModelError::Config(_) | ModelError::Cancelled => false,
        }
    }

    /// The HTTP status, when there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }
}

pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ModelError>> + Send>>;
pub type BoxFuture<'a, T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A model backend. `stream` returns once the response headers are in (so HTTP errors
/// surface here, before any event), then yields events until `message_stop`.
pub trait ModelClient: Send + Sync {
    fn stream<'a>(
        &'a self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, ModelError>>;
}
