//! An MCP server's elicitation as the session's hooks see it: Elicitation hooks may answer
//! it, a Notification announces it, ElicitationResult hooks see (and may change) the answer.

use std::sync::Arc;

use dcl_protocol::ElicitationResponse;
use serde_json::{Value, json};

use super::hooks::{HookScope, fire};
use super::host::{ElicitError, ElicitationHooks};
use super::services::SessionCore;
use dcl_events::hook_input::{Elicitation, ElicitationResult, Notification};

/// An MCP server's elicitation: Elicitation hooks may answer it themselves (`action`,
/// `content`); otherwise a Notification (`elicitation_dialog`) goes out and the host is
/// asked. ElicitationResult hooks then see the answer and may change it.
pub(crate) async fn elicit(
    core: &Arc<SessionCore>,
    server: &str,
    request: &Value,
    ask_host: impl std::future::Future<Output = Result<Value, ElicitError>>,
) -> Result<Value, ElicitError> {
    let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_string);
    let scope = HookScope::session(core);
    let elicitation = Elicitation {
        mcp_server_name: server.to_string(),
        message: text("message").unwrap_or_default(),
        mode: text("mode"),
        url: text("url"),
        elicitation_id: text("elicitation_id"),
        requested_schema: request
            .get("requested_schema")
            .filter(|v| !v.is_null())
            .cloned(),
    };
    let v = fire(&scope, &elicitation).await;
    let mut answer = match v.elicitation_action {
        Some(action) => elicitation_answer(&action, v.elicitation_content)?,
        None => {
            let note = Notification {
                message: format!(
                    "MCP server {server} asks: {}",
                    text("message").unwrap_or_default()
                ),
                title: Some(server.to_string()),
                notification_type: "elicitation_dialog".into(),
            };
            fire(&scope, &note).await;
            ask_host.await?
        }
    };
    let result = ElicitationResult {
        mcp_server_name: server.to_string(),
        mode: text("mode"),
        elicitation_id: text("elicitation_id"),
        action: answer.get("action").cloned().unwrap_or(json!("cancel")),
        content: answer.get("content").filter(|c| c.is_object()).cloned(),
    };
    let v = fire(&scope, &result).await;
    if let Some(action) = v.elicitation_action {
        answer = elicitation_answer(&action, v.elicitation_content)?;
    }
    Ok(answer)
}

/// The session's Elicitation hooks, as the host channel runs them for an MCP server's
/// elicitation. Weak: the session owns the channel that holds this.
pub(crate) struct SessionElicitation(pub std::sync::Weak<SessionCore>);

impl ElicitationHooks for SessionElicitation {
    fn elicit<'a>(
        &'a self,
        server: &'a str,
        request: &'a Value,
        ask_host: futures::future::BoxFuture<'a, Result<Value, ElicitError>>,
    ) -> futures::future::BoxFuture<'a, Result<Value, ElicitError>> {
        Box::pin(async move {
            match self.0.upgrade() {
                Some(core) => elicit(&core, server, request, ask_host).await,
                None => ask_host.await,
            }
        })
    }
}

/// A hook's elicitation answer in the shape the host's would have.
fn elicitation_answer(action: &str, content: Option<Value>) -> Result<Value, ElicitError> {
    let mut a = json!({"action": action});
    if let Some(c) = content.filter(|_| action == "accept") {
        a["content"] = c;
    }
    let typed: ElicitationResponse = serde_json::from_value(a).map_err(ElicitError::HookAnswer)?;
    serde_json::to_value(typed).map_err(ElicitError::Serialize)
}
