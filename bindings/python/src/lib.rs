//! `dcl._native`: the Python face of [`dcl_bridge`], and nothing more.
//!
//! ```text
//! open(options_json) -> Session
//! session.send(line)                  user message | control_request | control_response
//! await session.recv() -> str | None  every outbound line, control requests included
//! session.recv_blocking(timeout)      the same for threads without an event loop
//! session.interrupt(); session.end_input(); session.close(); session.session_id
//! ```
//!
//! Pull, never push: no Rust thread ever calls into Python. Permission prompts, hooks and
//! host MCP calls arrive from `recv()` as control requests; the `dcl` package answers them
//! with `send()`. Futures run on the one runtime of [`dcl_bridge::runtime`], which is
//! also the runtime `pyo3-async-runtimes` uses, so there is a single tokio runtime per
//! process whatever the front end.

mod host;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dcl_bridge::{Bridge, BridgeError, ErrorKind};
use pyo3::exceptions::{PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// How long one blocking wait lasts before Python gets to see a pending signal (Ctrl-C).
const BLOCKING_SLICE: Duration = Duration::from_millis(100);

/// The exception classes. Built once with `type(...)` because two of them derive from
/// both `DclError` and `ValueError`, which `create_exception!` cannot express.
struct Errors {
    base: Py<PyType>,
    connection: Py<PyType>,
    invalid_options: Py<PyType>,
    bad_input: Py<PyType>,
    closed: Py<PyType>,
    internal: Py<PyType>,
}

static ERRORS: PyOnceLock<Errors> = PyOnceLock::new();

fn errors(py: Python<'_>) -> PyResult<&Errors> {
    ERRORS.get_or_try_init(py, || build_errors(py))
}

fn build_errors(py: Python<'_>) -> PyResult<Errors> {
    let builtins = py.import("builtins")?;
    let type_ = builtins.getattr("type")?;
    let make = |name: &str, doc: &str, bases: Vec<Bound<'_, PyAny>>| -> PyResult<Py<PyType>> {
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "dcl._native")?;
        namespace.set_item("__doc__", doc)?;
        let cls = type_.call1((name, PyTuple::new(py, bases)?, namespace))?;
        Ok(cls.cast_into::<PyType>()?.unbind())
    };
    let exception = builtins.getattr("Exception")?;
    let value_error = builtins.getattr("ValueError")?;
    let base = make(
        "DclError",
        "Base class of every error raised by dcl.",
        vec![exception],
    )?;
    let connection = make(
        "CLIConnectionError",
        "The session could not be opened or is no longer reachable.",
        vec![base.bind(py).clone().into_any()],
    )?;
    let invalid_options = make(
        "InvalidOptionsError",
        "The session options were rejected (unknown key, bad value, missing directory...).",
        vec![connection.bind(py).clone().into_any(), value_error.clone()],
    )?;
    let bad_input = make(
        "BadInputError",
        "A line handed to send() could not be used; the session keeps serving.",
        vec![base.bind(py).clone().into_any(), value_error],
    )?;
    let closed = make(
        "SessionClosedError",
        "The session has ended; nothing more can be sent.",
        vec![connection.bind(py).clone().into_any()],
    )?;
    let internal = make(
        "InternalError",
        "A failure inside dcl itself.",
        vec![base.bind(py).clone().into_any()],
    )?;
    Ok(Errors {
        base,
        connection,
        invalid_options,
        bad_input,
        closed,
        internal,
    })
}

fn to_pyerr(py: Python<'_>, err: BridgeError) -> PyErr {
    let classes = match errors(py) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let cls = match err.kind() {
        ErrorKind::InvalidOptions => &classes.invalid_options,
        ErrorKind::BadInput => &classes.bad_input,
        ErrorKind::Closed => &classes.closed,
        ErrorKind::Busy | ErrorKind::Internal => &classes.internal,
    };
    PyErr::from_type(cls.bind(py).clone(), err.to_string())
}

/// One in-process dcl session. Create it with `dcl._native.open(options_json)`.
#[pyclass(frozen, module = "dcl._native", name = "Session")]
pub struct Session {
    bridge: Arc<Bridge>,
    /// Set once `recv` has returned `None`: from then on `send` fails at once, instead
    /// of racing the session's teardown.
    ended: Arc<AtomicBool>,
}

impl Drop for Session {
    fn drop(&mut self) {
        // Nobody can read the session any more: stop it rather than let it run on.
        self.bridge.close();
    }
}

fn open_session(py: Python<'_>, options_json: &str) -> PyResult<Session> {
    let options = options_json.to_owned();
    let opened = py.detach(move || dcl_bridge::open(&options));
    match opened {
        Ok(bridge) => Ok(Session {
            bridge: Arc::new(bridge),
            ended: Arc::new(AtomicBool::new(false)),
        }),
        Err(e) => Err(to_pyerr(py, e)),
    }
}

impl Session {
    fn reader(&self, take: Take) -> Reader {
        Reader {
            bridge: Arc::clone(&self.bridge),
            ended: Arc::clone(&self.ended),
            take,
        }
    }
}

/// What one awaitable `recv` hands over.
#[derive(Clone, Copy)]
enum Take {
    One,
    Batch(usize),
}

/// Reads for one asyncio future, cancel-safe by construction: the runtime only waits for
/// lines to be *ready*; the line is taken on the event loop's thread, and only while the
/// future is still pending. A future cancelled between the wake-up and the delivery
/// (`asyncio.wait_for` timing out) therefore takes nothing, and the next `recv` gets the
/// line. Taking on the runtime and handing over later would lose it.
#[derive(Clone)]
struct Reader {
    bridge: Arc<Bridge>,
    ended: Arc<AtomicBool>,
    take: Take,
}

impl Reader {
    /// A future of the running loop, already resolved when a line is ready.
    fn future<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let event_loop = pyo3_async_runtimes::get_running_loop(py)?;
        let fut = event_loop.call_method0("create_future")?;
        match self.take_now(py)? {
            Some(value) => {
                fut.call_method1("set_result", (value,))?;
            }
            None => self.arm(event_loop.unbind(), fut.clone().unbind())?,
        }
        Ok(fut)
    }

    /// The value for the future when lines (or the end) are ready, else `None`.
    fn take_now(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let max = match self.take {
            Take::One => 1,
            Take::Batch(n) => n,
        };
        let Some(lines) = self.bridge.try_recv_batch(max) else {
            return Ok(None);
        };
        if lines.is_empty() {
            self.ended.store(true, Ordering::SeqCst);
        }
        let value = match self.take {
            Take::One => lines.into_iter().next().into_pyobject(py)?.unbind(),
            Take::Batch(_) => lines.into_pyobject(py)?.unbind(),
        };
        Ok(Some(value))
    }

    /// Waits on the runtime for readiness, then delivers on the loop's thread.
    fn arm(self, event_loop: Py<PyAny>, fut: Py<PyAny>) -> PyResult<()> {
        let rt = dcl_bridge::runtime().map_err(|e| PyValueError::new_err(e.to_string()))?;
        rt.spawn(async move {
            self.bridge.readable().await;
            Python::attach(|py| {
                let deliver = self.deliver(py, event_loop.clone_ref(py), fut)?;
                // A closed loop refuses the call: nobody is waiting for the line then, and
                // it stays queued.
                event_loop
                    .bind(py)
                    .call_method1("call_soon_threadsafe", (deliver,))
                    .map(drop)
            })
            .ok();
        });
        Ok(())
    }

    /// The callback run on the loop: take and resolve, or wait again if another reader
    /// took the line first; nothing at all if the future was cancelled meanwhile.
    fn deliver<'py>(
        self,
        py: Python<'py>,
        event_loop: Py<PyAny>,
        fut: Py<PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCFunction>> {
        pyo3::types::PyCFunction::new_closure(py, None, None, move |args, _kwargs| {
            let py = args.py();
            let f = fut.bind(py);
            if f.call_method0("done")?.is_truthy()? {
                return Ok(());
            }
            match self.take_now(py)? {
                Some(value) => f.call_method1("set_result", (value,)).map(drop),
                None => self
                    .clone()
                    .arm(event_loop.clone_ref(py), fut.clone_ref(py)),
            }
        })
    }
}

#[pymethods]
impl Session {
    /// Opens a session from options JSON (`SessionOptions`: camelCase keys, unknown keys
    /// rejected). Raises `InvalidOptionsError` when they are not valid.
    #[staticmethod]
    fn open(py: Python<'_>, options_json: &str) -> PyResult<Session> {
        open_session(py, options_json)
    }

    /// The session's id (a UUID), as every outbound line carries it.
    #[getter]
    fn session_id(&self) -> String {
        self.bridge.session_id().to_owned()
    }

    /// Hands one protocol line to the session: a user message, a control request or a
    /// control response. A line that cannot be used raises `BadInputError` (a
    /// `ValueError`); the session keeps serving.
    fn send(&self, py: Python<'_>, line: &str) -> PyResult<()> {
        if self.ended.load(Ordering::SeqCst) {
            return Err(to_pyerr(py, BridgeError::Closed));
        }
        self.bridge.send(line).map_err(|e| to_pyerr(py, e))
    }

    /// Awaitable of the next outbound line (`str`), or `None` once the session has
    /// ended. Cancelling the awaitable loses no line.
    fn recv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.reader(Take::One).future(py)
    }

    /// Every outbound line that is ready, as a list (at least one, at most `max`): one
    /// asyncio wake-up per burst instead of one per line. An empty list means the session
    /// has ended. Cancelling the awaitable loses no line.
    #[pyo3(signature = (max = 256))]
    fn recv_batch<'py>(&self, py: Python<'py>, max: usize) -> PyResult<Bound<'py, PyAny>> {
        self.reader(Take::Batch(max.max(1))).future(py)
    }

    /// Every outbound line that is ready (at most `max`), without waiting: `None` when
    /// none is, `[]` once the session has ended. With `arm`, the way to read many sessions
    /// on one event loop.
    #[pyo3(signature = (max = 256))]
    fn try_recv_batch(&self, max: usize) -> Option<Vec<String>> {
        let got = self.bridge.try_recv_batch(max.max(1));
        if got.as_ref().is_some_and(Vec::is_empty) {
            self.ended.store(true, Ordering::SeqCst);
        }
        got
    }

    /// Asks to be woken once: `key` comes out of `waker.take_ready()` when lines (or the
    /// end) are ready. The runtime only marks the key and pokes the waker's descriptor; no
    /// Python code runs off the loop's thread, and the session holds no descriptor.
    fn arm(&self, py: Python<'_>, waker: &host::Waker, key: u64) -> PyResult<()> {
        let rt = dcl_bridge::runtime().map_err(|e| to_pyerr(py, e))?;
        let bridge = Arc::clone(&self.bridge);
        let waker = waker.shared();
        rt.spawn(async move {
            bridge.readable().await;
            waker.notify(key);
        });
        Ok(())
    }

    /// The next outbound line, waiting without the GIL; `None` once the session has
    /// ended. Raises `TimeoutError` when `timeout` seconds pass first, and whatever a
    /// pending signal raises (`KeyboardInterrupt`).
    #[pyo3(signature = (timeout = None))]
    fn recv_blocking(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<String>> {
        let limit = match timeout {
            None => None,
            Some(t) => match Duration::try_from_secs_f64(t) {
                Ok(d) => Some(d),
                Err(_) => {
                    return Err(PyValueError::new_err(format!(
                        "timeout must be a non-negative number of seconds, not {t}"
                    )));
                }
            },
        };
        let rt = dcl_bridge::runtime().map_err(|e| to_pyerr(py, e))?;
        let deadline = limit.map(|d| Instant::now() + d);
        loop {
            let slice = match deadline {
                Some(d) => d
                    .saturating_duration_since(Instant::now())
                    .min(BLOCKING_SLICE),
                None => BLOCKING_SLICE,
            };
            let bridge = Arc::clone(&self.bridge);
            let got = py.detach(move || {
                rt.block_on(async move { tokio::time::timeout(slice, bridge.recv()).await })
            });
            if let Ok(line) = got {
                if line.is_none() {
                    self.ended.store(true, Ordering::SeqCst);
                }
                return Ok(line);
            }
            py.check_signals()?;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(PyTimeoutError::new_err(
                    "no message from the session within the timeout",
                ));
            }
        }
    }

    /// Interrupts the running turn (like an `interrupt` control request, unanswered).
    fn interrupt(&self) {
        self.bridge.interrupt();
    }

    /// No more input: running and queued turns finish, then `recv` returns `None`.
    fn end_input(&self) {
        self.bridge.end_input();
    }

    /// Stops now: the running turn is cancelled, its tools are killed, and `recv`
    /// returns `None` after the lines already emitted.
    fn close(&self) {
        self.bridge.close();
    }

    fn __repr__(&self) -> String {
        format!("<dcl._native.Session {}>", self.bridge.session_id())
    }
}

/// Lists or reads the sessions on disk (`dcl.list_sessions`, `dcl.get_session_messages`):
/// `{"op": "list" | "messages", "directory"?, "sessionId"?, "env": {...}, "dataDir"?}`
/// in, JSON out. The same homes and layout as a session opened with that environment.
#[pyfunction]
fn sessions(py: Python<'_>, request_json: &str) -> PyResult<String> {
    let request = request_json.to_string();
    py.detach(move || dcl_store::requests::answer(&request))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Opens a session from options JSON; see `Session.open`.
#[pyfunction]
fn open(py: Python<'_>, options_json: &str) -> PyResult<Session> {
    open_session(py, options_json)
}

#[pymodule(gil_used = false)]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let rt = dcl_bridge::runtime().map_err(|e| to_pyerr(py, e))?;
    // Already set when the module is initialised a second time (a sub-interpreter);
    // it is the same runtime either way.
    let _ = pyo3_async_runtimes::tokio::init_with_runtime(rt);
    let classes = errors(py)?;
    m.add("DclError", classes.base.bind(py))?;
    m.add("CLIConnectionError", classes.connection.bind(py))?;
    m.add("InvalidOptionsError", classes.invalid_options.bind(py))?;
    m.add("BadInputError", classes.bad_input.bind(py))?;
    m.add("SessionClosedError", classes.closed.bind(py))?;
    m.add("InternalError", classes.internal.bind(py))?;
    m.add("DCL_VERSION", dcl_protocol::DCL_VERSION)?;
    m.add("PROTOCOL_LEVEL", dcl_protocol::PROTOCOL_LEVEL)?;
    m.add_class::<Session>()?;
    m.add_class::<host::Host>()?;
    m.add_class::<host::Waker>()?;
    m.add_class::<host::McpServer>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(sessions, m)?)?;
    Ok(())
}
