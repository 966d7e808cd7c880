//! What a session is built from and never changes while it runs: options, working
//! directory, environment, model clients, tools, the MCP manager, the host channel and the
//! emitter. [`SessionCore`] puts them next to the one-lock [`StateCell`] and the
//! [`Conversation`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::Clients;
use super::conversation::Conversation;
use super::emit::{Dialect, Emitter};
use super::host::HostChannel;
use super::persist;
use super::state::StateCell;
use crate::options::{OutputFormat, SessionOptions};
use dcl_policy::permissions::command_hooks::CommandHooks;
use dcl_policy::permissions::host_decision::SettingsFiles;
use dcl_tool_api::{ShellState, Tool};

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
    /// `--disallowedTools`, parsed once: its whole-tool rules hide tools from the offer.
    pub disallowed: dcl_policy::permissions::RuleSet,
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

    /// The lines the host reads, chosen when the session was built.
    pub fn dialect(&self) -> Dialect {
        self.emitter.dialect()
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
}
