//! The host side of the control protocol, once, for every language.
//!
//! A [`Host`] wraps one session ([`crate::Bridge`]) and does everything a host does that
//! is not calling user code:
//!
//! * requests from dcl (`can_use_tool`, `hook_callback`, `elicitation`, a tool of an
//!   in-process MCP server…) become [`HostEvent`]s `{id, kind, payload}`; the language runs
//!   its function and calls [`Host::respond`]; the host writes the `control_response`;
//! * a callback that does not answer within [`HostConfig::callback_timeout`] is answered
//!   with an error for it, and the language gets a `cancel` event (as it does when dcl
//!   withdraws a request with `control_cancel_request`); a late `respond` is
//!   [`HostError::NotPending`];
//! * control calls to dcl (`initialize`, `interrupt`, `set_model`, …) get their own ids and
//!   timeouts: [`Host::call`] answers with a `control_response` event, [`Host::request`]
//!   with a future;
//! * `initialize` is built from an [`InitSpec`] (hooks become callback ids);
//! * in-process MCP servers are registered as (name, version, tools with schemas) and
//!   their JSON-RPC is answered here; only `tools/call` reaches the language.
//!
//! Pull, never push: a pump task on the runtime reads the session and queues events; the
//! language takes them ([`Host::try_events`], [`Host::next_events`]) and may ask to be
//! woken through a shared [`Waker`] ([`Host::arm`]). No Rust thread calls into a language.

pub mod child;
pub mod init;
pub mod mcp;
pub mod wake;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dcl_protocol::{
    ControlRequestEnvelope, ControlResponse, ControlResponseEnvelope, Extra, Message,
};
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};
use tokio::task::AbortHandle;

use crate::{Bridge, BridgeError};
pub use init::{HookSpec, InitSpec};
pub use mcp::{McpServer, McpServerSpec, McpSpecError, McpStep, McpToolSpec};
pub use wake::Waker;

/// Event kinds that are not a request subtype.
pub mod kind {
    /// An outbound message for the user (`payload`: the line).
    pub const MESSAGE: &str = "message";
    /// Run a tool of an in-process MCP server (`{server, tool, arguments}`).
    pub const TOOL_CALL: &str = "tool_call";
    /// JSON-RPC for a server the language answers itself (`{server_name, message}`).
    pub const MCP_MESSAGE: &str = "mcp_message";
    /// The request `id` is withdrawn (dcl cancelled it, or it timed out): stop its work;
    /// its answer is no longer wanted.
    pub const CANCEL: &str = "cancel";
    /// The answer to a [`super::Host::call`] (`payload`: dcl's `response` object, or an
    /// `error` one for a timeout or the session's end).
    pub const CONTROL_RESPONSE: &str = "control_response";
}

/// One thing for the language to handle. `payload` is JSON text (for a message, the line
/// itself), so it crosses any binding as one string.
#[derive(Debug, Clone, PartialEq)]
pub struct HostEvent {
    /// The request id to `respond` to (empty for messages).
    pub id: String,
    pub kind: String,
    pub payload: String,
}

impl HostEvent {
    /// The payload, decoded.
    pub fn payload_json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.payload)
    }
}

/// Errors of the host a binding maps to its own.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostError {
    /// `respond` for a request that is not (or no longer) waiting: answered already,
    /// timed out, or withdrawn by dcl.
    #[error("no request {0:?} is waiting for an answer (answered, timed out or cancelled)")]
    NotPending(String),
    #[error("Control request timeout: {0}")]
    Timeout(String),
    /// dcl answered the control call with an error.
    #[error("{subtype}: {message}")]
    Refused { subtype: String, message: String },
    #[error("the session ended before answering")]
    Ended,
    #[error("invalid host spec: {0}")]
    BadSpec(String),
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}

impl From<McpSpecError> for HostError {
    fn from(e: McpSpecError) -> Self {
        HostError::BadSpec(e.to_string())
    }
}

/// A host's callback failed: what it raised, as the message dcl passes on (a control
/// request's `error`; for a tool, an error result the model reads).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CallbackFailed {
    pub message: String,
}

impl From<String> for CallbackFailed {
    fn from(message: String) -> Self {
        CallbackFailed { message }
    }
}

impl From<&str> for CallbackFailed {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

/// How a host waits.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// How long the language has to answer a request from dcl. `None`: as long as dcl
    /// waits (its `hostTimeoutSecs`, after which dcl itself withdraws the request).
    pub callback_timeout: Option<Duration>,
    /// How long a control call to dcl may take.
    pub control_timeout: Duration,
    /// Events queued for the language before the pump stops reading the session: a
    /// language that stops pulling stalls the session (whose own outbox is bounded) instead
    /// of growing memory here.
    pub max_events: usize,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            callback_timeout: None,
            control_timeout: Duration::from_secs(60),
            max_events: 1024,
        }
    }
}

/// What an answer from the language turns into.
enum Inbound {
    Control,
    Tool { jsonrpc_id: Value },
    RawMcp { jsonrpc_id: Value },
}

struct InboundEntry {
    what: Inbound,
    kind: String,
    timer: Option<AbortHandle>,
    /// Who waits to learn how the request ends ([`Host::withdrawn`]).
    watchers: Vec<oneshot::Sender<Withdrawal>>,
}

impl InboundEntry {
    /// The request is over: its timer stops and its watchers learn why.
    fn release(self, why: Withdrawal) -> Inbound {
        if let Some(t) = self.timer {
            t.abort();
        }
        for w in self.watchers {
            let _ = w.send(why);
        }
        self.what
    }
}

/// How a request from dcl stopped waiting for the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    /// The language answered it.
    Answered,
    /// dcl withdrew it (`control_cancel_request`).
    Cancelled,
    /// The callback timeout passed; dcl got an error answer.
    TimedOut,
    /// The session ended.
    Ended,
    /// No such request is waiting (never was, or already over).
    NotPending,
}

impl Withdrawal {
    pub fn as_str(self) -> &'static str {
        match self {
            Withdrawal::Answered => "answered",
            Withdrawal::Cancelled => "cancelled",
            Withdrawal::TimedOut => "timeout",
            Withdrawal::Ended => "ended",
            Withdrawal::NotPending => "not_pending",
        }
    }
}

enum Waiter {
    Event,
    Future(oneshot::Sender<Result<Value, HostError>>),
    Slot(Arc<CallSlot>),
}

/// Where a [`PendingCall`]'s outcome lands, and who to wake when it does.
#[derive(Default)]
struct CallSlot {
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    outcome: Option<Result<Value, HostError>>,
    armed: Option<(Arc<Waker>, u64)>,
}

impl CallSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn fill(&self, outcome: Result<Value, HostError>) {
        let armed = {
            let mut state = self.lock();
            state.outcome = Some(outcome);
            state.armed.take()
        };
        if let Some((waker, key)) = armed {
            waker.notify(key);
        }
    }
}

/// A control call in flight, for languages whose event loop cannot await a future settled
/// off-thread (Python): the language holds this object, not its id, so it keeps no table
/// of calls. [`PendingCall::take`] gives the outcome once; [`PendingCall::arm`] wakes the
/// loop's [`Waker`] under `key` when it is there.
pub struct PendingCall {
    id: String,
    slot: Arc<CallSlot>,
}

impl PendingCall {
    /// The request id the host gave the call (for logs).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The outcome once it is there (the response payload, or why not); `None` before.
    pub fn take(&self) -> Option<Result<Value, HostError>> {
        self.slot.lock().outcome.take()
    }

    /// Wakes `waker` under `key` once the outcome is there (at once if it already is).
    pub fn arm(&self, waker: Arc<Waker>, key: u64) {
        let mut state = self.slot.lock();
        if state.outcome.is_some() {
            drop(state);
            waker.notify(key);
        } else {
            state.armed = Some((waker, key));
        }
    }
}

struct OutboundEntry {
    subtype: String,
    waiter: Waiter,
    timer: Option<AbortHandle>,
}

#[derive(Default)]
struct State {
    events: VecDeque<HostEvent>,
    ended: bool,
    inbound: HashMap<String, InboundEntry>,
    outbound: HashMap<String, OutboundEntry>,
    servers: Vec<McpServer>,
    armed: Option<(Arc<Waker>, u64)>,
}

impl State {
    /// Removes a call to dcl that is over. The table's buffer goes back once no call
    /// waits: an idle session keeps no room sized for its busiest moment.
    fn take_outbound(&mut self, id: &str) -> Option<OutboundEntry> {
        let entry = self.outbound.remove(id);
        if self.outbound.is_empty() {
            self.outbound.shrink_to_fit();
        }
        entry
    }

    /// Removes a request from dcl that is over (as [`State::take_outbound`]).
    fn take_inbound(&mut self, id: &str) -> Option<InboundEntry> {
        let entry = self.inbound.remove(id);
        if self.inbound.is_empty() {
            self.inbound.shrink_to_fit();
        }
        entry
    }
}

struct Shared {
    bridge: child::Link,
    config: HostConfig,
    state: Mutex<State>,
    /// Events were queued (for Rust waiters; languages use [`Waker`]).
    readable: Notify,
    /// The language took events: the pump may read on.
    room: Notify,
    closed: AtomicBool,
    counter: AtomicU64,
}

/// One session with its host side. Dropping it closes the session.
pub struct Host {
    shared: Arc<Shared>,
}

impl Host {
    /// Opens a session (options JSON as for [`crate::open`]) and starts its pump.
    pub fn open(options_json: &str, config: HostConfig) -> Result<Host, HostError> {
        Ok(Host::over(crate::open(options_json)?, config)?)
    }

    /// The host of an open bridge.
    pub fn over(bridge: Bridge, config: HostConfig) -> Result<Host, BridgeError> {
        Host::start(child::Link::InProcess(bridge), config)
    }

    /// A session in a `dcl` child process (`cli_path`) with the same options, driven over
    /// its stdio: everything above — events, callbacks, MCP servers, timeouts — is the
    /// same as in process.
    pub fn spawn(
        cli_path: &std::path::Path,
        options_json: &str,
        config: HostConfig,
    ) -> Result<Host, HostError> {
        let child = child::Child::spawn(cli_path, options_json)?;
        Ok(Host::start(child::Link::Child(child), config)?)
    }

    fn start(bridge: child::Link, config: HostConfig) -> Result<Host, BridgeError> {
        let rt = crate::runtime()?;
        let shared = Arc::new(Shared {
            bridge,
            config,
            state: Mutex::new(State::default()),
            readable: Notify::new(),
            room: Notify::new(),
            closed: AtomicBool::new(false),
            counter: AtomicU64::new(0),
        });
        rt.spawn(pump(Arc::clone(&shared)));
        Ok(Host { shared })
    }

    pub fn session_id(&self) -> String {
        self.shared.bridge.session_id()
    }

    /// Registers an in-process MCP server (before `initialize`, which announces it).
    pub fn add_mcp_server(&self, spec: McpServerSpec) -> Result<(), HostError> {
        let server = McpServer::new(spec)?;
        let mut state = self.shared.lock();
        if state.servers.iter().any(|s| s.name == server.name) {
            return Err(HostError::BadSpec(format!(
                "MCP server {:?} is registered twice",
                server.name
            )));
        }
        state.servers.push(server);
        Ok(())
    }

    /// The `initialize` request for `spec` and the servers registered so far.
    pub fn initialize_request(&self, spec: &InitSpec) -> Value {
        let state = self.shared.lock();
        let names: Vec<&str> = state.servers.iter().map(|s| s.name.as_str()).collect();
        spec.request(&names)
    }

    /// Sends `initialize`; its answer comes as a `control_response` event with the id
    /// returned.
    pub fn initialize(&self, spec: &InitSpec) -> Result<String, HostError> {
        let request = self.initialize_request(spec);
        self.call(request)
    }

    /// Sends one line to the session as is (a user message, typically).
    pub fn send(&self, line: &str) -> Result<(), HostError> {
        Ok(self.shared.bridge.send(line)?)
    }

    /// Sends a control request to dcl. Its answer — dcl's, or an `error` one on timeout or
    /// when the session ends — arrives as a `control_response` event carrying the returned
    /// id.
    pub fn call(&self, request: Value) -> Result<String, HostError> {
        self.shared.call(request, Waiter::Event, None)
    }

    /// [`Host::call`] with its own timeout instead of [`HostConfig::control_timeout`]
    /// (`initialize` may take longer: MCP servers start).
    pub fn call_with_timeout(
        &self,
        request: Value,
        timeout: Option<Duration>,
    ) -> Result<String, HostError> {
        self.shared.call(request, Waiter::Event, timeout)
    }

    /// [`Host::call`] as a future of the response payload.
    pub async fn request(&self, request: Value) -> Result<Value, HostError> {
        self.request_with_timeout(request, None).await
    }

    /// [`Host::request`] with its own timeout (`None`: [`HostConfig::control_timeout`]).
    /// Languages whose runtime can await a future settled off-thread (Node's deferred
    /// promises) use this, and keep no table of the calls they made.
    pub async fn request_with_timeout(
        &self,
        request: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, HostError> {
        let (tx, rx) = oneshot::channel();
        self.shared.call(request, Waiter::Future(tx), timeout)?;
        rx.await.unwrap_or(Err(HostError::Ended))
    }

    /// [`Host::call_with_timeout`] whose outcome lands in the returned [`PendingCall`]
    /// instead of arriving as an event.
    pub fn call_pending(
        &self,
        request: Value,
        timeout: Option<Duration>,
    ) -> Result<PendingCall, HostError> {
        let slot = Arc::new(CallSlot::default());
        let id = self
            .shared
            .call(request, Waiter::Slot(Arc::clone(&slot)), timeout)?;
        Ok(PendingCall { id, slot })
    }

    /// Resolves when request `id` of an event stops waiting for the language, saying why:
    /// the language aborts the callback's work unless it was [`Withdrawal::Answered`]. So a
    /// language keeps no table of running callbacks to route `cancel` events to. The watch
    /// starts when this is called (not when the future is first polled), so an answer given
    /// right after still reads as answered.
    pub fn withdrawn(
        &self,
        id: &str,
    ) -> impl std::future::Future<Output = Withdrawal> + Send + 'static {
        let rx = {
            let mut state = self.shared.lock();
            state.inbound.get_mut(id).map(|entry| {
                let (tx, rx) = oneshot::channel();
                entry.watchers.push(tx);
                rx
            })
        };
        async move {
            match rx {
                None => Withdrawal::NotPending,
                Some(rx) => rx.await.unwrap_or(Withdrawal::Ended),
            }
        }
    }

    /// Answers the request `id` of an event: `Ok(result)` or `Err(what the callback raised)`. For a
    /// `tool_call` the result is the tool's `{content, is_error}` (an error becomes an
    /// `isError` result the model reads); for `mcp_message`, the JSON-RPC answer (`null`
    /// for a notification).
    pub fn respond(
        &self,
        id: &str,
        outcome: Result<Value, CallbackFailed>,
    ) -> Result<(), HostError> {
        let entry = {
            let mut state = self.shared.lock();
            state.take_inbound(id)
        };
        let Some(entry) = entry else {
            return Err(HostError::NotPending(id.to_string()));
        };
        let what = entry.release(Withdrawal::Answered);
        self.shared.answer(id, &what, outcome)
    }

    /// Up to `max` queued events, without waiting: `None` when none is ready, an empty
    /// batch once the session has ended and every event was taken.
    pub fn try_events(&self, max: usize) -> Option<Vec<HostEvent>> {
        let mut state = self.shared.lock();
        if state.events.is_empty() {
            return state.ended.then(Vec::new);
        }
        let n = max.max(1).min(state.events.len());
        let batch: Vec<HostEvent> = state.events.drain(..n).collect();
        if state.events.is_empty() {
            // Drained: the buffer goes back, so an idle session between turns keeps no
            // room sized for its last burst.
            state.events = VecDeque::new();
        }
        drop(state);
        self.shared.room.notify_one();
        Some(batch)
    }

    /// Waits for events (at least one, at most `max`); empty once the session has ended.
    pub async fn next_events(&self, max: usize) -> Vec<HostEvent> {
        loop {
            let notified = self.shared.readable.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(batch) = self.try_events(max) {
                return batch;
            }
            notified.await;
        }
    }

    /// [`Host::next_events`] for threads without a runtime; an empty batch also when
    /// `timeout` passed (tell it from the end with [`Host::ended`]).
    pub fn next_events_blocking(
        &self,
        max: usize,
        timeout: Option<Duration>,
    ) -> Result<Vec<HostEvent>, HostError> {
        let rt = crate::runtime()?;
        Ok(rt.block_on(async {
            match timeout {
                None => self.next_events(max).await,
                Some(t) => tokio::time::timeout(t, self.next_events(max))
                    .await
                    .unwrap_or_default(),
            }
        }))
    }

    /// Whether the session has ended and every event was taken.
    pub fn ended(&self) -> bool {
        let state = self.shared.lock();
        state.ended && state.events.is_empty()
    }

    /// Asks to be woken once: when events are (or already were) ready, `key` goes into
    /// `waker`'s ready set. One waker serves every session of an event loop.
    pub fn arm(&self, waker: Arc<Waker>, key: u64) {
        let mut state = self.shared.lock();
        if !state.events.is_empty() || state.ended {
            drop(state);
            waker.notify(key);
        } else {
            state.armed = Some((waker, key));
        }
    }

    /// Requests from dcl still waiting for the language.
    pub fn pending_callbacks(&self) -> usize {
        self.shared.lock().inbound.len()
    }

    pub fn interrupt(&self) {
        self.shared.bridge.interrupt();
    }

    pub fn end_input(&self) {
        self.shared.bridge.end_input();
    }

    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.bridge.close();
        // A pump waiting for room must go on reading, to see the end.
        self.shared.room.notify_one();
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.close();
    }
}

/// Reads the session and routes every line until it ends.
async fn pump(shared: Arc<Shared>) {
    loop {
        loop {
            let room = shared.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            if shared.closed.load(Ordering::SeqCst)
                || shared.lock().events.len() < shared.config.max_events
            {
                break;
            }
            room.await;
        }
        match shared.bridge.recv_message().await {
            Some(message) => shared.route(message),
            None => break,
        }
    }
    shared.finish();
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn push(&self, event: HostEvent) {
        let armed = {
            let mut state = self.lock();
            if self.closed.load(Ordering::SeqCst) {
                return;
            }
            state.events.push_back(event);
            state.armed.take()
        };
        if let Some((waker, key)) = armed {
            waker.notify(key);
        }
        self.readable.notify_waiters();
    }

    fn push_json(&self, id: &str, kind: &str, payload: &Value) {
        self.push(HostEvent {
            id: id.to_string(),
            kind: kind.to_string(),
            payload: payload.to_string(),
        });
    }

    /// Writes an answer to dcl. The host owns its delivery: when the session's input
    /// queue is full (the language answered faster than dcl reads), it is written again
    /// shortly instead of being lost, which would leave dcl waiting out its timeout.
    fn respond_to_dcl(self: &Arc<Self>, response: ControlResponse) -> Result<(), HostError> {
        let message = Message::ControlResponse(ControlResponseEnvelope::new(response));
        match self.bridge.send_message(message.clone()) {
            Ok(()) => Ok(()),
            Err(BridgeError::Closed) => Err(HostError::Ended),
            Err(BridgeError::Busy(_)) => {
                let weak = Arc::downgrade(self);
                let rt = crate::runtime()?;
                rt.spawn(async move {
                    for _ in 0..RETRIES {
                        tokio::time::sleep(RETRY_EVERY).await;
                        let Some(shared) = weak.upgrade() else { return };
                        match shared.bridge.send_message(message.clone()) {
                            Err(BridgeError::Busy(_)) => continue,
                            Ok(()) => return,
                            Err(e) => {
                                tracing::debug!("answer to dcl not delivered: {e}");
                                return;
                            }
                        }
                    }
                    tracing::warn!("answer to dcl dropped: its input stayed full");
                });
                Ok(())
            }
            Err(other) => Err(HostError::Bridge(other)),
        }
    }

    fn answer(
        self: &Arc<Self>,
        id: &str,
        what: &Inbound,
        outcome: Result<Value, CallbackFailed>,
    ) -> Result<(), HostError> {
        let response = match (what, outcome) {
            (Inbound::Control, Ok(v)) => ControlResponse::success(id, Some(v)),
            (Inbound::Control, Err(e)) => ControlResponse::error(id, e.message),
            (Inbound::Tool { jsonrpc_id }, outcome) => {
                mcp_success(id, McpServer::tool_result(jsonrpc_id, outcome))
            }
            (Inbound::RawMcp { .. }, Ok(Value::Null)) => {
                mcp_success(id, json!({"jsonrpc": "2.0", "result": {}}))
            }
            (Inbound::RawMcp { .. }, Ok(v)) => mcp_success(id, v),
            (Inbound::RawMcp { jsonrpc_id }, Err(e)) => mcp_success(
                id,
                mcp::rpc_error(jsonrpc_id.clone(), mcp::INTERNAL_ERROR, &e.message),
            ),
        };
        self.respond_to_dcl(response)
    }

    fn next_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        // Unique beyond this host too: a transcript or log mixing sessions stays readable.
        let salt = uuid_fragment();
        format!("req_{n}_{salt}")
    }

    fn call(
        self: &Arc<Self>,
        request: Value,
        waiter: Waiter,
        timeout: Option<Duration>,
    ) -> Result<String, HostError> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let id = self.next_id();
        {
            let mut state = self.lock();
            // Closed by the language: the session may not have seen its end yet, and a
            // call sent now would only wait out its timeout.
            if state.ended || self.closed.load(Ordering::SeqCst) {
                return Err(HostError::Ended);
            }
            let after = timeout.unwrap_or(self.config.control_timeout);
            let timer = self.timer(id.clone(), after, Expiry::Control);
            state.outbound.insert(
                id.clone(),
                OutboundEntry {
                    subtype,
                    waiter,
                    timer,
                },
            );
        }
        let sent = self
            .bridge
            .send_message(Message::ControlRequest(ControlRequestEnvelope {
                request_id: id.clone(),
                request,
                extra: Extra::new(),
            }));
        if let Err(e) = sent {
            if let Some(entry) = self.lock().outbound.remove(&id)
                && let Some(t) = entry.timer
            {
                t.abort();
            }
            return Err(e.into());
        }
        Ok(id)
    }

    /// A timer on the runtime for request `id`; it acts only if the request still waits.
    fn timer(self: &Arc<Self>, id: String, after: Duration, expiry: Expiry) -> Option<AbortHandle> {
        let rt = crate::runtime().ok()?;
        // Weak: a pending timer must not keep a finished host (and its session) alive.
        let weak = Arc::downgrade(self);
        let task = rt.spawn(async move {
            tokio::time::sleep(after).await;
            if let Some(shared) = weak.upgrade() {
                shared.expire(&id, expiry, after);
            }
        });
        Some(task.abort_handle())
    }

    fn expire(self: &Arc<Self>, id: &str, expiry: Expiry, after: Duration) {
        match expiry {
            Expiry::Control => {
                let entry = self.lock().take_outbound(id);
                if let Some(entry) = entry {
                    self.settle(id, entry, Err(HostError::Timeout(String::new())));
                }
            }
            Expiry::Callback => {
                let entry = self.lock().take_inbound(id);
                if let Some(entry) = entry {
                    let message = format!(
                        "the host's {} callback did not answer within {:.3}s",
                        entry.kind,
                        after.as_secs_f64()
                    );
                    let what = entry.release(Withdrawal::TimedOut);
                    // dcl gets its answer now; the language is told to stop.
                    if let Err(e) = self.answer(id, &what, Err(message.into())) {
                        tracing::debug!("timeout answer for {id} not delivered: {e}");
                    }
                    self.push_json(id, kind::CANCEL, &json!({"reason": "timeout"}));
                }
            }
        }
    }

    /// Delivers the outcome of a control call to whoever waits for it.
    fn settle(&self, id: &str, entry: OutboundEntry, outcome: Result<ControlResponse, HostError>) {
        if let Some(t) = &entry.timer {
            t.abort();
        }
        let subtype = entry.subtype;
        let settled = |outcome: Result<ControlResponse, HostError>, subtype: String| match outcome {
            Ok(ControlResponse::Success { response, .. }) => {
                Ok(response.unwrap_or_else(|| json!({})))
            }
            Ok(ControlResponse::Error { error, .. }) => Err(HostError::Refused {
                subtype,
                message: error,
            }),
            Err(HostError::Timeout(_)) => Err(HostError::Timeout(subtype)),
            Err(e) => Err(e),
        };
        match entry.waiter {
            Waiter::Future(tx) => {
                let _ = tx.send(settled(outcome, subtype));
            }
            Waiter::Slot(slot) => slot.fill(settled(outcome, subtype)),
            Waiter::Event => {
                let payload = match outcome {
                    Ok(response) => serde_json::to_value(&response)
                        .unwrap_or_else(|e| json!({"subtype": "error", "error": e.to_string()})),
                    Err(HostError::Timeout(_)) => json!({
                        "subtype": "error",
                        "request_id": id,
                        "error": HostError::Timeout(subtype).to_string(),
                        "timeout": true,
                    }),
                    Err(HostError::Ended) => json!({
                        "subtype": "error",
                        "request_id": id,
                        "error": HostError::Ended.to_string(),
                        "ended": true,
                    }),
                    Err(e) => json!({"subtype": "error", "request_id": id, "error": e.to_string()}),
                };
                self.push_json(id, kind::CONTROL_RESPONSE, &payload);
            }
        }
    }

    fn route(self: &Arc<Self>, message: Message) {
        match message {
            Message::ControlRequest(envelope) => self.request_from_dcl(envelope),
            Message::ControlResponse(envelope) => {
                let id = envelope.response.request_id().to_string();
                let entry = self.lock().take_outbound(&id);
                match entry {
                    Some(entry) => self.settle(&id, entry, Ok(envelope.response)),
                    None => tracing::debug!("control response {id} answers nothing pending"),
                }
            }
            Message::ControlCancelRequest(cancel) => {
                let entry = self.lock().take_inbound(&cancel.request_id);
                if let Some(entry) = entry {
                    entry.release(Withdrawal::Cancelled);
                    self.push_json(
                        &cancel.request_id,
                        kind::CANCEL,
                        &json!({"reason": "cancelled"}),
                    );
                }
            }
            Message::System(system)
                if system.subtype == "session_state_changed"
                    && system.fields.get("sdk_host_only").is_some_and(truthy) =>
            {
                // For hosts that track state over a subprocess; nothing to show a user.
            }
            other => self.push(HostEvent {
                id: String::new(),
                kind: kind::MESSAGE.into(),
                payload: dcl_protocol::to_line(&other),
            }),
        }
    }

    fn request_from_dcl(self: &Arc<Self>, envelope: ControlRequestEnvelope) {
        let id = envelope.request_id.clone();
        let subtype = envelope.subtype().unwrap_or("").to_string();
        let request = envelope.request;
        let (what, kind, payload) = if subtype == "mcp_message" {
            let server_name = request.get("server_name").and_then(Value::as_str);
            let message = request.get("message").filter(|m| m.is_object());
            let (Some(server_name), Some(message)) = (server_name, message) else {
                self.reply_now(ControlResponse::error(
                    &id,
                    "Missing server_name or message for MCP request",
                ));
                return;
            };
            let jsonrpc_id = message.get("id").cloned().unwrap_or(Value::Null);
            let (step, raw) = {
                let state = self.lock();
                match state.servers.iter().find(|s| s.name == server_name) {
                    None => (
                        McpStep::Reply(mcp::rpc_error(
                            jsonrpc_id.clone(),
                            mcp::METHOD_NOT_FOUND,
                            &format!("Server '{server_name}' not found"),
                        )),
                        false,
                    ),
                    // The language answers a raw server's JSON-RPC itself.
                    Some(s) if s.raw => (McpStep::NoReply, true),
                    Some(s) => (s.handle(message), false),
                }
            };
            match step {
                McpStep::Reply(answer) => {
                    self.reply_now(mcp_success(&id, answer));
                    return;
                }
                _ if raw => (
                    Inbound::RawMcp { jsonrpc_id },
                    kind::MCP_MESSAGE.to_string(),
                    json!({"server_name": server_name, "message": message}),
                ),
                McpStep::NoReply => {
                    self.reply_now(mcp_success(&id, json!({"jsonrpc": "2.0", "result": {}})));
                    return;
                }
                McpStep::Call {
                    jsonrpc_id,
                    tool,
                    arguments,
                } => (
                    Inbound::Tool { jsonrpc_id },
                    kind::TOOL_CALL.to_string(),
                    json!({"server": server_name, "tool": tool, "arguments": arguments}),
                ),
            }
        } else {
            let mut payload = request;
            if subtype == "hook_callback"
                && let Some(index) = payload
                    .get("callback_id")
                    .and_then(Value::as_str)
                    .and_then(init::callback_index)
                && let Some(obj) = payload.as_object_mut()
            {
                obj.insert("callback_index".into(), json!(index));
            }
            (Inbound::Control, subtype, payload)
        };
        {
            let mut state = self.lock();
            if state.ended {
                return;
            }
            let timer = self
                .config
                .callback_timeout
                .and_then(|t| self.timer(id.clone(), t, Expiry::Callback));
            state.inbound.insert(
                id.clone(),
                InboundEntry {
                    what,
                    kind: kind.clone(),
                    timer,
                    watchers: Vec::new(),
                },
            );
        }
        self.push_json(&id, &kind, &payload);
    }

    fn reply_now(self: &Arc<Self>, response: ControlResponse) {
        if let Err(e) = self.respond_to_dcl(response) {
            tracing::debug!("answer to dcl not delivered: {e}");
        }
    }

    /// The session ended: every waiter learns it, nothing stays pending.
    fn finish(&self) {
        let (inbound, outbound) = {
            let mut state = self.lock();
            state.ended = true;
            (
                std::mem::take(&mut state.inbound),
                std::mem::take(&mut state.outbound),
            )
        };
        for entry in inbound.into_values() {
            entry.release(Withdrawal::Ended);
        }
        let failure = self.bridge.failure();
        for (id, entry) in outbound {
            let why = failure.clone().map_or(HostError::Ended, HostError::Bridge);
            self.settle(&id, entry, Err(why));
        }
        let armed = self.lock().armed.take();
        if let Some((waker, key)) = armed {
            waker.notify(key);
        }
        self.readable.notify_waiters();
    }
}

/// How often, and how long, an answer dcl's full input refused is written again (~10 s).
const RETRY_EVERY: Duration = Duration::from_millis(5);
const RETRIES: usize = 2000;

#[derive(Debug, Clone, Copy)]
enum Expiry {
    Control,
    Callback,
}

fn mcp_success(id: &str, answer: Value) -> ControlResponse {
    ControlResponse::success(id, Some(json!({"mcp_response": answer})))
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false))
}

/// Eight hex digits of a fresh UUID.
fn uuid_fragment() -> String {
    let mut s = uuid::Uuid::new_v4().simple().to_string();
    s.truncate(8);
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn host(control_timeout: Duration) -> (tempfile::TempDir, Host) {
        let dir = tempfile::tempdir().unwrap();
        let options =
            json!({"cwd": dir.path(), "model": "mock-model", "persistSession": false}).to_string();
        let config = HostConfig {
            control_timeout,
            ..HostConfig::default()
        };
        let host = Host::open(&options, config).unwrap();
        (dir, host)
    }

    /// A control call dcl never answers: registered as pending but never written, so no
    /// answer can race the timer.
    fn unanswered(host: &Host, waiter: Waiter) -> String {
        let id = host.shared.next_id();
        let timer = host.shared.timer(
            id.clone(),
            host.shared.config.control_timeout,
            Expiry::Control,
        );
        host.shared.lock().outbound.insert(
            id.clone(),
            OutboundEntry {
                subtype: "set_model".into(),
                waiter,
                timer,
            },
        );
        id
    }

    #[test]
    fn a_control_call_without_answer_times_out_as_an_event() {
        let (_dir, host) = host(Duration::from_millis(100));
        let id = unanswered(&host, Waiter::Event);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let answer = loop {
            assert!(std::time::Instant::now() < deadline, "no timeout event");
            let batch = host
                .next_events_blocking(64, Some(Duration::from_millis(200)))
                .unwrap();
            if let Some(e) = batch
                .into_iter()
                .find(|e| e.kind == kind::CONTROL_RESPONSE && e.id == id)
            {
                break e.payload_json().unwrap();
            }
        };
        assert_eq!(answer["subtype"], "error");
        assert_eq!(answer["timeout"], true);
        assert_eq!(answer["error"], "Control request timeout: set_model");
        // A late answer from dcl settles nothing and is dropped.
        host.shared
            .route(Message::ControlResponse(ControlResponseEnvelope::new(
                ControlResponse::success(&id, None),
            )));
        assert!(host.shared.lock().outbound.is_empty());
    }

    #[test]
    fn a_control_future_without_answer_times_out() {
        let (_dir, host) = host(Duration::from_millis(100));
        let (tx, rx) = oneshot::channel();
        unanswered(&host, Waiter::Future(tx));
        let outcome = crate::runtime().unwrap().block_on(rx).unwrap();
        assert_eq!(outcome, Err(HostError::Timeout("set_model".into())));
    }

    #[test]
    fn calls_pending_when_the_session_ends_fail_with_ended() {
        let (_dir, host) = host(Duration::from_secs(60));
        let (tx, rx) = oneshot::channel();
        unanswered(&host, Waiter::Future(tx));
        host.shared.bridge.close();
        let outcome = crate::runtime().unwrap().block_on(rx).unwrap();
        assert_eq!(outcome, Err(HostError::Ended));
        assert!(host.call(json!({"subtype": "interrupt"})).is_err());
    }
}
