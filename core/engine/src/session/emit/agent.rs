//! The engine's values as [`dcl_events`] types: content, usage, the session's setup and
//! the requests it sends its host. The turn and control code build events with these.

use dcl_events::{
    self as ev, AgentEvent, HostRequest, Item, ItemBody, McpServerInfo, PermissionRequest,
    SessionInfo, TokenUsage, ToolCall,
};
use dcl_protocol::{ContentBlock, DclRequest, KnownBlock, SystemInit, ToolResultContent, Usage};
use serde_json::Value;

/// Blocks of a prompt or result as events carry them; thinking and tool blocks (which
/// are items of their own) are left out, unknown blocks too.
pub(crate) fn content(blocks: &[ContentBlock]) -> Vec<ev::ContentBlock> {
    blocks.iter().filter_map(block).collect()
}

fn block(b: &ContentBlock) -> Option<ev::ContentBlock> {
    match b {
        ContentBlock::Known(KnownBlock::Text(t)) => Some(ev::ContentBlock::text(&t.text)),
        ContentBlock::Known(KnownBlock::Image(i)) => {
            let s = |k: &str| i.source.get(k).and_then(Value::as_str).map(str::to_string);
            let source = match s("type").as_deref() {
                Some("url") => ev::ImageSource::Url { url: s("url")? },
                _ => ev::ImageSource::Base64 {
                    media_type: s("media_type")?,
                    data: s("data")?,
                },
            };
            Some(ev::ContentBlock::Image { source })
        }
        _ => None,
    }
}

/// A tool result's content as events carry it.
pub(crate) fn result_content(c: &ToolResultContent) -> Vec<ev::ContentBlock> {
    match c {
        ToolResultContent::Text(t) => vec![ev::ContentBlock::text(t)],
        ToolResultContent::Blocks(b) => content(b),
    }
}

pub(crate) fn usage(u: &Usage) -> TokenUsage {
    TokenUsage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
    }
}

/// What `system/init` says of the session.
pub(crate) fn session_info(init: &SystemInit, session_id: String) -> SessionInfo {
    SessionInfo {
        session_id,
        cwd: init.cwd.clone(),
        model: init.model.clone(),
        permission_mode: init.permission_mode.clone(),
        tools: init.tools.clone(),
        mcp_servers: init
            .mcp_servers
            .iter()
            .map(|s| McpServerInfo {
                name: s.name.clone(),
                status: s.status.clone(),
            })
            .collect(),
        slash_commands: init.slash_commands.clone(),
        agents: init.agents.clone(),
    }
}

/// The tool call item `id` as a model block started it.
pub(crate) fn tool_call_item(id: &str, name: &str, input: &Value) -> Item {
    Item::new(
        id,
        ItemBody::ToolCall(ToolCall::describe(name, input.clone())),
    )
}

/// A request to the host (`request`, as sent under `request_id`) as the event a front end
/// answers with a command; `call` finds the tool call it is about, when already started.
pub(crate) fn host_request(
    request_id: &str,
    request: &Value,
    call: impl FnOnce(&str) -> Option<ToolCall>,
) -> AgentEvent {
    let request_id = request_id.to_string();
    let other = |request_id: String| HostRequest::Other {
        request_id,
        subtype: request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        request: request.clone(),
    };
    let asked = match DclRequest::parse(request) {
        Ok(DclRequest::CanUseTool(r)) if r.tool_name == "AskUserQuestion" => {
            HostRequest::Question {
                request_id,
                tool_call_id: r.tool_use_id,
                questions: r.input.get("questions").cloned().unwrap_or(Value::Null),
            }
        }
        Ok(DclRequest::CanUseTool(r)) => {
            let tool_call = match call(&r.tool_use_id) {
                // The host may see a different input than the model gave (a hook's).
                Some(mut c) if c.raw_input == r.input => {
                    c.status = ev::ToolStatus::Pending;
                    c
                }
                _ => ToolCall::describe(r.tool_name.clone(), r.input.clone()),
            };
            HostRequest::Permission(PermissionRequest {
                request_id,
                tool_call_id: r.tool_use_id,
                tool_call,
                reason: r.decision_reason_type.or(r.description),
                suggestions: (!r.permission_suggestions.is_empty())
                    .then(|| Value::Array(r.permission_suggestions)),
                blocked_path: r.blocked_path,
            })
        }
        Ok(DclRequest::HookCallback(r)) => HostRequest::HookCallback {
            request_id,
            callback_id: r.callback_id,
            input: r.input,
            tool_call_id: r.tool_use_id,
        },
        Ok(DclRequest::Elicitation(r)) => HostRequest::Elicitation {
            request_id,
            server: r.mcp_server_name,
            message: r.message,
            schema: r.requested_schema,
            url: r.url,
        },
        _ => other(request_id),
    };
    AgentEvent::Request(asked)
}
