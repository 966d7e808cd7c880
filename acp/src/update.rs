//! `session/update` notifications, sent by the session's reader, the agent's replay and
//! the client-file route alike.

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionNotification;
use serde_json::{Value, json};

/// Sends one `session/update`; an update the crate's types refuse is a bug here, logged.
pub fn send_update(cx: &ConnectionTo<Client>, session_id: &str, update: Value) {
    let params = json!({"sessionId": session_id, "update": update});
    match serde_json::from_value::<SessionNotification>(params) {
        Ok(n) => {
            if let Err(e) = cx.send_notification(n) {
                tracing::debug!("session/update not sent: {e}");
            }
        }
        Err(e) => tracing::warn!("dcl acp built an invalid session/update ({e})"),
    }
}
