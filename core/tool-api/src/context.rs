//! The context a tool call runs with: the session's directory, environment and shared
//! state (the Bash directory, todos, background shells, sandbox), the turn's cancellation
//! and grants, and a handle on the turn itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use dcl_shell::environment::ToolEnvironment;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{BackgroundShells, CheckedPaths, TurnHandle};

/// Per-session state and limits a tool runs with.
#[derive(Clone)]
pub struct ToolContext {
    /// The session's working directory (absolute).
    pub cwd: PathBuf,
    /// State that persists between Bash calls (its current directory).
    pub shell: Arc<ShellState>,
    /// Environment given to child processes on top of the process's own.
    pub env: Arc<BTreeMap<String, String>>,
    /// Fires when the turn is interrupted; tools stop and kill what they started.
    pub cancel: CancellationToken,
    /// The session's todo list, as TodoWrite last set it (each item a JSON object with
    /// `content`, `status`, `activeForm`).
    pub todos: Arc<Mutex<Vec<Value>>>,
    /// Commands started by Bash with `run_in_background`. Every process group still in
    /// it is killed when the last reference is dropped, so nothing outlives the session.
    pub background: Arc<BackgroundShells>,
    /// Rules granted for the rest of the turn (a skill's or a command's `allowed-tools`);
    /// the turn's permission policy reads them as allow rules.
    pub grants: Arc<Mutex<Vec<String>>>,
    /// The id of the call (`tool_use.id`); empty outside a turn.
    pub tool_use_id: String,
    /// The turn running the call, for tools that emit, ask the host or run a child turn;
    /// `None` outside a turn (tests, direct calls).
    pub turn: Option<Arc<dyn TurnHandle>>,
    /// The paths this call's permission phase resolved (fresh for each call): file tools
    /// open these, never a second resolution of the path they were given.
    pub checked: Arc<CheckedPaths>,
}

impl ToolContext {
    /// Adds allow rules for the rest of the turn.
    pub fn grant(&self, rules: &[String]) {
        if rules.is_empty() {
            return;
        }
        match self.grants.lock() {
            Ok(mut g) => g.extend(rules.iter().cloned()),
            Err(poisoned) => poisoned.into_inner().extend(rules.iter().cloned()),
        }
    }

    /// The rules granted so far in this turn.
    pub fn granted(&self) -> Vec<String> {
        Self::granted_in(&self.grants)
    }

    /// The rules in a turn's grant list.
    pub fn granted_in(grants: &Mutex<Vec<String>>) -> Vec<String> {
        match grants.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// A context with fresh session state (shell directory, todos, background shells).
    pub fn new(cwd: PathBuf) -> Self {
        let shell = Arc::new(ShellState::new(cwd.clone()));
        ToolContext {
            todos: shell.todos.clone(),
            background: shell.background.clone(),
            shell,
            cwd,
            env: Arc::new(BTreeMap::new()),
            cancel: CancellationToken::new(),
            grants: Arc::default(),
            tool_use_id: String::new(),
            turn: None,
            checked: Arc::default(),
        }
    }

    /// A path from tool input made absolute against the session cwd (not normalised).
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        }
    }
}

/// Session state tools keep between calls: the Bash directory, and the session-scoped
/// registries a `ToolContext` hands out (one `ShellState` lives as long as its session).
#[derive(Debug)]
pub struct ShellState {
    cwd: Mutex<PathBuf>,
    /// How tool processes get their environment (settings `toolEnvironment`).
    tool_env: Mutex<Arc<ToolEnvironment>>,
    /// The session's todo list (see `ToolContext::todos`).
    pub todos: Arc<Mutex<Vec<Value>>>,
    /// The session's background shells (see `ToolContext::background`).
    pub background: Arc<BackgroundShells>,
    /// The OS sandbox Bash and background shells run in (`sandbox.enabled`), if on.
    sandbox: Mutex<Option<Arc<dcl_sandbox::Sandbox>>>,
    /// What a Bash call leaves running (a redirected `server &`) lives until this
    /// session scope drops; `None` if no pipe could be made (then it ends with the call).
    /// Made at the first tool process ([`ShellState::scope`]): a session that never runs
    /// one holds none of its descriptors.
    scope: std::sync::OnceLock<Option<Arc<dcl_sandbox::Scope>>>,
    /// The front end's file access, when it offers one (see [`crate::ClientFiles`]).
    client_files: Mutex<Option<Arc<dyn crate::ClientFiles>>>,
    /// The front end's terminal, when it offers one (see [`crate::ClientTerminal`]).
    client_terminal: Mutex<Option<Arc<dyn crate::ClientTerminal>>>,
    /// Set once the session said its sandbox keeps Bash out of the client's terminal.
    pub terminal_fallback_said: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for dyn crate::ClientTerminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientTerminal")
    }
}

impl std::fmt::Debug for dyn crate::ClientFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientFiles")
            .field("reads", &self.reads())
            .field("writes", &self.writes())
            .finish()
    }
}

impl ShellState {
    pub fn new(cwd: PathBuf) -> Self {
        ShellState {
            cwd: Mutex::new(cwd),
            tool_env: Mutex::new(Arc::new(ToolEnvironment::default())),
            todos: Arc::new(Mutex::new(Vec::new())),
            background: Arc::new(BackgroundShells::new()),
            sandbox: Mutex::new(None),
            scope: std::sync::OnceLock::new(),
            client_files: Mutex::new(None),
            client_terminal: Mutex::new(None),
            terminal_fallback_said: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The front end's terminal, if it offers one.
    pub fn client_terminal(&self) -> Option<Arc<dyn crate::ClientTerminal>> {
        match self.client_terminal.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Bash runs in `terminal` from now on, unless sandboxed (`None`: dcl's own shell).
    pub fn set_client_terminal(&self, terminal: Option<Arc<dyn crate::ClientTerminal>>) {
        match self.client_terminal.lock() {
            Ok(mut g) => *g = terminal,
            Err(poisoned) => *poisoned.into_inner() = terminal,
        }
    }

    /// The front end's file access, if it offers one.
    pub fn client_files(&self) -> Option<Arc<dyn crate::ClientFiles>> {
        match self.client_files.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Read, Write and Edit go through `files` from now on (`None`: dcl's own I/O).
    pub fn set_client_files(&self, files: Option<Arc<dyn crate::ClientFiles>>) {
        match self.client_files.lock() {
            Ok(mut g) => *g = files,
            Err(poisoned) => *poisoned.into_inner() = files,
        }
    }

    /// The session's containment scope, made on first use.
    pub fn scope(&self) -> Option<&Arc<dcl_sandbox::Scope>> {
        self.scope
            .get_or_init(|| {
                dcl_sandbox::Scope::new()
                    .inspect_err(|e| tracing::warn!("containment: no session scope ({e})"))
                    .ok()
                    .map(Arc::new)
            })
            .as_ref()
    }

    /// The session's sandbox, when it is on.
    pub fn sandbox(&self) -> Option<Arc<dcl_sandbox::Sandbox>> {
        match self.sandbox.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn set_sandbox(&self, sandbox: Option<Arc<dcl_sandbox::Sandbox>>) {
        match self.sandbox.lock() {
            Ok(mut g) => *g = sandbox,
            Err(poisoned) => *poisoned.into_inner() = sandbox,
        }
    }

    pub fn cwd(&self) -> PathBuf {
        match self.cwd.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The session's tool environment policy (the secure default until set).
    pub fn tool_environment(&self) -> Arc<ToolEnvironment> {
        match self.tool_env.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn set_tool_environment(&self, policy: ToolEnvironment) {
        match self.tool_env.lock() {
            Ok(mut g) => *g = Arc::new(policy),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(policy),
        }
    }

    pub fn set_cwd(&self, dir: PathBuf) {
        match self.cwd.lock() {
            Ok(mut g) => *g = dir,
            Err(poisoned) => *poisoned.into_inner() = dir,
        }
    }
}
