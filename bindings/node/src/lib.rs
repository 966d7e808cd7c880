//! The Node face of [`dcl_bridge`], and nothing more (the `@dcl/agent` package wraps it).
//!
//! ```text
//! open(optionsJson) -> Session | OpenFailure
//! openArgs(argv, env, cwd) -> Session | OpenFailure     the dcl CLI's flags (spawn adapter)
//! session.trySend(line) -> boolean        false: the input queue is full, send again later
//! await session.recv(max, timeoutMs) -> { lines, ended }
//! session.interrupt(); session.endInput(); session.close(); session.sessionId
//! ```
//!
//! Pull, never push: no Rust thread calls into JavaScript. Permission prompts, hooks and
//! host MCP calls arrive from `recv` as control requests; the package answers them with
//! `trySend`. `recv` returns a promise settled from a task on the bridge's own runtime
//! (through a N-API deferred, which Node completes on its own thread), so there is one
//! tokio runtime per process whatever the front end, and Node's thread never blocks.

mod errors;
pub mod host;
pub mod wake;

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::{Bridge, BridgeError};
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use errors::{OpenFailure, to_napi};

/// The most lines one `recv` hands over when the caller names no limit.
const DEFAULT_BATCH: u32 = 256;

/// What one `recv` gave: the lines that were ready, and whether the session has ended
/// (after them). No lines and not ended means the wait timed out.
#[napi(object)]
pub struct Batch {
    pub lines: Vec<String>,
    pub ended: bool,
}

/// One in-process dcl session. Made by `open` / `openArgs`; JavaScript cannot construct it.
#[napi]
pub struct Session {
    bridge: Arc<Bridge>,
}

impl Drop for Session {
    fn drop(&mut self) {
        // Nobody can read the session any more (the JavaScript object was collected):
        // stop it rather than let it run on.
        self.bridge.close();
    }
}

fn opened(result: std::result::Result<Bridge, BridgeError>) -> Either<Session, OpenFailure> {
    match result {
        Ok(bridge) => Either::A(Session {
            bridge: Arc::new(bridge),
        }),
        Err(e) => Either::B(OpenFailure::from(&e)),
    }
}

/// Opens a session from options JSON (`SessionOptions`: camelCase keys, unknown keys
/// rejected). Bad options give an `OpenFailure` naming the option, not an exception, so
/// the package can raise its own error class with the option on it.
#[napi(catch_unwind)]
pub fn open(options_json: String) -> Either<Session, OpenFailure> {
    opened(dcl_bridge::open(&options_json))
}

/// Opens a session from the `dcl` CLI's argv (stream-json in and out), as
/// `@anthropic-ai/claude-agent-sdk` builds it for the process it would spawn; `env` is the
/// environment that process would get and `cwd` its working directory.
#[napi(catch_unwind)]
pub fn open_args(
    argv: Vec<String>,
    env: HashMap<String, String>,
    cwd: Option<String>,
) -> Either<Session, OpenFailure> {
    let env: BTreeMap<String, String> = env.into_iter().collect();
    match dcl_bridge::argv::open_argv(argv, env, cwd.map(PathBuf::from)) {
        Ok(bridge) => Either::A(Session {
            bridge: Arc::new(bridge),
        }),
        // The message names the flag; the spawn adapter shows it as the CLI would.
        Err(BridgeError::InvalidOptions { option, message }) => {
            Either::B(OpenFailure::invalid(option.as_deref(), message))
        }
        Err(e) => Either::B(OpenFailure::from(&e)),
    }
}

pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

#[napi]
impl Session {
    /// The session's id (a UUID), as every outbound line carries it.
    #[napi(getter)]
    pub fn session_id(&self) -> String {
        self.bridge.session_id().to_owned()
    }

    /// Hands one protocol line to the session (a user message, a control request or a
    /// control response). `false`: the input queue is full, nothing was taken; send the
    /// same line again later. Throws `DCL_BAD_INPUT` (the session goes on) or
    /// `DCL_CLOSED`.
    #[napi(catch_unwind)]
    pub fn try_send(&self, line: String) -> Result<bool, String> {
        match self.bridge.send(&line) {
            Ok(()) => Ok(true),
            Err(BridgeError::Busy(_)) => Ok(false),
            Err(e) => Err(to_napi(&e)),
        }
    }

    /// The lines that are ready (at least one, at most `max`, default 256), waiting at most
    /// `timeoutMs` for the first (default: as long as it takes). `ended` once the session
    /// is over. Never blocks Node's thread; a wait that times out loses no line.
    #[napi(ts_return_type = "Promise<Batch>")]
    pub fn recv<'env>(
        &self,
        env: &'env Env,
        max: Option<u32>,
        timeout_ms: Option<f64>,
    ) -> Result<Object<'env>> {
        let max = max.unwrap_or(DEFAULT_BATCH).max(1) as usize;
        let timeout = match timeout_ms {
            None => None,
            Some(ms) => Some(Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| {
                Error::new(
                    Status::InvalidArg,
                    format!("timeoutMs must be a non-negative number, not {ms}"),
                )
            })?),
        };
        let rt = dcl_bridge::runtime().map_err(|e| Error::from_reason(e.to_string()))?;
        let (deferred, promise) = env.create_deferred()?;
        let bridge = Arc::clone(&self.bridge);
        rt.spawn(async move {
            let read = AssertUnwindSafe(bridge.recv_batch_timeout(max, timeout))
                .catch_unwind()
                .await;
            match read {
                Ok(batch) => deferred.resolve(move |_| {
                    Ok(Batch {
                        lines: batch.lines,
                        ended: batch.ended,
                    })
                }),
                Err(payload) => deferred.reject(Error::from_reason(format!(
                    "dcl panicked while reading the session: {}",
                    panic_text(payload.as_ref())
                ))),
            }
        });
        Ok(promise)
    }

    /// Interrupts the running turn (like an `interrupt` control request, unanswered).
    #[napi(catch_unwind)]
    pub fn interrupt(&self) {
        self.bridge.interrupt();
    }

    /// No more input: running and queued turns finish, then `recv` reports `ended`.
    #[napi(catch_unwind)]
    pub fn end_input(&self) {
        self.bridge.end_input();
    }

    /// Stops now: the running turn is cancelled, its tools are killed, and `recv` reports
    /// `ended` after the lines already emitted.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.bridge.close();
    }
}

/// Lists or reads the sessions on disk (`listSessions`, `getSessionMessages`): a
/// `dcl_store::requests::SessionsRequest` as JSON in, JSON out, read on libuv's thread pool
/// so Node's thread never waits on the disk.
pub struct SessionsTask(String);

impl Task for SessionsTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        std::panic::catch_unwind(AssertUnwindSafe(|| dcl_store::requests::answer(&self.0)))
            .map_err(|p| {
                Error::from_reason(format!(
                    "dcl panicked while reading sessions: {}",
                    panic_text(p.as_ref())
                ))
            })?
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

#[napi(ts_return_type = "Promise<string>")]
pub fn sessions(request_json: String) -> AsyncTask<SessionsTask> {
    AsyncTask::new(SessionsTask(request_json))
}

/// dcl's version and the protocol level it speaks (what `dcl -v` prints).
#[napi(object)]
pub struct Versions {
    pub dcl: String,
    pub protocol: String,
}

#[napi]
pub fn versions() -> Versions {
    Versions {
        dcl: dcl_protocol::DCL_VERSION.to_string(),
        protocol: dcl_protocol::PROTOCOL_LEVEL.to_string(),
    }
}

/// Drains every session store this process opened and gives their leases up (each store
/// waits at most `DCL_SESSION_STORE_FLUSH_SECS`, default 10). The package calls it on
/// `process.on("exit")`: a session's own close may still be draining on another thread
/// when the event loop runs dry, and the process would cut that drain short.
#[napi]
pub fn close_session_stores() {
    dcl_store::remote::sync::close_all(dcl_store::remote::sync::exit_flush_timeout());
}

/// Panics on purpose, for the test that a Rust panic reaches JavaScript as an `Error`
/// (`"sync"`: in the call itself; `"async"`: inside a task on the runtime).
#[napi(
    catch_unwind,
    js_name = "_panicForTest",
    ts_return_type = "Promise<void> | void"
)]
pub fn panic_for_test<'env>(env: &'env Env, place: String) -> Result<Option<Object<'env>>> {
    if place != "async" {
        panic!("a test panic in a synchronous call");
    }
    let rt = dcl_bridge::runtime().map_err(|e| Error::from_reason(e.to_string()))?;
    let (deferred, promise) = env.create_deferred::<(), fn(Env) -> Result<()>>()?;
    rt.spawn(async move {
        let run = AssertUnwindSafe(async { panic!("a test panic on the runtime") })
            .catch_unwind()
            .await;
        match run {
            Ok(()) => deferred.resolve(|_| Ok(())),
            Err(payload) => deferred.reject(Error::from_reason(format!(
                "dcl panicked: {}",
                panic_text(payload.as_ref())
            ))),
        }
    });
    Ok(Some(promise))
}
