//! What dcl-mcp's callers see fail: the host's side of SDK servers and elicitations
//! ([`HostRpcError`]), connecting to a server ([`ConnectError`]), managing one
//! ([`ServerError`]) and calling a tool ([`CallError`]). `Display` is the text that reaches
//! the model, the status report or the user, as before these were types.

use std::error::Error;
use std::sync::Arc;

use crate::config::ConfigError;
use crate::transport::sse::{HttpClientError, SseError};
use crate::transport::stdio::SpawnError;

/// Why the host gave no answer to an SDK server's message or an elicitation.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HostRpcError {
    /// No SDK host is connected (`dcl -p`, `dcl mcp list`).
    #[error("SDK MCP server {0:?} needs an SDK host, and none is connected to this session")]
    NoHost(String),
    /// The host's side failed (an error response, a timeout, a closed session), in the
    /// implementor's own error type. Shared, so an answer can be handed on unchanged.
    #[error("{0}")]
    Failed(Arc<dyn Error + Send + Sync>),
}

impl HostRpcError {
    pub fn failed(error: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        HostRpcError::Failed(Arc::from(error.into()))
    }
}

/// Why connecting to a server failed; its `Display` becomes the server's status `error`.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Spawn(#[from] SpawnError),
    #[error("{0}")]
    HttpClient(#[from] HttpClientError),
    #[error("{0}")]
    Sse(#[from] SseError),
    /// rmcp's handshake error, worded without its type names; `exit` says how a stdio
    /// server ended when it did (` (exited with status 1…)`) and is empty otherwise.
    #[error("MCP handshake failed: {text}{exit}")]
    Handshake { text: String, exit: String },
    #[error("tools/list failed: {0}")]
    ListTools(Box<rmcp::service::ServiceError>),
    #[error("timed out after {} ms while connecting (MCP_TIMEOUT)", .0.as_millis())]
    TimedOut(std::time::Duration),
}

/// Why a server could not be enabled, reconnected or connected.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("No MCP server named {0:?}")]
    NotFound(String),
    #[error("MCP server {0:?} is disabled; enable it first")]
    Disabled(String),
    #[error("the session has shut down")]
    ShutDown,
    #[error("connecting to MCP server {0:?} was superseded")]
    Superseded(String),
    #[error("{0}")]
    Connect(#[from] ConnectError),
}

/// Why an MCP tool call gave no result; the text is the tool result the model sees.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("No such MCP tool: {0}")]
    NoSuchTool(String),
    #[error("MCP server {server:?} is not connected: {why}")]
    NotConnected { server: String, why: String },
    #[error("MCP server {0:?} is still connecting")]
    StillConnecting(String),
    #[error("MCP server {0:?} is disabled")]
    Disabled(String),
    #[error("MCP tool arguments must be a JSON object, got {0}")]
    ArgumentsNotAnObject(&'static str),
    #[error("MCP tool call {0} was cancelled")]
    Cancelled(String),
    #[error("MCP tool {tool} timed out after {} ms (MCP_TOOL_TIMEOUT)", .after.as_millis())]
    TimedOut {
        tool: String,
        after: std::time::Duration,
    },
    /// `reply`: the reply as JSON.
    #[error("MCP server {server:?} sent an unexpected reply to tools/call: {reply}")]
    UnexpectedReply { server: String, reply: String },
    #[error("MCP server {server:?} answered with error {code}: {message}")]
    ErrorAnswer {
        server: String,
        code: i32,
        message: String,
    },
    // rmcp's errors are boxed: they are large, and every `Result` of a call carries this type.
    #[error("MCP server {server:?}: {source}")]
    Transport {
        server: String,
        source: Box<rmcp::service::ServiceError>,
    },
    #[error("MCP server {server:?} disconnected: {why}")]
    Disconnected { server: String, why: String },
    #[error("MCP tool call to {server:?} failed: {source}")]
    Failed {
        server: String,
        source: Box<rmcp::service::ServiceError>,
    },
}
