//! Built-in tools. Each tool resolves paths against its session's working directory
//! (never the process's), so sessions with different cwds can share one process.

pub mod background;
pub mod bash;
pub mod edit;
pub mod environment;
pub mod glob;
pub mod grep;
mod net;
pub mod notebook_edit;
pub mod read;
pub mod skill;
mod support;
pub mod todo_write;
pub mod web_fetch;
pub mod web_search;
pub mod write;

pub use background::{BackgroundShellInfo, BackgroundShells, ShellStatus};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use dcl_protocol::ToolResultContent;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::{BoxFuture, ToolSpec};

/// What a tool does, for permission decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Only reads (Read, Glob, Grep).
    Read,
    /// Changes files (Write, Edit, NotebookEdit).
    Edit,
    /// Runs commands (Bash).
    Execute,
    /// Anything else (network, MCP, …).
    Other,
}

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
    tool_env: Mutex<Arc<environment::ToolEnvironment>>,
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
}

impl ShellState {
    pub fn new(cwd: PathBuf) -> Self {
        ShellState {
            cwd: Mutex::new(cwd),
            tool_env: Mutex::new(Arc::new(environment::ToolEnvironment::default())),
            todos: Arc::new(Mutex::new(Vec::new())),
            background: Arc::new(BackgroundShells::new()),
            sandbox: Mutex::new(None),
            scope: std::sync::OnceLock::new(),
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
    pub fn tool_environment(&self) -> Arc<environment::ToolEnvironment> {
        match self.tool_env.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn set_tool_environment(&self, policy: environment::ToolEnvironment) {
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

/// A tool's result: what the model sees, whether it is an error, and the structured
/// `tool_use_result` shown to SDK hosts.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: ToolResultContent,
    pub is_error: bool,
    pub structured: Option<Value>,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        ToolOutput {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            structured: None,
        }
    }

    /// An error result; the model reads the message, hosts see `"Error: <message>"`.
    pub fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutput {
            structured: Some(Value::String(format!("Error: {message}"))),
            content: ToolResultContent::Text(message),
            is_error: true,
        }
    }

    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }
}

/// A built-in tool.
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// JSON Schema of the input (draft 2020-12, `additionalProperties: false`).
    fn input_schema(&self) -> Value;
    fn kind(&self) -> ToolKind;
    /// Files this call would touch, made absolute against `ctx.cwd`; used by permission
    /// checks (edits outside the allowed directories ask or are denied).
    fn paths(&self, _input: &Value, _ctx: &ToolContext) -> Vec<PathBuf> {
        Vec::new()
    }
    /// A short human description of this call, for approval prompts.
    fn describe(&self, _input: &Value) -> Option<String> {
        None
    }
    /// True for tools that never need the user's approval, whatever the permission mode:
    /// they only touch session state (TodoWrite) or processes the session already
    /// approved (BashOutput, KillShell). Deny rules still apply.
    fn always_allowed(&self) -> bool {
        false
    }
    /// [`Tool::always_allowed`] for this particular call (Skill: a skill that grants no
    /// tools). Deny rules still apply.
    fn allowed_without_asking(&self, _input: &Value) -> bool {
        self.always_allowed()
    }
    /// Runs the tool. Invalid input is an error result, never a panic.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            input_schema: self.input_schema(),
        }
    }
}

/// The built-in tools, in the order they are offered to the model.
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(bash::BashTool),
        Arc::new(background::BashOutputTool),
        Arc::new(edit::EditTool),
        Arc::new(glob::GlobTool),
        Arc::new(grep::GrepTool),
        Arc::new(background::KillShellTool),
        Arc::new(notebook_edit::NotebookEditTool),
        Arc::new(read::ReadTool),
        Arc::new(todo_write::TodoWriteTool),
        Arc::new(web_fetch::WebFetchTool),
        Arc::new(web_search::WebSearchTool),
        Arc::new(write::WriteTool),
    ]
}

/// Decodes tool input into its typed form, or an error result naming the problem.
pub fn parse_input<T: serde::de::DeserializeOwned>(
    tool: &str,
    input: Value,
) -> Result<T, ToolOutput> {
    serde_json::from_value(input).map_err(|e| {
        ToolOutput::error(format!(
            "<tool_use_error>InputValidationError: {tool} failed due to the following issue: {e}</tool_use_error>"
        ))
    })
}
