//! `Host`: one in-process session with the host side of the control protocol done in Rust
//! ([`dcl_bridge::host`]) — request ids both ways, timeouts, `initialize`, the JSON-RPC of
//! in-process MCP servers. The package (`node/src/host.ts`) only calls the user's
//! functions.
//!
//! ```text
//! openHost(optionsJson, callbackTimeoutMs?, controlTimeoutMs?) -> Host | OpenFailure
//! host.addMcpServer(specJson); await host.request(requestJson, timeoutMs?) -> responseJson
//! host.arm(waker, key); host.tryEvents(max) -> { events: [{id, kind, payload}], ended } | null
//! host.respond(id, resultJson) / host.respondError(id, message)
//! await host.withdrawn(id) -> "answered" | "cancelled" | "timeout" | "ended" | "not_pending"
//! ```
//!
//! Pull, never push: events are taken on Node's thread when the thread's one `Waker`
//! (`crate::wake`) names the session; every promise settles from a task on the bridge's
//! runtime through a N-API deferred, which Node completes on its own thread. A session
//! waiting for events costs no task, descriptor or thread.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::BridgeError;
use dcl_bridge::host::{Host as BridgeHost, HostConfig, HostError, InitSpec, McpServerSpec};
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors::{OpenFailure, code, to_napi};
use crate::panic_text;
use crate::wake::Waker;

/// One event for the package: a message (`kind` `message`, `payload` the line), or a
/// request from dcl to answer with `respond` (`can_use_tool`, `hook_callback`,
/// `tool_call`, `mcp_message`, `elicitation`…), or `cancel` for one withdrawn.
#[napi(object)]
pub struct HostEvent {
    pub id: String,
    pub kind: String,
    pub payload: String,
}

/// The events that were ready, and whether the session has ended (after them).
#[napi(object)]
pub struct EventBatch {
    pub events: Vec<HostEvent>,
    pub ended: bool,
}

impl EventBatch {
    /// A batch from the host's events; the empty batch is the host's "ended".
    fn from_host(events: Vec<dcl_bridge::host::HostEvent>) -> Self {
        EventBatch {
            ended: events.is_empty(),
            events: events
                .into_iter()
                .map(|e| HostEvent {
                    id: e.id,
                    kind: e.kind,
                    payload: e.payload,
                })
                .collect(),
        }
    }
}

/// How a control request ended: `response` (dcl's payload, JSON text), or the `code`
/// (`DCL_REFUSED`, `DCL_TIMEOUT`, `DCL_CLOSED`…) and `message` of its failure. A value
/// rather than a rejection, because a deferred rejection cannot carry a code.
#[napi(object)]
pub struct RequestOutcome {
    pub response: Option<String>,
    pub code: Option<String>,
    pub message: Option<String>,
}

#[napi]
pub struct Host {
    inner: Arc<BridgeHost>,
}

impl Drop for Host {
    fn drop(&mut self) {
        // The JavaScript object was collected: nobody can read the session any more.
        self.inner.close();
    }
}

fn millis(what: &str, ms: Option<f64>) -> Result<Option<Duration>> {
    ms.map(|ms| {
        Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| {
            Error::new(
                Status::InvalidArg,
                format!("{what} must be a non-negative number of milliseconds, not {ms}"),
            )
        })
    })
    .transpose()
}

fn json_arg(what: &str, text: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(Status::InvalidArg, format!("{what} is not JSON: {e}")))
}

/// A host error as a thrown `Error` whose `code` the package maps to its classes.
fn host_error(e: &HostError) -> Error<String> {
    let code = match e {
        HostError::Bridge(b) => return to_napi(b),
        HostError::NotPending(_) => "DCL_NOT_PENDING",
        HostError::Timeout(_) => "DCL_TIMEOUT",
        HostError::Refused { .. } => "DCL_REFUSED",
        HostError::Ended => code(dcl_bridge::ErrorKind::Closed),
        HostError::BadSpec(_) => code(dcl_bridge::ErrorKind::InvalidOptions),
    };
    Error::new(code.to_string(), e.to_string())
}

/// Opens a session (options JSON as for `open`) with its host. `callbackTimeoutMs`: how
/// long a callback may take before dcl gets an error answer and the package a `cancel`
/// (default: as long as dcl waits); `controlTimeoutMs`: the default for `request`. With
/// `cliPath`, the session runs in that `dcl` executable as a child process.
#[napi(catch_unwind)]
pub fn open_host(
    options_json: String,
    callback_timeout_ms: Option<f64>,
    control_timeout_ms: Option<f64>,
    cli_path: Option<String>,
) -> Result<Either<Host, OpenFailure>> {
    let config = HostConfig {
        callback_timeout: millis("callbackTimeoutMs", callback_timeout_ms)?,
        control_timeout: millis("controlTimeoutMs", control_timeout_ms)?
            .unwrap_or(HostConfig::default().control_timeout),
        ..HostConfig::default()
    };
    let opened = match cli_path {
        Some(path) => BridgeHost::spawn(std::path::Path::new(&path), &options_json, config),
        None => BridgeHost::open(&options_json, config),
    };
    Ok(match opened {
        Ok(inner) => Either::A(Host {
            inner: Arc::new(inner),
        }),
        Err(HostError::Bridge(e)) => Either::B(OpenFailure::from(&e)),
        Err(e) => Either::B(OpenFailure::from(&BridgeError::Internal(e.to_string()))),
    })
}

#[napi]
impl Host {
    #[napi(getter)]
    pub fn session_id(&self) -> String {
        self.inner.session_id()
    }

    /// Registers an in-process MCP server, before `initialize`: `{name, version, tools:
    /// [{name, description, inputSchema, annotations?}], instructions?}`. Its JSON-RPC is
    /// answered in Rust; only `tool_call` events reach the package.
    #[napi(catch_unwind)]
    pub fn add_mcp_server(&self, spec_json: String) -> Result<()> {
        let spec: McpServerSpec = serde_json::from_value(json_arg("spec", &spec_json)?)
            .map_err(|e| Error::new(Status::InvalidArg, format!("MCP server spec: {e}")))?;
        self.inner
            .add_mcp_server(spec)
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))
    }

    /// The `initialize` request (JSON) for `specJson` (`{hooks: [{event, matcher,
    /// callbacks, timeout?, onFailure?}], ...}`) and the servers registered so far; send it
    /// with `request`. Hook callbacks are numbered `hook_<n>` in declaration order.
    #[napi(catch_unwind)]
    pub fn initialize_request(&self, spec_json: String) -> Result<String> {
        let spec: InitSpec = serde_json::from_value(json_arg("spec", &spec_json)?)
            .map_err(|e| Error::new(Status::InvalidArg, format!("initialize spec: {e}")))?;
        Ok(self.inner.initialize_request(&spec).to_string())
    }

    /// Sends a control request to dcl; resolves with its outcome: the `response` payload,
    /// or a failure coded `DCL_REFUSED` (dcl answered an error), `DCL_TIMEOUT` or
    /// `DCL_CLOSED`.
    #[napi(ts_return_type = "Promise<RequestOutcome>")]
    pub fn request<'env>(
        &self,
        env: &'env Env,
        request_json: String,
        timeout_ms: Option<f64>,
    ) -> Result<Object<'env>> {
        let request = json_arg("request", &request_json)?;
        let timeout = millis("timeoutMs", timeout_ms)?;
        let rt = dcl_bridge::runtime().map_err(|e| Error::from_reason(e.to_string()))?;
        let (deferred, promise) = env.create_deferred()?;
        let host = Arc::clone(&self.inner);
        rt.spawn(async move {
            let answer = AssertUnwindSafe(host.request_with_timeout(request, timeout))
                .catch_unwind()
                .await;
            let outcome = match answer {
                Ok(Ok(value)) => RequestOutcome {
                    response: Some(value.to_string()),
                    code: None,
                    message: None,
                },
                Ok(Err(e)) => {
                    let err = host_error(&e);
                    RequestOutcome {
                        response: None,
                        code: Some(err.status.clone()),
                        message: Some(err.reason.clone()),
                    }
                }
                Err(p) => RequestOutcome {
                    response: None,
                    code: Some("DCL_INTERNAL".into()),
                    message: Some(format!(
                        "dcl panicked in a control request: {}",
                        panic_text(p.as_ref())
                    )),
                },
            };
            deferred.resolve(move |_| Ok(outcome));
        });
        Ok(promise)
    }

    /// Sends one protocol line (a user message). `false`: the input queue is full, send
    /// the same line again later.
    #[napi(catch_unwind)]
    pub fn try_send(&self, line: String) -> Result<bool, String> {
        match self.inner.send(&line) {
            Ok(()) => Ok(true),
            Err(HostError::Bridge(BridgeError::Busy(_))) => Ok(false),
            Err(e) => Err(host_error(&e)),
        }
    }

    /// Answers request `id` of an event (JSON text). Throws `DCL_NOT_PENDING` when it is
    /// not waiting any more (answered, timed out or withdrawn).
    #[napi(catch_unwind)]
    pub fn respond(&self, id: String, result_json: String) -> Result<(), String> {
        let value = serde_json::from_str(&result_json).map_err(|e| {
            Error::new(
                code(dcl_bridge::ErrorKind::BadInput).to_string(),
                format!("the answer is not JSON: {e}"),
            )
        })?;
        self.inner
            .respond(&id, Ok(value))
            .map_err(|e| host_error(&e))
    }

    /// Answers request `id` with an error (for a tool: an error result the model reads).
    #[napi(catch_unwind)]
    pub fn respond_error(&self, id: String, message: String) -> Result<(), String> {
        self.inner
            .respond(&id, Err(message.into()))
            .map_err(|e| host_error(&e))
    }

    /// The events that are ready (at most `max`) without waiting: `null` when none is,
    /// `ended` once the session is over and every event was taken.
    #[napi(catch_unwind)]
    pub fn try_events(&self, max: Option<u32>) -> Option<EventBatch> {
        let max = max.unwrap_or(256).max(1) as usize;
        self.inner.try_events(max).map(EventBatch::from_host)
    }

    /// Asks to be woken once: `key` comes out of `waker.takeReady()` when events wait (at
    /// once if they already do, or the session has ended).
    #[napi]
    pub fn arm(&self, waker: &Waker, key: u32) {
        self.inner.arm(waker.shared(), u64::from(key));
    }

    /// Resolves when request `id` stops waiting: `answered`, `cancelled` (dcl withdrew
    /// it), `timeout`, `ended`, or `not_pending` at once. The package aborts the callback's
    /// signal unless it was answered.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn withdrawn<'env>(&self, env: &'env Env, id: String) -> Result<Object<'env>> {
        let rt = dcl_bridge::runtime().map_err(|e| Error::from_reason(e.to_string()))?;
        let (deferred, promise) = env.create_deferred()?;
        // Watching starts now, on Node's thread, before the callback can answer.
        let watch = self.inner.withdrawn(&id);
        rt.spawn(async move {
            let why = watch.await;
            deferred.resolve(move |_| Ok(why.as_str().to_string()));
        });
        Ok(promise)
    }

    /// Requests from dcl still waiting for the package.
    #[napi]
    pub fn pending_callbacks(&self) -> u32 {
        u32::try_from(self.inner.pending_callbacks()).unwrap_or(u32::MAX)
    }

    #[napi(catch_unwind)]
    pub fn interrupt(&self) {
        self.inner.interrupt();
    }

    #[napi(catch_unwind)]
    pub fn end_input(&self) {
        self.inner.end_input();
    }

    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.inner.close();
    }
}

/// What one JSON-RPC message asks of an in-process MCP server: the complete `reply`, or a
/// tool to `call` (then `McpServer.toolResult`), or neither for a notification.
#[napi(object)]
pub struct McpStep {
    pub reply: Option<String>,
    pub tool: Option<String>,
    pub arguments: Option<String>,
    pub id: Option<String>,
}

/// The JSON-RPC of one in-process MCP server (the Rust host's), for `SdkMcpServer.handle`
/// used on its own, outside a session.
#[napi(js_name = "McpServer")]
pub struct McpServerJs {
    inner: dcl_bridge::host::McpServer,
}

#[napi]
impl McpServerJs {
    #[napi(constructor)]
    pub fn new(spec_json: String) -> Result<Self> {
        let spec: McpServerSpec = serde_json::from_value(json_arg("spec", &spec_json)?)
            .map_err(|e| Error::new(Status::InvalidArg, format!("MCP server spec: {e}")))?;
        dcl_bridge::host::McpServer::new(spec)
            .map(|inner| McpServerJs { inner })
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))
    }

    #[napi(catch_unwind)]
    pub fn handle(&self, message_json: String) -> Result<McpStep> {
        let message = json_arg("message", &message_json)?;
        Ok(match self.inner.handle(&message) {
            dcl_bridge::host::McpStep::Reply(v) => McpStep {
                reply: Some(v.to_string()),
                tool: None,
                arguments: None,
                id: None,
            },
            dcl_bridge::host::McpStep::NoReply => McpStep {
                reply: None,
                tool: None,
                arguments: None,
                id: None,
            },
            dcl_bridge::host::McpStep::Call {
                jsonrpc_id,
                tool,
                arguments,
            } => McpStep {
                reply: None,
                tool: Some(tool),
                arguments: Some(arguments.to_string()),
                id: Some(jsonrpc_id.to_string()),
            },
        })
    }

    /// The `tools/call` answer for a tool's result (JSON text) or its error message.
    #[napi]
    pub fn tool_result(
        id_json: String,
        result_json: Option<String>,
        error: Option<String>,
    ) -> Result<String> {
        let id = json_arg("id", &id_json)?;
        let outcome = match (result_json, error) {
            (_, Some(e)) => Err(e.into()),
            (Some(r), None) => Ok(json_arg("result", &r)?),
            (None, None) => Ok(serde_json::Value::Null),
        };
        Ok(dcl_bridge::host::McpServer::tool_result(&id, outcome).to_string())
    }
}
