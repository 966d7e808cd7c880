//! What a session is built from and never changes while it runs: options, working
//! directory, environment, model clients, tools, the MCP manager, the host channel and the
//! emitter. [`SessionCore`] puts them next to the one-lock [`StateCell`] and the
//! [`Conversation`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::Clients;
use super::conversation::Conversation;
use super::emit::{Emitter, Outbox};
use super::hooks::HookRegistry;
use super::host::HostChannel;
use super::state::{LiveSettings, McpPending, SessionState, SessionStats, StateCell, Totals};
use super::{effort, mcp, models, persist};
use crate::options::{Dialect, OptionsError, OutputFormat, SessionOptions};
use crate::permissions::PermissionMode;
use crate::permissions::command_hooks::CommandHooks;
use crate::permissions::host_decision::SettingsFiles;
use crate::settings::{Settings, SettingsPaths};
use crate::tools::{ShellState, Tool};

/// The tool a `--json-schema` session answers through (the reference's name).
pub(crate) const STRUCTURED_OUTPUT_TOOL: &str = "StructuredOutput";

/// A server start-up that any number of waiters can await.
pub(crate) type McpStartup = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

pub(crate) struct SessionServices {
    pub opts: SessionOptions,
    pub cwd: PathBuf,
    /// The environment the session sees (options' `env` plus the settings' `env`).
    pub env: Arc<BTreeMap<String, String>>,
    pub emitter: Emitter,
    pub host: Arc<HostChannel>,
    pub mcp: dcl_mcp::McpManager,
    /// Cancelled when the session ends: nothing may wait on the host after that.
    pub closed: CancellationToken,
    /// Memory files read when the session opened.
    pub memory: Vec<crate::memory::MemoryFile>,
    /// The `outputStyle` of the settings, resolved when the session opened.
    pub output_style: crate::prompt::OutputStyle,
    /// Every style the session could use (`available_output_styles`).
    pub output_styles: Vec<String>,
    /// The built-in tools this session offers.
    pub tools: Vec<Arc<dyn Tool>>,
    pub shell: Arc<ShellState>,
    pub clients: Clients,
    /// Becomes true once the host's `initialize` has been handled.
    pub initialized: tokio::sync::watch::Sender<bool>,
    /// File checkpoints (off until a switch turns them on).
    pub checkpoints: Arc<super::checkpoints::Checkpoints>,
    /// The settings files' command hooks (project layers only when trusted).
    pub command_hooks: Arc<CommandHooks>,
    /// Where `updatedPermissions` with a settings destination are written.
    pub settings_files: SettingsFiles,
    /// Skills, custom commands and plugins (re-read by `reload_plugins`).
    pub extensions: crate::extensions::SharedExtensions,
}

impl SessionServices {
    pub fn stream_json(&self) -> bool {
        self.opts.output_format.unwrap_or_default() == OutputFormat::StreamJson
    }

    pub fn qoder(&self) -> bool {
        self.opts.dialect == Dialect::Qoder
    }

    pub fn legacy_events(&self) -> bool {
        self.stream_json() && self.opts.legacy_events.unwrap_or(true)
    }

    pub fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    /// Whether an "ask" can reach someone: stream-json with the host as the prompt tool.
    pub fn can_ask_host(&self) -> bool {
        self.stream_json()
            && !self.opts.non_interactive
            && self
                .opts
                .permission_prompt_tool
                .as_deref()
                .is_none_or(|p| p == "stdio")
    }

    /// Tools served by someone else (MCP servers, the host); they always need a decision.
    pub fn is_host_tool(&self, name: &str) -> bool {
        name.starts_with("mcp__") && self.mcp.tools().iter().any(|t| t.qualified_name == name)
    }
}

/// A session's parts, shared by its actor, its turns and its control handlers.
pub(crate) struct SessionCore {
    pub services: SessionServices,
    pub state: StateCell,
    /// Locked by the running turn for its whole length; readers that must not wait use
    /// [`SessionCore::conversation_size`].
    pub conversation: tokio::sync::Mutex<Conversation>,
    pub conversation_size: Arc<std::sync::atomic::AtomicUsize>,
    /// The transcript, the mirror, and a resume that could not be done.
    pub persistence: persist::Persistence,
}

impl SessionCore {
    /// Validates the options and builds the session's parts (nothing runs yet).
    pub fn build(opts: SessionOptions) -> Result<SessionCore, OptionsError> {
        // Options built in Rust get the environment defaults the JSON path resolves.
        let opts = opts.resolved()?;
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
        let home = opts.env.get("HOME").map(PathBuf::from);
        let homes =
            dcl_store::Homes::resolve(opts.data_dir.as_deref(), |k| opts.env.get(k).cloned(), &cwd);
        let settings = Settings::load_from(
            &SettingsPaths::from_homes(&homes, &cwd),
            &cwd,
            opts.setting_sources.as_deref(),
            opts.settings.as_deref(),
        )
        .map_err(|e| OptionsError::new("settings", e))?
        .with_managed(opts.managed_settings.as_deref(), &cwd)
        .map_err(|e| OptionsError::new("managedSettings", e))?;
        let mut env_map = opts.env.clone();
        if let Some(Value::Object(extra)) = settings.get("env") {
            for (k, v) in extra {
                if let Some(v) = v.as_str() {
                    env_map.insert(k, v.to_string());
                }
            }
        }
        // A settings `env` block fills what the environment left unset.
        let opts = SessionOptions {
            env: env_map.clone(),
            ..opts
        }
        .resolved()?;
        let requested_id = match &opts.session_id {
            Some(id) => Some(
                uuid::Uuid::parse_str(id)
                    .map_err(|e| {
                        OptionsError::new("sessionId", format!("--session-id must be a UUID: {e}"))
                    })?
                    .to_string(),
            ),
            None => None,
        };
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
        let (command_hooks, hook_warnings) = settings.command_hooks();
        for w in hook_warnings {
            tracing::warn!("{w}");
        }
        for event in command_hooks.events.keys() {
            if !super::hooks::FIRED_EVENTS.contains(&event.as_str()) {
                tracing::warn!(
                    "settings hooks for {event} are accepted but dcl never fires that event"
                );
            }
        }
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
        let permission_mode = match opts
            .permission_mode
            .clone()
            .or_else(|| resumed.permission_mode.clone())
            .or_else(|| settings.get_str("permissions.defaultMode"))
        {
            Some(m) => {
                PermissionMode::parse(&m).map_err(|e| OptionsError::new("permissionMode", e))?
            }
            None => PermissionMode::Default,
        };
        let env = Arc::new(env_map);
        let model_name = opts
            .model
            .clone()
            .or_else(|| resumed.model.clone())
            .or_else(|| settings.get_str("model"));
        let effort = match opts
            .effort
            .clone()
            .or_else(|| settings.get_str("effortLevel"))
        {
            Some(e) => Some(effort::parse(&e).map_err(|e| OptionsError::new("effort", e))?),
            None => None,
        };
        let output_schema = match &opts.json_schema {
            Some(schema) => Some(Arc::new(
                crate::structured::OutputSchema::compile(schema)
                    .map_err(|e| OptionsError::new("jsonSchema", format!("--json-schema: {e}")))?,
            )),
            None => None,
        };
        // Not an option's fault alone (model, format, keys, mock script): no option named.
        let clients = Clients::new(&opts, &env).map_err(|e| OptionsError::from(e.to_string()))?;
        let model = models::resolve_alias(model_name.as_deref(), clients.default_model());
        let session_id = opened.session_id.clone();
        let tools = select_tools(
            &opts,
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
        let (mut agents, agent_warnings) = crate::agents::AgentCatalog::load(&agent_dirs(
            &opts,
            &env,
            &cwd,
            source_on("user"),
            source_on("project"),
        ));
        for w in agent_warnings
            .into_iter()
            .chain(super::extensions::add_plugin_agents(&mut agents, &loaded))
        {
            tracing::warn!("{w}");
        }
        drop(loaded);
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
        let capacity = opts
            .outbox_lines
            .filter(|n| *n > 0)
            .unwrap_or(super::emit::DEFAULT_OUTBOX_LINES);
        let emitter = Emitter::new(Outbox::new(capacity), session_id);
        let timeout = Duration::from_secs_f64(
            opts.host_timeout_secs
                .unwrap_or(crate::options::DEFAULT_HOST_TIMEOUT_SECS)
                .max(0.001),
        );
        let host = Arc::new(HostChannel::new(timeout));
        let closed = CancellationToken::new();
        // `toolEnvironment` in settings widens or narrows what tools inherit; a bad block is
        // refused when the session opens rather than silently ignored.
        let tool_env = crate::tools::environment::ToolEnvironment::from_settings(
            settings.get("toolEnvironment").as_ref(),
        )
        .map_err(|e| OptionsError::new("settings", format!("toolEnvironment: {e}")))?;
        // The OS sandbox (issue 10): a bad `sandbox` block is refused like `toolEnvironment`.
        let sandbox = crate::settings::open_sandbox(
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
            &tool_env.apply(&crate::tools::environment::dcl_environment(&env)),
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
        let output_style = settings.resolved_output_style();
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
            prompt_suggestions: false,
            model_policy: false,
            session_started: false,
            pending_context: Vec::new(),
            mcp: McpPending {
                configured: mcp_plan.configured,
                sdk: mcp_plan.sdk,
                startups: Vec::new(),
            },
            agents,
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

    pub fn json_schema(&self) -> Option<Value> {
        self.state.with(|s| s.json_schema.clone())
    }

    /// `--add-dir`s and the settings' `permissions.additionalDirectories`.
    pub fn allowed_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.services.opts.add_dirs.clone();
        dirs.extend(self.state.with(|s| {
            let mut d: Vec<PathBuf> = s
                .settings
                .get_strings("permissions.additionalDirectories")
                .into_iter()
                .map(PathBuf::from)
                .collect();
            d.extend(s.session_permissions.directories.iter().cloned());
            d
        }));
        dirs
    }

    /// Starts the configured MCP servers (when the actor starts).
    pub fn start_configured_servers(&self) {
        let configured = self.state.with(|s| std::mem::take(&mut s.mcp.configured));
        self.start_servers(configured);
    }

    /// Starts the host-provided MCP servers that are waiting (at `initialize`, or at the
    /// first turn when the host never sends one).
    pub fn start_sdk_servers(&self, mut names: Vec<String>) {
        names.extend(self.state.with(|s| std::mem::take(&mut s.mcp.sdk)));
        let servers = names
            .into_iter()
            .map(|n| {
                (
                    n.clone(),
                    (
                        dcl_mcp::ServerConfig::Sdk { name: n },
                        "dynamic".to_string(),
                    ),
                )
            })
            .collect();
        self.start_servers(servers);
    }

    /// Starts the servers an `initialize` delivered after the session was built
    /// (`type: "sdk"` entries join the host-provided ones waiting).
    pub fn start_delivered_servers(&self, servers: Vec<(String, dcl_mcp::ServerConfig)>) {
        let (sdk, external): (Vec<_>, Vec<_>) = servers
            .into_iter()
            .partition(|(_, c)| matches!(c, dcl_mcp::ServerConfig::Sdk { .. }));
        self.start_sdk_servers(sdk.into_iter().map(|(name, _)| name).collect());
        self.start_servers(
            external
                .into_iter()
                .map(|(name, config)| (name, (config, "dynamic".to_string())))
                .collect(),
        );
    }

    /// Connects `servers` on a task of their own; turns wait for them through
    /// [`SessionCore::mcp_ready`].
    fn start_servers(&self, servers: BTreeMap<String, (dcl_mcp::ServerConfig, String)>) {
        if servers.is_empty() {
            return;
        }
        let m = self.services.mcp.clone();
        let started = startup(tokio::spawn(async move { m.start_scoped(servers).await }));
        self.state.with(|s| s.mcp.startups.push(started));
    }

    /// Waits for MCP servers that are still connecting (each bounded by its timeout).
    pub async fn mcp_ready(&self) {
        let pending: Vec<McpStartup> = self.state.with(|s| s.mcp.startups.clone());
        futures::future::join_all(pending).await;
    }

    /// What the model is offered: built-ins, MCP tools, then the structured-output tool.
    pub fn tool_specs(&self) -> Vec<crate::model::ToolSpec> {
        let s = &self.services;
        let mut specs: Vec<_> = s.tools.iter().map(|t| t.spec()).collect();
        let deny = crate::permissions::RuleSet::parse(&s.opts.disallowed_tools);
        specs.extend(
            s.mcp
                .tools()
                .into_iter()
                .filter(|t| !deny.names_whole_tool(&t.qualified_name))
                .map(|t| crate::model::ToolSpec {
                    name: t.qualified_name,
                    description: t.description.unwrap_or_default(),
                    input_schema: t.input_schema,
                }),
        );
        if let Some(schema) = self.json_schema() {
            specs.push(crate::model::ToolSpec {
                name: STRUCTURED_OUTPUT_TOOL.to_string(),
                description: "Return your final answer as structured data matching the schema. Call this exactly once, at the end.".to_string(),
                input_schema: schema,
            });
        }
        specs
    }

    /// Whether the Agent tool is offered: `--tools` may leave it out and a whole-tool
    /// `--disallowedTools` rule (`Agent` or `Task`) hides it.
    /// Whether `--tools` (when given) names `name`, or `default`.
    pub fn listed_in_tools(&self, name: &str) -> bool {
        self.services.opts.tools.as_ref().is_none_or(|list| {
            list.iter()
                .flat_map(|s| s.split(','))
                .map(str::trim)
                .any(|n| n == "default" || n == name)
        })
    }

    /// The tools that talk to the user, as this session offers them now.
    pub fn interactive_specs(&self) -> Vec<crate::model::ToolSpec> {
        let mode = self.state.with(|s| s.live.permission_mode);
        super::turn::interactive::tool_specs(self.services.can_ask_host(), mode)
            .into_iter()
            .filter(|t| self.listed_in_tools(&t.name))
            .collect()
    }

    pub fn agent_tool_enabled(&self) -> bool {
        let deny = crate::permissions::RuleSet::parse(&self.services.opts.disallowed_tools);
        let names = [super::turn::AGENT_TOOL, super::turn::AGENT_TOOL_ALIAS];
        names.iter().any(|n| self.listed_in_tools(n))
            && !names.iter().any(|n| deny.names_whole_tool(n))
    }

    /// The tools `system/init` lists: the subagent tool under its listed name `Task`.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tool_specs().into_iter().map(|t| t.name).collect();
        names.extend(self.interactive_specs().into_iter().map(|t| t.name));
        if self.agent_tool_enabled() {
            names.insert(0, super::turn::AGENT_TOOL_ALIAS.to_string());
        }
        names
    }
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

fn startup(handle: tokio::task::JoinHandle<()>) -> McpStartup {
    use futures::FutureExt;
    async move {
        let _ = handle.await;
    }
    .boxed()
    .shared()
}

/// The built-in tools this session offers: `--tools` restricts, whole-tool
/// `--disallowedTools` rules hide. Unknown names in `--tools` are skipped with a warning;
/// `mcp__…` names are not built-in tools and need none (MCP tools are offered as their
/// servers list them).
fn select_tools(opts: &SessionOptions, session_tools: Vec<Arc<dyn Tool>>) -> Vec<Arc<dyn Tool>> {
    let mut all = crate::tools::builtin_tools();
    all.extend(session_tools);
    let deny = crate::permissions::RuleSet::parse(&opts.disallowed_tools);
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
