//! dcl's host ([`dcl_bridge::host`]) as a uniffi interface, from which `uniffi-bindgen`
//! (`bindings/uniffi/bindgen`) generates Kotlin (`kotlin/`) and Swift
//! (`bindings/uniffi/swift/`).
//!
//! The shape is the C ABI's (`bindings/c`), typed where uniffi makes that cheap: a
//! [`DclSession`] object, events as [`Event`] records whose `payload` is JSON text, pulls
//! as a [`Pulled`] enum, errors as the [`DclError`] enum (a Kotlin `DclException`).
//!
//! **Pull, never push**: no Rust thread calls into the foreign language. Callbacks
//! (permissions, hooks, in-process MCP tools) arrive as events the language takes with
//! [`DclSession::next_events`] (blocking, from a thread of its own) or
//! [`DclSession::try_events`] after a [`DclWaker`] said the session has some; answers go
//! back with [`DclSession::respond`]. **Panics never cross**: every entry point runs under
//! `catch_unwind` and a panic becomes [`DclError::Internal`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::host::{Host, HostConfig, HostError, HostEvent, InitSpec, McpServerSpec, Waker};
use dcl_bridge::{BridgeError, ErrorKind};
use serde_json::Value;

uniffi::setup_scaffolding!();

/// Why a call failed. `detail` is the human-readable reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error, uniffi::Error)]
pub enum DclError {
    /// The options (or an MCP server or `initialize` spec) were refused; `option` names
    /// the key (camelCase) to blame when one is.
    #[error("invalid options: {detail}")]
    InvalidOptions {
        detail: String,
        option: Option<String>,
    },
    /// An argument that could not be used (JSON that does not parse…).
    #[error("bad input: {detail}")]
    BadInput { detail: String },
    /// The session's input queue is full: send the same line again later.
    #[error("busy: {detail}")]
    Busy { detail: String },
    /// The session is closed or has ended.
    #[error("closed: {detail}")]
    Closed { detail: String },
    /// `respond` for a request that no longer waits (answered, timed out, withdrawn).
    #[error("{detail}")]
    NotPending { detail: String },
    /// A control request was not answered in time.
    #[error("{detail}")]
    Timeout { detail: String },
    /// dcl answered the control request with an error.
    #[error("{detail}")]
    Refused { detail: String },
    /// A fault inside dcl (a panic included); the call had no effect.
    #[error("internal error: {detail}")]
    Internal { detail: String },
}

impl From<BridgeError> for DclError {
    fn from(e: BridgeError) -> Self {
        let detail = e.to_string();
        match e.kind() {
            ErrorKind::InvalidOptions => DclError::InvalidOptions {
                option: e.option().map(str::to_string),
                detail,
            },
            ErrorKind::BadInput => DclError::BadInput { detail },
            ErrorKind::Busy => DclError::Busy { detail },
            ErrorKind::Closed => DclError::Closed { detail },
            ErrorKind::Internal => DclError::Internal { detail },
        }
    }
}

impl From<HostError> for DclError {
    fn from(e: HostError) -> Self {
        let detail = e.to_string();
        match e {
            HostError::Bridge(b) => b.into(),
            HostError::NotPending(_) => DclError::NotPending { detail },
            HostError::Timeout(_) => DclError::Timeout { detail },
            HostError::Refused { .. } => DclError::Refused { detail },
            HostError::Ended => DclError::Closed { detail },
            HostError::BadSpec(_) => DclError::InvalidOptions {
                detail,
                option: None,
            },
        }
    }
}

fn bad_input(detail: String) -> DclError {
    DclError::BadInput { detail }
}

/// Runs `f`; a panic becomes [`DclError::Internal`] instead of unwinding into the caller.
fn guard<T>(f: impl FnOnce() -> Result<T, DclError>) -> Result<T, DclError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(DclError::Internal {
            detail: "dcl panicked; the call had no effect".into(),
        })
    })
}

/// For entry points without an error channel: a panic is swallowed (logged by the panic
/// hook), never unwound into the caller.
fn quietly(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
}

fn json(text: &str, what: &str) -> Result<Value, DclError> {
    serde_json::from_str(text).map_err(|e| bad_input(format!("{what}: {e}")))
}

fn config(callback_timeout_ms: Option<u64>) -> HostConfig {
    HostConfig {
        callback_timeout: callback_timeout_ms.map(Duration::from_millis),
        ..HostConfig::default()
    }
}

/// One thing for the language to handle.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Event {
    /// The request id to [`DclSession::respond`] to; empty for a `message`.
    pub id: String,
    /// `message` (payload: the line), `can_use_tool`, `hook_callback` (its payload has
    /// `callback_index`), `tool_call` (`{server, tool, arguments}`), `mcp_message`,
    /// `elicitation` — these wait for an answer — `cancel` (request `id` was withdrawn:
    /// stop its work) and `control_response` (the answer to a [`DclSession::call`]).
    pub kind: String,
    /// JSON text.
    pub payload: String,
}

impl From<HostEvent> for Event {
    fn from(e: HostEvent) -> Self {
        Event {
            id: e.id,
            kind: e.kind,
            payload: e.payload,
        }
    }
}

/// What one pull gave.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum Pulled {
    /// At least one event.
    Events { events: Vec<Event> },
    /// Nothing arrived in time; the session goes on.
    TimedOut,
    /// The session has ended and every event was taken.
    Ended,
}

/// One wake-up for many sessions: a single thread of the language waits on it and learns
/// which sessions have events, so no thread waits per session.
#[derive(uniffi::Object)]
pub struct DclWaker {
    inner: Arc<Waker>,
}

#[uniffi::export]
impl DclWaker {
    #[uniffi::constructor]
    pub fn new() -> Result<Arc<Self>, DclError> {
        guard(|| {
            let inner = Waker::new().map_err(|e| DclError::Internal {
                detail: format!("cannot make a waker: {e}"),
            })?;
            Ok(Arc::new(DclWaker {
                inner: Arc::new(inner),
            }))
        })
    }

    /// Waits at most `timeout_ms` (none: as long as it takes) until some armed session is
    /// ready, then returns the keys of every ready one (empty: timed out).
    pub fn wait_ready(&self, timeout_ms: Option<u64>) -> Vec<u64> {
        guard(|| Ok(self.inner.wait_ready(timeout_ms.map(Duration::from_millis))))
            .unwrap_or_default()
    }

    /// Marks `key` ready by hand (to wake the waiting thread, e.g. to stop it).
    pub fn wake(&self, key: u64) {
        quietly(|| self.inner.notify(key));
    }
}

/// One session and its host. Methods may be called from several threads at once;
/// [`DclSession::next_events`] blocks the calling thread and must be called from the
/// language's own threads (never from a callback dcl runs — there are none).
#[derive(uniffi::Object)]
pub struct DclSession {
    host: Host,
}

#[uniffi::export]
impl DclSession {
    /// Opens an in-process session from options JSON (`SessionOptions`, camelCase; the
    /// schema is `core/bridge/schema/session-options.schema.json`). `callback_timeout_ms`:
    /// how long a callback may take before it is answered with an error and withdrawn
    /// (none: as long as dcl waits, its `hostTimeoutSecs`).
    #[uniffi::constructor]
    pub fn open(
        options_json: String,
        callback_timeout_ms: Option<u64>,
    ) -> Result<Arc<Self>, DclError> {
        guard(|| {
            let host = Host::open(&options_json, config(callback_timeout_ms))?;
            Ok(Arc::new(DclSession { host }))
        })
    }

    /// [`DclSession::open`] with the session in the `dcl` executable at `cli_path`, a child
    /// process driven over its stdio by the same host (the subprocess transport).
    #[uniffi::constructor]
    pub fn open_cli(
        cli_path: String,
        options_json: String,
        callback_timeout_ms: Option<u64>,
    ) -> Result<Arc<Self>, DclError> {
        guard(|| {
            let host = Host::spawn(
                Path::new(&cli_path),
                &options_json,
                config(callback_timeout_ms),
            )?;
            Ok(Arc::new(DclSession { host }))
        })
    }

    /// Opens an in-process session from the argv an SDK would give the `dcl` CLI (without
    /// the program name) and this process's environment; `cwd` applies when the argv names
    /// none.
    #[uniffi::constructor]
    pub fn open_argv(argv: Vec<String>, cwd: Option<String>) -> Result<Arc<Self>, DclError> {
        guard(|| {
            let env = std::env::vars_os()
                // Options take strings: a non-UTF-8 variable is left out (tool processes
                // still get it unchanged, from the process environment).
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect();
            let bridge = dcl_bridge::argv::open_argv(argv, env, cwd.map(PathBuf::from))?;
            let host = Host::over(bridge, HostConfig::default())?;
            Ok(Arc::new(DclSession { host }))
        })
    }

    pub fn session_id(&self) -> String {
        guard(|| Ok(self.host.session_id())).unwrap_or_default()
    }

    /// Registers an in-process MCP server before `initialize`: `{"name", "version",
    /// "tools": [{"name", "description", "inputSchema"}], "instructions"?}`. Its JSON-RPC is
    /// answered here; the language only gets `tool_call` events.
    pub fn add_mcp_server(&self, spec_json: String) -> Result<(), DclError> {
        guard(|| {
            let spec: McpServerSpec =
                serde_json::from_str(&spec_json).map_err(|e| DclError::InvalidOptions {
                    detail: format!("MCP server spec: {e}"),
                    option: None,
                })?;
            Ok(self.host.add_mcp_server(spec)?)
        })
    }

    /// The `initialize` request for `spec_json` (`{"hooks": [{"event", "matcher",
    /// "callbacks", "timeout"?}], …}`: hook callbacks are numbered in declaration order and
    /// arrive as `hook_callback` events carrying `callback_index`) and the MCP servers
    /// registered so far; send it with [`DclSession::request`].
    pub fn initialize_request(&self, spec_json: String) -> Result<String, DclError> {
        guard(|| {
            let spec: InitSpec =
                serde_json::from_str(&spec_json).map_err(|e| DclError::InvalidOptions {
                    detail: format!("initialize spec: {e}"),
                    option: None,
                })?;
            Ok(self.host.initialize_request(&spec).to_string())
        })
    }

    /// Sends a control request (`{"subtype": "interrupt"}`, `initialize`, `set_model`…) and
    /// waits for dcl's answer, at most `timeout_ms` (none: 60 s): the `response` payload as
    /// JSON text. Blocks the calling thread.
    pub fn request(
        &self,
        request_json: String,
        timeout_ms: Option<u64>,
    ) -> Result<String, DclError> {
        guard(|| {
            let request = json(&request_json, "request")?;
            let rt = dcl_bridge::runtime()?;
            let answer = rt.block_on(
                self.host
                    .request_with_timeout(request, timeout_ms.map(Duration::from_millis)),
            )?;
            Ok(answer.to_string())
        })
    }

    /// Sends a control request without waiting: its answer arrives as a `control_response`
    /// event carrying the returned id.
    pub fn call(&self, request_json: String, timeout_ms: Option<u64>) -> Result<String, DclError> {
        guard(|| {
            let request = json(&request_json, "request")?;
            Ok(self
                .host
                .call_with_timeout(request, timeout_ms.map(Duration::from_millis))?)
        })
    }

    /// Sends one protocol line (a user message). [`DclError::Busy`]: the input queue is
    /// full; send the same line again later.
    pub fn send(&self, line: String) -> Result<(), DclError> {
        guard(|| Ok(self.host.send(&line)?))
    }

    /// Takes up to `max` events, waiting at most `timeout_ms` (none: as long as it takes)
    /// for the first. Blocks the calling thread.
    pub fn next_events(&self, max: u32, timeout_ms: Option<u64>) -> Result<Pulled, DclError> {
        guard(|| {
            let events = self
                .host
                .next_events_blocking(max.max(1) as usize, timeout_ms.map(Duration::from_millis))?;
            Ok(self.pulled(events))
        })
    }

    /// [`DclSession::next_events`] without waiting, for a thread woken by a [`DclWaker`].
    pub fn try_events(&self, max: u32) -> Result<Pulled, DclError> {
        guard(|| {
            Ok(match self.host.try_events(max.max(1) as usize) {
                None => Pulled::TimedOut,
                Some(events) => self.pulled(events),
            })
        })
    }

    /// Asks to be woken once: `key` comes out of [`DclWaker::wait_ready`] when the session has
    /// events (at once if it already has, or has ended).
    pub fn arm(&self, waker: Arc<DclWaker>, key: u64) {
        quietly(|| self.host.arm(Arc::clone(&waker.inner), key));
    }

    /// Answers request `id` of an event with `result_json` (for `can_use_tool`:
    /// `{"behavior": "allow", "updatedInput": …}` or `{"behavior": "deny", "message": …}`;
    /// for `tool_call`: `{"content": [{"type": "text", "text": …}], "is_error"?: …}`).
    pub fn respond(&self, id: String, result_json: String) -> Result<(), DclError> {
        guard(|| {
            let value = json(&result_json, "result")?;
            Ok(self.host.respond(&id, Ok(value))?)
        })
    }

    /// Answers request `id` with an error message (for a tool: an error result the model
    /// reads).
    pub fn respond_error(&self, id: String, message: String) -> Result<(), DclError> {
        guard(|| Ok(self.host.respond(&id, Err(message.into()))?))
    }

    /// Requests from dcl still waiting for an answer.
    pub fn pending_callbacks(&self) -> u64 {
        guard(|| Ok(self.host.pending_callbacks() as u64)).unwrap_or_default()
    }

    /// Interrupts the running turn (without waiting; `request({"subtype": "interrupt"})`
    /// waits for dcl's answer).
    pub fn interrupt(&self) {
        quietly(|| self.host.interrupt());
    }

    /// No more input: queued turns finish, then the events end.
    pub fn end_input(&self) {
        quietly(|| self.host.end_input());
    }

    /// Stops the session: a running turn is cancelled, callbacks still pending are answered
    /// with an error, and the events end. Later calls fail with [`DclError::Closed`]. Not
    /// named `close`: generated Kotlin objects are `AutoCloseable`, whose `close()` frees the
    /// handle (which also stops the session, once no call on it is running).
    pub fn shutdown(&self) {
        quietly(|| self.host.close());
    }
}

impl DclSession {
    fn pulled(&self, events: Vec<HostEvent>) -> Pulled {
        if !events.is_empty() {
            Pulled::Events {
                events: events.into_iter().map(Event::from).collect(),
            }
        } else if self.host.ended() {
            Pulled::Ended
        } else {
            Pulled::TimedOut
        }
    }
}

/// dcl's version, e.g. `"0.1.0"`.
#[uniffi::export]
pub fn dcl_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[cfg(test)]
mod tests;
