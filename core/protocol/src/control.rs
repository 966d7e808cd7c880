//! Control envelopes and the request/response payloads of every subtype.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
    /// The discriminator: `request.subtype`, falling back to `request.type` (Qoder TS).
    pub fn subtype(&self) -> Option<&str> {
        self.request
            .get("subtype")
            .and_then(Value::as_str)
            .or_else(|| self.request.get("type").and_then(Value::as_str))
    }
}

/// `{"type":"control_response","response":{…}}` in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlResponseEnvelope {
    pub response: ControlResponse,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The body of a control response: success with an optional payload, or an error.
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
            ControlResponse::Success { request_id, .. } | ControlResponse::Error { request_id, .. } => {
                request_id
            }
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
}

/// `{"type":"control_cancel_request","request_id":…}`: the sender no longer wants an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlCancelRequest {
    pub request_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// Host -> dcl request payloads.
// ---------------------------------------------------------------------------

/// Every host -> dcl control request dcl understands, decoded from the envelope's
/// `request` object by [`HostRequest::parse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum HostRequest {
    Initialize(InitializeRequest),
    Interrupt(InterruptRequest),
    SetPermissionMode(SetPermissionModeRequest),
    SetModel(SetModelRequest),
    SetMaxThinkingTokens(SetMaxThinkingTokensRequest),
    McpStatus(EmptyRequest),
    GetContextUsage(EmptyRequest),
    CancelAsyncMessage(CancelAsyncMessageRequest),
    RewindFiles(RewindFilesRequest),
    McpToggle(McpToggleRequest),
    McpReconnect(McpReconnectRequest),
    StopTask(StopTaskRequest),
    ApplyFlagSettings(ApplyFlagSettingsRequest),
    GetSettings(EmptyRequest),
    ReloadPlugins(EmptyRequest),
    SeedReadState(SeedReadStateRequest),
    McpSetServers(EmptyRequest),
    McpMessage(McpMessageRequest),
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

const HOST_SUBTYPES: &[&str] = &[
    "initialize",
    "interrupt",
    "set_permission_mode",
    "set_model",
    "set_max_thinking_tokens",
    "mcp_status",
    "get_context_usage",
    "cancel_async_message",
    "rewind_files",
    "mcp_toggle",
    "mcp_reconnect",
    "stop_task",
    "apply_flag_settings",
    "get_settings",
    "reload_plugins",
    "seed_read_state",
    "mcp_set_servers",
    "mcp_message",
];

impl HostRequest {
    /// Decodes a `request` object, reading `subtype` and falling back to `type`.
    pub fn parse(request: &Value) -> Result<HostRequest, RequestParseError> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .or_else(|| request.get("type").and_then(Value::as_str))
            .ok_or(RequestParseError::MissingSubtype)?
            .to_string();
        if !HOST_SUBTYPES.contains(&subtype.as_str()) {
            return Err(RequestParseError::Unknown(subtype));
        }
        let mut obj = match request {
            Value::Object(m) => m.clone(),
            _ => return Err(RequestParseError::MissingSubtype),
        };
        obj.insert("subtype".into(), Value::String(subtype.clone()));
        serde_json::from_value(Value::Object(obj)).map_err(|e| RequestParseError::Invalid {
            subtype,
            message: e.to_string(),
        })
    }

    pub fn subtype(&self) -> &'static str {
        match self {
            HostRequest::Initialize(_) => "initialize",
            HostRequest::Interrupt(_) => "interrupt",
            HostRequest::SetPermissionMode(_) => "set_permission_mode",
            HostRequest::SetModel(_) => "set_model",
            HostRequest::SetMaxThinkingTokens(_) => "set_max_thinking_tokens",
            HostRequest::McpStatus(_) => "mcp_status",
            HostRequest::GetContextUsage(_) => "get_context_usage",
            HostRequest::CancelAsyncMessage(_) => "cancel_async_message",
            HostRequest::RewindFiles(_) => "rewind_files",
            HostRequest::McpToggle(_) => "mcp_toggle",
            HostRequest::McpReconnect(_) => "mcp_reconnect",
            HostRequest::StopTask(_) => "stop_task",
            HostRequest::ApplyFlagSettings(_) => "apply_flag_settings",
            HostRequest::GetSettings(_) => "get_settings",
            HostRequest::ReloadPlugins(_) => "reload_plugins",
            HostRequest::SeedReadState(_) => "seed_read_state",
            HostRequest::McpSetServers(_) => "mcp_set_servers",
            HostRequest::McpMessage(_) => "mcp_message",
        }
    }
}

/// A request with no fields dcl reads (unknown extras are kept).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyRequest {
    #[serde(flatten)]
    pub extra: Extra,
}

/// One hook registration: a matcher and the host's callback ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookMatcherConfig {
    /// Tool-name pattern; `null` or absent matches everything.
    #[serde(default)]
    pub matcher: Option<Value>,
    #[serde(default)]
    pub hook_callback_ids: Vec<String>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A system prompt given in `initialize`: a string or (TS SDK) an array of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SystemPromptValue {
    Text(String),
    Parts(Vec<String>),
}

impl SystemPromptValue {
    pub fn joined(&self) -> String {
        match self {
            SystemPromptValue::Text(t) => t.clone(),
            SystemPromptValue::Parts(p) => p.join("\n\n"),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    #[serde(default)]
    pub hooks: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<SystemPromptValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_suggestions: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_progress_summaries: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitializeRequest {
    /// The hook registrations per event, each decoded; a malformed entry is an error.
    pub fn hook_matchers(&self) -> Result<Vec<(String, HookMatcherConfig)>, String> {
        let mut out = Vec::new();
        let Some(hooks) = &self.hooks else {
            return Ok(out);
        };
        for (event, list) in hooks {
            let list = list
                .as_array()
                .ok_or_else(|| format!("hooks.{event} must be an array"))?;
            for m in list {
                let cfg: HookMatcherConfig = serde_json::from_value(m.clone())
                    .map_err(|e| format!("hooks.{event}: {e}"))?;
                out.push((event.clone(), cfg));
            }
        }
        Ok(out)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterruptRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_queued: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPermissionModeRequest {
    pub mode: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetModelRequest {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetMaxThinkingTokensRequest {
    #[serde(default)]
    pub max_thinking_tokens: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelAsyncMessageRequest {
    pub message_uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewindFilesRequest {
    pub user_message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToggleRequest {
    pub server_name: String,
    pub enabled: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpReconnectRequest {
    pub server_name: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StopTaskRequest {
    pub task_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApplyFlagSettingsRequest {
    pub settings: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedReadStateRequest {
    pub path: String,
    pub mtime: f64,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageRequest {
    pub server_name: String,
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// dcl -> host requests and the host's answers.
// ---------------------------------------------------------------------------

/// `can_use_tool`: ask the host to approve a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CanUseToolRequest {
    pub subtype: CanUseToolTag,
    pub tool_name: String,
    pub display_name: String,
    pub input: Value,
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub permission_suggestions: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CanUseToolTag {
    CanUseTool,
}

/// The host's answer to `can_use_tool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        #[serde(default, rename = "updatedInput", skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        #[serde(default, rename = "updatedPermissions", skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<Value>>,
        #[serde(flatten)]
        extra: Extra,
    },
    Deny {
        #[serde(default)]
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
        #[serde(flatten)]
        extra: Extra,
    },
}

/// `hook_callback`: run a host-registered hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookCallbackRequest {
    pub subtype: HookCallbackTag,
    pub callback_id: String,
    pub input: Value,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookCallbackTag {
    HookCallback,
}

/// What a hook returns (all fields optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_output: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `mcp_message` (dcl -> host): JSON-RPC for a host-provided MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageOut {
    pub subtype: McpMessageTag,
    pub server_name: String,
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpMessageTag {
    McpMessage,
}
