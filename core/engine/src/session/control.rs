//! Host -> dcl control requests.

use dcl_protocol::{
    AccountInfo, AgentInfo, AppliedSettings, ApplyFlagSettingsResponse, CancelAsyncMessageResponse,
    ControlRequestEnvelope, ControlResponse, EmptyResponse, Extra, GetModelsResponse,
    GetSettingsResponse, HostRequest, InitializeRequest, InitializeResponse, InterruptResponse,
    McpStatusResponse, RequestParseError, SetPermissionModeResponse, SettingsSource, SystemStatus,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::actor::Actor;
use super::hook_registry::HookRegistry;
use super::init::{mode_name, qoder_capabilities};
use super::mcp::mcp_server_status;
use super::models;
use super::services::SessionCore;
use crate::permissions::{InvalidPermissionMode, PermissionMode};
use std::sync::Arc;

/// Why a control request is answered with an `error` response. The text is that
/// response's `error`: SDKs show it to their users and tests assert on it, so each
/// variant keeps the wording dcl has always sent.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error("Already initialized")]
    AlreadyInitialized,
    #[error(transparent)]
    Hooks(#[from] super::hook_registry::HooksConfigError),
    #[error("initialize.agent {name:?}: no such agent (known: {known})")]
    UnknownInitializeAgent { name: String, known: String },
    #[error("initialize.agent {name:?}: no such agent")]
    NoSuchInitializeAgent { name: String },
    #[error("initialize.reasoningEffort must be a string")]
    ReasoningEffortNotAString,
    /// A value of a setting that is not one of its values (`permissionMode`, an effort).
    #[error(transparent)]
    PermissionMode(#[from] InvalidPermissionMode),
    #[error(transparent)]
    Effort(#[from] super::effort::UnknownEffort),
    #[error(transparent)]
    Agents(#[from] crate::agents::AgentDefinitionError),
    /// `apply_flag_settings` with a key of the wrong type (`key` says which, `expected` what).
    #[error("apply_flag_settings: {key} must be {expected}")]
    FlagSettingType {
        key: &'static str,
        expected: &'static str,
    },
    #[error(
        "apply_flag_settings: permissions.{0} cannot be changed this way (only permissions.defaultMode)"
    )]
    FlagSettingPermission(String),
    #[error("apply_flag_settings: unsupported key {key:?} (supported: {})", FLAG_KEYS.join(", "))]
    FlagSettingUnsupported { key: String },
    #[error("seed_read_state: path is empty")]
    SeedPathEmpty,
    #[error("seed_read_state: invalid mtime {0}")]
    SeedInvalidMtime(f64),
    #[error("rename_session: title is empty")]
    RenameTitleEmpty,
    #[error("rename_session: session {id} is no longer this process's session ({current})")]
    RenameOtherSession { id: String, current: String },
    #[error("update_queued_message: content is missing")]
    QueuedContentMissing,
    #[error("update_queued_message: content is empty")]
    QueuedContentEmpty,
    #[error(
        "set_cwd is not supported by dcl: a session's working directory is fixed when it opens (start a new session in {0})"
    )]
    SetCwdUnsupported(String),
    #[error(
        "register_repo_root: {0} is not supported by dcl (send reload_plugins separately; memory files are read when the session opens)"
    )]
    RepoRootReloadUnsupported(&'static str),
    #[error("register_repo_root: {} is not a directory", .0.display())]
    RepoRootNotADirectory(std::path::PathBuf),
    #[error("set_model: a PreModelSwitch hook refused the switch to {model}: {reason}")]
    ModelSwitchRefused { model: String, reason: String },
    #[error(
        "mcp_set_servers is not supported: configure MCP servers with `dcl mcp add`, or provide them from the host through initialize.sdkMcpServers"
    )]
    McpSetServersUnsupported,
    #[error("{subtype} is not supported by dcl {}", dcl_protocol::DCL_VERSION)]
    Unsupported { subtype: String },
    #[error(transparent)]
    Rewind(#[from] super::checkpoints::RewindError),
    #[error("response serialization failed: {0}")]
    Serialize(serde_json::Error),
    /// What a request (or one of its fields) ran into, prefixed with its name as in
    /// `stop_task: No shell found with ID: …` or `initialize.jsonSchema: …`.
    #[error("{what}: {source}")]
    Failed {
        what: &'static str,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl ControlError {
    /// `what` failed with `source` (anything that converts to a boxed error, a message
    /// from a crate that words its errors as text included).
    pub(crate) fn failed(
        what: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ControlError {
        ControlError::Failed {
            what,
            source: source.into(),
        }
    }
}

/// A control request's answer: the `success` payload, or the `error`.
pub(crate) type Answer = Result<Option<Value>, ControlError>;

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
                answer(InterruptResponse {
                    still_queued: still,
                    ..InterruptResponse::default()
                })
            }
            HostRequest::SetPermissionMode(r) => match PermissionMode::parse(&r.mode) {
                Ok(mode) => {
                    self.core.state.with(|s| s.live.permission_mode = mode);
                    self.core
                        .services
                        .emitter
                        .system(SystemStatus::permission_mode_changed(mode_name(mode)));
                    answer(SetPermissionModeResponse {
                        mode: mode_name(mode).into(),
                        extra: Extra::new(),
                    })
                }
                Err(e) => Err(e.into()),
            },
            HostRequest::SetModel(r) => match self.set_model(id.clone(), r) {
                Some(a) => a,
                None => return,
            },
            HostRequest::RenameSession(r) => self.rename_session(r),
            HostRequest::UpdateQueuedMessage(r) => self.update_queued_message(r),
            HostRequest::ListPermissionRules(_) => self.list_permission_rules(),
            HostRequest::GetHooksListing(_) => answer(super::turn::hooks::listing(&self.core)),
            HostRequest::SetCwd(r) => self.set_cwd(r),
            HostRequest::RegisterRepoRoot(r) => {
                self.register_repo_root(id.clone(), r);
                return;
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
                    let servers = core.services.mcp.status();
                    answer(McpStatusResponse::new(
                        servers.into_iter().map(mcp_server_status).collect(),
                    ))
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
                answer(CancelAsyncMessageResponse {
                    cancelled: self.queue.len() != before,
                    extra: Extra::new(),
                })
            }
            HostRequest::ApplyFlagSettings(r) => self.apply_flag_settings(r.settings),
            HostRequest::GetSettings(_) => answer(self.get_settings()),
            HostRequest::GetContextUsage(_) => answer(super::context::usage(&self.core)),
            HostRequest::SeedReadState(r) => {
                // dcl's edit tools read the file afresh on every call, so there is no
                // read cache to seed; the request is still checked so mistakes surface.
                if r.path.trim().is_empty() {
                    Err(ControlError::SeedPathEmpty)
                } else if !r.mtime.is_finite() || r.mtime < 0.0 {
                    Err(ControlError::SeedInvalidMtime(r.mtime))
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
                        .map_err(|e| ControlError::failed("stop_task", e)),
                }
            }
            HostRequest::RewindFiles(r) => {
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    // A running turn holds the conversation: the rewind waits for it to end
                    // so it never races the turn's own edits.
                    let _turn = core.conversation.lock().await;
                    let dry_run = r.dry_run.unwrap_or(false);
                    let checkpoints = &core.services.checkpoints;
                    Ok(Some(checkpoints.rewind(r.user_message_id, dry_run).await?))
                });
                return;
            }
            HostRequest::ReloadPlugins(_) => {
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    serde_json::to_value(super::extensions::reload(core).await)
                        .map(Some)
                        .map_err(|e| ControlError::failed("reload_plugins", e))
                });
                return;
            }
            HostRequest::McpToggle(r) => {
                self.answer_later(id.clone(), async move |core: Arc<SessionCore>| {
                    core.services
                        .mcp
                        .toggle(&r.server_name, r.enabled)
                        .await
                        .map(|()| None)
                        .map_err(|e| ControlError::failed("mcp_toggle", e))
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
                        .map_err(|e| ControlError::failed("mcp_reconnect", e))
                });
                return;
            }
            HostRequest::McpMessage(r) => {
                // Server-initiated messages from a host's MCP server (TS SDK); dcl's MCP
                // client does not subscribe to any, so they are acknowledged and dropped.
                tracing::debug!(
                    "ignoring a server-initiated MCP message from {}",
                    r.server_name
                );
                answer(EmptyResponse::default())
            }
            HostRequest::GetModels(_) => answer(GetModelsResponse {
                models: self.catalogue(),
                extra: Extra::new(),
            }),
            HostRequest::McpSetServers(_) => Err(ControlError::McpSetServersUnsupported),
            other => Err(ControlError::Unsupported {
                subtype: other.subtype().to_string(),
            }),
        };
        match answer {
            Ok(payload) => self.respond(ControlResponse::success(id, payload)),
            Err(e) => self.respond(ControlResponse::error(id, e.to_string())),
        }
    }

    fn initialize(&mut self, init: InitializeRequest) -> Answer {
        if self.initialized {
            return Err(ControlError::AlreadyInitialized);
        }
        let (hooks, mut warnings) = HookRegistry::from_initialize(&init)?;
        warnings.extend(self.initialize_model(&init)?);
        if init.enable_file_checkpointing == Some(true) {
            self.core.services.checkpoints.enable();
        }
        if let Some(schema) = &init.json_schema {
            let compiled = std::sync::Arc::new(
                crate::structured::OutputSchema::compile(schema)
                    .map_err(|e| ControlError::failed("initialize.jsonSchema", e))?,
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
        let delivery = self.initialize_delivery(&init, &mut warnings)?;
        if let Some(defs) = &init.agents {
            let mut catalog = self.core.state.with(|s| s.agents.clone());
            catalog.add_definitions(defs, crate::agents::AgentSource::Initialize)?;
            if let Some(name) = &init.agent
                && catalog.get(name).is_none()
            {
                return Err(ControlError::UnknownInitializeAgent {
                    name: name.clone(),
                    known: catalog.names().join(", "),
                });
            }
            self.core.state.with(|s| s.agents = catalog);
        } else if let Some(name) = &init.agent
            && self.core.state.with(|s| s.agents.get(name).is_none())
        {
            return Err(ControlError::NoSuchInitializeAgent { name: name.clone() });
        }
        if let Some(allowed) = &init.skills {
            super::extensions::restrict_skills(&self.core, allowed.clone());
        }
        warnings.extend(crate::extensions::read(
            &self.core.services.extensions,
            |e| {
                let mut all = e.warnings.clone();
                all.extend(e.not_acted_on.iter().cloned());
                all
            },
        ));
        warnings.extend(
            self.core
                .services
                .opts
                .ignored_flags
                .iter()
                .map(|f| format!("{f}: accepted for compatibility but not supported yet; ignored")),
        );
        warnings.extend(self.core.services.output_style.warning.clone());
        // Containment or sandbox mechanisms this machine lacks (issue 10).
        // What this machine lacks, if a tool process already found out: probing forks, and
        // a session that never runs a tool must not pay for it at start-up (the first tool
        // process probes, and its warning is logged then).
        if let Some(support) = dcl_sandbox::probe::known() {
            warnings.extend(support.missing.iter().cloned());
        }
        if let Some(sb) = self.core.services.shell.sandbox() {
            warnings.extend(sb.warnings().iter().cloned());
        }
        for w in &warnings {
            tracing::warn!("initialize: {w}");
        }
        let (mode, agents) = self.core.state.with(|s| {
            s.hooks = hooks;
            if let Some(name) = &init.agent {
                s.main_agent = Some(name.clone());
            }
            s.forward_subagent_text = init.forward_subagent_text == Some(true);
            s.agent_progress = init.agent_progress_summaries == Some(true);
            s.prompt_suggestions = init.prompt_suggestions == Some(true);
            s.model_policy = init.model_policy_provider == Some(true);
            if let Some(sp) = &init.system_prompt {
                s.live.system_prompt = Some(sp.joined());
            }
            if let Some(a) = &init.append_system_prompt {
                s.live.append_system_prompt = Some(a.clone());
            }
            let agents: Vec<AgentInfo> = s
                .agents
                .iter()
                .map(|a| AgentInfo {
                    name: a.name.clone(),
                    description: a.description.clone(),
                    model: a.model.clone(),
                    extra: Extra::new(),
                })
                .collect();
            (s.live.permission_mode, agents)
        });
        self.initialized = true;
        self.core.services.initialized.send_replace(true);
        if self.core.services.qoder() {
            super::init::emit_init(&self.core);
        }
        for m in self.core.persistence.fork_barrier() {
            self.core.services.emitter.emit(m);
        }
        let mut response = InitializeResponse {
            agents,
            commands: super::extensions::command_infos(&self.core),
            output_style: self.core.services.output_style.name.clone(),
            available_output_styles: self.core.services.output_styles.clone(),
            ..InitializeResponse::default()
        }
        .with_models(self.catalogue())
        .with_account(AccountInfo::new(
            "none",
            self.core.services.clients.api_key_source(),
            "firstParty",
        ))
        .with_permission_mode(mode_name(mode))
        .with_warnings(warnings);
        if self.core.services.qoder() {
            response = response.with_capabilities(qoder_capabilities());
        }
        response.hooks_applied = init.hooks.as_ref().map(|h| !h.is_empty()).filter(|h| *h);
        response.settings_applied = delivery.settings;
        response.disallowed_tools_applied = delivery.disallowed_tools;
        response.managed_settings_applied = delivery.managed_settings;
        response.mcp_servers_applied = delivery.mcp_servers;
        response.plugins_applied = delivery.plugins;
        answer(response)
    }
}

/// The `*_applied` answers for what `initialize` delivered (`None`: not carried).
#[derive(Default)]
struct Delivery {
    settings: Option<bool>,
    disallowed_tools: Option<bool>,
    managed_settings: Option<bool>,
    mcp_servers: Option<bool>,
    plugins: Option<bool>,
}

impl Actor {
    /// What `initialize` delivered: fields the front end folded into the options before the
    /// session was built (`--await-initialize`) are in force. Without that, external
    /// `mcpServers` still start now; settings, tool rules and plugins shape the session as
    /// it is built, so they are answered as not applied, with a warning saying why.
    fn initialize_delivery(
        &self,
        init: &InitializeRequest,
        warnings: &mut Vec<String>,
    ) -> Result<Delivery, ControlError> {
        let opts = &self.core.services.opts;
        let applied = |field: &str, carried: bool| crate::delivery::applied(opts, field, carried);
        let mut d = Delivery {
            settings: applied("settings", init.settings.is_some()),
            disallowed_tools: applied("disallowedTools", init.disallowed_tools.is_some()),
            managed_settings: applied("managedSettings", init.managed_settings.is_some()),
            mcp_servers: applied("mcpServers", init.mcp_servers.is_some()),
            plugins: applied("plugins", init.plugins.is_some()),
        };
        if d.mcp_servers == Some(false)
            && let Some(servers) = &init.mcp_servers
        {
            let config = serde_json::json!({ "mcpServers": servers }).to_string();
            let parsed = dcl_mcp::parse_mcp_config(&config, &self.core.services.cwd)
                .map_err(|e| ControlError::failed("initialize.mcpServers", e))?;
            self.core
                .start_delivered_servers(parsed.into_iter().collect());
            d.mcp_servers = Some(true);
        }
        for (field, state) in [
            ("settings", d.settings),
            ("disallowedTools", d.disallowed_tools),
            ("managedSettings", d.managed_settings),
            ("plugins", d.plugins),
        ] {
            if state == Some(false) {
                warnings.push(format!(
                    "initialize.{field} arrived after the session was built and is not applied; start dcl with --await-initialize to deliver it in initialize"
                ));
            }
        }
        Ok(d)
    }
}

/// A typed answer payload.
pub(crate) fn answer(payload: impl Serialize) -> Answer {
    serde_json::to_value(payload)
        .map(Some)
        .map_err(ControlError::Serialize)
}

impl Actor {
    /// `initialize.model` and `initialize.reasoningEffort` (TS hosts): the session's model
    /// and effort, unless `--model` / `--effort` already chose them (the flag wins, as with
    /// `jsonSchema`; a warning says so). `context_window` is not acted on and says so.
    fn initialize_model(&self, init: &InitializeRequest) -> Result<Vec<String>, ControlError> {
        // Validate everything before changing anything.
        let effort = match init.extra.get("reasoningEffort") {
            None | Some(Value::Null) => None,
            Some(Value::String(level)) => Some(
                super::effort::parse(level)
                    .map_err(|e| ControlError::failed("initialize.reasoningEffort", e))?,
            ),
            Some(_) => return Err(ControlError::ReasoningEffortNotAString),
        };
        let mut warnings = Vec::new();
        let opts = &self.core.services.opts;
        let default = self.core.services.clients.default_model();
        if let Some(m) = init.model.as_deref() {
            let asked = models::resolve_alias(Some(m), default);
            match opts.model.as_deref() {
                Some(flag) if models::resolve_alias(Some(flag), default) != asked => warnings
                    .push(format!(
                        "initialize.model {m:?} differs from the configured model {flag:?} (--model or DCL_MODEL), which is used"
                    )),
                Some(_) => {}
                None => self.core.state.with(|s| s.live.model = asked),
            }
        }
        if let Some(level) = effort {
            match opts.effort.as_deref() {
                Some(flag) if super::effort::parse(flag).ok().as_ref() != Some(&level) => warnings
                    .push(format!(
                        "initialize.reasoningEffort {level:?} differs from --effort {flag:?}; --effort is used"
                    )),
                Some(_) => {}
                None => self.core.state.with(|s| s.live.effort = Some(level)),
            }
        }
        if init.extra.contains_key("context_window") {
            warnings.push("initialize.context_window is not supported by dcl; ignored".into());
        }
        Ok(warnings)
    }

    /// `initialize.models` and Qoder `get_models`: the catalogue as this session sees it.
    fn catalogue(&self) -> Vec<dcl_protocol::ModelInfo> {
        let (current, thinking) = self
            .core
            .state
            .with(|s| (s.live.model.clone(), super::effort::current_level(&s.live)));
        let services = &self.core.services;
        models::catalogue(&models::CatalogueView {
            clients: &services.clients,
            current: &current,
            thinking: thinking.as_deref(),
            qoder: services.qoder(),
        })
    }
}

/// Keys `apply_flag_settings` may change, and where they land in the settings.
const FLAG_KEYS: &[&str] = &["model", "effortLevel", "permissions"];

impl Actor {
    fn apply_flag_settings(&mut self, settings: Map<String, Value>) -> Answer {
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
                            return Err(ControlError::FlagSettingType {
                                key: "model",
                                expected: "a string or null",
                            });
                        }
                    })
                }
                "effortLevel" => {
                    effort = Some(match v {
                        Value::Null => None,
                        Value::String(s) => Some(super::effort::parse(s)?),
                        _ => {
                            return Err(ControlError::FlagSettingType {
                                key: "effortLevel",
                                expected: "a string or null",
                            });
                        }
                    })
                }
                "permissions" => {
                    let obj = v.as_object().ok_or(ControlError::FlagSettingType {
                        key: "permissions",
                        expected: "an object",
                    })?;
                    for (pk, pv) in obj {
                        if pk != "defaultMode" {
                            return Err(ControlError::FlagSettingPermission(pk.clone()));
                        }
                        let m = pv.as_str().ok_or(ControlError::FlagSettingType {
                            key: "permissions.defaultMode",
                            expected: "a string",
                        })?;
                        mode = Some(PermissionMode::parse(m)?);
                    }
                }
                other => {
                    return Err(ControlError::FlagSettingUnsupported {
                        key: other.to_string(),
                    });
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
            let mut applied = Map::new();
            applied.insert(
                "model".into(),
                json!(
                    live.pending_model
                        .clone()
                        .unwrap_or_else(|| live.model.clone())
                ),
            );
            applied.insert("effort".into(), json!(live.effort));
            ApplyFlagSettingsResponse {
                applied: Some(applied),
                extra: Extra::new(),
            }
        });
        answer(applied)
    }

    /// `applied.sandbox` (issue 24): the session's sandbox and what it cannot do here,
    /// so a host sees missing protections without a fresh `initialize`.
    fn sandbox_applied(&self) -> Extra {
        let mut extra = Extra::new();
        if let Some(sb) = self.core.services.shell.sandbox() {
            extra.insert(
                "sandbox".into(),
                serde_json::json!({"enabled": true, "warnings": sb.warnings()}),
            );
        }
        extra
    }

    fn get_settings(&self) -> GetSettingsResponse {
        let (settings, live) = self
            .core
            .state
            .with(|s| (s.settings.clone(), s.live.clone()));
        let sources = settings
            .layers
            .iter()
            .map(|l| SettingsSource {
                source: l.source.to_string(),
                path: l.path.as_ref().map(|p| p.display().to_string()),
                // Values of secret-looking keys never leave dcl (WIRE "tool environment").
                settings: match super::remote_store::redact_store_url(
                    crate::tools::environment::redact_settings(&Value::Object(l.settings.clone())),
                ) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                },
                extra: Extra::new(),
            })
            .collect();
        GetSettingsResponse {
            effective: match super::remote_store::redact_store_url(
                crate::tools::environment::redact_settings(&Value::Object(settings.effective())),
            ) {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            sources,
            applied: AppliedSettings {
                model: Some(live.model),
                effort: live.effort,
                extra: self.sandbox_applied(),
            },
            extra: Extra::new(),
        }
    }
}

impl Actor {
    /// Answers a request whose work takes time (MCP connects) from a task, so the actor
    /// keeps serving meanwhile.
    pub(super) fn answer_later<F, Fut>(&mut self, request_id: String, work: F)
    where
        F: FnOnce(Arc<SessionCore>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Answer> + Send + 'static,
    {
        let core = self.core.clone();
        // Owned by the actor: the session does not end before these answers are out.
        self.answers.spawn(async move {
            let response = match work(core.clone()).await {
                Ok(payload) => ControlResponse::success(request_id, payload),
                Err(e) => ControlResponse::error(request_id, e.to_string()),
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
