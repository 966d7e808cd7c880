//! The control envelopes, both directions: requests, responses (success or error, and
//! decoding a success's payload), and cancellation of a request.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::dcl_request::DclRequest;
use super::host_request::HostRequest;
use super::parse::{RequestParseError, request_subtype};
use crate::content::Extra;

/// `{"type":"control_request","request_id":…,"request":{…}}` in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlRequestEnvelope {
    pub request_id: String,
    pub request: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ControlRequestEnvelope {
    pub fn new(request_id: impl Into<String>, request: Value) -> Self {
        ControlRequestEnvelope {
            request_id: request_id.into(),
            request,
            extra: Extra::new(),
        }
    }

    /// An envelope around a typed request payload (e.g. a [`CanUseToolRequest`]).
    pub fn from_payload<T: Serialize>(
        request_id: impl Into<String>,
        payload: &T,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::new(request_id, serde_json::to_value(payload)?))
    }

    /// The discriminator: `request.subtype`, falling back to `request.type` (Qoder TS).
    pub fn subtype(&self) -> Option<&str> {
        request_subtype(&self.request)
    }

    /// Decodes `request` as a host -> dcl request.
    pub fn host_request(&self) -> Result<HostRequest, RequestParseError> {
        HostRequest::parse(&self.request)
    }

    /// Decodes `request` as a dcl -> host request.
    pub fn dcl_request(&self) -> Result<DclRequest, RequestParseError> {
        DclRequest::parse(&self.request)
    }
}

/// `{"type":"control_response","response":{…}}` in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlResponseEnvelope {
    pub response: ControlResponse,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ControlResponseEnvelope {
    pub fn new(response: ControlResponse) -> Self {
        ControlResponseEnvelope {
            response,
            extra: Extra::new(),
        }
    }
}

/// The body of a control response: success with an optional payload, or an error.
///
/// Extras seen on the wire: `pending_permission_requests` / `pending_user_dialog_requests`
/// (success), TS `error_code` and Qoder `code`, `retryable`, `details` (error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    Success {
        request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
        #[serde(flatten)]
        extra: Extra,
    },
    Error {
        request_id: String,
        error: String,
        #[serde(flatten)]
        extra: Extra,
    },
}

impl ControlResponse {
    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success { request_id, .. }
            | ControlResponse::Error { request_id, .. } => request_id,
        }
    }

    pub fn success(request_id: impl Into<String>, response: Option<Value>) -> Self {
        ControlResponse::Success {
            request_id: request_id.into(),
            response,
            extra: Extra::new(),
        }
    }

    pub fn error(request_id: impl Into<String>, error: impl Into<String>) -> Self {
        ControlResponse::Error {
            request_id: request_id.into(),
            error: error.into(),
            extra: Extra::new(),
        }
    }

    /// A success carrying a typed payload (e.g. an [`crate::InitializeResponse`]). Should the
    /// payload fail to serialize (it cannot for the types of this crate), the answer is an
    /// error response saying so, so the host is never left waiting.
    pub fn success_with<T: Serialize>(request_id: impl Into<String>, payload: &T) -> Self {
        let request_id = request_id.into();
        match serde_json::to_value(payload) {
            Ok(v) => Self::success(request_id, Some(v)),
            Err(e) => Self::error(request_id, format!("response serialization failed: {e}")),
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(self, ControlResponse::Success { .. })
    }

    /// Decodes the payload of a success as `T` (a missing payload decodes from `{}`, as the
    /// SDKs treat it). An error response gives `Err` with its message.
    pub fn decode_payload<T: DeserializeOwned>(&self) -> Result<T, PayloadError> {
        match self {
            ControlResponse::Success { response, .. } => {
                let value = response
                    .clone()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                serde_json::from_value(value).map_err(PayloadError::Malformed)
            }
            ControlResponse::Error { error, .. } => Err(PayloadError::Refused(error.clone())),
        }
    }
}

/// Why [`ControlResponse::decode_payload`] gave no payload. `Display` is the peer's
/// message for a refusal, serde's for a payload of the wrong shape.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// The peer answered with an error response.
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Malformed(serde_json::Error),
}

/// `{"type":"control_cancel_request","request_id":…}`: the sender no longer wants an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlCancelRequest {
    pub request_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ControlCancelRequest {
    pub fn new(request_id: impl Into<String>) -> Self {
        ControlCancelRequest {
            request_id: request_id.into(),
            extra: Extra::new(),
        }
    }
}
