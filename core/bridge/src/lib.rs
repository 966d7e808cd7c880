//! The one API every dcl front end uses — the CLI's stdio loop and the Python, Node and
//! Java bindings alike:
//!
//! ```text
//! open(options_json) -> Bridge
//! bridge.send(line)            user message | control_request | control_response
//! bridge.recv() -> Option<line>  every outbound line, including requests to the host
//! bridge.interrupt(); bridge.end_input(); bridge.close()
//! ```
//!
//! The bridge owns the one tokio runtime; the engine owns none. Callbacks never cross the
//! boundary: approvals, hooks and host MCP calls leave as control requests from `recv`
//! and come back through `send`.

pub mod argv;
pub mod host;

/// The engine's typed contract: [`events::AgentEvent`]s out of a session,
/// [`events::SessionCommand`]s in. Front ends import it from here.
pub use dcl_events as events;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dcl_engine::Session;
pub use dcl_engine::{
    BoxFuture, ClientFiles, ClientFilesError, ClientTerminal, Output, SavedSession, SessionOptions,
    Streams, TerminalRun,
};

/// The options vocabulary front ends open sessions with, and the `initialize` fields a front
/// end may fold into them before opening (`--await-initialize`): front ends reach the
/// engine only through the bridge.
pub mod options {
    pub use dcl_engine::delivery;
    pub use dcl_engine::options::read_flag_value;
    pub use dcl_engine::options::*;
    /// `dcl mcp list|get` start a project's `.mcp.json` server only when a session would.
    pub use dcl_engine::options::{McpjsonDecision, Settings};
}
use dcl_protocol::{LineError, Message};
use tokio::runtime::Runtime;

/// Errors a front end maps to its own exception or error type ([`BridgeError::kind`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BridgeError {
    /// The options were rejected; `option` names the key (camelCase) when one is to blame.
    #[error("invalid options: {message}")]
    InvalidOptions {
        option: Option<String>,
        message: String,
    },
    /// A line that could not be used; the session goes on.
    #[error("bad input: {0}")]
    BadInput(String),
    /// The session's input queue is full (the host sends faster than dcl reads); the line
    /// was not taken, and may be sent again.
    #[error("the session's input queue is full ({0} lines); send again later")]
    Busy(usize),
    #[error("the session is closed")]
    Closed,
    #[error("internal error: {0}")]
    Internal(String),
}

/// The error classes every binding maps [`BridgeError`] to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidOptions,
    BadInput,
    Busy,
    Closed,
    Internal,
}

impl BridgeError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            BridgeError::InvalidOptions { .. } => ErrorKind::InvalidOptions,
            BridgeError::BadInput(_) => ErrorKind::BadInput,
            BridgeError::Busy(_) => ErrorKind::Busy,
            BridgeError::Closed => ErrorKind::Closed,
            BridgeError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The option a rejection names, if any.
    pub fn option(&self) -> Option<&str> {
        match self {
            BridgeError::InvalidOptions { option, .. } => option.as_deref(),
            _ => None,
        }
    }
}

impl From<dcl_engine::OptionsError> for BridgeError {
    fn from(e: dcl_engine::OptionsError) -> Self {
        BridgeError::InvalidOptions {
            option: e.option,
            message: e.message,
        }
    }
}

/// What one bounded wait on the outbound stream gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    Line(String),
    /// Nothing arrived within the timeout; the session goes on.
    TimedOut,
    /// The session has ended; nothing more will come.
    Ended,
}

/// What one bounded batch read gave: the lines that were ready, and whether the session
/// has ended (after them). No lines and not ended means the wait timed out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Batch {
    pub lines: Vec<String>,
    pub ended: bool,
}

static RUNTIME: OnceLock<std::io::Result<Runtime>> = OnceLock::new();

/// Set by a front end that runs one session per process (see [`use_current_thread`]);
/// read once, when the runtime is built.
static CURRENT_THREAD: AtomicBool = AtomicBool::new(false);

/// Makes [`runtime`] a current-thread runtime: the front end's `block_on` runs the
/// session and everything else, and no worker thread is started (`DCL_WORKER_THREADS`
/// still asks for a multi-thread runtime with that many workers). For a process with one
/// session whose front end spends its life in `block_on` and does no blocking I/O there
/// (the CLI: its stdin and stdout are non-blocking). Blocking work in the engine already
/// goes to `spawn_blocking`. Returns whether it takes effect (`false` once the runtime is
/// built).
pub fn use_current_thread() -> bool {
    CURRENT_THREAD.store(true, Ordering::SeqCst);
    RUNTIME.get().is_none()
}

/// The shared runtime, built on first use: multi-thread with one worker per CPU, or
/// current-thread after [`use_current_thread`]; `DCL_WORKER_THREADS` asks for a
/// multi-thread runtime with that many workers either way.
pub fn runtime() -> Result<&'static Runtime, BridgeError> {
    let rt = RUNTIME.get_or_init(|| {
        let asked = std::env::var("DCL_WORKER_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0);
        let mut b = match asked {
            None if CURRENT_THREAD.load(Ordering::SeqCst) => {
                tokio::runtime::Builder::new_current_thread()
            }
            _ => tokio::runtime::Builder::new_multi_thread(),
        };
        b.enable_all().thread_name("dcl-rt");
        if let Some(n) = asked {
            b.worker_threads(n);
        }
        b.build()
    });
    rt.as_ref()
        .map_err(|e| BridgeError::Internal(format!("cannot start the runtime: {e}")))
}

/// One open session.
pub struct Bridge {
    session: Session,
}

/// Opens a session from options JSON (the CLI flags' vocabulary, see `SessionOptions`).
pub fn open(options_json: &str) -> Result<Bridge, BridgeError> {
    let options = SessionOptions::from_json(options_json)?;
    open_with(options)
}

/// The sessions `--resume` can reopen in the working directory of `options`, newest
/// first: what a resume picker lists.
pub fn saved_sessions(options: &SessionOptions) -> Result<Vec<SavedSession>, BridgeError> {
    Ok(dcl_engine::saved_sessions(options)?)
}

/// Opens a session from already-typed options.
pub fn open_with(options: SessionOptions) -> Result<Bridge, BridgeError> {
    open_streams(options, Streams::LINES)
}

/// Opens a session that produces `streams`: [`Streams::EVENTS`] for a front end that reads
/// typed events ([`Bridge::recv_event`]) and sends commands ([`Bridge::command`]);
/// [`Streams::BOTH`] to read lines and events in one order ([`Bridge::recv_output`]).
pub fn open_streams(options: SessionOptions, streams: Streams) -> Result<Bridge, BridgeError> {
    let rt = runtime()?;
    let session = Session::spawn_with(rt.handle(), options, streams)?;
    Ok(Bridge { session })
}

impl Bridge {
    /// The session's current id (a new one after `/clear`).
    pub fn session_id(&self) -> String {
        self.session.session_id()
    }

    /// The session's transcript file, once it exists (a resumed session's at once).
    pub fn transcript_path(&self) -> Option<std::path::PathBuf> {
        self.session.transcript_path()
    }

    /// The conversation so far as completed items: what a front end shows of a resumed
    /// session before its first turn.
    pub fn history(&self) -> Vec<events::AgentEvent> {
        self.session.history()
    }

    /// Hands one line to the session. A bad line is an error to the caller (and, when a
    /// `request_id` could be read, an `error` control response on the stream); the session
    /// keeps serving either way.
    pub fn send(&self, line: &str) -> Result<(), BridgeError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        match dcl_protocol::parse_line(line) {
            Ok(message) => self.send_message(message),
            Err(e) => {
                if let LineError::BadShape {
                    request_id: Some(id),
                    ..
                } = &e
                {
                    self.session
                        .reject(id.clone(), e.to_string())
                        .map_err(|_| BridgeError::Closed)?;
                }
                Err(BridgeError::BadInput(e.to_string()))
            }
        }
    }

    pub fn send_message(&self, message: Message) -> Result<(), BridgeError> {
        self.session.send(message).map_err(send_error)
    }

    /// Hands one command to the session (never blocks; a full input queue is
    /// [`BridgeError::Busy`]).
    pub fn command(&self, command: events::SessionCommand) -> Result<(), BridgeError> {
        self.session.command(command).map_err(send_error)
    }

    /// The session's mode, model, models and commands as they are now (what a typed-event
    /// front end shows before the first turn).
    pub fn describe(&self) -> events::SessionDescription {
        self.session.describe()
    }

    /// Read, Write and Edit go through the front end's file access (an editor's buffers)
    /// from now on; `None` restores dcl's own. The permission decision is unchanged.
    pub fn set_client_files(&self, files: Option<std::sync::Arc<dyn ClientFiles>>) {
        self.session.set_client_files(files);
    }

    /// Bash runs in the front end's terminal (the editor shows it live) from now on,
    /// except where the OS sandbox is on; `None` restores dcl's own shell.
    pub fn set_client_terminal(&self, terminal: Option<std::sync::Arc<dyn ClientTerminal>>) {
        self.session.set_client_terminal(terminal);
    }

    /// The next typed event; `None` once the session has ended. Only sessions opened with
    /// events ([`open_streams`]) produce any.
    pub async fn recv_event(&self) -> Option<events::AgentEvent> {
        self.session.recv_event().await
    }

    /// Blocking [`Bridge::recv_event`] for hosts without an async runtime. Must not be
    /// called from inside the runtime.
    pub fn recv_event_blocking(&self) -> Result<Option<events::AgentEvent>, BridgeError> {
        let rt = runtime()?;
        Ok(rt.block_on(self.recv_event()))
    }

    /// The next line or event, in the session's order; `None` once it has ended.
    pub async fn recv_output(&self) -> Option<Output> {
        self.session.recv_output().await
    }

    /// The next outbound line; `None` once the session has ended.
    pub async fn recv(&self) -> Option<String> {
        self.session.recv().await.map(|m| dcl_protocol::to_line(&m))
    }

    /// Every outbound line that is ready (at least one, at most `max`); empty once the
    /// session has ended. Hosts where each wake-up is costly (asyncio) read this way.
    pub async fn recv_batch(&self, max: usize) -> Vec<String> {
        self.session
            .recv_batch(max)
            .await
            .iter()
            .map(dcl_protocol::to_line)
            .collect()
    }

    /// The lines [`Bridge::recv_batch`] would return now, without waiting: `None` when
    /// nothing is ready yet, an empty batch once the session has ended.
    pub fn try_recv_batch(&self, max: usize) -> Option<Vec<String>> {
        self.session
            .try_recv_batch(max)
            .map(|b| b.iter().map(dcl_protocol::to_line).collect())
    }

    /// Waits until [`Bridge::try_recv_batch`] has something (lines or the end), taking
    /// nothing. For hosts whose waits may be abandoned between the wake-up and the
    /// delivery (an asyncio future cancelled meanwhile): they take on their own thread.
    pub async fn readable(&self) {
        self.session.readable().await
    }

    /// The next outbound message, typed.
    pub async fn recv_message(&self) -> Option<Message> {
        self.session.recv().await
    }

    /// Every outbound message that is ready (at least one, at most `max`), typed; empty
    /// once the session has ended.
    pub async fn recv_messages(&self, max: usize) -> Vec<Message> {
        self.session.recv_batch(max).await
    }

    /// The next outbound line, waiting at most `timeout` (`None`: as long as it takes).
    /// Cancel-safe: a wait that times out or is dropped loses no line.
    pub async fn recv_timeout(&self, timeout: Option<Duration>) -> Received {
        let next = async {
            match self.recv().await {
                Some(line) => Received::Line(line),
                None => Received::Ended,
            }
        };
        match timeout {
            None => next.await,
            Some(t) => tokio::time::timeout(t, next)
                .await
                .unwrap_or(Received::TimedOut),
        }
    }

    /// Every line that is ready (waiting at most `timeout` for the first, at most `max`).
    pub async fn recv_batch_timeout(&self, max: usize, timeout: Option<Duration>) -> Batch {
        let next = async {
            let lines = self.recv_batch(max).await;
            let ended = lines.is_empty() || self.session.ended();
            Batch { lines, ended }
        };
        match timeout {
            None => next.await,
            Some(t) => tokio::time::timeout(t, next).await.unwrap_or_default(),
        }
    }

    /// Blocking `recv` for hosts without an async runtime (Java). Must not be called
    /// from inside the runtime.
    pub fn recv_blocking(&self) -> Result<Option<String>, BridgeError> {
        let rt = runtime()?;
        Ok(rt.block_on(self.recv()))
    }

    /// Blocking [`Bridge::recv_timeout`]. Must not be called from inside the runtime.
    pub fn recv_blocking_timeout(
        &self,
        timeout: Option<Duration>,
    ) -> Result<Received, BridgeError> {
        let rt = runtime()?;
        Ok(rt.block_on(self.recv_timeout(timeout)))
    }

    /// Blocking [`Bridge::recv_batch_timeout`]. Must not be called from inside the runtime.
    pub fn recv_batch_blocking(
        &self,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<Batch, BridgeError> {
        let rt = runtime()?;
        Ok(rt.block_on(self.recv_batch_timeout(max, timeout)))
    }

    pub fn interrupt(&self) {
        self.session.interrupt();
    }

    /// No more input: queued work finishes, then `recv` returns `None`.
    pub fn end_input(&self) {
        self.session.end_input();
    }

    /// Stops now: the running turn is cancelled and its tools killed.
    pub fn close(&self) {
        self.session.close();
    }
}

fn send_error(e: dcl_engine::SendError) -> BridgeError {
    match e {
        dcl_engine::SendError::Closed => BridgeError::Closed,
        dcl_engine::SendError::Full(n) => BridgeError::Busy(n),
        dcl_engine::SendError::BadCommand(why) => BridgeError::BadInput(why),
    }
}

impl Drop for Bridge {
    /// A bridge nobody holds cannot be read: its session stops instead of running on.
    fn drop(&mut self) {
        self.session.close();
    }
}

/// The JSON Schema of the options JSON every front end opens sessions with
/// ([`SessionOptions`], as the engine reads it: draft 2020-12, deserialize contract).
/// `cargo run -p dcl-bridge --bin export-options-schema` prints it; the committed copy
/// `core/bridge/schema/session-options.schema.json` is what `scripts/gen_types.py` turns
/// into each binding's options types, and a test keeps it current.
pub fn options_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    generator
        .into_root_schema_for::<SessionOptions>()
        .to_value()
}

#[cfg(test)]
mod schema_tests {
    /// The committed schema is what bindings generate their types from: it must be what
    /// the options type gives now (`cargo run -p dcl-bridge --bin export-options-schema >
    /// core/bridge/schema/session-options.schema.json`, then `python3 scripts/gen_types.py`).
    #[test]
    fn committed_options_schema_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schema/session-options.schema.json");
        let committed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("committed schema"))
                .expect("committed schema is JSON");
        assert_eq!(
            committed,
            super::options_schema(),
            "{} is stale: re-export it and regenerate the bindings' types",
            path.display()
        );
        let keys = committed["properties"].as_object().expect("properties");
        assert!(keys.contains_key("maxTurns") && keys.contains_key("env"));
    }
}
