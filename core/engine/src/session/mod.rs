//! The session actor: one per conversation. It reads host messages, queues prompts, runs
//! one turn at a time on its own task (so control requests are served during a turn),
//! and emits every outbound line through its [`Emitter`].

mod client;
mod context;
mod control;
pub mod effort;
pub mod emit;
pub(crate) mod hooks;
pub mod host;
mod mcp;
pub mod models;
mod state;
mod turn;

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dcl_protocol::{ControlResponse, Message, MessageContent, UserMessage};
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::model::ApiMessage;
use crate::options::{Dialect, OutputFormat, SessionOptions};
use crate::permissions::PermissionMode;
use crate::settings::Settings;
use crate::tools::{ShellState, Tool};
pub use emit::{Emitter, Outbound};
use hooks::HookRegistry;
use host::HostChannel;
use serde_json::Value;
use state::{LiveSettings, Totals};

/// What the front end feeds the actor through the bounded input queue.
enum Input {
    Message(Box<Message>),
    /// A host line that could not be decoded but named a `request_id`: answer `error`.
    Reject {
        request_id: String,
        error: String,
    },
}

/// Out-of-band signals: never queued behind messages, so a full input queue cannot stop
/// an interrupt or a close.
enum Signal {
    Interrupt,
    Eof,
    Close,
}

/// Lines the host may have sent that the actor has not taken yet (`DCL_INPUT_QUEUE`).
const DEFAULT_INPUT_QUEUE: usize = 1024;

/// A prompt waiting for its turn.
#[derive(Debug, Clone)]
pub(crate) struct QueuedPrompt {
    pub uuid: String,
    pub message: UserMessage,
}

/// A session, as every front end (CLI, Python, Node, Java) holds it.
pub struct Session {
    input: mpsc::Sender<Input>,
    signals: mpsc::UnboundedSender<Signal>,
    output: tokio::sync::Mutex<mpsc::UnboundedReceiver<Outbound>>,
    ended: AtomicBool,
    session_id: String,
}

/// The session is gone; nothing more can be sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the session is closed")]
pub struct SessionClosed;

/// Why a message was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    #[error("the session is closed")]
    Closed,
    /// The input queue holds this many lines the session has not read yet.
    #[error("the session's input queue is full ({0} lines)")]
    Full(usize),
}

impl Session {
    /// Validates the options and starts the session actor on `handle`.
    pub fn spawn(
        handle: &Handle,
        options: SessionOptions,
    ) -> Result<Session, crate::options::OptionsError> {
        let shared = Shared::new(options)?;
        let session_id = shared.emitter.session_id().to_string();
        let capacity = shared
            .env
            .get("DCL_INPUT_QUEUE")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_INPUT_QUEUE);
        let (in_tx, in_rx) = mpsc::channel(capacity);
        let (sig_tx, sig_rx) = mpsc::unbounded_channel();
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let emitter = Emitter::new(out_tx, session_id.clone());
        let rpc = mcp::ControlRpc {
            host: shared.host.clone(),
            emitter: emitter.clone(),
            closed: shared.closed.clone(),
        };
        let mcp_manager = mcp::manager(rpc, &shared.env, &shared.cwd);
        let shared = Arc::new(Shared {
            emitter,
            mcp: mcp_manager,
            ..shared
        });
        let configured = std::mem::take(&mut *lock(&shared.mcp_configured));
        if !configured.is_empty() {
            let m = shared.mcp.clone();
            let started = handle.spawn(async move { m.start_scoped(configured).await });
            lock(&shared.mcp_startup).push(startup(started));
        }
        let actor = Actor {
            shared,
            rx: in_rx,
            signals: sig_rx,
            queue: VecDeque::new(),
            current: None,
            input_closed: false,
            initialized: false,
        };
        handle.spawn(actor.run());
        Ok(Session {
            input: in_tx,
            signals: sig_tx,
            output: tokio::sync::Mutex::new(out_rx),
            ended: AtomicBool::new(false),
            session_id,
        })
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Hands one host message (user message, control request or response) to the session.
    /// Never blocks: a full input queue is an error the caller may retry.
    pub fn send(&self, message: Message) -> Result<(), SendError> {
        if self.ended.load(Ordering::SeqCst) {
            return Err(SendError::Closed);
        }
        self.input
            .try_send(Input::Message(Box::new(message)))
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => SendError::Full(self.input.max_capacity()),
                mpsc::error::TrySendError::Closed(_) => SendError::Closed,
            })
    }

    /// Whether `recv` has seen the end of the session.
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The next outbound message; `None` once the session has ended.
    pub async fn recv(&self) -> Option<Message> {
        if self.ended.load(Ordering::SeqCst) {
            return None;
        }
        let mut rx = self.output.lock().await;
        match rx.recv().await {
            Some(Outbound::Line(m)) => Some(*m),
            Some(Outbound::End) | None => {
                self.ended.store(true, Ordering::SeqCst);
                None
            }
        }
    }

    /// Answers a host request that could not be decoded with an `error` control response.
    pub fn reject(&self, request_id: String, error: String) -> Result<(), SessionClosed> {
        self.input
            .try_send(Input::Reject { request_id, error })
            .map_err(|_| SessionClosed)
    }

    /// Every outbound message that is ready, waiting for the first (at most `max`): one
    /// wake-up per burst for hosts where waking is costly. Empty once the session has ended.
    pub async fn recv_batch(&self, max: usize) -> Vec<Message> {
        let mut out = Vec::new();
        if self.ended.load(Ordering::SeqCst) {
            return out;
        }
        let mut rx = self.output.lock().await;
        let mut next = rx.recv().await;
        loop {
            match next {
                Some(Outbound::Line(m)) => out.push(*m),
                Some(Outbound::End) | None => {
                    self.ended.store(true, Ordering::SeqCst);
                    break;
                }
            }
            if out.len() >= max.max(1) {
                break;
            }
            next = match rx.try_recv() {
                Ok(o) => Some(o),
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => None,
            };
        }
        out
    }

    /// Interrupts the running turn (as an `interrupt` control request would, unanswered).
    pub fn interrupt(&self) {
        let _ = self.signals.send(Signal::Interrupt);
    }

    /// No more input will come: finish the running and queued turns, then end.
    pub fn end_input(&self) {
        let _ = self.signals.send(Signal::Eof);
    }

    /// Stops at once: the running turn is cancelled (its tools killed) and the session ends.
    pub fn close(&self) {
        let _ = self.signals.send(Signal::Close);
    }
}

/// State shared by the actor and its turn tasks.
pub(crate) struct Shared {
    pub opts: SessionOptions,
    pub cwd: PathBuf,
    pub emitter: Emitter,
    pub host: Arc<HostChannel>,
    pub mcp: dcl_mcp::McpManager,
    /// Configured MCP servers not started yet (they start when the actor does).
    pub mcp_configured: Mutex<BTreeMap<String, (dcl_mcp::ServerConfig, String)>>,
    /// Host-provided (`type: "sdk"`) servers to start once the host has initialized.
    pub mcp_sdk_pending: Mutex<Vec<String>>,
    /// Server start-ups in flight; a turn waits for them so its tools are known.
    pub mcp_startup: Mutex<Vec<McpStartup>>,
    /// Cancelled when the session ends: nothing may wait on the host after that.
    pub closed: CancellationToken,
    /// Memory files read when the session opened.
    pub memory: Vec<crate::memory::MemoryFile>,
    /// Becomes true once the host's `initialize` has been handled.
    pub initialized: tokio::sync::watch::Sender<bool>,
    pub live: Mutex<LiveSettings>,
    pub totals: Mutex<Totals>,
    pub tools: Vec<Arc<dyn Tool>>,
    pub shell: Arc<ShellState>,
    pub env: Arc<BTreeMap<String, String>>,
    pub history: tokio::sync::Mutex<Vec<ApiMessage>>,
    pub clients: client::Clients,
    /// Rules added by the host during the session (`updatedPermissions`).
    pub session_allow: Mutex<Vec<String>>,
    pub hooks: Mutex<HookRegistry>,
    pub session_started: AtomicBool,
    pub settings: Mutex<Settings>,
    /// The `--json-schema` / `initialize.jsonSchema` of this session.
    pub json_schema: OnceLock<Value>,
    /// `initialize.promptSuggestions`: suggest the next prompt after each turn.
    pub prompt_suggestions: AtomicBool,
    /// Size of the serialized history when it was last measured.
    pub last_messages_chars: Mutex<usize>,
    /// Blocks of `shouldQuery: false` messages, prepended to the next turn's prompt.
    pub pending_context: Mutex<Vec<dcl_protocol::ContentBlock>>,
    pub stats: Mutex<state::SessionStats>,
}

impl Shared {
    fn new(opts: SessionOptions) -> Result<Shared, String> {
        let cwd = match &opts.cwd {
            Some(c) if c.is_absolute() => c.clone(),
            Some(c) => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?
                .join(c),
            None => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        if !cwd.is_dir() {
            return Err(format!(
                "working directory {} does not exist",
                cwd.display()
            ));
        }
        let home = opts.env.get("HOME").map(PathBuf::from);
        let settings = Settings::load(
            home.as_deref(),
            &cwd,
            opts.setting_sources.as_deref(),
            opts.settings.as_deref(),
        )?;
        let mut env_map = opts.env.clone();
        if let Some(Value::Object(extra)) = settings.get("env") {
            for (k, v) in extra {
                if let Some(v) = v.as_str() {
                    env_map.insert(k, v.to_string());
                }
            }
        }
        let permission_mode = match opts
            .permission_mode
            .clone()
            .or_else(|| settings.get_str("permissions.defaultMode"))
        {
            Some(m) => PermissionMode::parse(&m)?,
            None => PermissionMode::Default,
        };
        let env = Arc::new(env_map);
        let model_name = opts
            .model
            .clone()
            .or_else(|| env.get("DCL_MODEL").cloned())
            .or_else(|| settings.get_str("model"));
        let effort = match opts
            .effort
            .clone()
            .or_else(|| settings.get_str("effortLevel"))
        {
            Some(e) => Some(effort::parse(&e)?),
            None => None,
        };
        let json_schema = OnceLock::new();
        if let Some(schema) = &opts.json_schema {
            if !schema.is_object() {
                return Err("--json-schema must be a JSON object".into());
            }
            let _ = json_schema.set(schema.clone());
        }
        let clients = client::Clients::new(&opts, &env)?;
        let model = models::resolve_alias(model_name.as_deref(), clients.default_model());
        let session_id = match &opts.session_id {
            Some(id) => uuid::Uuid::parse_str(id)
                .map_err(|e| format!("--session-id must be a UUID: {e}"))?
                .to_string(),
            None => emit::new_uuid(),
        };
        let tools = select_tools(&opts)?;
        let mcp_plan = mcp::plan(&opts, home.as_deref(), &cwd)?;
        let source_on = |s: &str| {
            opts.setting_sources
                .as_ref()
                .is_none_or(|list| list.iter().any(|x| x == s))
        };
        let memory = crate::memory::load(
            home.as_deref(),
            &cwd,
            source_on("user"),
            source_on("project") || source_on("local"),
        );
        let (dummy_tx, _) = mpsc::unbounded_channel();
        let timeout = Duration::from_secs_f64(opts.host_timeout_secs.unwrap_or(300.0).max(0.001));
        Ok(Shared {
            live: Mutex::new(LiveSettings {
                model,
                permission_mode,
                max_thinking_tokens: opts.max_thinking_tokens,
                pending_model: None,
                pending_thinking: None,
                system_prompt: opts.system_prompt.clone(),
                append_system_prompt: opts.append_system_prompt.clone(),
                effort,
                pending_effort: None,
            }),
            totals: Mutex::new(Totals::default()),
            shell: Arc::new(ShellState::new(cwd.clone())),
            cwd,
            emitter: Emitter::new(dummy_tx, session_id),
            host: Arc::new(HostChannel::new(timeout)),
            mcp: dcl_mcp::McpManager::new(Arc::new(dcl_mcp::NoHost), BTreeMap::new()),
            mcp_configured: Mutex::new(mcp_plan.configured),
            mcp_sdk_pending: Mutex::new(mcp_plan.sdk),
            mcp_startup: Mutex::new(Vec::new()),
            closed: CancellationToken::new(),
            initialized: tokio::sync::watch::Sender::new(false),
            memory,
            tools,
            env,
            history: tokio::sync::Mutex::new(Vec::new()),
            clients,
            session_allow: Mutex::new(Vec::new()),
            hooks: Mutex::new(HookRegistry::default()),
            session_started: AtomicBool::new(false),
            settings: Mutex::new(settings),
            json_schema,
            prompt_suggestions: AtomicBool::new(false),
            last_messages_chars: Mutex::new(0),
            pending_context: Mutex::new(Vec::new()),
            stats: Mutex::new(state::SessionStats::default()),
            opts,
        })
    }

    pub fn live(&self) -> std::sync::MutexGuard<'_, LiveSettings> {
        match self.live.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    pub fn totals(&self) -> std::sync::MutexGuard<'_, Totals> {
        match self.totals.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

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

    pub fn hooks(&self) -> std::sync::MutexGuard<'_, HookRegistry> {
        lock(&self.hooks)
    }

    pub fn settings(&self) -> std::sync::MutexGuard<'_, Settings> {
        lock(&self.settings)
    }

    pub fn json_schema(&self) -> Option<&Value> {
        self.json_schema.get()
    }

    pub fn settings_allow(&self) -> Vec<String> {
        self.settings().get_strings("permissions.allow")
    }

    pub fn settings_deny(&self) -> Vec<String> {
        self.settings().get_strings("permissions.deny")
    }

    /// `--add-dir`s and the settings' `permissions.additionalDirectories`.
    pub fn allowed_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.opts.add_dirs.clone();
        dirs.extend(
            self.settings()
                .get_strings("permissions.additionalDirectories")
                .into_iter()
                .map(PathBuf::from),
        );
        dirs
    }

    /// Tools served by someone else (MCP servers, the host); they always need a decision.
    pub fn is_host_tool(&self, name: &str) -> bool {
        name.starts_with("mcp__") && self.mcp.tools().iter().any(|t| t.qualified_name == name)
    }

    /// Starts the host-provided MCP servers that are waiting (at `initialize`, or at the
    /// first turn when the host never sends one).
    pub fn start_sdk_servers(&self, mut names: Vec<String>) {
        names.extend(std::mem::take(&mut *lock(&self.mcp_sdk_pending)));
        names.sort();
        names.dedup();
        if names.is_empty() {
            return;
        }
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
        let m = self.mcp.clone();
        lock(&self.mcp_startup).push(startup(tokio::spawn(async move {
            m.start_scoped(servers).await
        })));
    }

    /// Waits for MCP servers that are still connecting (each bounded by its timeout).
    pub async fn mcp_ready(&self) {
        let pending: Vec<McpStartup> = lock(&self.mcp_startup).clone();
        futures::future::join_all(pending).await;
    }

    /// What the model is offered: built-ins, then the structured-output tool.
    pub fn tool_specs(&self) -> Vec<crate::model::ToolSpec> {
        let mut specs: Vec<_> = self.tools.iter().map(|t| t.spec()).collect();
        let deny = crate::permissions::RuleSet::parse(&self.opts.disallowed_tools);
        specs.extend(
            self.mcp
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
                name: turn::STRUCTURED_OUTPUT_TOOL.to_string(),
                description: "Return your final answer as structured data matching the schema. Call this exactly once, at the end.".to_string(),
                input_schema: schema.clone(),
            });
        }
        specs
    }

    pub fn tool_names(&self) -> Vec<String> {
        self.tool_specs().into_iter().map(|t| t.name).collect()
    }
}

/// A server start-up that any number of waiters can await.
pub(crate) type McpStartup = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

fn startup(handle: JoinHandle<()>) -> McpStartup {
    use futures::FutureExt;
    async move {
        let _ = handle.await;
    }
    .boxed()
    .shared()
}

/// A poisoned lock still holds usable data: a panicking turn must not wedge the session.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The built-in tools this session offers: `--tools` restricts, whole-tool
/// `--disallowedTools` rules hide. Unknown names in `--tools` are skipped with a warning.
fn select_tools(opts: &SessionOptions) -> Result<Vec<Arc<dyn Tool>>, String> {
    let all = crate::tools::builtin_tools();
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
            if name != "default" && !all.iter().any(|t| t.name() == name) {
                tracing::warn!("--tools: unknown tool {name:?} skipped");
            }
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| {
            keep_all
                || wanted
                    .as_ref()
                    .is_some_and(|w| w.iter().any(|n| n == t.name()))
        })
        .filter(|t| !deny.names_whole_tool(t.name()))
        .collect())
}

struct RunningTurn {
    handle: JoinHandle<turn::TurnOutcome>,
    cancel: CancellationToken,
}

struct Actor {
    shared: Arc<Shared>,
    rx: mpsc::Receiver<Input>,
    signals: mpsc::UnboundedReceiver<Signal>,
    queue: VecDeque<QueuedPrompt>,
    current: Option<RunningTurn>,
    input_closed: bool,
    initialized: bool,
}

impl Actor {
    async fn run(mut self) {
        loop {
            if self.current.is_none() {
                if let Some(next) = self.queue.pop_front() {
                    self.start_turn(next);
                } else if self.input_closed {
                    break;
                }
            }
            let turn_done = async {
                match self.current.as_mut() {
                    Some(t) => Some((&mut t.handle).await),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                signal = self.signals.recv() => match signal {
                    Some(Signal::Interrupt) => { self.interrupt(true); }
                    Some(Signal::Eof) | None => {
                        // Lines sent before the end of input are still served, in order.
                        while let Ok(input) = self.rx.try_recv() {
                            self.handle_input(input);
                        }
                        self.input_closed = true;
                        self.shared.host.close_input();
                    }
                    Some(Signal::Close) => {
                        self.interrupt(true);
                        if let Some(t) = self.current.take() {
                            // The turn stops promptly once cancelled; wait so its tools are killed.
                            let _ = tokio::time::timeout(Duration::from_secs(2), t.handle).await;
                        }
                        break;
                    }
                },
                input = self.rx.recv(), if !self.input_closed => match input {
                    Some(input) => self.handle_input(input),
                    None => {
                        self.input_closed = true;
                        self.shared.host.close_input();
                    }
                },
                done = turn_done => {
                    self.current = None;
                    if let Some(Err(e)) = done {
                        tracing::error!("turn task failed: {e}");
                    }
                    self.apply_pending();
                }
            }
        }
        self.shared.closed.cancel();
        self.shared.mcp.shutdown().await;
        self.shared.shell.background.kill_all();
        self.shared.emitter.end();
    }

    fn start_turn(&mut self, prompt: QueuedPrompt) {
        let cancel = CancellationToken::new();
        let handle = tokio::spawn(turn::run_turn(self.shared.clone(), prompt, cancel.clone()));
        self.current = Some(RunningTurn { handle, cancel });
    }

    /// Changes asked for during a turn take effect once it has ended.
    fn apply_pending(&mut self) {
        let mut live = self.shared.live();
        if let Some(m) = live.pending_model.take() {
            live.model = m;
        }
        if let Some(t) = live.pending_thinking.take() {
            live.max_thinking_tokens = t;
        }
        if let Some(e) = live.pending_effort.take() {
            live.effort = e;
        }
    }

    fn turn_running(&self) -> bool {
        self.current.is_some()
    }

    /// Cancels the running turn and, when `cancel_queued`, every queued prompt (each still
    /// gets its own result). Returns the uuids still queued.
    fn interrupt(&mut self, cancel_queued: bool) -> Vec<String> {
        if let Some(t) = &self.current {
            t.cancel.cancel();
        }
        if cancel_queued {
            for p in std::mem::take(&mut self.queue) {
                turn::emit_cancelled_result(&self.shared, &p);
            }
        }
        self.queue.iter().map(|p| p.uuid.clone()).collect()
    }

    fn handle_input(&mut self, input: Input) {
        match input {
            Input::Message(m) => self.handle_message(*m),
            Input::Reject { request_id, error } => {
                self.respond(ControlResponse::error(request_id, error));
            }
        }
    }

    fn handle_message(&mut self, message: Message) {
        match message {
            Message::User(user) => self.enqueue(user),
            Message::ControlRequest(req) => self.handle_control(req),
            Message::ControlResponse(resp) => {
                let id = resp.response.request_id().to_string();
                if !self.shared.host.resolve(resp.response) {
                    tracing::warn!(
                        "control_response for unknown or expired request_id {id:?}; ignored"
                    );
                }
            }
            Message::ControlCancelRequest(c) => {
                tracing::debug!("host cancelled its request {}", c.request_id);
            }
            Message::KeepAlive(_) => {}
            other => {
                tracing::warn!(
                    "ignoring a {:?} message from the host: only user messages and control messages are accepted",
                    other.kind()
                );
            }
        }
    }

    fn enqueue(&mut self, user: UserMessage) {
        if let MessageContent::Blocks(b) = &user.message.content
            && b.is_empty()
        {
            tracing::warn!("user message with empty content ignored");
            return;
        }
        if user.should_query() == Some(false) {
            // Context for the next turn, not a turn of its own.
            lock(&self.shared.pending_context).extend(user.message.content.into_blocks());
            return;
        }
        let uuid = user.uuid.clone().unwrap_or_else(emit::new_uuid);
        let prompt = QueuedPrompt {
            uuid,
            message: user,
        };
        match prompt.message.priority() {
            // `now` replaces the running turn; `next` (the default) and `later` queue.
            Some("now") => {
                if let Some(t) = &self.current {
                    t.cancel.cancel();
                }
                self.queue.push_front(prompt);
            }
            _ => self.queue.push_back(prompt),
        }
    }

    fn respond(&self, response: ControlResponse) {
        self.shared.emitter.emit(Message::ControlResponse(
            dcl_protocol::ControlResponseEnvelope {
                response,
                extra: Default::default(),
            },
        ));
    }
}
