//! `dcl._native.Host` and `dcl._native.Waker`: the host side of the control protocol
//! ([`dcl_bridge::host`]) for the `dcl` package, and the one wake-up its event loop
//! watches.
//!
//! ```text
//! waker = Waker()                        one per event loop: loop.add_reader(waker.fd, ...)
//! host = Host(options_json, callback_timeout, control_timeout)
//! host.add_mcp_server(spec_json); call = host.initialize(spec_json)
//! host.try_events(max) -> [(id, kind, payload)] | None     None: nothing yet; []: ended
//! host.arm(waker, key)                   key goes into waker.take_ready() when events wait
//! host.respond(id, result_json) / host.respond_error(id, message)
//! call = host.call(request_json, timeout)  call.arm(waker, key); call.take() -> (how, json)
//! ```
//!
//! Pull, never push: events are taken on the caller's thread; the runtime only marks a
//! session ready in the waker and pokes its descriptor. No Rust thread calls Python, and
//! an idle session holds no descriptor of its own.

use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::host::{
    Host as BridgeHost, HostConfig, HostError, InitSpec, McpServer as BridgeMcpServer,
    McpServerSpec, McpStep, PendingCall as BridgePendingCall, Waker as BridgeWaker,
};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

use crate::to_pyerr;

fn seconds(what: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{what} must be a non-negative number of seconds, not {value}"
        ))
    })
}

fn json_arg(what: &str, text: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

pub(crate) fn host_err(py: Python<'_>, err: HostError) -> PyErr {
    match err {
        HostError::Bridge(e) => to_pyerr(py, e),
        HostError::NotPending(id) => PyKeyError::new_err(format!(
            "no request {id:?} is waiting for an answer (answered, timed out or cancelled)"
        )),
        HostError::BadSpec(m) => PyValueError::new_err(m),
        HostError::Ended => to_pyerr(py, dcl_bridge::BridgeError::Closed),
        other => to_pyerr(py, dcl_bridge::BridgeError::Internal(other.to_string())),
    }
}

/// The wake-up of one event loop, for all its sessions: watch `fd` for reading, then
/// `take_ready()` names the sessions (their keys) with events waiting.
#[pyclass(frozen, module = "dcl._native", name = "Waker")]
pub struct Waker {
    inner: Arc<BridgeWaker>,
}

impl Waker {
    pub(crate) fn shared(&self) -> Arc<BridgeWaker> {
        Arc::clone(&self.inner)
    }
}

#[pymethods]
impl Waker {
    #[new]
    fn new() -> PyResult<Waker> {
        let inner = BridgeWaker::new()
            .map_err(|e| PyValueError::new_err(format!("cannot make a waker: {e}")))?;
        Ok(Waker {
            inner: Arc::new(inner),
        })
    }

    /// The descriptor to watch for reading (on Windows the socket's handle, which the
    /// selector event loop's `add_reader` takes).
    #[getter]
    fn fd(&self) -> i64 {
        #[cfg(unix)]
        return i64::from(self.inner.fd());
        // A SOCKET is a u64 whose values stay far below i64::MAX.
        #[cfg(not(unix))]
        return i64::try_from(self.inner.fd()).unwrap_or(-1);
    }

    /// The keys made ready since the last call (and clears the descriptor).
    fn take_ready(&self) -> Vec<u64> {
        self.inner.take_ready()
    }
}

/// One in-process session with the host side of the protocol done in Rust.
#[pyclass(frozen, module = "dcl._native", name = "Host")]
pub struct Host {
    inner: BridgeHost,
}

#[pymethods]
impl Host {
    /// Opens a session. `callback_timeout`: seconds the package has to answer a request
    /// from dcl (`None`: dcl's own `hostTimeoutSecs`); `control_timeout`: seconds a
    /// control call to dcl may take unless `call` says otherwise.
    /// With `cli_path`, the session runs in that `dcl` executable as a child process,
    /// driven by the same host over its stdio.
    #[new]
    #[pyo3(signature = (options_json, callback_timeout = None, control_timeout = 60.0, cli_path = None))]
    fn new(
        py: Python<'_>,
        options_json: &str,
        callback_timeout: Option<f64>,
        control_timeout: f64,
        cli_path: Option<std::path::PathBuf>,
    ) -> PyResult<Host> {
        let config = HostConfig {
            callback_timeout: callback_timeout
                .map(|t| seconds("callback_timeout", t))
                .transpose()?,
            control_timeout: seconds("control_timeout", control_timeout)?,
            ..HostConfig::default()
        };
        let options = options_json.to_owned();
        py.detach(move || match cli_path {
            Some(path) => BridgeHost::spawn(&path, &options, config),
            None => BridgeHost::open(&options, config),
        })
        .map(|inner| Host { inner })
        .map_err(|e| host_err(py, e))
    }

    #[getter]
    fn session_id(&self) -> String {
        self.inner.session_id()
    }

    /// Registers an in-process MCP server: `{"name", "version", "tools": [{"name",
    /// "description", "inputSchema", "annotations"?}], "raw"?}`. A raw server's JSON-RPC
    /// comes as `mcp_message` events; the others' only as `tool_call` events.
    fn add_mcp_server(&self, py: Python<'_>, spec_json: &str) -> PyResult<()> {
        let spec: McpServerSpec = serde_json::from_value(json_arg("spec", spec_json)?)
            .map_err(|e| PyValueError::new_err(format!("MCP server spec: {e}")))?;
        self.inner.add_mcp_server(spec).map_err(|e| host_err(py, e))
    }

    /// Sends `initialize` built from `spec_json` (`{"hooks": [{"event", "matcher",
    /// "callbacks", "timeout"?, "onFailure"?}], ...}`); returns the call in flight.
    #[pyo3(signature = (spec_json, timeout = None))]
    fn initialize(
        &self,
        py: Python<'_>,
        spec_json: &str,
        timeout: Option<f64>,
    ) -> PyResult<PendingCall> {
        let spec: InitSpec = serde_json::from_value(json_arg("spec", spec_json)?)
            .map_err(|e| PyValueError::new_err(format!("initialize spec: {e}")))?;
        let request = self.inner.initialize_request(&spec);
        self.call_value(py, request, timeout)
    }

    /// Sends a control request; returns the call in flight, whose `take()` gives the
    /// outcome once dcl answered (or the call timed out, or the session ended).
    #[pyo3(signature = (request_json, timeout = None))]
    fn call(
        &self,
        py: Python<'_>,
        request_json: &str,
        timeout: Option<f64>,
    ) -> PyResult<PendingCall> {
        let request = json_arg("request", request_json)?;
        self.call_value(py, request, timeout)
    }

    /// Sends one protocol line (a user message).
    fn send(&self, py: Python<'_>, line: &str) -> PyResult<()> {
        self.inner.send(line).map_err(|e| host_err(py, e))
    }

    /// Answers request `id` with a result (JSON text). `KeyError` when it is not waiting
    /// any more (timed out, cancelled); `SessionClosedError` when the session is gone.
    fn respond(&self, py: Python<'_>, id: &str, result_json: &str) -> PyResult<()> {
        let value = json_arg("result", result_json)?;
        self.inner
            .respond(id, Ok(value))
            .map_err(|e| host_err(py, e))
    }

    /// Answers request `id` with an error (for a tool: an error result the model reads).
    fn respond_error(&self, py: Python<'_>, id: &str, message: &str) -> PyResult<()> {
        self.inner
            .respond(id, Err(message.into()))
            .map_err(|e| host_err(py, e))
    }

    /// Up to `max` events as `(id, kind, payload_json)` tuples, without waiting: `None`
    /// when none is ready, `[]` once the session has ended.
    #[pyo3(signature = (max = 256))]
    fn try_events(&self, max: usize) -> Option<Vec<(String, String, String)>> {
        self.inner.try_events(max).map(|batch| {
            batch
                .into_iter()
                .map(|e| (e.id, e.kind, e.payload))
                .collect()
        })
    }

    /// Asks to be woken once: `key` comes out of `waker.take_ready()` when events wait
    /// (at once if they already do).
    fn arm(&self, waker: &Waker, key: u64) {
        self.inner.arm(Arc::clone(&waker.inner), key);
    }

    /// Requests from dcl still waiting for an answer.
    fn pending_callbacks(&self) -> usize {
        self.inner.pending_callbacks()
    }

    fn interrupt(&self) {
        self.inner.interrupt();
    }

    fn end_input(&self) {
        self.inner.end_input();
    }

    fn close(&self) {
        self.inner.close();
    }

    fn __repr__(&self) -> String {
        format!("<dcl._native.Host {}>", self.inner.session_id())
    }
}

impl Host {
    fn call_value(
        &self,
        py: Python<'_>,
        request: serde_json::Value,
        timeout: Option<f64>,
    ) -> PyResult<PendingCall> {
        let timeout = timeout.map(|t| seconds("timeout", t)).transpose()?;
        self.inner
            .call_pending(request, timeout)
            .map(|inner| PendingCall { inner })
            .map_err(|e| host_err(py, e))
    }
}

/// A control call in flight. The package holds it (not its id) while it waits: `arm`
/// wakes the loop's waker under a key when the outcome is there; `take()` gives it once.
#[pyclass(frozen, module = "dcl._native", name = "PendingCall")]
pub struct PendingCall {
    inner: BridgePendingCall,
}

#[pymethods]
impl PendingCall {
    #[getter]
    fn id(&self) -> String {
        self.inner.id().to_string()
    }

    /// `None` until the outcome is there, then once: `("ok", response_json)`,
    /// `("refused", message)` (dcl answered an error), `("timeout", message)` or
    /// `("ended", message)`. A session that could not start (a `dcl` child refusing its
    /// options) raises the error opening it in process would have.
    fn take(&self, py: Python<'_>) -> PyResult<Option<(String, String)>> {
        let Some(outcome) = self.inner.take() else {
            return Ok(None);
        };
        Ok(Some(match outcome {
            Ok(v) => ("ok".to_string(), v.to_string()),
            Err(HostError::Refused { message, .. }) => ("refused".to_string(), message),
            Err(e @ HostError::Timeout(_)) => ("timeout".to_string(), e.to_string()),
            Err(HostError::Bridge(e @ dcl_bridge::BridgeError::InvalidOptions { .. })) => {
                return Err(to_pyerr(py, e));
            }
            Err(e) => ("ended".to_string(), e.to_string()),
        }))
    }

    /// Asks to be woken once, under `key`, when the outcome is there.
    fn arm(&self, waker: &Waker, key: u64) {
        self.inner.arm(waker.shared(), key);
    }

    fn __repr__(&self) -> String {
        format!("<dcl._native.PendingCall {}>", self.inner.id())
    }
}

/// The JSON-RPC of one in-process MCP server, for `dcl.SdkMcpServer.handle` used on its
/// own (outside a session).
#[pyclass(frozen, module = "dcl._native", name = "McpServer")]
pub struct McpServer {
    inner: BridgeMcpServer,
}

#[pymethods]
impl McpServer {
    #[new]
    fn new(spec_json: &str) -> PyResult<McpServer> {
        let spec: McpServerSpec = serde_json::from_value(json_arg("spec", spec_json)?)
            .map_err(|e| PyValueError::new_err(format!("MCP server spec: {e}")))?;
        BridgeMcpServer::new(spec)
            .map(|inner| McpServer { inner })
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// `("reply", answer_json)`, `None` for a notification, or `("call", tool,
    /// arguments_json, id_json)` when a tool must run (then [`McpServer::tool_result`]).
    fn handle(&self, message_json: &str) -> PyResult<Option<Vec<String>>> {
        let message = json_arg("message", message_json)?;
        Ok(match self.inner.handle(&message) {
            McpStep::Reply(v) => Some(vec!["reply".into(), v.to_string()]),
            McpStep::NoReply => None,
            McpStep::Call {
                jsonrpc_id,
                tool,
                arguments,
            } => Some(vec![
                "call".into(),
                tool,
                arguments.to_string(),
                jsonrpc_id.to_string(),
            ]),
        })
    }

    /// The `tools/call` answer for a tool's result (JSON text) or its error message.
    #[staticmethod]
    #[pyo3(signature = (id_json, result_json = None, error = None))]
    fn tool_result(
        id_json: &str,
        result_json: Option<&str>,
        error: Option<String>,
    ) -> PyResult<String> {
        let id = json_arg("id", id_json)?;
        let outcome = match (result_json, error) {
            (_, Some(e)) => Err(e.into()),
            (Some(r), None) => Ok(json_arg("result", r)?),
            (None, None) => Ok(serde_json::Value::Null),
        };
        Ok(BridgeMcpServer::tool_result(&id, outcome).to_string())
    }
}
