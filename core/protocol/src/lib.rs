//! The stream-json protocol dcl speaks: every message and control envelope, both directions.
//!
//! No runtime here: plain serde types, a line parser that never panics, and JSON Schema export.
//!
//! * [`Message`]: one line, either direction (including the legacy `text`, `tool_start`,
//!   `tool_result` and `usage` lines);
//! * [`control`]: control envelopes, host -> dcl requests ([`HostRequest`]), dcl -> host
//!   requests ([`DclRequest`]) and the host's answers;
//! * [`responses`]: the payloads of dcl's answers;
//! * [`system`]: typed `system` subtypes, convertible to and from [`SystemMessage`];
//! * [`schema`]: the JSON Schema document (`export-schema` bin), exact about what dcl writes;
//! * [`vocab`]: the closed vocabularies (result subtypes, stop reasons, modes, …);
//! * `validate` (feature `validate`): checks lines against that schema (`validate-lines` bin).
//!
//! Round trips are exact: unknown fields land in `extra`, an explicit `null` stays `null`,
//! an absent field stays absent (see [`serde_helpers`]).

pub mod content;
pub mod control;
pub mod messages;
pub mod responses;
pub mod schema;
pub mod serde_helpers;
pub mod system;
pub mod tool_spec;
#[cfg(any(feature = "validate", test))]
pub mod validate;
pub mod vocab;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use content::*;
pub use control::*;
pub use messages::*;
pub use responses::*;
pub use system::{
    BackgroundTaskInfo, CompactMetadata, InitMcpServer, SystemApiRetry,
    SystemBackgroundTasksChanged, SystemCompactBoundary, SystemConvertError, SystemEvent,
    SystemHookProgress, SystemHookResponse, SystemHookStarted, SystemInformational, SystemInit,
    SystemPermissionDenied, SystemPlanModeChanged, SystemSessionStateChanged, SystemStatus,
    SystemSubtype, SystemTaskNotification, SystemTaskProgress, SystemTaskStarted,
    SystemTaskUpdated, SystemThinkingTokens, TaskUsage,
};
pub use tool_spec::{JsonSize, ToolSpec};
pub use vocab::*;

/// The reference protocol level dcl implements (reported as `claude_code_version`).
pub const PROTOCOL_LEVEL: &str = "2.1.332";
/// The Qoder wire protocol version (reported as `protocol_version`).
pub const QODER_PROTOCOL_VERSION: &str = "1.4.0";
/// dcl's own version.
pub const DCL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One line of stream-json, in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Message {
    User(UserMessage),
    Assistant(AssistantMessage),
    System(SystemMessage),
    Result(ResultMessage),
    StreamEvent(StreamEventMessage),
    ControlRequest(ControlRequestEnvelope),
    ControlResponse(ControlResponseEnvelope),
    ControlCancelRequest(ControlCancelRequest),
    PromptSuggestion(PromptSuggestionMessage),
    ToolProgress(ToolProgressMessage),
    TranscriptMirror(TranscriptMirrorMessage),
    ConversationReset(ConversationResetMessage),
    KeepAlive(Extra),
    /// Legacy line: a finished text block.
    Text(LegacyTextMessage),
    /// Legacy line: a tool call started.
    ToolStart(LegacyToolStartMessage),
    /// Legacy line: a tool call finished.
    ToolResult(LegacyToolResultMessage),
    /// Legacy line: usage and cost so far.
    Usage(LegacyUsageMessage),
}

impl Message {
    /// The wire `type` of this line.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::System(_) => "system",
            Message::Result(_) => "result",
            Message::StreamEvent(_) => "stream_event",
            Message::ControlRequest(_) => "control_request",
            Message::ControlResponse(_) => "control_response",
            Message::ControlCancelRequest(_) => "control_cancel_request",
            Message::PromptSuggestion(_) => "prompt_suggestion",
            Message::ToolProgress(_) => "tool_progress",
            Message::TranscriptMirror(_) => "transcript_mirror",
            Message::ConversationReset(_) => "conversation_reset",
            Message::KeepAlive(_) => "keep_alive",
            Message::Text(_) => "text",
            Message::ToolStart(_) => "tool_start",
            Message::ToolResult(_) => "tool_result",
            Message::Usage(_) => "usage",
        }
    }

    /// True for the legacy event lines (`--no-legacy-events` drops them).
    pub fn is_legacy(&self) -> bool {
        matches!(
            self,
            Message::Text(_) | Message::ToolStart(_) | Message::ToolResult(_) | Message::Usage(_)
        )
    }

    /// A `control_response` line.
    pub fn control_response(response: ControlResponse) -> Self {
        Message::ControlResponse(ControlResponseEnvelope::new(response))
    }

    /// A `control_request` line.
    pub fn control_request(request_id: impl Into<String>, request: Value) -> Self {
        Message::ControlRequest(ControlRequestEnvelope::new(request_id, request))
    }
}

/// Why a stdin line could not be used. Every variant is reported and the session goes on.
#[derive(Debug, Clone, PartialEq)]
pub enum LineError {
    /// Not JSON at all.
    NotJson(String),
    /// JSON, but not an object with a string `type`.
    NoType,
    /// A `type` dcl does not know; ignored with a warning, as the reference does.
    UnknownType(String),
    /// A known `type` with the wrong shape. `request_id` is set when one could be read,
    /// so the sender gets an `error` control response.
    BadShape {
        kind: String,
        message: String,
        request_id: Option<String>,
    },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::NotJson(e) => write!(f, "line is not JSON: {e}"),
            LineError::NoType => write!(f, "line is not a JSON object with a string \"type\""),
            LineError::UnknownType(t) => write!(f, "unknown message type {t:?}; ignored"),
            LineError::BadShape { kind, message, .. } => {
                write!(f, "malformed {kind} message: {message}")
            }
        }
    }
}

impl std::error::Error for LineError {}

/// Types a host may send or dcl parses back. The outbound-only `transcript_mirror` and
/// `conversation_reset` are left out: a host sending one gets "unknown type".
const KNOWN_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "result",
    "stream_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "prompt_suggestion",
    "keep_alive",
    "text",
    "tool_start",
    "tool_result",
    "usage",
];

/// Parses one stdin/stdout line. Never panics; every failure says what was wrong.
pub fn parse_line(line: &str) -> Result<Message, LineError> {
    let value: Value = serde_json::from_str(line).map_err(|e| LineError::NotJson(e.to_string()))?;
    parse_value(value)
}

/// As [`parse_line`], for an already-decoded value.
pub fn parse_value(value: Value) -> Result<Message, LineError> {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .ok_or(LineError::NoType)?
        .to_string();
    if !KNOWN_TYPES.contains(&kind.as_str()) {
        return Err(LineError::UnknownType(kind));
    }
    let request_id = value
        .get("request_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    serde_json::from_value(value).map_err(|e| LineError::BadShape {
        kind,
        message: e.to_string(),
        request_id,
    })
}

/// Serializes a message as one line (no trailing newline).
pub fn to_line(message: &Message) -> String {
    // Serializing these types cannot fail: every map key is a string.
    serde_json::to_string(message).unwrap_or_else(|e| {
        format!(r#"{{"type":"system","subtype":"error","error":"serialization failed: {e}"}}"#)
    })
}
