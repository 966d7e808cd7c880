//! The JNI face of [`dcl_bridge::host`] for `nexus.io.agent.sdk.internal.NativeHost`: the
//! in-process transport's host side (request ids both ways, timeouts, `initialize`, the
//! JSON-RPC of in-process MCP servers) runs here; Java only calls the user's functions.
//!
//! ```text
//! long     open(String optionsJson, long callbackTimeoutMs, long controlTimeoutMs)
//! void     addMcpServer(long h, String specJson)
//! String   initialize(long h, String initSpecJson, long timeoutMs)   blocking; the response
//! String   request(long h, String requestJson, long timeoutMs)       blocking; the response
//! boolean  send(long h, String line)                 false: the input queue is full, retry
//! boolean  respond(long h, String id, String json) / respondError(h, id, message)
//!                                                    false: no longer pending (withdrawn)
//! long[]   waitReady(long timeoutMs)                 handles with events (one waker per JVM)
//! void     arm(long h)                               wake the dispatcher when h has events
//! Object[] events(long h, int max)                   (kind, item) pairs; re-arms the waker
//! Object[] free(long h)                              the calls still running, to withdraw
//! void     interrupt(h) / endInput(h) / close(h);  String sessionId(h);  int pending(h)
//! (NativeBridge.liveHandles counts these sessions too)
//! ```
//!
//! Every session is armed on one [`Waker`] with its handle as key, so one Java thread
//! waits for all of them (`waitReady`) and takes each ready session's events in a batch.
//! A request from dcl reaches Java as a `NativeCall` object made here; the id → call table
//! lives here too, so a `cancel` (dcl's `control_cancel_request`, or the callback
//! timeout) comes back as that same object and Java interrupts its thread — Java keeps no
//! request-id table. Global references are created and deleted only inside calls from
//! Java threads; no Rust thread touches the JVM.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use dcl_bridge::host::{Host, HostConfig, HostError, InitSpec, McpServerSpec, Waker, kind};
use jni::JNIEnv;
use jni::objects::{GlobalRef, JClass, JObject, JObjectArray, JString, JValue};
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jint, jlong, jlongArray, jobjectArray, jstring};
use serde_json::Value;

use crate::registry::Registry;
use crate::throw::{self, Failure};

const CALL_CLASS: &str = "nexus/io/agent/sdk/internal/NativeCall";
const CALL_CTOR: &str = "(JLjava/lang/String;Ljava/lang/String;Ljava/lang/String;)V";
const MAX_BATCH: usize = 1024;
/// The item kind that says a session has ended (after its last events).
const END: &str = "end";

/// One session and the Java objects of its requests still waiting for an answer.
pub struct JavaHost {
    host: Host,
    calls: Mutex<HashMap<String, GlobalRef>>,
}

impl JavaHost {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, GlobalRef>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn hosts() -> &'static Registry<JavaHost> {
    static HOSTS: OnceLock<Registry<JavaHost>> = OnceLock::new();
    HOSTS.get_or_init(Registry::new)
}

/// The JVM's one wake-up: every session is armed on it.
fn waker() -> Result<Arc<Waker>, Failure> {
    static WAKER: OnceLock<Arc<Waker>> = OnceLock::new();
    if let Some(w) = WAKER.get() {
        return Ok(Arc::clone(w));
    }
    let w = Arc::new(Waker::new().map_err(|e| Failure::Message(format!("no waker: {e}")))?);
    Ok(Arc::clone(WAKER.get_or_init(|| w)))
}

fn host(handle: jlong) -> Result<Arc<JavaHost>, Failure> {
    hosts().get(handle).ok_or(Failure::UnknownHandle)
}

fn key(handle: jlong) -> u64 {
    u64::try_from(handle).unwrap_or_default()
}

/// A negative or zero timeout means none (as long as it takes / the default).
fn positive_ms(ms: jlong) -> Option<Duration> {
    u64::try_from(ms)
        .ok()
        .filter(|m| *m > 0)
        .map(Duration::from_millis)
}

fn guarded<'local, T>(
    env: &mut JNIEnv<'local>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, Failure>,
) -> T {
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(value)) => value,
        Ok(Err(failure)) => {
            throw::throw(env, failure);
            fallback
        }
        Err(payload) => {
            throw::throw_panic(env, payload.as_ref());
            fallback
        }
    }
}

fn string_arg(env: &mut JNIEnv<'_>, s: &JString<'_>) -> Result<String, Failure> {
    if s.is_null() {
        return Err(Failure::Bridge(dcl_bridge::BridgeError::BadInput(
            "a null string was passed".into(),
        )));
    }
    Ok(env.get_string(s)?.into())
}

fn json_arg(env: &mut JNIEnv<'_>, s: &JString<'_>) -> Result<Value, Failure> {
    let text = string_arg(env, s)?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Bridge(dcl_bridge::BridgeError::BadInput(format!("bad JSON: {e}"))))
}

fn to_bool(b: bool) -> jboolean {
    if b { JNI_TRUE } else { JNI_FALSE }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_open<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    options: JString<'local>,
    callback_timeout_ms: jlong,
    control_timeout_ms: jlong,
) -> jlong {
    guarded(&mut env, 0, |env| {
        let json = string_arg(env, &options)?;
        let mut config = HostConfig {
            callback_timeout: positive_ms(callback_timeout_ms),
            ..HostConfig::default()
        };
        if let Some(t) = positive_ms(control_timeout_ms) {
            config.control_timeout = t;
        }
        let host = Host::open(&json, config)?;
        Ok(hosts().insert(JavaHost {
            host,
            calls: Mutex::new(HashMap::new()),
        }))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_addMcpServer<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    spec: JString<'local>,
) {
    guarded(&mut env, (), |env| {
        let spec: McpServerSpec = serde_json::from_value(json_arg(env, &spec)?)
            .map_err(|e| Failure::Host(HostError::BadSpec(e.to_string())))?;
        Ok(host(handle)?.host.add_mcp_server(spec)?)
    })
}

/// Asks to be woken (its handle in `waitReady`) when the session has events.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_arm<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        host(handle)?.host.arm(waker()?, key(handle));
        Ok(())
    })
}

/// Sends a control request and blocks this Java thread until its answer (or timeout).
fn await_request(
    env: &mut JNIEnv<'_>,
    h: &JavaHost,
    request: Value,
    timeout_ms: jlong,
) -> Result<jstring, Failure> {
    let rt = dcl_bridge::runtime()?;
    let answer = rt.block_on(
        h.host
            .request_with_timeout(request, positive_ms(timeout_ms)),
    )?;
    Ok(env.new_string(answer.to_string())?.into_raw())
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_initialize<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    spec: JString<'local>,
    timeout_ms: jlong,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let spec: InitSpec = serde_json::from_value(json_arg(env, &spec)?)
            .map_err(|e| Failure::Host(HostError::BadSpec(e.to_string())))?;
        let h = host(handle)?;
        let request = h.host.initialize_request(&spec);
        await_request(env, &h, request, timeout_ms)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_request<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    request: JString<'local>,
    timeout_ms: jlong,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let request = json_arg(env, &request)?;
        let h = host(handle)?;
        await_request(env, &h, request, timeout_ms)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_send<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    line: JString<'local>,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |env| {
        let line = string_arg(env, &line)?;
        match host(handle)?.host.send(&line) {
            Ok(()) => Ok(JNI_TRUE),
            Err(HostError::Bridge(dcl_bridge::BridgeError::Busy(_))) => Ok(JNI_FALSE),
            Err(e) => Err(e.into()),
        }
    })
}

fn respond_with(
    handle: jlong,
    id: &str,
    outcome: Result<Value, dcl_bridge::host::CallbackFailed>,
) -> Result<bool, Failure> {
    let h = host(handle)?;
    // Dropped here, on the calling Java thread.
    let call = h.calls().remove(id);
    drop(call);
    match h.host.respond(id, outcome) {
        Ok(()) => Ok(true),
        Err(HostError::NotPending(_) | HostError::Ended) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_respond<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    id: JString<'local>,
    result: JString<'local>,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |env| {
        let id = string_arg(env, &id)?;
        let result = json_arg(env, &result)?;
        Ok(to_bool(respond_with(handle, &id, Ok(result))?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_respondError<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    id: JString<'local>,
    message: JString<'local>,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |env| {
        let id = string_arg(env, &id)?;
        let message = string_arg(env, &message)?;
        Ok(to_bool(respond_with(handle, &id, Err(message.into()))?))
    })
}

/// The handles of sessions with events (or that ended), waiting up to `timeoutMs`
/// (negative: as long as it takes); empty on timeout.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_waitReady<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    timeout_ms: jlong,
) -> jlongArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let waker = waker()?;
        let timeout = u64::try_from(timeout_ms).ok().map(Duration::from_millis);
        let keys: Vec<jlong> = waker
            .wait_ready(timeout)
            .into_iter()
            .filter_map(|k| jlong::try_from(k).ok())
            .collect();
        let len = jint::try_from(keys.len()).unwrap_or(jint::MAX);
        let array = env.new_long_array(len)?;
        env.set_long_array_region(&array, 0, &keys)?;
        Ok(array.into_raw())
    })
}

fn new_call<'local>(
    env: &mut JNIEnv<'local>,
    handle: jlong,
    id: &str,
    kind: &str,
    payload: &str,
) -> Result<JObject<'local>, Failure> {
    let id = env.new_string(id)?;
    let kind = env.new_string(kind)?;
    let payload = env.new_string(payload)?;
    let call = env.new_object(
        CALL_CLASS,
        CALL_CTOR,
        &[
            JValue::Long(handle),
            JValue::Object(&id),
            JValue::Object(&kind),
            JValue::Object(&payload),
        ],
    )?;
    for s in [id, kind, payload] {
        env.delete_local_ref(s)?;
    }
    Ok(call)
}

/// Builds the `(kind, item)` pairs array.
fn pairs<'local>(
    env: &mut JNIEnv<'local>,
    items: Vec<(&str, JObject<'local>)>,
) -> Result<jobjectArray, Failure> {
    let len = jint::try_from(items.len() * 2).unwrap_or(jint::MAX);
    let array: JObjectArray<'local> =
        env.new_object_array(len, "java/lang/Object", JObject::null())?;
    for (i, (kind, item)) in (0..len).step_by(2).zip(items) {
        let k = env.new_string(kind)?;
        env.set_object_array_element(&array, i, &k)?;
        env.set_object_array_element(&array, i + 1, &item)?;
        env.delete_local_ref(k)?;
        env.delete_local_ref(item)?;
    }
    Ok(array.into_raw())
}

/// Up to `max` events of a session as `(kind, item)` pairs: `("message", line)`, a request
/// `(subtype, NativeCall)`, `("cancel", NativeCall)` for one withdrawn, and a last
/// `("end", null)` (with a `cancel` for every call still running) once the session ended.
/// Re-arms the session on the waker unless it ended; null when the handle was freed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_events<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    max: jint,
) -> jobjectArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        // Freed by close() meanwhile: nothing more comes from it.
        let Some(h) = hosts().get(handle) else {
            return Ok(std::ptr::null_mut());
        };
        let max = usize::try_from(max)
            .ok()
            .filter(|m| *m > 0)
            .map_or(MAX_BATCH, |m| m.min(MAX_BATCH));
        // Each event holds a local reference until the array is built.
        env.ensure_local_capacity(jint::try_from(max * 2 + 16).unwrap_or(jint::MAX))?;
        let Some(batch) = h.host.try_events(max) else {
            h.host.arm(waker()?, key(handle));
            return pairs(env, Vec::new());
        };
        let ended = batch.is_empty();
        let mut kinds: Vec<String> = Vec::with_capacity(batch.len());
        let mut objects: Vec<JObject<'local>> = Vec::with_capacity(batch.len());
        for event in batch {
            if event.kind == kind::MESSAGE {
                objects.push(env.new_string(&event.payload)?.into());
            } else if event.kind == kind::CANCEL {
                let call = h.calls().remove(&event.id);
                match call {
                    Some(g) => objects.push(env.new_local_ref(g.as_obj())?),
                    None => continue, // answered meanwhile: nothing runs
                }
            } else {
                let call = new_call(env, handle, &event.id, &event.kind, &event.payload)?;
                let global = env.new_global_ref(&call)?;
                h.calls().insert(event.id.clone(), global);
                objects.push(call);
            }
            kinds.push(event.kind);
        }
        if ended {
            let running: Vec<GlobalRef> = h.calls().drain().map(|(_, g)| g).collect();
            for g in running {
                kinds.push(kind::CANCEL.to_string());
                objects.push(env.new_local_ref(g.as_obj())?);
            }
            kinds.push(END.to_string());
            objects.push(JObject::null());
        } else {
            h.host.arm(waker()?, key(handle));
        }
        let items: Vec<(&str, JObject<'local>)> =
            kinds.iter().map(String::as_str).zip(objects).collect();
        pairs(env, items)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_interrupt<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        host(handle)?.host.interrupt();
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_endInput<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        host(handle)?.host.end_input();
        Ok(())
    })
}

/// Stops the session; its end reaches the dispatcher as an `end` event.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_close<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        host(handle)?.host.close();
        Ok(())
    })
}

/// Forgets the handle and closes its session; returns the calls still running (for Java
/// to interrupt), or null when the handle was already freed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_free<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jobjectArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let Some(h) = hosts().remove(handle) else {
            return Ok(std::ptr::null_mut());
        };
        h.host.close();
        let running: Vec<GlobalRef> = h.calls().drain().map(|(_, g)| g).collect();
        let len = jint::try_from(running.len()).unwrap_or(jint::MAX);
        let array = env.new_object_array(len, "java/lang/Object", JObject::null())?;
        for (i, g) in (0..len).zip(running) {
            env.set_object_array_element(&array, i, g.as_obj())?;
        }
        Ok(array.into_raw())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_sessionId<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let id = host(handle)?.host.session_id();
        Ok(env.new_string(id)?.into_raw())
    })
}

/// Requests from dcl still waiting for Java (for tests).
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_internal_NativeHost_pending<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    guarded(&mut env, 0, |_| {
        Ok(jint::try_from(host(handle)?.host.pending_callbacks()).unwrap_or(jint::MAX))
    })
}

/// How many host sessions are live (not yet freed).
pub fn live() -> usize {
    hosts().len()
}

/// Writes out what the session stores still hold queued and gives their leases up, as the
/// CLI does when it ends. `NativeBridge` runs it from a JVM shutdown hook: a session's own
/// close may still be draining on another thread when the JVM exits, which would cut the
/// drain short and lose the entries that had not reached the store.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_closeSessionStores<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) {
    guarded(&mut env, (), |_| {
        dcl_store::remote::sync::close_all(dcl_store::remote::sync::exit_flush_timeout());
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_of_zero_or_less_mean_none() {
        assert_eq!(positive_ms(-1), None);
        assert_eq!(positive_ms(0), None);
        assert_eq!(positive_ms(250), Some(Duration::from_millis(250)));
    }

    #[test]
    fn unknown_host_handles_are_refused() {
        assert!(matches!(host(987_654_321), Err(Failure::UnknownHandle)));
    }
}
