//! MCP servers as the host sees them: their status, switching one off or on,
//! reconnecting, and messages from a host's own server.

use std::sync::Arc;

use dcl_protocol::{
    EmptyResponse, McpMessageRequest, McpReconnectRequest, McpStatusResponse, McpToggleRequest,
};

use super::{Answer, ControlError, answer};
use crate::session::actor::Actor;
use crate::session::mcp::mcp_server_status;
use crate::session::services::SessionCore;

impl Actor {
    /// Servers still connecting settle first (each within its connect timeout).
    pub(super) fn mcp_status(&mut self, request_id: String) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            // SDKs may send mcp_status right alongside initialize, which is where
            // host servers are declared: give that initialize a moment to land.
            let mut init = core.services.initialized.subscribe();
            let _ = tokio::time::timeout(
                std::time::Duration::from_millis(500),
                init.wait_for(|done| *done),
            )
            .await;
            core.mcp_ready().await;
            let servers = core.services.mcp.status();
            answer(McpStatusResponse::new(
                servers.into_iter().map(mcp_server_status).collect(),
            ))
        });
    }

    pub(super) fn mcp_toggle(&mut self, request_id: String, r: McpToggleRequest) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            core.services
                .mcp
                .toggle(&r.server_name, r.enabled)
                .await
                .map(|()| None)
                .map_err(|e| ControlError::failed("mcp_toggle", e))
        });
    }

    pub(super) fn mcp_reconnect(&mut self, request_id: String, r: McpReconnectRequest) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            core.services
                .mcp
                .reconnect(&r.server_name)
                .await
                .map(|()| None)
                .map_err(|e| ControlError::failed("mcp_reconnect", e))
        });
    }
}

/// Server-initiated messages from a host's MCP server (TS SDK); dcl's MCP client does not
/// subscribe to any, so they are acknowledged and dropped.
pub(super) fn mcp_message(r: McpMessageRequest) -> Answer {
    tracing::debug!(
        "ignoring a server-initiated MCP message from {}",
        r.server_name
    );
    answer(EmptyResponse::default())
}
