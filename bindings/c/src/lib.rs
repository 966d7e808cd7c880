//! libdcl: dcl's host ([`dcl_bridge::host`]) behind a C ABI, for any language with an FFI.
//!
//! Everything crossing is UTF-8 JSON text. **Ownership**: every `char*` dcl returns (an
//! event batch, an error, a request) is the caller's, freed with [`dcl_string_free`] and
//! nothing else; every pointer the caller passes stays the caller's and is only read during
//! the call. A [`DclSession`] is freed by [`dcl_close`], a [`DclWaker`] by
//! [`dcl_waker_free`].
//!
//! **Threads**: a session may be used from several threads at once (events are taken by
//! one consumer at a time; `respond`, `send`, `call` from anywhere). `dcl_close` must be
//! the last call on a handle, made when no other call on it is running. No function calls
//! back into the caller: callbacks arrive as events the caller pulls (`dcl_next_events`),
//! and answers go back with `dcl_respond`. Panics never cross the boundary: they become an
//! error return.
//!
//! **Errors**: functions that can fail take `char** error_out` (may be NULL) and, on
//! failure, store `{"code": "DCL_…", "message": …, "option": …|null}` there.

use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::ptr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dcl_bridge::host::{Host, HostConfig, HostError, HostEvent, InitSpec, McpServerSpec, Waker};
use dcl_bridge::{BridgeError, ErrorKind};
use serde_json::{Value, json};

/// The ABI's version: bumped when a function's meaning or signature changes.
pub const DCL_ABI_VERSION: u32 = 1;

/// Returned by functions that succeed or fail.
pub const DCL_OK: i32 = 0;
/// The call failed; `*error_out` says why.
pub const DCL_ERROR: i32 = -1;
/// `dcl_send`: the session's input queue is full; send the same line again later.
pub const DCL_BUSY: i32 = 1;
/// `dcl_next_events` / `dcl_try_events`: nothing arrived in time.
pub const DCL_NONE: i32 = 2;
/// `dcl_next_events` / `dcl_try_events`: the session has ended and every event was taken.
pub const DCL_ENDED: i32 = 3;

/// One session and its host.
pub struct DclSession {
    host: Host,
}

/// One wake-up for many sessions: a language's poller waits on it (or on its descriptor)
/// and learns which sessions have events, so no thread waits per session.
pub struct DclWaker {
    inner: Arc<Waker>,
    /// Keys taken from the waker that did not fit the caller's buffer last time.
    spill: Mutex<Vec<u64>>,
}

// ------------------------------------------------------------------------------ helpers

fn text(s: &str) -> *mut c_char {
    // An interior NUL cannot come from JSON text dcl makes; dropped rather than failing.
    let clean: Vec<u8> = s.bytes().filter(|b| *b != 0).collect();
    CString::new(clean).map_or(ptr::null_mut(), CString::into_raw)
}

fn put(out: *mut *mut c_char, value: &str) {
    if !out.is_null() {
        // SAFETY: the caller passes a valid `char**` or NULL (checked above).
        unsafe { *out = text(value) };
    }
}

fn code(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidOptions => "DCL_INVALID_OPTIONS",
        ErrorKind::BadInput => "DCL_BAD_INPUT",
        ErrorKind::Busy => "DCL_BUSY",
        ErrorKind::Closed => "DCL_CLOSED",
        ErrorKind::Internal => "DCL_INTERNAL",
    }
}

fn error_json(code: &str, message: &str, option: Option<&str>) -> String {
    json!({"code": code, "message": message, "option": option}).to_string()
}

fn fail(error_out: *mut *mut c_char, code: &str, message: &str, option: Option<&str>) -> i32 {
    put(error_out, &error_json(code, message, option));
    DCL_ERROR
}

fn host_fail(error_out: *mut *mut c_char, e: &HostError) -> i32 {
    match e {
        HostError::Bridge(b) => fail(error_out, code(b.kind()), &b.to_string(), b.option()),
        HostError::NotPending(_) => fail(error_out, "DCL_NOT_PENDING", &e.to_string(), None),
        HostError::Timeout(_) => fail(error_out, "DCL_TIMEOUT", &e.to_string(), None),
        HostError::Refused { .. } => fail(error_out, "DCL_REFUSED", &e.to_string(), None),
        HostError::Ended => fail(error_out, "DCL_CLOSED", &e.to_string(), None),
        HostError::BadSpec(_) => fail(error_out, "DCL_INVALID_OPTIONS", &e.to_string(), None),
    }
}

/// A borrowed C string as UTF-8, or why not.
fn arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    // SAFETY: non-NULL, and the caller promises a NUL-terminated string alive for the call.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| format!("{what} is not UTF-8"))
}

/// Runs `f`, turning a panic into an error return.
fn guarded(error_out: *mut *mut c_char, f: impl FnOnce() -> i32) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(rc) => rc,
        Err(_) => fail(
            error_out,
            "DCL_INTERNAL",
            "dcl panicked; the call had no effect",
            None,
        ),
    }
}

fn live<'a>(s: *const DclSession) -> Option<&'a DclSession> {
    // SAFETY: the caller passes a handle from `dcl_open*` not yet closed, or NULL.
    unsafe { s.as_ref() }
}

/// [`guarded`] with the session a handle names; a NULL handle is an error for the caller.
fn with_session(
    session_ptr: *const DclSession,
    error_out: *mut *mut c_char,
    f: impl FnOnce(&DclSession) -> i32,
) -> i32 {
    guarded(error_out, || match live(session_ptr) {
        Some(s) => f(s),
        None => fail(error_out, "DCL_BAD_INPUT", "session is NULL", None),
    })
}

fn millis(ms: i64) -> Option<Duration> {
    (ms >= 0).then(|| Duration::from_millis(ms.unsigned_abs()))
}

fn events_json(events: &[HostEvent]) -> String {
    let mut out = String::from("[");
    for (i, e) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        // The payload is JSON text already: embedded as is, so the caller parses once.
        out.push_str(&format!(
            "{{\"id\":{},\"kind\":{},\"payload\":{}}}",
            Value::String(e.id.clone()),
            Value::String(e.kind.clone()),
            e.payload
        ));
    }
    out.push(']');
    out
}

fn opened(
    out: *mut *mut DclSession,
    error_out: *mut *mut c_char,
    host: Result<Host, HostError>,
) -> i32 {
    match host {
        Ok(host) => {
            let handle = Box::into_raw(Box::new(DclSession { host }));
            if out.is_null() {
                // SAFETY: just made by Box::into_raw; nobody else has it.
                drop(unsafe { Box::from_raw(handle) });
                return fail(error_out, "DCL_BAD_INPUT", "session_out is NULL", None);
            }
            // SAFETY: `out` is a valid `DclSession**` (checked non-NULL).
            unsafe { *out = handle };
            DCL_OK
        }
        Err(e) => host_fail(error_out, &e),
    }
}

// ------------------------------------------------------------------------------ the ABI

/// The ABI version this library implements ([`DCL_ABI_VERSION`]).
#[unsafe(no_mangle)]
pub extern "C" fn dcl_abi_version() -> u32 {
    DCL_ABI_VERSION
}

/// dcl's version, e.g. `"0.1.0"` (static: do not free).
#[unsafe(no_mangle)]
pub extern "C" fn dcl_version() -> *const c_char {
    static VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();
    VERSION.as_ptr().cast()
}

/// Opens an in-process session from options JSON (`SessionOptions`, camelCase; see
/// `core/bridge/schema/session-options.schema.json`). `callback_timeout_ms` < 0: callbacks
/// may take as long as dcl waits. On success `*session_out` is the handle.
///
/// # Safety
/// `options_json` is a NUL-terminated string; `session_out` a valid pointer; `error_out`
/// valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_open(
    options_json: *const c_char,
    callback_timeout_ms: i64,
    session_out: *mut *mut DclSession,
    error_out: *mut *mut c_char,
) -> i32 {
    guarded(error_out, || {
        let options = match arg(options_json, "options_json") {
            Ok(o) => o,
            Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        let config = HostConfig {
            callback_timeout: millis(callback_timeout_ms),
            ..HostConfig::default()
        };
        opened(session_out, error_out, Host::open(options, config))
    })
}

/// [`dcl_open`] with the session in the `dcl` executable at `cli_path`, a child process
/// driven over its stdio by the same host (the subprocess transport).
///
/// # Safety
/// As [`dcl_open`]; `cli_path` is a NUL-terminated path.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_open_cli(
    cli_path: *const c_char,
    options_json: *const c_char,
    callback_timeout_ms: i64,
    session_out: *mut *mut DclSession,
    error_out: *mut *mut c_char,
) -> i32 {
    guarded(error_out, || {
        let (path, options) = match (arg(cli_path, "cli_path"), arg(options_json, "options_json")) {
            (Ok(p), Ok(o)) => (p, o),
            (Err(m), _) | (_, Err(m)) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        let config = HostConfig {
            callback_timeout: millis(callback_timeout_ms),
            ..HostConfig::default()
        };
        opened(
            session_out,
            error_out,
            Host::spawn(Path::new(path), options, config),
        )
    })
}

/// Opens an in-process session from the argv an SDK would give the `dcl` CLI (without the
/// program name), with this process's environment; `cwd` (may be NULL) applies when the
/// argv names none.
///
/// # Safety
/// `argv` points to `argc` NUL-terminated strings; the rest as [`dcl_open`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_open_argv(
    argv: *const *const c_char,
    argc: usize,
    cwd: *const c_char,
    session_out: *mut *mut DclSession,
    error_out: *mut *mut c_char,
) -> i32 {
    guarded(error_out, || {
        let mut args = Vec::with_capacity(argc);
        for i in 0..argc {
            // SAFETY: the caller promises `argc` valid pointers at `argv`.
            let p = if argv.is_null() {
                ptr::null()
            } else {
                unsafe { *argv.add(i) }
            };
            match arg(p, "argv[i]") {
                Ok(a) => args.push(a.to_string()),
                Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
            }
        }
        let cwd = if cwd.is_null() {
            None
        } else {
            match arg(cwd, "cwd") {
                Ok(c) => Some(std::path::PathBuf::from(c)),
                Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
            }
        };
        let env = std::env::vars_os()
            // Options take strings: a non-UTF-8 variable is left out (tool processes
            // still get it unchanged, from the process environment).
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let host = dcl_bridge::argv::open_argv(args, env, cwd)
            .map_err(HostError::Bridge)
            .and_then(|b| Host::over(b, HostConfig::default()).map_err(HostError::Bridge));
        opened(session_out, error_out, host)
    })
}

/// The session's id (free with [`dcl_string_free`]); NULL for a NULL handle.
///
/// # Safety
/// `session` is a live handle or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_session_id(session: *const DclSession) -> *mut c_char {
    match live(session) {
        Some(s) => text(&s.host.session_id()),
        None => ptr::null_mut(),
    }
}

/// Registers an in-process MCP server before `initialize`: `{"name", "version", "tools":
/// [{"name", "description", "inputSchema"}], "instructions"?}`. Its JSON-RPC is answered
/// here; the caller only gets `tool_call` events `{server, tool, arguments}`.
///
/// # Safety
/// `session` live; `spec_json` NUL-terminated; `error_out` valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_add_mcp_server(
    session: *const DclSession,
    spec_json: *const c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let spec: McpServerSpec = match arg(spec_json, "spec_json")
            .and_then(|t| serde_json::from_str(t).map_err(|e| format!("MCP server spec: {e}")))
        {
            Ok(spec) => spec,
            Err(m) => return fail(error_out, "DCL_INVALID_OPTIONS", &m, None),
        };
        match s.host.add_mcp_server(spec) {
            Ok(()) => DCL_OK,
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// Sends `initialize` built from `spec_json` (`{"hooks": [{"event", "matcher",
/// "callbacks", "timeout"?}], "agents"?: …}`: hook callbacks are numbered `hook_<n>` in
/// declaration order and arrive as `hook_callback` events carrying `callback_index`), or a
/// control request `request_json` with [`dcl_call`]. `*id_out` is the request id; the
/// answer is a `control_response` event with that id.
///
/// # Safety
/// As [`dcl_add_mcp_server`]; `id_out` valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_initialize(
    session: *const DclSession,
    spec_json: *const c_char,
    timeout_ms: i64,
    id_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let spec: InitSpec = match arg(spec_json, "spec_json")
            .and_then(|t| serde_json::from_str(t).map_err(|e| format!("initialize spec: {e}")))
        {
            Ok(spec) => spec,
            Err(m) => return fail(error_out, "DCL_INVALID_OPTIONS", &m, None),
        };
        let request = s.host.initialize_request(&spec);
        call(s, request, timeout_ms, id_out, error_out)
    })
}

/// The `initialize` request [`dcl_initialize`] would send for `spec_json`, for callers
/// that send it with [`dcl_request`] and wait; NULL (with `*error_out`) for a bad spec.
///
/// # Safety
/// As [`dcl_add_mcp_server`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_initialize_request(
    session: *const DclSession,
    spec_json: *const c_char,
    error_out: *mut *mut c_char,
) -> *mut c_char {
    let mut out = ptr::null_mut();
    with_session(session, error_out, |s| {
        match arg(spec_json, "spec_json").and_then(|t| {
            serde_json::from_str::<InitSpec>(t).map_err(|e| format!("initialize spec: {e}"))
        }) {
            Ok(spec) => {
                out = text(&s.host.initialize_request(&spec).to_string());
                DCL_OK
            }
            Err(m) => fail(error_out, "DCL_INVALID_OPTIONS", &m, None),
        }
    });
    out
}

fn call(
    s: &DclSession,
    request: Value,
    timeout_ms: i64,
    id_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    match s.host.call_with_timeout(request, millis(timeout_ms)) {
        Ok(id) => {
            put(id_out, &id);
            DCL_OK
        }
        Err(e) => host_fail(error_out, &e),
    }
}

/// Sends a control request (`{"subtype": "interrupt"}`, `set_model`, `mcp_status`…);
/// `timeout_ms` < 0: the default (60 s). See [`dcl_initialize`] for the answer.
///
/// # Safety
/// As [`dcl_initialize`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_call(
    session: *const DclSession,
    request_json: *const c_char,
    timeout_ms: i64,
    id_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let request: Value = match arg(request_json, "request_json")
            .and_then(|t| serde_json::from_str(t).map_err(|e| format!("request: {e}")))
        {
            Ok(r) => r,
            Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        call(s, request, timeout_ms, id_out, error_out)
    })
}

/// Sends a control request and waits for dcl's answer (at most `timeout_ms`; < 0: the
/// default 60 s): [`DCL_OK`] with `*response_out` the `response` payload (JSON), else
/// [`DCL_ERROR`] with `DCL_REFUSED` (dcl answered an error), `DCL_TIMEOUT` or
/// `DCL_CLOSED`. No `control_response` event follows, so a caller keeps no table of ids.
/// Blocks the calling thread; must not be called from a thread of dcl's runtime.
///
/// # Safety
/// As [`dcl_call`]; `response_out` valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_request(
    session: *const DclSession,
    request_json: *const c_char,
    timeout_ms: i64,
    response_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let request: Value = match arg(request_json, "request_json")
            .and_then(|t| serde_json::from_str(t).map_err(|e| format!("request: {e}")))
        {
            Ok(r) => r,
            Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        let rt = match dcl_bridge::runtime() {
            Ok(rt) => rt,
            Err(e) => return fail(error_out, "DCL_INTERNAL", &e.to_string(), None),
        };
        match rt.block_on(s.host.request_with_timeout(request, millis(timeout_ms))) {
            Ok(v) => {
                put(response_out, &v.to_string());
                DCL_OK
            }
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// Sends one protocol line (a user message). [`DCL_BUSY`]: the input queue is full; send
/// the same line again later.
///
/// # Safety
/// As [`dcl_add_mcp_server`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_send(
    session: *const DclSession,
    line: *const c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let line = match arg(line, "line") {
            Ok(l) => l,
            Err(m) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        match s.host.send(line) {
            Ok(()) => DCL_OK,
            Err(HostError::Bridge(BridgeError::Busy(_))) => DCL_BUSY,
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// Takes up to `max` events, waiting at most `timeout_ms` (< 0: as long as it takes) for
/// the first: [`DCL_OK`] with `*events_out` a JSON array of `{"id", "kind", "payload"}`
/// (`payload` is a JSON value: for `message`, the line), [`DCL_NONE`] when the wait timed
/// out, [`DCL_ENDED`] once the session is over. Kinds: `message`, `can_use_tool`,
/// `hook_callback`, `tool_call`, `mcp_message`, `elicitation` (answer with
/// [`dcl_respond`]), `cancel` (that request was withdrawn: stop its work),
/// `control_response` (the answer to a [`dcl_call`]). Blocks the calling thread; must not
/// be called from a thread of dcl's runtime.
///
/// # Safety
/// `session` live; `events_out` valid; `error_out` valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_next_events(
    session: *const DclSession,
    max: u32,
    timeout_ms: i64,
    events_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        match s
            .host
            .next_events_blocking(max.max(1) as usize, millis(timeout_ms))
        {
            Ok(events) if !events.is_empty() => {
                put(events_out, &events_json(&events));
                DCL_OK
            }
            Ok(_) if s.host.ended() => DCL_ENDED,
            Ok(_) => DCL_NONE,
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// [`dcl_next_events`] without waiting, for pollers driven by a [`DclWaker`].
///
/// # Safety
/// As [`dcl_next_events`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_try_events(
    session: *const DclSession,
    max: u32,
    events_out: *mut *mut c_char,
) -> i32 {
    guarded(ptr::null_mut(), || {
        let Some(s) = live(session) else {
            return DCL_ERROR;
        };
        match s.host.try_events(max.max(1) as usize) {
            None => DCL_NONE,
            Some(events) if events.is_empty() => DCL_ENDED,
            Some(events) => {
                put(events_out, &events_json(&events));
                DCL_OK
            }
        }
    })
}

/// Answers request `id` of an event with `result_json` (for `can_use_tool`: `{"behavior":
/// "allow", "updatedInput": …}` or `{"behavior": "deny", "message": …}`; for `tool_call`:
/// `{"content": [{"type": "text", "text": …}], "is_error"?: …}`). `DCL_NOT_PENDING` when it
/// is not waiting any more (answered, timed out, withdrawn).
///
/// # Safety
/// `session` live; `id`, `result_json` NUL-terminated; `error_out` valid or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_respond(
    session: *const DclSession,
    id: *const c_char,
    result_json: *const c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let (id, result) = match (arg(id, "id"), arg(result_json, "result_json")) {
            (Ok(i), Ok(r)) => (i, r),
            (Err(m), _) | (_, Err(m)) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        let value: Value = match serde_json::from_str(result) {
            Ok(v) => v,
            Err(e) => {
                return fail(
                    error_out,
                    "DCL_BAD_INPUT",
                    &format!("result_json: {e}"),
                    None,
                );
            }
        };
        match s.host.respond(id, Ok(value)) {
            Ok(()) => DCL_OK,
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// Answers request `id` with an error message (for a tool: an error result the model reads).
///
/// # Safety
/// As [`dcl_respond`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_respond_error(
    session: *const DclSession,
    id: *const c_char,
    message: *const c_char,
    error_out: *mut *mut c_char,
) -> i32 {
    with_session(session, error_out, |s| {
        let (id, message) = match (arg(id, "id"), arg(message, "message")) {
            (Ok(i), Ok(m)) => (i, m),
            (Err(m), _) | (_, Err(m)) => return fail(error_out, "DCL_BAD_INPUT", &m, None),
        };
        match s.host.respond(id, Err(message.into())) {
            Ok(()) => DCL_OK,
            Err(e) => host_fail(error_out, &e),
        }
    })
}

/// Interrupts the running turn.
///
/// # Safety
/// `session` live or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_interrupt(session: *const DclSession) {
    if let Some(s) = live(session) {
        let _ = catch_unwind(AssertUnwindSafe(|| s.host.interrupt()));
    }
}

/// No more input: queued turns finish, then the events end.
///
/// # Safety
/// `session` live or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_end_input(session: *const DclSession) {
    if let Some(s) = live(session) {
        let _ = catch_unwind(AssertUnwindSafe(|| s.host.end_input()));
    }
}

/// Stops the session (a running turn is cancelled, callbacks still pending are answered
/// with an error) and frees the handle. The last call on it.
///
/// # Safety
/// `session` from `dcl_open*`, not closed before, no other call on it running; or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_close(session: *mut DclSession) {
    if session.is_null() {
        return;
    }
    // SAFETY: the caller hands back a handle made by Box::into_raw and never uses it again.
    let boxed = unsafe { Box::from_raw(session) };
    let _ = catch_unwind(AssertUnwindSafe(move || {
        boxed.host.close();
        drop(boxed);
    }));
}

/// Frees a string dcl returned. NULL is ignored.
///
/// # Safety
/// `s` came from this library and is freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: made by CString::into_raw in this library.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// A new waker (two descriptors, whatever the number of sessions); NULL on failure.
#[unsafe(no_mangle)]
pub extern "C" fn dcl_waker_new() -> *mut DclWaker {
    match catch_unwind(Waker::new) {
        Ok(Ok(w)) => Box::into_raw(Box::new(DclWaker {
            inner: Arc::new(w),
            spill: Mutex::new(Vec::new()),
        })),
        _ => ptr::null_mut(),
    }
}

/// The descriptor an event loop may watch for reading instead of [`dcl_waker_wait`]; -1 on
/// Windows (its wake-up is a socket, whose handle an `int` cannot hold: wait with
/// [`dcl_waker_wait`] there).
///
/// # Safety
/// `waker` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_waker_fd(waker: *const DclWaker) -> i32 {
    // SAFETY: the caller passes a live waker or NULL.
    unsafe { waker.as_ref() }.map_or(-1, |w| watchable_fd(&w.inner))
}

#[cfg(unix)]
fn watchable_fd(waker: &dcl_bridge::host::Waker) -> i32 {
    waker.fd()
}

#[cfg(not(unix))]
fn watchable_fd(_waker: &dcl_bridge::host::Waker) -> i32 {
    -1
}

/// Asks to be woken once: `key` comes out of [`dcl_waker_wait`] when the session has
/// events (at once if it already has).
///
/// # Safety
/// `session` and `waker` live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_arm(session: *const DclSession, waker: *const DclWaker, key: u64) {
    // SAFETY: the caller passes a live waker or NULL.
    let (Some(s), Some(w)) = (live(session), unsafe { waker.as_ref() }) else {
        return;
    };
    let _ = catch_unwind(AssertUnwindSafe(|| s.host.arm(Arc::clone(&w.inner), key)));
}

/// Waits at most `timeout_ms` (< 0: as long as it takes) until sessions armed on `waker`
/// are ready; writes up to `cap` of their keys to `keys` and returns how many (0: timed
/// out). Keys that did not fit come first next time.
///
/// # Safety
/// `waker` live; `keys` points to room for `cap` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_waker_wait(
    waker: *const DclWaker,
    timeout_ms: i64,
    keys: *mut u64,
    cap: usize,
) -> usize {
    // SAFETY: the caller passes a live waker or NULL.
    let Some(w) = (unsafe { waker.as_ref() }) else {
        return 0;
    };
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mut spill = match w.spill.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if spill.is_empty() {
            // The bridge's own wait (a condition variable beside the socket): the same on
            // every OS, where poll(2) on the socket would be Unix-only.
            spill.extend(w.inner.wait_ready(millis(timeout_ms)));
        }
        let n = spill.len().min(cap);
        if n > 0 && !keys.is_null() {
            // SAFETY: the caller promises room for `cap` >= n values at `keys`.
            unsafe { ptr::copy_nonoverlapping(spill.as_ptr(), keys, n) };
            spill.drain(..n);
            n
        } else {
            0
        }
    }));
    run.unwrap_or(0)
}

/// Frees a waker. Sessions armed on it must not be armed again.
///
/// # Safety
/// `waker` from [`dcl_waker_new`], freed once; or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dcl_waker_free(waker: *mut DclWaker) {
    if !waker.is_null() {
        // SAFETY: made by Box::into_raw in dcl_waker_new.
        drop(unsafe { Box::from_raw(waker) });
    }
}
