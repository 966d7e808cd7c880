//! `initialize`: hooks, model and effort, the output schema, agents, skills and what the
//! host delivered; the answer lists commands, agents, models and warnings. Qoder's
//! `get_models` reads the same catalogue.

use dcl_protocol::{AccountInfo, Extra, GetModelsResponse, InitializeRequest, InitializeResponse};
use serde_json::Value;

use super::{Answer, ControlError, answer};
use crate::session::actor::Actor;
use crate::session::emit::mode_name;
use crate::session::hook_registry::HookRegistry;
use crate::session::models;

impl Actor {
    pub(super) fn initialize(&mut self, init: InitializeRequest) -> Answer {
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
            let mut catalog = self.core.state.with(|s| (*s.agents).clone());
            catalog.add_definitions(defs, crate::agents::AgentSource::Initialize)?;
            if let Some(name) = &init.agent
                && catalog.get(name).is_none()
            {
                return Err(ControlError::UnknownInitializeAgent {
                    name: name.clone(),
                    known: catalog.names().join(", "),
                });
            }
            self.core.state.with(|s| s.agents = catalog.into());
        } else if let Some(name) = &init.agent
            && self.core.state.with(|s| s.agents.get(name).is_none())
        {
            return Err(ControlError::NoSuchInitializeAgent { name: name.clone() });
        }
        if let Some(allowed) = &init.skills {
            crate::session::extensions::restrict_skills(&self.core, allowed.clone());
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
            let agents = crate::session::extensions::agent_infos(&s.agents);
            (s.live.permission_mode, agents)
        });
        self.initialized = true;
        self.core.services.initialized.send_replace(true);
        if self.core.services.dialect().init_before_initialize_answer() {
            crate::session::init::emit_init(&self.core);
        }
        self.core
            .services
            .emitter
            .store_frames(self.core.persistence.fork_barrier());
        let mut response = InitializeResponse {
            agents,
            commands: crate::session::extensions::command_infos(&self.core),
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
        response = self.core.services.dialect().initialize_response(response);
        response.hooks_applied = init.hooks.as_ref().map(|h| !h.is_empty()).filter(|h| *h);
        response.settings_applied = delivery.settings;
        response.disallowed_tools_applied = delivery.disallowed_tools;
        response.managed_settings_applied = delivery.managed_settings;
        response.mcp_servers_applied = delivery.mcp_servers;
        response.plugins_applied = delivery.plugins;
        answer(response)
    }

    /// Qoder's `get_models`.
    pub(super) fn get_models(&self) -> Answer {
        answer(GetModelsResponse {
            models: self.catalogue(),
            extra: Extra::new(),
        })
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

impl Actor {
    /// `initialize.model` and `initialize.reasoningEffort` (TS hosts): the session's model
    /// and effort, unless `--model` / `--effort` already chose them (the flag wins, as with
    /// `jsonSchema`; a warning says so). `context_window` is not acted on and says so.
    fn initialize_model(&self, init: &InitializeRequest) -> Result<Vec<String>, ControlError> {
        // Validate everything before changing anything.
        let effort = match init.extra.get("reasoningEffort") {
            None | Some(Value::Null) => None,
            Some(Value::String(level)) => Some(
                crate::session::effort::parse(level)
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
                Some(flag) if crate::session::effort::parse(flag).ok().as_ref() != Some(&level) => warnings
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
        let (current, thinking) = self.core.state.with(|s| {
            (
                s.live.model.clone(),
                crate::session::effort::current_level(&s.live),
            )
        });
        let services = &self.core.services;
        models::catalogue(&models::CatalogueView {
            clients: &services.clients,
            current: &current,
            thinking: thinking.as_deref(),
            dialect: services.dialect(),
        })
    }
}
