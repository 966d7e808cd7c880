//! SDK servers: each outgoing JSON-RPC message becomes one `HostRpc::mcp_message` round trip
//! (the engine sends `control_request{subtype:"mcp_message"}` and waits for the host's
//! `control_response`); the reply to a request is fed back to rmcp, the reply to a
//! notification is dropped.
//!
//! The send future of a message completes when the host has answered it, so messages reach
//! the host in the order rmcp sends them (`initialize`, `notifications/initialized`,
//! `tools/list`, …). rmcp runs request sends concurrently, so a slow `tools/call` blocks
//! nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{TransportError, decode_incoming, error_reply, malformed_reply, request_id};
use crate::{HostRpc, HostRpcError};

/// How long a notification's round trip may take before dcl stops waiting for it.
const NOTIFICATION_WAIT: Duration = Duration::from_secs(5);

pub(crate) struct SdkTransport {
    server: Arc<str>,
    host: Arc<dyn HostRpc>,
    tx: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    rx: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    /// Requests waiting for the host, by JSON id; cancelled by `notifications/cancelled`.
    inflight: Arc<Mutex<HashMap<String, CancellationToken>>>,
    closed: CancellationToken,
}

impl SdkTransport {
    /// `server` is the server's key in `mcpServers`: the `server_name` of `mcp_message`.
    pub(crate) fn new(server: &str, host: Arc<dyn HostRpc>) -> SdkTransport {
        let (tx, rx) = mpsc::unbounded_channel();
        SdkTransport {
            server: Arc::from(server),
            host,
            tx,
            rx,
            inflight: Arc::default(),
            closed: CancellationToken::new(),
        }
    }
}

/// The host answers with the control response's payload `{"mcp_response": <JSON-RPC>}`;
/// a bare JSON-RPC message (has `"jsonrpc"`) is accepted too.
fn unwrap_reply(reply: Value) -> Result<Value, BadReply> {
    match reply {
        Value::Object(mut o) => {
            if let Some(inner) = o.remove("mcp_response") {
                if inner.is_object() {
                    Ok(inner)
                } else {
                    Err(BadReply::NotJsonRpc)
                }
            } else if o.contains_key("jsonrpc") {
                Ok(Value::Object(o))
            } else {
                Err(BadReply::NoMcpResponse)
            }
        }
        _ => Err(BadReply::NotAnObject),
    }
}

/// Why a host's answer carries no JSON-RPC reply; sent to rmcp as an internal error.
#[derive(Debug, thiserror::Error)]
enum BadReply {
    #[error("{0}")]
    Host(#[from] HostRpcError),
    #[error("\"mcp_response\" is not a JSON-RPC object")]
    NotJsonRpc,
    #[error("the host's reply has no \"mcp_response\"")]
    NoMcpResponse,
    #[error("the host's reply is not an object with \"mcp_response\"")]
    NotAnObject,
}

impl Transport<RoleClient> for SdkTransport {
    type Error = TransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let server = self.server.clone();
        let host = self.host.clone();
        let tx = self.tx.clone();
        let inflight = self.inflight.clone();
        let closed = self.closed.clone();
        let id = request_id(&item);
        // A cancellation from rmcp (tool timeout, interrupted turn) stops waiting for the host.
        if let ClientJsonRpcMessage::Notification(n) = &item
            && let Ok(v) = serde_json::to_value(n)
            && v.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
            && let Some(rid) = v.pointer("/params/requestId")
            && let Ok(map) = inflight.lock()
            && let Some(t) = map.get(&rid.to_string())
        {
            t.cancel();
        }
        let message = serde_json::to_value(&item);
        async move {
            let message =
                message.map_err(|e| TransportError(format!("cannot encode a message: {e}")))?;
            let Some(id) = id else {
                // Notifications and answers to the server's requests: the reply is dropped.
                tokio::select! {
                    _ = closed.cancelled() => {}
                    r = tokio::time::timeout(NOTIFICATION_WAIT, host.mcp_message(&server, message)) => {
                        if let Ok(Err(e)) = r {
                            tracing::debug!(server = %server, "the host refused a notification: {e}");
                        }
                    }
                }
                return Ok(());
            };
            let key = id.to_string();
            let cancel = CancellationToken::new();
            if let Ok(mut map) = inflight.lock() {
                map.insert(key.clone(), cancel.clone());
            }
            let reply = tokio::select! {
                _ = closed.cancelled() => None,
                _ = cancel.cancelled() => None,
                r = host.mcp_message(&server, message) => Some(r),
            };
            if let Ok(mut map) = inflight.lock() {
                map.remove(&key);
            }
            let Some(reply) = reply else {
                return Ok(());
            };
            let incoming = match reply.map_err(BadReply::from).and_then(unwrap_reply) {
                Err(e) => error_reply(id, -32603, &e.to_string()),
                Ok(mut v) => {
                    // The control channel already pairs request and reply: make the ids agree.
                    if let Some(o) = v.as_object_mut() {
                        o.insert("id".into(), id.clone());
                    }
                    if v.get("result").is_none() && v.get("error").is_none() {
                        malformed_reply(id, "neither \"result\" nor \"error\"", &server)
                    } else {
                        decode_incoming(v, &server)
                    }
                }
            };
            if let Some(m) = incoming {
                let _ = tx.send(m);
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        tokio::select! {
            m = self.rx.recv() => m,
            _ = self.closed.cancelled() => None,
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.closed.cancel();
        Ok(())
    }
}

impl Drop for SdkTransport {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reply_forms() {
        let r = json!({"jsonrpc":"2.0","id":1,"result":{}});
        assert_eq!(unwrap_reply(json!({"mcp_response": r.clone()})).unwrap(), r);
        assert_eq!(unwrap_reply(r.clone()).unwrap(), r);
        assert!(unwrap_reply(json!({"other": 1})).is_err());
        assert!(unwrap_reply(json!({"mcp_response": 3})).is_err());
        assert!(unwrap_reply(json!("x")).is_err());
    }
}
