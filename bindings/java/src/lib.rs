//! `libdcl_java`: the JNI face of [`dcl_bridge`] for `nexus.io.agent.sdk.transport.NativeBridge`.
//!
//! ```text
//! long     open(String optionsJson)                 InvalidOptionsException names the key
//! boolean  send(long h, String line)                false: the input queue is full, retry
//! String   recv(long h, long timeoutMs)             null: ended; "": timed out
//! String[] recvBatch(long h, int max, long timeoutMs) null: ended; empty: timed out
//! void     interrupt(h) / endInput(h) / close(h)
//! boolean  free(long h)                             true exactly once per handle
//! String   sessionId(long h), version()
//! ```
//!
//! The SDK's in-process sessions use [`host`] (`NativeHost`) instead: the host side of the
//! protocol in Rust. These line entry points stay for code that speaks the protocol itself.
//!
//! Pull, never push: no Rust thread ever calls into the JVM. Approvals, hooks and host MCP
//! calls arrive from `recv` as `control_request` lines and go back through `send`; the
//! waiting happens on the Java thread that called `recv`. Every entry point runs under
//! `catch_unwind`, so a panic is a Java exception and never unwinds into the JVM.
//! Handles index a table ([`registry`]), so a stale or doubly freed handle is an error,
//! not a dangling pointer.

pub mod host;
pub mod registry;
pub mod throw;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dcl_bridge::{Bridge, Received};
use jni::JNIEnv;
use jni::objects::{JClass, JObject, JString};
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jint, jlong, jobjectArray, jstring};

use registry::Registry;
use throw::Failure;

/// The most lines one `recvBatch` returns when Java asks for more (or for none).
const MAX_BATCH: usize = 1024;

fn sessions() -> &'static Registry<Bridge> {
    static SESSIONS: OnceLock<Registry<Bridge>> = OnceLock::new();
    SESSIONS.get_or_init(Registry::new)
}

fn bridge(handle: jlong) -> Result<Arc<Bridge>, Failure> {
    sessions().get(handle).ok_or(Failure::UnknownHandle)
}

/// A negative timeout waits as long as it takes.
fn timeout(ms: jlong) -> Option<Duration> {
    u64::try_from(ms).ok().map(Duration::from_millis)
}

/// Runs one native call: its failure or panic becomes a pending Java exception and the
/// call returns `fallback`.
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

fn to_bool(b: bool) -> jboolean {
    if b { JNI_TRUE } else { JNI_FALSE }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_open<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    options: JString<'local>,
) -> jlong {
    guarded(&mut env, 0, |env| {
        let json = string_arg(env, &options)?;
        let bridge = dcl_bridge::open(&json)?;
        Ok(sessions().insert(bridge))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_send<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    line: JString<'local>,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |env| {
        let line = string_arg(env, &line)?;
        match bridge(handle)?.send(&line) {
            Ok(()) => Ok(JNI_TRUE),
            Err(dcl_bridge::BridgeError::Busy(_)) => Ok(JNI_FALSE),
            Err(e) => Err(e.into()),
        }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_recv<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    timeout_ms: jlong,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let bridge = bridge(handle)?;
        match bridge.recv_blocking_timeout(timeout(timeout_ms))? {
            Received::Line(line) => Ok(env.new_string(line)?.into_raw()),
            Received::TimedOut => Ok(env.new_string("")?.into_raw()),
            Received::Ended => Ok(std::ptr::null_mut()),
        }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_recvBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    max: jint,
    timeout_ms: jlong,
) -> jobjectArray {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let bridge = bridge(handle)?;
        let max = usize::try_from(max)
            .ok()
            .filter(|m| *m > 0)
            .map_or(MAX_BATCH, |m| m.min(MAX_BATCH));
        let batch = bridge.recv_batch_blocking(max, timeout(timeout_ms))?;
        if batch.lines.is_empty() && batch.ended {
            return Ok(std::ptr::null_mut());
        }
        let len = jint::try_from(batch.lines.len()).unwrap_or(jint::MAX);
        let array = env.new_object_array(len, "java/lang/String", JObject::null())?;
        for (i, line) in (0..len).zip(batch.lines) {
            let s = env.new_string(line)?;
            env.set_object_array_element(&array, i, &s)?;
            // A batch may hold more strings than the JVM's default local-reference room.
            env.delete_local_ref(s)?;
        }
        Ok(array.into_raw())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_interrupt<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        bridge(handle)?.interrupt();
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_endInput<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        bridge(handle)?.end_input();
        Ok(())
    })
}

/// Stops the session; the handle stays valid (recv drains what was emitted) until `free`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_close<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guarded(&mut env, (), |_| {
        bridge(handle)?.close();
        Ok(())
    })
}

/// Forgets the handle and closes its session. A reader still blocked in `recv` keeps the
/// bridge alive until its wait ends; the handle is unusable at once. `false` when the
/// handle was already freed (never an error: Java's cleaner and `close()` may race).
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_free<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jboolean {
    guarded(&mut env, JNI_FALSE, |_| {
        let removed = sessions().remove(handle);
        if let Some(bridge) = &removed {
            bridge.close();
        }
        Ok(to_bool(removed.is_some()))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_sessionId<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let bridge = bridge(handle)?;
        Ok(env.new_string(bridge.session_id())?.into_raw())
    })
}

/// `"<dcl version> <protocol level>"`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_version<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jstring {
    guarded(&mut env, std::ptr::null_mut(), |env| {
        let text = format!(
            "{} {}",
            dcl_protocol::DCL_VERSION,
            dcl_protocol::PROTOCOL_LEVEL
        );
        Ok(env.new_string(text)?.into_raw())
    })
}

/// How many sessions are live, line bridges and hosts (for leak tests).
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_liveHandles<'local>(
    _env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jint {
    jint::try_from(sessions().len() + host::live()).unwrap_or(jint::MAX)
}

/// Panics on purpose, so the Java tests can prove a panic arrives as an `AgentException`
/// and leaves the JVM running. Reachable only through a package-private Java method.
#[unsafe(no_mangle)]
pub extern "system" fn Java_nexus_io_agent_sdk_transport_NativeBridge_panicForTest<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
) {
    guarded(&mut env, (), |env| {
        let text = string_arg(env, &message)?;
        panic!("{text}");
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_timeouts_wait_forever() {
        assert_eq!(timeout(-1), None);
        assert_eq!(timeout(0), Some(Duration::ZERO));
        assert_eq!(timeout(250), Some(Duration::from_millis(250)));
    }

    #[test]
    fn unknown_handles_are_refused() {
        assert!(matches!(bridge(987_654_321), Err(Failure::UnknownHandle)));
    }
}
