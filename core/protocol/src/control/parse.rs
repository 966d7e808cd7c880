//! Reading a control request's subtype (`subtype`, else `type`) and why a request could not
//! be decoded.

use serde_json::{Map, Value};

/// `subtype`, falling back to `type`, of a request object.
pub(super) fn request_subtype(request: &Value) -> Option<&str> {
    request
        .get("subtype")
        .and_then(Value::as_str)
        .or_else(|| request.get("type").and_then(Value::as_str))
}

/// Reads the subtype and returns the request as an object with `subtype` set.
pub(super) fn normalized_request(
    request: &Value,
    known: &[&str],
) -> Result<(String, Map<String, Value>), RequestParseError> {
    let subtype = request_subtype(request)
        .ok_or(RequestParseError::MissingSubtype)?
        .to_string();
    if !known.contains(&subtype.as_str()) {
        return Err(RequestParseError::Unknown(subtype));
    }
    let mut obj = match request {
        Value::Object(m) => m.clone(),
        _ => return Err(RequestParseError::MissingSubtype),
    };
    obj.insert("subtype".into(), Value::String(subtype.clone()));
    Ok((subtype, obj))
}

/// Why a control request could not be decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestParseError {
    /// No `subtype` (or `type`) string in the request.
    MissingSubtype,
    /// A subtype dcl does not know; answered with `Unsupported control request subtype: X`.
    Unknown(String),
    /// A known subtype with fields of the wrong shape.
    Invalid { subtype: String, message: String },
}

impl std::fmt::Display for RequestParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestParseError::MissingSubtype => write!(f, "control request has no subtype"),
            RequestParseError::Unknown(s) => write!(f, "Unsupported control request subtype: {s}"),
            RequestParseError::Invalid { subtype, message } => {
                write!(f, "invalid {subtype} request: {message}")
            }
        }
    }
}

impl std::error::Error for RequestParseError {}
