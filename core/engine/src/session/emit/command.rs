//! [`SessionCommand`]s as the messages the actor reads. The actor still takes host
//! messages (the stream-json front end's); a command becomes the message that asks the
//! same, so both front ends reach one set of handlers. Here, beside the lines dcl sends,
//! because these are stream-json lines too (a prompt, dcl's own control requests, the
//! answers to the host requests dcl sent): the wire is built in this module only.

use dcl_events::{
    ContentBlock, ElicitationAction, ImageSource, McpCommand, PermissionDecision, SessionCommand,
};
use dcl_protocol::Message;
use serde_json::{Map, Value, json};

use super::{Emitter, new_uuid};

/// The message that asks what `command` asks. `Interrupt` and `EndInput` go out of band
/// ([`crate::session::Session::command`]) and never reach here; if they do, they are the
/// control request of the same name (`end_input` has none: `None`).
pub(crate) fn into_message(
    command: SessionCommand,
    emitter: &Emitter,
) -> Result<Message, serde_json::Error> {
    let line = match command {
        SessionCommand::Prompt { content, id } => {
            let mut user = json!({
                "type": "user",
                "message": {"role": "user", "content": blocks(&content)},
                "parent_tool_use_id": null,
            });
            if let Some(id) = id {
                user["uuid"] = json!(id);
            }
            user
        }
        SessionCommand::Interrupt | SessionCommand::EndInput => {
            request(json!({"subtype": "interrupt"}))
        }
        SessionCommand::SetMode { mode } => {
            request(json!({"subtype": "set_permission_mode", "mode": mode}))
        }
        SessionCommand::SetModel { model } => {
            request(json!({"subtype": "set_model", "model": model}))
        }
        SessionCommand::ChangeSettings(change) => {
            match (change.settings, change.max_thinking_tokens) {
                (Some(settings), _) => {
                    request(json!({"subtype": "apply_flag_settings", "settings": settings}))
                }
                (None, tokens) => request(json!({
                    "subtype": "set_max_thinking_tokens",
                    "max_thinking_tokens": tokens,
                })),
            }
        }
        SessionCommand::AnswerPermission {
            request_id,
            decision,
        } => success(&request_id, decision_json(decision)),
        SessionCommand::AnswerQuestion {
            request_id,
            answers,
        } => {
            // The tool reads its questions and the answers from one input.
            let mut input = match emitter.take_question(&request_id) {
                Some(Value::Object(o)) => o,
                _ => Map::new(),
            };
            input.insert("answers".into(), json!(answers));
            success(
                &request_id,
                json!({"behavior": "allow", "updatedInput": input}),
            )
        }
        SessionCommand::AnswerHook { request_id, output } => success(&request_id, output),
        SessionCommand::AnswerElicitation {
            request_id,
            action,
            content,
        } => {
            let action = match action {
                ElicitationAction::Accept => "accept",
                ElicitationAction::Decline => "decline",
                ElicitationAction::Cancel => "cancel",
            };
            let mut answer = json!({"action": action});
            if let Some(content) = content {
                answer["content"] = content;
            }
            success(&request_id, answer)
        }
        SessionCommand::Answer {
            request_id,
            result,
            error,
        } => match error {
            Some(error) => json!({
                "type": "control_response",
                "response": {"subtype": "error", "request_id": request_id, "error": error},
            }),
            None => success(&request_id, result),
        },
        SessionCommand::Rewind {
            user_message_id,
            files_only,
            dry_run,
        } => request(json!({
            "subtype": "rewind",
            "user_message_id": user_message_id,
            "scope": if files_only { "files" } else { "both" },
            "dry_run": dry_run,
        })),
        SessionCommand::Mcp(McpCommand::Reconnect { server }) => {
            request(json!({"subtype": "mcp_reconnect", "serverName": server}))
        }
        SessionCommand::Mcp(McpCommand::Toggle { server, enabled }) => request(json!({
            "subtype": "mcp_toggle",
            "serverName": server,
            "enabled": enabled,
        })),
        SessionCommand::Mcp(McpCommand::SetServers { servers }) => {
            request(json!({"subtype": "mcp_set_servers", "servers": servers}))
        }
    };
    serde_json::from_value(line)
}

/// A control request dcl answers itself; its answer reaches the front end as events
/// (the change it made), so the id is dcl's own.
fn request(request: Value) -> Value {
    json!({"type": "control_request", "request_id": new_uuid(), "request": request})
}

fn success(request_id: &str, response: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    })
}

fn decision_json(decision: PermissionDecision) -> Value {
    match decision {
        PermissionDecision::Allow {
            updated_input,
            updated_permissions,
        } => {
            let mut d = json!({"behavior": "allow", "updatedInput": updated_input.unwrap_or_else(|| json!({}))});
            if let Some(p) = updated_permissions {
                d["updatedPermissions"] = p;
            }
            d
        }
        PermissionDecision::Deny {
            message,
            interrupt,
            updated_permissions,
        } => {
            let mut d = json!({"behavior": "deny", "message": message, "interrupt": interrupt});
            if let Some(p) = updated_permissions {
                d["updatedPermissions"] = p;
            }
            d
        }
    }
}

fn blocks(content: &[ContentBlock]) -> Vec<Value> {
    content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => json!({"type": "text", "text": text}),
            ContentBlock::Image {
                source: ImageSource::Base64 { media_type, data },
            } => json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}),
            ContentBlock::Image {
                source: ImageSource::Url { url },
            } => json!({"type": "image", "source": {"type": "url", "url": url}}),
            // The model reads a resource as text naming it (and holding it, if embedded).
            ContentBlock::ResourceLink { uri, name, .. } => json!({
                "type": "text",
                "text": format!("@{}", name.as_deref().unwrap_or(uri)),
            }),
            ContentBlock::Resource { uri, text, .. } => json!({
                "type": "text",
                "text": format!("<resource uri=\"{uri}\">\n{text}\n</resource>"),
            }),
        })
        .collect()
}
