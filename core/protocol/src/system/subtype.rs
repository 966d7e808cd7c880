//! [`SystemSubtype`]: a typed `system` subtype and its conversion to and from the generic
//! [`SystemMessage`](crate::messages::SystemMessage).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::Message;
use crate::messages::SystemMessage;

/// A typed `system` subtype.
pub trait SystemSubtype: Serialize + DeserializeOwned {
    /// The `subtype` value on the wire.
    const SUBTYPE: &'static str;

    /// The generic wire form.
    fn to_system_message(&self) -> SystemMessage {
        let mut fields = match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            // Cannot happen for the structs of this module (all objects with string keys).
            _ => Map::new(),
        };
        // `shift_remove`: with `preserve_order` a plain `remove` swaps the last field into
        // the hole, and the line's key order would no longer be the struct's.
        fields.shift_remove("type");
        fields.shift_remove("subtype");
        let session_id = take_string(&mut fields, "session_id");
        let uuid = take_string(&mut fields, "uuid");
        SystemMessage {
            subtype: Self::SUBTYPE.to_string(),
            session_id,
            uuid,
            fields,
        }
    }

    /// The line to hand to dcl's emitter: an empty `session_id` or `uuid` is left out, so the
    /// emitter stamps the session's id and a fresh uuid (see the constructors of this module,
    /// which leave both empty).
    fn into_message(self) -> Message
    where
        Self: Sized,
    {
        let mut m = self.to_system_message();
        if m.session_id.as_deref() == Some("") {
            m.session_id = None;
        }
        if m.uuid.as_deref() == Some("") {
            m.uuid = None;
        }
        Message::System(m)
    }

    /// Decodes the generic wire form; fails on another subtype or a wrong shape.
    fn from_system_message(message: &SystemMessage) -> Result<Self, SystemConvertError> {
        if message.subtype != Self::SUBTYPE {
            return Err(SystemConvertError::WrongSubtype {
                expected: Self::SUBTYPE,
                found: message.subtype.clone(),
            });
        }
        let mut obj = message.fields.clone();
        if let Some(s) = &message.session_id {
            obj.insert("session_id".into(), Value::String(s.clone()));
        }
        if let Some(u) = &message.uuid {
            obj.insert("uuid".into(), Value::String(u.clone()));
        }
        serde_json::from_value(Value::Object(obj)).map_err(|e| SystemConvertError::BadShape {
            subtype: message.subtype.clone(),
            message: e.to_string(),
        })
    }
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.shift_remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            // Not a string: keep it as an ordinary field rather than lose it.
            map.insert(key.to_string(), other);
            None
        }
        None => None,
    }
}

/// Why a [`SystemMessage`] is not the requested typed subtype.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemConvertError {
    WrongSubtype {
        expected: &'static str,
        found: String,
    },
    BadShape {
        subtype: String,
        message: String,
    },
}

impl std::fmt::Display for SystemConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SystemConvertError::WrongSubtype { expected, found } => {
                write!(f, "expected system/{expected}, found system/{found}")
            }
            SystemConvertError::BadShape { subtype, message } => {
                write!(f, "malformed system/{subtype}: {message}")
            }
        }
    }
}

impl std::error::Error for SystemConvertError {}
