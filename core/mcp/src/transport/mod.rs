//! rmcp client transports dcl adds: a tolerant stdio line transport, the SDK (host) transport,
//! and the legacy HTTP+SSE transport; plus a wrapper that tells when a connection ends.
//! Streamable HTTP uses rmcp's own reqwest transport.

pub(crate) mod sdk;
pub(crate) mod sse;
pub(crate) mod stdio;

use std::borrow::Cow;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The error every dcl transport reports.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TransportError(pub String);

/// Turns one incoming JSON value into rmcp's message type. A response rmcp cannot parse
/// becomes a JSON-RPC error for the same id (so the caller gets an error instead of a hang);
/// anything else unparseable is dropped with a debug log.
pub(crate) fn decode_incoming(value: Value, server: &str) -> Option<ServerJsonRpcMessage> {
    match serde_json::from_value::<ServerJsonRpcMessage>(value.clone()) {
        Ok(m) => Some(m),
        Err(e) => {
            let id = value
                .get("id")
                .filter(|id| id.is_string() || id.is_number());
            let is_reply = value.get("result").is_some() || value.get("error").is_some();
            match id {
                Some(id) if is_reply => malformed_reply(id.clone(), &format!("{e}"), server),
                _ => {
                    tracing::debug!(server, error = %e, "dropping an MCP message that is not JSON-RPC");
                    None
                }
            }
        }
    }
}

/// A JSON-RPC error answer to `id`, saying the server's reply was unusable.
pub(crate) fn malformed_reply(id: Value, why: &str, server: &str) -> Option<ServerJsonRpcMessage> {
    error_reply(
        id,
        -32603,
        &format!("malformed reply from MCP server {server:?}: {why}"),
    )
}

pub(crate) fn error_reply(id: Value, code: i64, message: &str) -> Option<ServerJsonRpcMessage> {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    serde_json::from_value(v).ok()
}

/// The JSON-RPC id of an outgoing request, if it is one.
pub(crate) fn request_id(message: &ClientJsonRpcMessage) -> Option<Value> {
    match message {
        ClientJsonRpcMessage::Request(r) => Some(r.id.clone().into_json_value()),
        _ => None,
    }
}

/// Wraps a transport and cancels `closed` when the connection ends: the peer closed its
/// side (receive returned `None`) or rmcp closed the transport.
pub(crate) struct Watched<T> {
    pub inner: T,
    pub closed: CancellationToken,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let m = self.inner.receive().await;
        if m.is_none() {
            self.closed.cancel();
        }
        m
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let r = self.inner.close().await;
        self.closed.cancel();
        r
    }
}

impl<T> Drop for Watched<T> {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparseable_replies_become_errors() {
        let m = decode_incoming(json!({"jsonrpc":"2.0","id":7,"result":{}}), "s");
        assert!(matches!(m, Some(ServerJsonRpcMessage::Response(_))));
        let m = decode_incoming(json!({"jsonrpc":"1.0","id":7,"result":{}}), "s");
        assert!(matches!(m, Some(ServerJsonRpcMessage::Error(_))), "{m:?}");
        assert!(decode_incoming(json!({"hello": 1}), "s").is_none());
        assert!(decode_incoming(json!("banner"), "s").is_none());
    }
}
