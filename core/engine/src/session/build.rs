//! Building a session from its options: working directory and environment, settings and
//! trust, extensions and agents, tools and MCP servers, model clients, hooks and the
//! transcript. Everything here runs once, before the actor starts; the parts it builds are
//! the types in `services` and `state`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::Clients;
use super::conversation::Conversation;
use super::emit::{self, Emitter, Outbox};
use super::hook_registry::HookRegistry;
use super::host::HostChannel;
use super::state::{LiveSettings, McpPending, SessionState, SessionStats, StateCell, Totals};
use super::{effort, mcp, models, persist};
use crate::options::{Dialect, OptionsError, SessionOptions};
use dcl_policy::permissions::PermissionMode;
use dcl_policy::permissions::command_hooks::CommandHooks;
use dcl_policy::permissions::host_decision::SettingsFiles;
use dcl_policy::settings::{Settings, SettingsPaths};
use dcl_tool_api::{ShellState, Tool};

use super::services::{SessionCore, SessionServices};

impl SessionCore {
    /// Validates the options and builds the session's parts (nothing runs yet).
    #[cfg(test)]
    pub fn build(opts: SessionOptions) -> Result<SessionCore, OptionsError> {
        SessionCore::build_with(opts, super::emit::Streams::LINES)
    }

    /// Validates the options and builds the session's parts (nothing runs yet), producing
    /// `streams` for the front end.
    pub fn build_with(
        opts: SessionOptions,
        streams: super::emit::Streams,
    ) -> Result<SessionCore, OptionsError> {
        // Options built in Rust get the environment defaults the JSON path resolves.
        let opts = opts.resolved()?;
        let cwd = working_dir(&opts)?;
        // Once per process: background output a SIGKILLed dcl left under TMPDIR.
        dcl_tools::background::sweep_stale_output_dirs();
        let home = opts.env.get("HOME").map(PathBuf::from);
        let homes =
            dcl_store::Homes::resolve(opts.data_dir.as_deref(), |k| opts.env.get(k).cloned(), &cwd);
        let settings = load_settings(&opts, &homes, &cwd)?;
        let (opts, env_map) = with_settings_env(opts, &settings)?;
        let requested_id = requested_session_id(&opts)?;
        let checkpoint_home = homes.dcl_home.clone();
        let source_on = |s: &str| {
            opts.setting_sources
                .as_ref()
                .is_none_or(|list| list.iter().any(|x| x == s))
        };
        let extensions = super::extensions::open(
            &opts,
            &homes,
            &cwd,
            &settings,
            source_on("user"),
            source_on("project"),
        );
        let settings_files = SettingsFiles::for_homes(&homes, &cwd);
        let command_hooks = settings_command_hooks(&settings);
        let store_url = opts
            .session_store
            .clone()
            .or_else(|| settings.get_str("sessionStore"));
        let opened = persist::open(
            &opts,
            homes.clone(),
            &cwd,
            &env_map,
            requested_id,
            store_url.as_deref(),
        );
        let resumed = opened.state.clone().unwrap_or_default();
        let permission_mode = permission_mode(&opts, &resumed, &settings)?;
        let env = shared_env(env_map);
        let model_name = opts
            .model
            .clone()
            .or_else(|| resumed.model.clone())
            .or_else(|| settings.get_str("model"));
        let effort = effort_level(&opts, &settings)?;
        let output_schema = output_schema(&opts)?;
        // Not an option's fault alone (model, format, keys, mock script): no option named.
        let clients = Clients::new(&opts, &env).map_err(|e| OptionsError::from(e.to_string()))?;
        let model = models::resolve_alias(model_name.as_deref(), clients.default_model());
        let session_id = opened.session_id.clone();
        tracing::debug!(
            session = %session_id,
            cwd = %cwd.display(),
            model = %model,
            settings = ?settings.files_read(),
            "session"
        );
        let disallowed = dcl_policy::permissions::RuleSet::parse(&opts.disallowed_tools);
        let tools = select_tools(
            &opts,
            &disallowed,
            vec![Arc::new(crate::tools::skill::SkillTool::new(
                extensions.clone(),
            ))],
        );
        let mut mcp_plan = mcp::plan(&opts, &homes.user_folders(), &cwd)
            .map_err(|e| OptionsError::new("mcpConfig", e))?;
        let loaded = extensions.read().map_err(|e| e.to_string())?;
        if !opts.strict_mcp_config {
            for (name, server) in super::extensions::plugin_servers(&loaded) {
                mcp_plan.configured.entry(name).or_insert(server);
            }
        }
        let memory_paths = crate::memory::MemoryPaths {
            home: home.clone(),
            user_folders: homes
                .user_folders()
                .into_iter()
                .map(std::path::Path::to_path_buf)
                .collect(),
            project_folders: homes.project_folders(&cwd),
        };
        let memory = crate::memory::load_from(
            &memory_paths,
            &cwd,
            source_on("user"),
            source_on("project") || source_on("local"),
        );
        let agents = load_agents(
            &opts,
            &env,
            &cwd,
            (source_on("user"), source_on("project")),
            &loaded,
        )?;
        drop(loaded);
        let capacity = opts
            .outbox_lines
            .filter(|n| *n > 0)
            .unwrap_or(super::emit::DEFAULT_OUTBOX_LINES);
        let emitter = Emitter::new(Outbox::new(capacity), session_id)
            .with_dialect(emit::Dialect::of(&opts))
            .with_streams(streams);
        let timeout = Duration::from_secs_f64(
            opts.host_timeout_secs
                .unwrap_or(crate::options::DEFAULT_HOST_TIMEOUT_SECS)
                .max(0.001),
        );
        let host = Arc::new(HostChannel::new(timeout));
        let closed = CancellationToken::new();
        // `toolEnvironment` in settings widens or narrows what tools inherit; a bad block is
        // refused when the session opens rather than silently ignored.
        let tool_env = dcl_tools::environment::ToolEnvironment::from_settings(
            settings.get("toolEnvironment").as_ref(),
        )
        .map_err(|e| OptionsError::new("settings", format!("toolEnvironment: {e}")))?;
        // The OS sandbox (issue 10): a bad `sandbox` block is refused like `toolEnvironment`.
        let sandbox = dcl_policy::settings::open_sandbox(
            settings
                .sandbox(opts.sandbox)
                .map_err(|e| OptionsError::new("settings", e.to_string()))?,
            &cwd,
            &[
                opts.add_dirs.clone(),
                settings
                    .get_strings("permissions.additionalDirectories")
                    .into_iter()
                    .map(std::path::PathBuf::from)
                    .collect(),
            ]
            .concat(),
            || tool_env.apply(&dcl_tools::environment::dcl_environment(&env)),
        )
        .map_err(|e| OptionsError::new("sandbox", e))?;
        let mcp_manager = mcp::manager(
            mcp::ControlRpc {
                host: host.clone(),
                emitter: emitter.clone(),
                closed: closed.clone(),
            },
            &env,
            &cwd,
            tool_env.clone(),
        );
        let output_style = crate::prompt::resolved_output_style(&settings);
        if let Some(w) = &output_style.warning {
            tracing::warn!("{w}");
        }
        let output_styles = settings.available_output_styles();
        let state = SessionState {
            live: LiveSettings {
                model,
                permission_mode,
                max_thinking_tokens: opts.max_thinking_tokens,
                pending_model: None,
                pending_thinking: None,
                system_prompt: opts.system_prompt.clone(),
                append_system_prompt: opts.append_system_prompt.clone(),
                effort,
                pending_effort: None,
            },
            totals: Totals {
                cost_usd: resumed.total_cost_usd,
                model_usage: resumed
                    .model_usage
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| {
                                serde_json::from_value(v.clone())
                                    .ok()
                                    .map(|u| (k.clone(), u))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            stats: SessionStats::default(),
            session_permissions: Default::default(),
            hooks: HookRegistry::default(),
            settings,
            json_schema: opts.json_schema.clone(),
            output_schema,
            structured_spec: None,
            prompt_suggestions: false,
            model_policy: false,
            session_started: false,
            pending_context: Vec::new(),
            mcp: McpPending {
                configured: mcp_plan.configured,
                sdk: mcp_plan.sdk,
                startups: Vec::new(),
            },
            agents: Arc::new(agents),
            main_agent: opts.agent.clone(),
            forward_subagent_text: false,
            agent_progress: false,
            background_agents: Default::default(),
        };
        let checkpoints = super::checkpoints::Checkpoints::new(
            checkpoint_home,
            cwd.clone(),
            emitter.session_id(),
        );
        if super::checkpoints::enabled_at_start(
            opts.enable_file_checkpointing,
            &env,
            state
                .settings
                .get(super::checkpoints::QODER_SETTING)
                .as_ref(),
        ) {
            checkpoints.enable();
        }
        let services = SessionServices {
            command_hooks: Arc::new(command_hooks),
            settings_files,
            checkpoints: checkpoints.clone(),
            shell: {
                let shell = ShellState::new(cwd.clone());
                shell.set_tool_environment(tool_env);
                shell.set_sandbox(sandbox);
                Arc::new(shell)
            },
            cwd,
            env,
            emitter,
            host,
            mcp: mcp_manager,
            closed,
            memory,
            output_style,
            output_styles,
            tools,
            disallowed,
            clients,
            initialized: tokio::sync::watch::Sender::new(false),
            extensions,
            opts,
        };
        let mut conversation = Conversation::restore(opened.items);
        opened.persistence.attach(&mut conversation);
        conversation.subscribe(Arc::new(super::checkpoints::PromptOrder(checkpoints)));
        Ok(SessionCore {
            persistence: opened.persistence,
            services,
            state: StateCell::new(state),
            conversation_size: conversation.size_handle(),
            conversation: tokio::sync::Mutex::new(conversation),
        })
    }
}

/// The session's working directory: `cwd` made absolute against the process's; it must
/// exist.
fn working_dir(opts: &SessionOptions) -> Result<PathBuf, OptionsError> {
    let cwd = match &opts.cwd {
        Some(c) if c.is_absolute() => c.clone(),
        Some(c) => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?
            .join(c),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    if !cwd.is_dir() {
        return Err(OptionsError::new(
            "cwd",
            format!("working directory {} does not exist", cwd.display()),
        ));
    }
    Ok(cwd)
}

/// The settings layers (user, project, local, flag) and the managed ones on top.
fn load_settings(
    opts: &SessionOptions,
    homes: &dcl_store::Homes,
    cwd: &std::path::Path,
) -> Result<Settings, OptionsError> {
    Settings::load_from(
        &SettingsPaths::from_homes(homes, cwd),
        cwd,
        opts.setting_sources.as_deref(),
        opts.settings.as_deref(),
    )
    .map_err(|e| OptionsError::new("settings", e))?
    .with_managed(opts.managed_settings.as_deref(), cwd)
    .map_err(|e| OptionsError::new("managedSettings", e))
}

/// The options again with the settings' `env` block merged into their environment (it
/// fills what the environment left unset), and that environment.
fn with_settings_env(
    opts: SessionOptions,
    settings: &Settings,
) -> Result<(SessionOptions, BTreeMap<String, String>), OptionsError> {
    let mut env_map = opts.env.clone();
    if let Some(Value::Object(extra)) = settings.get("env") {
        for (k, v) in extra {
            if let Some(v) = v.as_str() {
                env_map.insert(k, v.to_string());
            }
        }
    }
    let mut opts = SessionOptions {
        env: env_map,
        ..opts
    }
    .resolved()?;
    // The session keeps one copy of its environment (shared by the model clients, MCP and
    // tools); the options it stores keep none, so 10,000 idle sessions don't hold it twice.
    let env_map = std::mem::take(&mut opts.env);
    Ok((opts, env_map))
}

/// The environment as an `Arc` shared with the last session opened with the same one: a
/// server opening thousands of sessions from one process passes the same environment to
/// each, and a copy is ~4 KB a session (one of the largest parts of an idle session).
fn shared_env(env: BTreeMap<String, String>) -> Arc<BTreeMap<String, String>> {
    static LAST: EnvSlot = std::sync::Mutex::new(std::sync::Weak::new());
    share_through(&LAST, env)
}

type EnvSlot = std::sync::Mutex<std::sync::Weak<BTreeMap<String, String>>>;

fn share_through(last: &EnvSlot, env: BTreeMap<String, String>) -> Arc<BTreeMap<String, String>> {
    let Ok(mut last) = last.lock() else {
        return Arc::new(env);
    };
    if let Some(prev) = last.upgrade()
        && *prev == env
    {
        return prev;
    }
    let env = Arc::new(env);
    *last = Arc::downgrade(&env);
    env
}

/// `--session-id`, which must be a UUID.
fn requested_session_id(opts: &SessionOptions) -> Result<Option<String>, OptionsError> {
    match &opts.session_id {
        Some(id) => Ok(Some(
            uuid::Uuid::parse_str(id)
                .map_err(|e| {
                    OptionsError::new("sessionId", format!("--session-id must be a UUID: {e}"))
                })?
                .to_string(),
        )),
        None => Ok(None),
    }
}

/// The settings files' command hooks; problems and events dcl never fires are logged.
fn settings_command_hooks(settings: &Settings) -> CommandHooks {
    let (command_hooks, hook_warnings) = settings.command_hooks();
    for w in hook_warnings {
        tracing::warn!("{w}");
    }
    for event in command_hooks.events.keys() {
        let fired = dcl_events::HookEventName::parse(event).map(dcl_events::HookEventName::fired);
        if fired != Some(dcl_events::Fired::Yes) {
            tracing::warn!(
                "settings hooks for {event} are accepted but dcl never fires that event"
            );
        }
    }
    command_hooks
}

/// The starting mode: the option, else the resumed session's, else the settings' default.
fn permission_mode(
    opts: &SessionOptions,
    resumed: &dcl_store::SessionState,
    settings: &Settings,
) -> Result<PermissionMode, OptionsError> {
    match opts
        .permission_mode
        .clone()
        .or_else(|| resumed.permission_mode.clone())
        .or_else(|| settings.get_str("permissions.defaultMode"))
    {
        Some(m) => PermissionMode::parse(&m).map_err(|e| OptionsError::new("permissionMode", e)),
        None => Ok(PermissionMode::Default),
    }
}

/// The effort level: the option, else the settings' `effortLevel`.
fn effort_level(
    opts: &SessionOptions,
    settings: &Settings,
) -> Result<Option<String>, OptionsError> {
    match opts
        .effort
        .clone()
        .or_else(|| settings.get_str("effortLevel"))
    {
        Some(e) => Ok(Some(
            effort::parse(&e).map_err(|e| OptionsError::new("effort", e))?,
        )),
        None => Ok(None),
    }
}

/// `--json-schema`, compiled once.
fn output_schema(
    opts: &SessionOptions,
) -> Result<Option<Arc<crate::structured::OutputSchema>>, OptionsError> {
    match &opts.json_schema {
        Some(schema) => Ok(Some(Arc::new(
            crate::structured::OutputSchema::compile(schema)
                .map_err(|e| OptionsError::new("jsonSchema", format!("--json-schema: {e}")))?,
        ))),
        None => Ok(None),
    }
}

/// The agent catalog: the `agents/` folders (user, project), the plugins' agents and
/// `--agents`; `--agent` must name one of them.
fn load_agents(
    opts: &SessionOptions,
    env: &BTreeMap<String, String>,
    cwd: &std::path::Path,
    (user, project): (bool, bool),
    loaded: &crate::extensions::Extensions,
) -> Result<crate::agents::AgentCatalog, OptionsError> {
    let (mut agents, agent_warnings) =
        crate::agents::AgentCatalog::load(&agent_dirs(opts, env, cwd, user, project));
    for w in agent_warnings
        .into_iter()
        .chain(super::extensions::add_plugin_agents(&mut agents, loaded))
    {
        tracing::warn!("{w}");
    }
    if let Some(defs) = &opts.agents {
        agents
            .add_definitions(defs, crate::agents::AgentSource::Flag)
            .map_err(|e| OptionsError::new("agents", e))?;
    }
    if let Some(name) = &opts.agent
        && agents.get(name).is_none()
    {
        return Err(OptionsError::new(
            "agent",
            format!(
                "--agent {name:?}: no such agent (known: {})",
                agents.names().join(", ")
            ),
        ));
    }
    Ok(agents)
}

/// The `agents/` folders of the homes and the project, by the session's setting sources.
fn agent_dirs(
    opts: &SessionOptions,
    env: &BTreeMap<String, String>,
    cwd: &std::path::Path,
    user: bool,
    project: bool,
) -> Vec<PathBuf> {
    let home = env.get("HOME").map(PathBuf::from);
    let dcl_home = env
        .get("DCL_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".dcl")));
    let (client_var, client_dir, folder) = match opts.dialect {
        Dialect::Qoder => ("QODER_CONFIG_DIR", ".qoder", ".qoder"),
        Dialect::Claude => ("CLAUDE_CONFIG_DIR", ".claude", ".claude"),
    };
    let client_home = env
        .get(client_var)
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(client_dir)));
    crate::agents::agent_dirs(
        dcl_home.as_deref(),
        client_home.as_deref(),
        folder,
        cwd,
        user,
        project,
    )
}

/// The built-in tools this session offers: `--tools` restricts, whole-tool
/// `--disallowedTools` rules hide. Unknown names in `--tools` are skipped with a warning;
/// `mcp__…` names are not built-in tools and need none (MCP tools are offered as their
/// servers list them).
fn select_tools(
    opts: &SessionOptions,
    deny: &dcl_policy::permissions::RuleSet,
    session_tools: Vec<Arc<dyn Tool>>,
) -> Vec<Arc<dyn Tool>> {
    let mut all = dcl_tools::builtin_tools();
    all.extend(session_tools);
    let wanted: Option<Vec<String>> = opts.tools.as_ref().map(|list| {
        list.iter()
            .flat_map(|s| s.split(','))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    let keep_all = wanted
        .as_ref()
        .is_none_or(|w| w.iter().any(|n| n == "default"));
    if let Some(w) = &wanted {
        for name in w {
            if name != "default"
                && !name.starts_with("mcp__")
                && !all.iter().any(|t| t.name() == name)
            {
                tracing::warn!("--tools: unknown tool {name:?} skipped");
            }
        }
    }
    all.into_iter()
        .filter(|t| {
            keep_all
                || wanted
                    .as_ref()
                    .is_some_and(|w| w.iter().any(|n| n == t.name()))
        })
        .filter(|t| !deny.names_whole_tool(t.name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn sessions_with_the_same_environment_share_one_copy_and_others_get_their_own() {
        // A slot of its own: sessions opened by tests running alongside use the process's.
        let slot: EnvSlot = std::sync::Mutex::new(std::sync::Weak::new());
        let a = share_through(&slot, env(&[("DCL_SHARED_ENV_TEST", "1"), ("HOME", "/h")]));
        let b = share_through(&slot, env(&[("DCL_SHARED_ENV_TEST", "1"), ("HOME", "/h")]));
        assert!(Arc::ptr_eq(&a, &b), "the same environment is shared");
        let c = share_through(&slot, env(&[("DCL_SHARED_ENV_TEST", "2"), ("HOME", "/h")]));
        assert!(
            !Arc::ptr_eq(&a, &c),
            "a different environment is its own copy"
        );
        assert_eq!(c.get("DCL_SHARED_ENV_TEST").map(String::as_str), Some("2"));
        assert_eq!(a.get("DCL_SHARED_ENV_TEST").map(String::as_str), Some("1"));
        drop((a, b, c));
        let d = share_through(&slot, env(&[("DCL_SHARED_ENV_TEST", "2"), ("HOME", "/h")]));
        assert_eq!(
            Arc::strong_count(&d),
            1,
            "nothing keeps a dropped environment alive"
        );
    }
}

/// A saved session of a working directory, as a resume picker lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedSession {
    pub session_id: String,
    /// The first prompt, when the transcript has one.
    pub first_prompt: Option<String>,
    /// Title, else the last prompt, else a summary line.
    pub summary: String,
    /// When it was last written, ms since the epoch.
    pub last_modified_ms: i64,
    /// The transcript's size in bytes.
    pub file_size: u64,
}

/// The sessions `--resume` can reopen in the working directory of `opts`, newest first
/// (the homes and project folder a session with these options reads).
pub fn saved_sessions(opts: &SessionOptions) -> Result<Vec<SavedSession>, OptionsError> {
    let opts = opts.clone().resolved()?;
    let cwd = working_dir(&opts)?;
    let homes =
        dcl_store::Homes::resolve(opts.data_dir.as_deref(), |k| opts.env.get(k).cloned(), &cwd);
    let store = dcl_store::Store::new(homes.clone(), &cwd);
    Ok(
        dcl_store::listing::list_sessions(&homes.read_homes(), Some(store.project_key()))
            .into_iter()
            .map(|s| SavedSession {
                session_id: s.session_id,
                first_prompt: s.first_prompt,
                summary: s.summary,
                last_modified_ms: s.last_modified,
                file_size: s.file_size,
            })
            .collect(),
    )
}
