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
mod store;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
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
            None => self.arm(&event_loop, fut.clone().unbind())?,
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

    /// Parks the future in the loop's hub; the runtime only waits for readiness and marks
    /// it in the hub's waker. The line is taken when the loop runs the hub.
    fn arm(self, event_loop: &Bound<'_, PyAny>, fut: Py<PyAny>) -> PyResult<()> {
        let hub = loop_hub(event_loop.py(), event_loop)?;
        hub.get().park(self, fut)
    }
}

/// The wake-up of one event loop for every `Session.recv` on it: a waker whose descriptor
/// the loop watches (`add_reader`, with this hub as the callback) and the parked reads by
/// key. The hub runs on the loop's thread when the loop calls it; no runtime thread calls
/// Python, and a session holds no descriptor.
#[pyclass(frozen, module = "dcl._native", name = "_LoopHub")]
struct LoopHub {
    waker: Arc<dcl_bridge::host::Waker>,
    parked: Mutex<HashMap<u64, (Reader, Py<PyAny>)>>,
}

/// Keys of parked reads, unique in the process.
static NEXT_PARK: AtomicU64 = AtomicU64::new(1);

/// The hubs by event loop (a `weakref.WeakKeyDictionary`: a closed loop takes its own).
static HUBS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn loop_hub<'py>(py: Python<'py>, event_loop: &Bound<'py, PyAny>) -> PyResult<Bound<'py, LoopHub>> {
    let hubs = HUBS
        .get_or_try_init(py, || {
            py.import("weakref")?
                .getattr("WeakKeyDictionary")?
                .call0()
                .map(Bound::unbind)
        })?
        .bind(py);
    if let Ok(hub) = hubs
        .call_method1("get", (event_loop,))?
        .cast_into::<LoopHub>()
    {
        return Ok(hub);
    }
    let waker = dcl_bridge::host::Waker::new()
        .map_err(|e| PyValueError::new_err(format!("cannot make a waker: {e}")))?;
    let hub = Bound::new(
        py,
        LoopHub {
            waker: Arc::new(waker),
            parked: Mutex::new(HashMap::new()),
        },
    )?;
    event_loop.call_method1("add_reader", (hub.get().waker.fd(), hub.clone()))?;
    hubs.set_item(event_loop, hub.clone())?;
    Ok(hub)
}

impl LoopHub {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (Reader, Py<PyAny>)>> {
        match self.parked.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn park(&self, reader: Reader, fut: Py<PyAny>) -> PyResult<()> {
        let rt = dcl_bridge::runtime().map_err(|e| PyValueError::new_err(e.to_string()))?;
        let key = NEXT_PARK.fetch_add(1, Ordering::Relaxed);
        let bridge = Arc::clone(&reader.bridge);
        self.lock().insert(key, (reader, fut));
        let waker = Arc::clone(&self.waker);
        rt.spawn(async move {
            bridge.readable().await;
            waker.notify(key);
        });
        Ok(())
    }
}

#[pymethods]
impl LoopHub {
    /// Run by the loop when the waker's descriptor is readable: resolve every read made
    /// ready that is still wanted, park again those another reader beat to the line.
    fn __call__(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        let hub = slf.get();
        for key in hub.waker.take_ready() {
            let Some((reader, fut)) = hub.lock().remove(&key) else {
                continue;
            };
            let f = fut.bind(py);
            if f.call_method0("done")?.is_truthy()? {
                continue; // cancelled meanwhile: the line stays queued for the next read
            }
            match reader.take_now(py)? {
                Some(value) => {
                    f.call_method1("set_result", (value,))?;
                }
                None => hub.park(reader, fut)?,
            }
        }
        Ok(())
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

/// Drains every session store this process opened and gives their leases up (each store
/// waits at most `DCL_SESSION_STORE_FLUSH_SECS`, default 10): the package registers it
/// with `atexit`, since a session's own close may still be draining on another thread
/// when the interpreter exits, which would cut the drain short.
#[pyfunction]
fn close_session_stores(py: Python<'_>) {
    py.detach(|| dcl_store::remote::sync::close_all(dcl_store::remote::sync::exit_flush_timeout()));
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
    m.add_class::<host::PendingCall>()?;
    m.add_class::<host::McpServer>()?;
    m.add_class::<store::NativeStore>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(sessions, m)?)?;
    m.add_function(wrap_pyfunction!(close_session_stores, m)?)?;
    Ok(())
}
