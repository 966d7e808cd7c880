//! Host -> dcl control requests.

use dcl_protocol::{
    ControlRequestEnvelope, ControlResponse, HostRequest, InitializeRequest, RequestParseError,
};
use serde_json::{Map, Value, json};

use super::Actor;
use super::models;
use crate::permissions::PermissionMode;

/// What dcl's Qoder dialect advertises; only what is implemented.
pub const QODER_CAPABILITIES: &[&str] = &["interrupt_receipt_v1", "interrupt_cancel_queued_v1"];

impl Actor {
    pub(super) fn handle_control(&mut self, req: ControlRequestEnvelope) {
        let id = req.request_id.clone();
        let parsed = match HostRequest::parse(&req.request) {
            Ok(p) => p,
            Err(e @ RequestParseError::Unknown(_)) => {
                self.respond(ControlResponse::error(id, e.to_string()));
                return;
            }
            Err(e) => {
                self.respond(ControlResponse::error(id, e.to_string()));
                return;
            }
        };
        let answer = match parsed {
            HostRequest::Initialize(init) => self.initialize(init),
            HostRequest::Interrupt(r) => {
                let still = self.interrupt(r.cancel_queued != Some(false));
                Ok(Some(json!({ "still_queued": still })))
            }
            HostRequest::SetPermissionMode(r) => match PermissionMode::parse(&r.mode) {
                Ok(mode) => {
                    self.shared.live().permission_mode = mode;
                    let mut f = Map::new();
                    f.insert("status".into(), Value::Null);
                    f.insert("permissionMode".into(), json!(mode.as_str()));
                    self.shared.emitter.system("status", f);
                    Ok(Some(json!({ "mode": mode.as_str() })))
                }
                Err(e) => Err(e),
            },
            HostRequest::SetModel(r) => {
                let resolved =
                    models::resolve_alias(r.model.as_deref(), self.shared.clients.default_model());
                let running = self.turn_running();
                let mut live = self.shared.live();
                if running {
                    live.pending_model = Some(resolved.clone());
                } else {
                    live.model = resolved.clone();
                }
                Ok(Some(json!({ "model": resolved })))
            }
            HostRequest::SetMaxThinkingTokens(r) => {
                let value = r.max_thinking_tokens.map(|t| t.min(u32::MAX as u64) as u32);
                let running = self.turn_running();
                let mut live = self.shared.live();
                if running {
                    live.pending_thinking = Some(value);
                } else {
                    live.max_thinking_tokens = value;
                }
                Ok(None)
            }
            HostRequest::McpStatus(_) => Ok(Some(json!({ "mcpServers": [], "servers": [] }))),
            HostRequest::CancelAsyncMessage(r) => {
                let before = self.queue.len();
                let mut cancelled = None;
                self.queue.retain(|p| {
                    if p.uuid == r.message_uuid {
                        cancelled = Some(p.clone());
                        false
                    } else {
                        true
                    }
                });
                if let Some(p) = &cancelled {
                    super::turn::emit_cancelled_result(&self.shared, p);
                }
                Ok(Some(json!({ "cancelled": self.queue.len() != before })))
            }
            other => Err(format!(
                "{} is not implemented yet in dcl {}",
                other.subtype(),
                dcl_protocol::DCL_VERSION
            )),
        };
        match answer {
            Ok(payload) => self.respond(ControlResponse::success(id, payload)),
            Err(e) => self.respond(ControlResponse::error(id, e)),
        }
    }

    fn initialize(&mut self, init: InitializeRequest) -> Result<Option<Value>, String> {
        if self.initialized {
            return Err("Already initialized".to_string());
        }
        let mut warnings = Vec::new();
        if init.hooks.as_ref().is_some_and(|h| !h.is_empty()) {
            warnings.push(
                "hooks are not supported yet by this dcl build; they will not run".to_string(),
            );
        }
        if init.sdk_mcp_servers.as_ref().is_some_and(|s| !s.is_empty()) {
            warnings.push("sdkMcpServers are not supported yet by this dcl build".to_string());
        }
        if init.agents.as_ref().is_some_and(|a| !a.is_empty()) {
            warnings.push("agents are not supported yet by this dcl build".to_string());
        }
        if init.json_schema.is_some() {
            warnings.push(
                "jsonSchema (structured output) is not supported yet by this dcl build".to_string(),
            );
        }
        for w in &warnings {
            tracing::warn!("initialize: {w}");
        }
        {
            let mut live = self.shared.live();
            if let Some(sp) = &init.system_prompt {
                live.system_prompt = Some(sp.joined());
            }
            if let Some(a) = &init.append_system_prompt {
                live.append_system_prompt = Some(a.clone());
            }
        }
        self.initialized = true;
        if self.shared.qoder() {
            super::turn::emit_init(&self.shared);
        }
        let model = self.shared.live().model.clone();
        let mut response = json!({
            "commands": [],
            "agents": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": model_list(&model),
            "account": {
                "tokenSource": "none",
                "apiKeySource": self.shared.clients.api_key_source(),
                "apiProvider": "firstParty",
            },
            "pid": std::process::id(),
            "hook_on_failure_supported": true,
            "claude_code_version": dcl_protocol::PROTOCOL_LEVEL,
            "dcl_version": dcl_protocol::DCL_VERSION,
            "current_permission_mode": self.shared.live().permission_mode.as_str(),
        });
        if let Some(obj) = response.as_object_mut() {
            if self.shared.qoder() {
                obj.insert("capabilities".into(), json!(QODER_CAPABILITIES));
            }
            if !warnings.is_empty() {
                obj.insert("warnings".into(), json!(warnings));
            }
        }
        Ok(Some(response))
    }
}

fn model_list(current: &str) -> Value {
    let mut list = vec![json!({
        "value": models::MOCK_MODEL,
        "resolvedModel": models::MOCK_MODEL,
        "displayName": "Mock model",
        "description": "dcl's built-in deterministic offline model",
    })];
    for (alias, id, name) in [
        ("sonnet", "claude-sonnet-4-5", "Sonnet"),
        ("opus", "claude-opus-4-1", "Opus"),
        ("haiku", "claude-haiku-4-5", "Haiku"),
    ] {
        list.push(json!({"value": alias, "resolvedModel": id, "displayName": name, "description": format!("Claude {name}")}));
    }
    if !list.iter().any(|m| m["resolvedModel"] == current) {
        list.push(json!({"value": current, "resolvedModel": current, "displayName": current, "description": "configured model"}));
    }
    Value::Array(list)
}
