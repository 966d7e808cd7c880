//! Host -> dcl control requests.

use dcl_protocol::{
    ControlRequestEnvelope, ControlResponse, HostRequest, InitializeRequest, RequestParseError,
};
use serde_json::{Map, Value, json};

use super::actor::Actor;
use super::hooks::HookRegistry;
use super::models;
use super::services::SessionCore;
use crate::permissions::PermissionMode;
use std::sync::Arc;

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
                    self.core.state.with(|s| s.live.permission_mode = mode);
                    let mut f = Map::new();
                    f.insert("status".into(), Value::Null);
                    f.insert("permissionMode".into(), json!(mode.as_str()));
                    self.core.services.emitter.system("status", f);
                    Ok(Some(json!({ "mode": mode.as_str() })))
                }
                Err(e) => Err(e),
            },
            HostRequest::SetModel(r) => {
                let resolved = models::resolve_alias(
                    r.model.as_deref(),
                    self.core.services.clients.default_model(),
                );
                let running = self.turn_running();
                self.core.state.with(|s| {
                    if running {
                        s.live.pending_model = Some(resolved.clone());
                    } else {
                        s.live.model = resolved.clone();
                    }
                });
                Ok(Some(json!({ "model": resolved })))
            }
            HostRequest::SetMaxThinkingTokens(r) => {
                let value = r.max_thinking_tokens.map(|t| t.min(u32::MAX as u64) as u32);
                let effort = super::effort::from_thinking_tokens(r.max_thinking_tokens);
                let running = self.turn_running();
                self.core.state.with(|s| {
                    if running {
                        s.live.pending_thinking = Some(value);
                        s.live.pending_effort = Some(effort);
                    } else {
                        s.live.max_thinking_tokens = value;
                        s.live.effort = effort;
                    }
                });
                Ok(None)
            }
            HostRequest::McpStatus(_) => {
                // Servers still connecting settle first (each within its connect timeout).
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    // SDKs may send mcp_status right alongside initialize, which is where
                    // host servers are declared: give that initialize a moment to land.
                    let mut init = core.services.initialized.subscribe();
                    let _ = tokio::time::timeout(
                        std::time::Duration::from_millis(500),
                        init.wait_for(|done| *done),
                    )
                    .await;
                    core.mcp_ready().await;
                    let status = json!(core.services.mcp.status());
                    Ok(Some(json!({ "mcpServers": status, "servers": status })))
                });
                return;
            }
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
                    super::turn::emit_cancelled_result(&self.core, p);
                }
                Ok(Some(json!({ "cancelled": self.queue.len() != before })))
            }
            HostRequest::ApplyFlagSettings(r) => self.apply_flag_settings(r.settings),
            HostRequest::GetSettings(_) => Ok(Some(self.get_settings())),
            HostRequest::GetContextUsage(_) => Ok(Some(super::context::usage(&self.core))),
            HostRequest::SeedReadState(r) => {
                // dcl's edit tools read the file afresh on every call, so there is no
                // read cache to seed; the request is still checked so mistakes surface.
                if r.path.trim().is_empty() {
                    Err("seed_read_state: path is empty".to_string())
                } else if !r.mtime.is_finite() || r.mtime < 0.0 {
                    Err(format!("seed_read_state: invalid mtime {}", r.mtime))
                } else {
                    Ok(None)
                }
            }
            HostRequest::StopTask(r) => {
                let agent = self
                    .core
                    .state
                    .with(|s| s.background_agents.get(&r.task_id).cloned());
                match agent {
                    // The agent's task reports `task_notification` (stopped) as it ends.
                    Some(cancel) => {
                        cancel.cancel();
                        Ok(None)
                    }
                    None => self
                        .core
                        .services
                        .shell
                        .background
                        .stop(&r.task_id)
                        .map(|()| None)
                        .map_err(|e| format!("stop_task: {e}")),
                }
            }
            HostRequest::RewindFiles(_) => Err(
                "rewind_files: file checkpoints are not available in this dcl build, so nothing can be rewound"
                    .to_string(),
            ),
            HostRequest::ReloadPlugins(_) => Ok(Some(json!({
                "commands": [],
                "agents": [],
                "plugins": [],
                "mcpServers": self.core.services.mcp.status(),
                "error_count": 0,
            }))),
            HostRequest::McpToggle(r) => {
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    core.services
                        .mcp
                        .toggle(&r.server_name, r.enabled)
                        .await
                        .map(|()| None)
                        .map_err(|e| format!("mcp_toggle: {e}"))
                });
                return;
            }
            HostRequest::McpReconnect(r) => {
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    core.services
                        .mcp
                        .reconnect(&r.server_name)
                        .await
                        .map(|()| None)
                        .map_err(|e| format!("mcp_reconnect: {e}"))
                });
                return;
            }
            HostRequest::McpMessage(r) => {
                // Server-initiated messages from a host's MCP server (TS SDK); dcl's MCP
                // client does not subscribe to any, so they are acknowledged and dropped.
                tracing::debug!("ignoring a server-initiated MCP message from {}", r.server_name);
                Ok(Some(json!({})))
            }
            HostRequest::McpSetServers(_) => Err(
                "mcp_set_servers is not supported: configure MCP servers with `dcl mcp add`, or provide them from the host through initialize.sdkMcpServers"
                    .to_string(),
            ),
            other => Err(format!(
                "{} is not supported by dcl {}",
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
        let (hooks, mut warnings) = HookRegistry::from_initialize(&init)?;
        if let Some(schema) = &init.json_schema {
            let compiled = std::sync::Arc::new(
                crate::structured::OutputSchema::compile(schema)
                    .map_err(|e| format!("initialize.jsonSchema: {e}"))?,
            );
            // `--json-schema` wins over the host's schema.
            let kept = self.core.state.with(|s| {
                if s.json_schema.is_none() {
                    s.json_schema = Some(schema.clone());
                    s.output_schema = Some(compiled);
                }
                s.json_schema.clone().unwrap_or_default()
            });
            if &kept != schema {
                warnings.push(
                    "initialize.jsonSchema differs from --json-schema; --json-schema is used"
                        .into(),
                );
            }
        }
        self.core
            .start_sdk_servers(init.sdk_mcp_servers.clone().unwrap_or_default());
        if let Some(defs) = &init.agents {
            let mut catalog = self.core.state.with(|s| s.agents.clone());
            catalog.add_definitions(defs, crate::agents::AgentSource::Initialize)?;
            if let Some(name) = &init.agent
                && catalog.get(name).is_none()
            {
                return Err(format!(
                    "initialize.agent {name:?}: no such agent (known: {})",
                    catalog.names().join(", ")
                ));
            }
            self.core.state.with(|s| s.agents = catalog);
        } else if let Some(name) = &init.agent
            && self.core.state.with(|s| s.agents.get(name).is_none())
        {
            return Err(format!("initialize.agent {name:?}: no such agent"));
        }
        warnings.extend(
            self.core
                .services
                .opts
                .ignored_flags
                .iter()
                .map(|f| format!("{f}: accepted for compatibility but not supported yet; ignored")),
        );
        for w in &warnings {
            tracing::warn!("initialize: {w}");
        }
        let (model, mode, agents) = self.core.state.with(|s| {
            s.hooks = hooks;
            if let Some(name) = &init.agent {
                s.main_agent = Some(name.clone());
            }
            s.forward_subagent_text = init.forward_subagent_text == Some(true);
            s.agent_progress = init.agent_progress_summaries == Some(true);
            s.prompt_suggestions = init.prompt_suggestions == Some(true);
            if let Some(sp) = &init.system_prompt {
                s.live.system_prompt = Some(sp.joined());
            }
            if let Some(a) = &init.append_system_prompt {
                s.live.append_system_prompt = Some(a.clone());
            }
            let agents: Vec<Value> = s
                .agents
                .iter()
                .map(|a| {
                    let mut m = Map::new();
                    m.insert("name".into(), json!(a.name));
                    m.insert("description".into(), json!(a.description));
                    if let Some(model) = &a.model {
                        m.insert("model".into(), json!(model));
                    }
                    Value::Object(m)
                })
                .collect();
            (s.live.model.clone(), s.live.permission_mode, agents)
        });
        self.initialized = true;
        self.core.services.initialized.send_replace(true);
        if self.core.services.qoder() {
            super::init::emit_init(&self.core);
        }
        let mut response = json!({
            "commands": [],
            "agents": agents,
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": model_list(&model),
            "account": {
                "tokenSource": "none",
                "apiKeySource": self.core.services.clients.api_key_source(),
                "apiProvider": "firstParty",
            },
            "pid": std::process::id(),
            "hook_on_failure_supported": true,
            "claude_code_version": dcl_protocol::PROTOCOL_LEVEL,
            "dcl_version": dcl_protocol::DCL_VERSION,
            "current_permission_mode": mode.as_str(),
        });
        if let Some(obj) = response.as_object_mut() {
            if self.core.services.qoder() {
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

/// Keys `apply_flag_settings` may change, and where they land in the settings.
const FLAG_KEYS: &[&str] = &["model", "effortLevel", "permissions"];

impl Actor {
    fn apply_flag_settings(
        &mut self,
        settings: Map<String, Value>,
    ) -> Result<Option<Value>, String> {
        // Validate everything before changing anything.
        let mut model = None;
        let mut effort = None;
        let mut mode = None;
        for (k, v) in &settings {
            match k.as_str() {
                "model" => {
                    model = Some(match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        _ => {
                            return Err(
                                "apply_flag_settings: model must be a string or null".into()
                            );
                        }
                    })
                }
                "effortLevel" => {
                    effort = Some(match v {
                        Value::Null => None,
                        Value::String(s) => Some(super::effort::parse(s)?),
                        _ => {
                            return Err(
                                "apply_flag_settings: effortLevel must be a string or null".into(),
                            );
                        }
                    })
                }
                "permissions" => {
                    let obj = v
                        .as_object()
                        .ok_or("apply_flag_settings: permissions must be an object")?;
                    for (pk, pv) in obj {
                        if pk != "defaultMode" {
                            return Err(format!(
                                "apply_flag_settings: permissions.{pk} cannot be changed this way (only permissions.defaultMode)"
                            ));
                        }
                        let m = pv.as_str().ok_or(
                            "apply_flag_settings: permissions.defaultMode must be a string",
                        )?;
                        mode = Some(PermissionMode::parse(m)?);
                    }
                }
                other => {
                    return Err(format!(
                        "apply_flag_settings: unsupported key {other:?} (supported: {})",
                        FLAG_KEYS.join(", ")
                    ));
                }
            }
        }
        let running = self.turn_running();
        let default_model = self.core.services.clients.default_model();
        let applied = self.core.state.with(|s| {
            if let Some(m) = &model {
                s.settings
                    .set_flag("model", m.clone().map_or(Value::Null, Value::String));
            }
            if let Some(e) = &effort {
                s.settings
                    .set_flag("effortLevel", e.clone().map_or(Value::Null, Value::String));
            }
            if let Some(m) = mode {
                s.settings
                    .set_flag("permissions.defaultMode", json!(m.as_str()));
            }
            let live = &mut s.live;
            if let Some(m) = model {
                let resolved = models::resolve_alias(m.as_deref(), default_model);
                if running {
                    live.pending_model = Some(resolved);
                } else {
                    live.model = resolved;
                }
            }
            if let Some(e) = effort {
                if running {
                    live.pending_effort = Some(e);
                } else {
                    live.effort = e;
                }
            }
            if let Some(m) = mode {
                // Permission modes act at once, even during a turn.
                live.permission_mode = m;
            }
            json!({ "applied": { "model": live.pending_model.clone().unwrap_or_else(|| live.model.clone()), "effort": live.effort } })
        });
        Ok(Some(applied))
    }

    fn get_settings(&self) -> Value {
        let (settings, live) = self
            .core
            .state
            .with(|s| (s.settings.clone(), s.live.clone()));
        let sources: Vec<Value> = settings
            .layers
            .iter()
            .map(|l| {
                let mut m = Map::new();
                m.insert("source".into(), json!(l.source));
                if let Some(p) = &l.path {
                    m.insert("path".into(), json!(p.display().to_string()));
                }
                m.insert("settings".into(), Value::Object(l.settings.clone()));
                Value::Object(m)
            })
            .collect();
        json!({
            "effective": settings.effective(),
            "sources": sources,
            "applied": { "model": live.model, "effort": live.effort },
        })
    }
}

impl Actor {
    /// Answers a request whose work takes time (MCP connects) from a task, so the actor
    /// keeps serving meanwhile.
    fn answer_later<F, Fut>(&self, request_id: String, work: F)
    where
        F: FnOnce(Arc<SessionCore>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<Option<Value>, String>> + Send + 'static,
    {
        let core = self.core.clone();
        tokio::spawn(async move {
            let response = match work(core.clone()).await {
                Ok(payload) => ControlResponse::success(request_id, payload),
                Err(e) => ControlResponse::error(request_id, e),
            };
            core.services
                .emitter
                .emit(dcl_protocol::Message::ControlResponse(
                    dcl_protocol::ControlResponseEnvelope {
                        response,
                        extra: Default::default(),
                    },
                ));
        });
    }
}
