//! Bridge errors in the shapes JavaScript sees: a thrown `Error` whose `code` names the
//! class (`DCL_BAD_INPUT`...), or for `open` an `OpenFailure` value the package turns into
//! its `InvalidOptionsError` with the option on it.

use dcl_bridge::{BridgeError, ErrorKind};
use napi_derive::napi;

/// The `code` of a thrown error for each bridge error class.
pub fn code(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidOptions => "DCL_INVALID_OPTIONS",
        ErrorKind::BadInput => "DCL_BAD_INPUT",
        ErrorKind::Busy => "DCL_BUSY",
        ErrorKind::Closed => "DCL_CLOSED",
        ErrorKind::Internal => "DCL_INTERNAL",
    }
}

pub fn to_napi(e: &BridgeError) -> napi::Error<String> {
    napi::Error::new(code(e.kind()).to_string(), e.to_string())
}

/// Why a session did not open.
#[napi(object)]
pub struct OpenFailure {
    /// One of the `DCL_*` codes.
    pub code: String,
    /// The option to blame (camelCase, as in the options JSON), when one is.
    pub option: Option<String>,
    pub message: String,
}

impl OpenFailure {
    pub fn invalid(option: Option<&str>, message: impl Into<String>) -> Self {
        OpenFailure {
            code: code(ErrorKind::InvalidOptions).to_string(),
            option: option.map(str::to_string),
            message: message.into(),
        }
    }
}

impl From<&BridgeError> for OpenFailure {
    fn from(e: &BridgeError) -> Self {
        OpenFailure {
            code: code(e.kind()).to_string(),
            option: e.option().map(str::to_string),
            message: e.to_string(),
        }
    }
}
