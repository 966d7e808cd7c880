//! Model clients. Every client — the Anthropic HTTP client, the OpenAI Chat Completions
//! client and the built-in mock — yields the same typed Messages-API stream events.
//! [`providers`] decides which client and endpoint serve a model name, [`pricing`] what it
//! costs, and [`retry`] how failed calls are retried. Both HTTP clients share one
//! transport ([`http`]) and one SSE decoder ([`sse`]); each keeps only its request body
//! and its stream mapping.

pub mod accumulate;
pub mod anthropic;
pub mod capabilities;
mod error;
pub mod events;
pub mod http;
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
use tokio_util::sync::CancellationToken;

pub use error::{ErrorKind, ErrorText, ModelError};
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

/// A tool as offered to the model (defined beside the wire types, so the tool API can
/// describe tools without depending on the model clients).
pub use dcl_protocol::ToolSpec;

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

/// An env map from pairs, for tests.
#[cfg(test)]
pub(crate) fn test_env(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}
