//! Rust failures as Java exceptions: every `BridgeError` kind has its class, and a panic
//! becomes an `AgentException` instead of unwinding into the JVM (which would abort it).

use std::any::Any;

use dcl_bridge::host::HostError;
use dcl_bridge::{BridgeError, ErrorKind};
use jni::JNIEnv;
use jni::objects::{JObject, JValue};

pub const AGENT_EXCEPTION: &str = "nexus/io/agent/sdk/AgentException";
pub const INVALID_OPTIONS: &str = "nexus/io/agent/sdk/InvalidOptionsException";
pub const BAD_INPUT: &str = "nexus/io/agent/sdk/BadInputException";
pub const SESSION_CLOSED: &str = "nexus/io/agent/sdk/SessionClosedException";
pub const CONNECTION: &str = "nexus/io/agent/sdk/AgentConnectionException";
pub const CONTROL_REQUEST: &str = "nexus/io/agent/sdk/ControlRequestException";

/// Why a native call failed.
#[derive(Debug)]
pub enum Failure {
    Bridge(BridgeError),
    /// A JNI call failed; when it left a Java exception pending, that one is thrown.
    Jni(jni::errors::Error),
    /// A handle that was never issued or is already freed.
    UnknownHandle,
    /// The host side: a control call refused or timed out, a bad spec.
    Host(HostError),
    /// Anything else, as an `AgentException`.
    Message(String),
}

impl From<HostError> for Failure {
    fn from(e: HostError) -> Self {
        match e {
            HostError::Bridge(b) => Failure::Bridge(b),
            other => Failure::Host(other),
        }
    }
}

impl From<BridgeError> for Failure {
    fn from(e: BridgeError) -> Self {
        Failure::Bridge(e)
    }
}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

fn class_of(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidOptions => INVALID_OPTIONS,
        ErrorKind::BadInput => BAD_INPUT,
        ErrorKind::Closed => SESSION_CLOSED,
        // Busy never reaches here (send reports it as `false`); Internal is the base class.
        ErrorKind::Busy | ErrorKind::Internal => AGENT_EXCEPTION,
    }
}

/// Throws the Java exception for a failure (unless one is already pending).
pub fn throw(env: &mut JNIEnv<'_>, failure: Failure) {
    if env.exception_check().unwrap_or(false) {
        return; // a Java exception from a JNI call is more precise than ours
    }
    let result = match failure {
        Failure::Bridge(e @ BridgeError::InvalidOptions { .. }) => {
            throw_invalid_options(env, &e.to_string(), e.option())
        }
        Failure::Bridge(e) => env.throw_new(class_of(e.kind()), e.to_string()),
        Failure::Jni(e) => env.throw_new(AGENT_EXCEPTION, format!("JNI call failed: {e}")),
        Failure::UnknownHandle => env.throw_new(
            SESSION_CLOSED,
            "the session is closed (its native handle was freed or never issued)",
        ),
        Failure::Host(HostError::Timeout(subtype)) => {
            throw_control(env, &subtype, "Control request timeout")
        }
        Failure::Host(HostError::Refused { subtype, message }) => {
            throw_control(env, &subtype, &message)
        }
        Failure::Host(e @ HostError::Ended) => env.throw_new(CONNECTION, e.to_string()),
        Failure::Host(e @ HostError::BadSpec(_)) => env.throw_new(BAD_INPUT, e.to_string()),
        Failure::Host(e) => env.throw_new(AGENT_EXCEPTION, e.to_string()),
        Failure::Message(m) => env.throw_new(AGENT_EXCEPTION, m),
    };
    if result.is_err() {
        // The class could not be loaded: at least something is thrown.
        let _ = env.throw_new(
            "java/lang/RuntimeException",
            "dcl: cannot raise its exception",
        );
    }
}

/// `ControlRequestException(subtype, message)`.
fn throw_control(env: &mut JNIEnv<'_>, subtype: &str, message: &str) -> jni::errors::Result<()> {
    let subtype = env.new_string(subtype)?;
    let message = env.new_string(message)?;
    let exception = env.new_object(
        CONTROL_REQUEST,
        "(Ljava/lang/String;Ljava/lang/String;)V",
        &[JValue::Object(&subtype), JValue::Object(&message)],
    )?;
    env.throw(jni::objects::JThrowable::from(exception))
}

fn throw_invalid_options(
    env: &mut JNIEnv<'_>,
    message: &str,
    option: Option<&str>,
) -> jni::errors::Result<()> {
    let message = env.new_string(message)?;
    let option: JObject<'_> = match option {
        Some(o) => env.new_string(o)?.into(),
        None => JObject::null(),
    };
    let exception = env.new_object(
        INVALID_OPTIONS,
        "(Ljava/lang/String;Ljava/lang/String;)V",
        &[JValue::Object(&message), JValue::Object(&option)],
    )?;
    env.throw(jni::objects::JThrowable::from(exception))
}

/// The text a panic carried.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

pub fn throw_panic(env: &mut JNIEnv<'_>, payload: &(dyn Any + Send)) {
    if env.exception_check().unwrap_or(false) {
        let _ = env.exception_clear();
    }
    let text = format!("internal error: dcl panicked: {}", panic_message(payload));
    if env.throw_new(AGENT_EXCEPTION, text).is_err() {
        let _ = env.throw_new("java/lang/RuntimeException", "dcl panicked");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_payloads_keep_their_text() {
        let r = std::panic::catch_unwind(|| panic!("boom {}", 7));
        assert_eq!(panic_message(r.unwrap_err().as_ref()), "boom 7");
        let r = std::panic::catch_unwind(|| std::panic::panic_any(42_u8));
        assert_eq!(
            panic_message(r.unwrap_err().as_ref()),
            "a panic without a message"
        );
    }

    #[test]
    fn every_error_kind_has_a_class() {
        assert_eq!(class_of(ErrorKind::InvalidOptions), INVALID_OPTIONS);
        assert_eq!(class_of(ErrorKind::BadInput), BAD_INPUT);
        assert_eq!(class_of(ErrorKind::Closed), SESSION_CLOSED);
        assert_eq!(class_of(ErrorKind::Internal), AGENT_EXCEPTION);
    }
}
