//! dcl's MCP client, and the only crate in the workspace that uses rmcp (pinned exactly).
//!
//! - [`parse_mcp_config`] reads `--mcp-config` (inline JSON or a file) into [`ServerConfig`]s;
//!   [`config_store`] reads and writes the user / project / local config files behind
//!   `dcl mcp add|list|get|remove`.
//! - [`McpManager`] connects to every server concurrently (stdio, streamable HTTP, legacy SSE,
//!   and SDK servers whose JSON-RPC rides the control channel through [`HostRpc`]), reports
//!   [`ServerStatus`], lists [`McpTool`]s as `mcp__<server>__<tool>`, and calls them.
//!   Servers' `elicitation/create` requests are forwarded to the host ([`HostRpc::elicit`]).
//!
//! Nothing here reads the process environment or changes process-global state: the
//! environment of child servers and the timeouts come from the map given to the manager.
//! Env values and header values never appear in `Debug` output or logs.

pub mod config;
mod config_error;
pub mod config_store;
pub mod content;
mod error;
mod manager;
mod transport;

use futures::future::BoxFuture;

pub use config::{ConfigError, ServerConfig, parse_mcp_config, parse_servers_json};
pub use config_store::Scope;
pub use error::{CallError, ConnectError, HostRpcError, ServerError};
pub use manager::{
    CallResult, ConnectionStatus, McpManager, McpOptions, McpTool, ServerStatus, SetServersResult,
    ToolSummary, qualified_tool_name,
};
pub use transport::sse::{HttpClientError, SseError};
pub use transport::stdio::SpawnError;

/// The host side of SDK MCP servers (`{"type":"sdk"}`): the engine implements this over its
/// control channel.
pub trait HostRpc: Send + Sync {
    /// Sends `control_request{subtype:"mcp_message", server_name: server, message}` and
    /// resolves to the payload of the host's `control_response`, i.e.
    /// `{"mcp_response": <JSON-RPC response>}` (a bare JSON-RPC message is accepted too).
    /// An error response, a timeout or a cancelled session is `Err`.
    ///
    /// `server` is the server's key in `mcpServers`. Dropping the future means the answer is
    /// no longer wanted (the tool call was cancelled or timed out).
    fn mcp_message(
        &self,
        server: &str,
        message: serde_json::Value,
    ) -> BoxFuture<'_, Result<serde_json::Value, HostRpcError>>;

    /// An MCP server (`server`, its key in `mcpServers`) asks the user for input
    /// (`elicitation/create`). `request` has the fields of the control protocol's
    /// `elicitation` request other than `subtype` and `mcp_server_name`:
    /// `{"message", "mode": "form"|"url", "requested_schema"?, "url"?, "elicitation_id"?}`
    /// (`requested_schema` in form mode, `url` and `elicitation_id` in URL mode).
    ///
    /// Resolves to the host's answer, `{"action": "accept"|"decline"|"cancel", "content"?}`.
    /// An `Err` (no answer, an error response) or a malformed answer cancels the
    /// elicitation. Dropping the future means the answer is no longer wanted.
    ///
    /// The default declines, so front ends without a host to ask need not implement it.
    fn elicit(
        &self,
        server: &str,
        request: serde_json::Value,
    ) -> BoxFuture<'_, Result<serde_json::Value, HostRpcError>> {
        let _ = (server, request);
        Box::pin(async { Ok(serde_json::json!({"action": "decline"})) })
    }
}

/// A [`HostRpc`] for front ends without an SDK host (`dcl -p`, `dcl mcp list`): every SDK
/// server fails to connect with a clear message, and every elicitation is declined.
pub struct NoHost;

impl HostRpc for NoHost {
    fn mcp_message(
        &self,
        server: &str,
        _message: serde_json::Value,
    ) -> BoxFuture<'_, Result<serde_json::Value, HostRpcError>> {
        let e = HostRpcError::NoHost(server.to_string());
        Box::pin(async move { Err(e) })
    }

    fn elicit(
        &self,
        _server: &str,
        _request: serde_json::Value,
    ) -> BoxFuture<'_, Result<serde_json::Value, HostRpcError>> {
        Box::pin(async { Ok(serde_json::json!({"action": "decline"})) })
    }
}
