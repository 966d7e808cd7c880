//! Control envelopes and the request payloads of every subtype, both directions.
//!
//! * host -> dcl requests: [`HostRequest`] (decode with [`HostRequest::parse`]);
//! * dcl -> host requests: [`DclRequest`] and its structs ([`CanUseToolRequest`], …);
//! * the host's answers to dcl's requests: [`PermissionDecision`], [`HookOutput`],
//!   [`McpMessageResponse`], [`ElicitationResponse`], …;
//! * dcl's answers to the host live in [`crate::responses`].

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Extra;
use crate::serde_helpers::compact_opt_f64;

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

/// `subtype`, falling back to `type`, of a request object.
fn request_subtype(request: &Value) -> Option<&str> {
    request
        .get("subtype")
        .and_then(Value::as_str)
        .or_else(|| request.get("type").and_then(Value::as_str))
}

/// Reads the subtype and returns the request as an object with `subtype` set.
fn normalized_request(
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

// ---------------------------------------------------------------------------
// Host -> dcl request payloads.
// ---------------------------------------------------------------------------

macro_rules! host_requests {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, )*) => {
        /// Every host -> dcl control request dcl understands, decoded from the envelope's
        /// `request` object by [`HostRequest::parse`]. Claude (§5.3, §7.6) and Qoder (§3.3)
        /// subtypes; a subtype not listed here parses as [`RequestParseError::Unknown`].
        // `Initialize` is large; a request is decoded once and handled at once, so boxing
        // would only cost the callers a deref.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "subtype")]
        pub enum HostRequest {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($ty), )*
        }

        /// The `subtype` of every [`HostRequest`] variant.
        pub const HOST_REQUEST_SUBTYPES: &[&str] = &[$($name),*];

        impl HostRequest {
            pub fn subtype(&self) -> &'static str {
                match self {
                    $( HostRequest::$variant(_) => $name, )*
                }
            }
        }
    };
}

host_requests! {
    // --- Claude (both SDKs) ---
    Initialize(InitializeRequest) = "initialize",
    Interrupt(InterruptRequest) = "interrupt",
    SetPermissionMode(SetPermissionModeRequest) = "set_permission_mode",
    SetModel(SetModelRequest) = "set_model",
    SetMaxThinkingTokens(SetMaxThinkingTokensRequest) = "set_max_thinking_tokens",
    McpStatus(McpStatusRequest) = "mcp_status",
    GetContextUsage(GetContextUsageRequest) = "get_context_usage",
    CancelAsyncMessage(CancelAsyncMessageRequest) = "cancel_async_message",
    RewindFiles(RewindFilesRequest) = "rewind_files",
    McpToggle(McpToggleRequest) = "mcp_toggle",
    McpReconnect(McpReconnectRequest) = "mcp_reconnect",
    StopTask(StopTaskRequest) = "stop_task",
    ApplyFlagSettings(ApplyFlagSettingsRequest) = "apply_flag_settings",
    GetSettings(EmptyRequest) = "get_settings",
    ReloadPlugins(ReloadPluginsRequest) = "reload_plugins",
    SeedReadState(SeedReadStateRequest) = "seed_read_state",
    McpSetServers(McpSetServersRequest) = "mcp_set_servers",
    /// TS: server-initiated JSON-RPC delivered to dcl (acknowledged with `{}`).
    McpMessage(McpMessageRequest) = "mcp_message",
    // --- Claude TS extras (§7.6) ---
    UpdateSettings(UpdateSettingsRequest) = "update_settings",
    McpReadResource(McpReadResourceRequest) = "mcp_read_resource",
    ReloadSkills(EmptyRequest) = "reload_skills",
    ReloadOutputStyles(EmptyRequest) = "reload_output_styles",
    BackgroundTasks(BackgroundTasksRequest) = "background_tasks",
    GetTaskOutput(GetTaskOutputRequest) = "get_task_output",
    ListPermissionRules(EmptyRequest) = "list_permission_rules",
    GetHooksListing(EmptyRequest) = "get_hooks_listing",
    GetUsage(GetUsageRequest) = "get_usage",
    ReadFile(ReadFileRequest) = "read_file",
    SetMcpPermissionModeOverride(SetMcpPermissionModeOverrideRequest) = "set_mcp_permission_mode_override",
    // --- Qoder extras (§3.3) ---
    SetProxy(SetProxyRequest) = "set_proxy",
    SetPlanMode(SetPlanModeRequest) = "set_plan_mode",
    GetPlanMode(EmptyRequest) = "get_plan_mode",
    SetGoal(SetGoalRequest) = "set_goal",
    GetGoal(EmptyRequest) = "get_goal",
    ClearGoal(EmptyRequest) = "clear_goal",
    ResumeGoal(EmptyRequest) = "resume_goal",
    SetGoalMaxTurns(SetGoalMaxTurnsRequest) = "set_goal_max_turns",
    SideQuestion(SideQuestionRequest) = "side_question",
    McpAuthenticate(McpAuthenticateRequest) = "mcp_authenticate",
    McpOauthCallbackUrl(McpOauthCallbackUrlRequest) = "mcp_oauth_callback_url",
    McpInjectToken(McpInjectTokenRequest) = "mcp_inject_token",
    McpClearAuth(McpReconnectRequest) = "mcp_clear_auth",
    GetUsageInfo(EmptyRequest) = "get_usage_info",
    AccountInfo(EmptyRequest) = "account_info",
    GetModels(GetModelsRequest) = "get_models",
    AddDirectories(AddDirectoriesRequest) = "add_directories",
    GenerateSessionTitle(GenerateSessionTitleRequest) = "generate_session_title",
    Rewind(RewindRequest) = "rewind",
    ListPlugins(EmptyRequest) = "list_plugins",
    FlushMemory(EmptyRequest) = "flush_memory",
    RefreshMemory(EmptyRequest) = "refresh_memory",
    FlushSkillEvolution(EmptyRequest) = "flush_skill_evolution",
    EndSession(EmptyRequest) = "end_session",
    // --- Claude TS 0.3.x (@anthropic-ai/claude-agent-sdk 0.3.333) ---
    RenameSession(RenameSessionRequest) = "rename_session",
    UpdateQueuedMessage(UpdateQueuedMessageRequest) = "update_queued_message",
    SetCwd(SetCwdRequest) = "set_cwd",
    GetStatus(EmptyRequest) = "get_status",
    ExportConversation(EmptyRequest) = "export_conversation",
    GetPlan(EmptyRequest) = "get_plan",
    RegisterRepoRoot(RegisterRepoRootRequest) = "register_repo_root",
}

impl HostRequest {
    /// Decodes a `request` object, reading `subtype` and falling back to `type`.
    pub fn parse(request: &Value) -> Result<HostRequest, RequestParseError> {
        let (subtype, obj) = normalized_request(request, HOST_REQUEST_SUBTYPES)?;
        serde_json::from_value(Value::Object(obj)).map_err(|e| RequestParseError::Invalid {
            subtype,
            message: e.to_string(),
        })
    }

    /// The error text for a request dcl decodes but does not implement; the same text the
    /// reference gives for an unknown subtype.
    pub fn unsupported_message(&self) -> String {
        RequestParseError::Unknown(self.subtype().to_string()).to_string()
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
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

/// `initialize`: everything the SDK options carry that is not an argv flag.
///
/// Claude sends `hooks: null` when there are none; Qoder omits `hooks`. Both read as `None`
/// (and serialize as `null`).
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
    /// Main-session skill allowlist (`[]` hides all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_dynamic_sections: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_snapshot: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_subagent_text: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_mode_instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// TS: `{server: {initializeResult, toolsListResult}}`, the pre-run MCP handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_server_manifests: Option<Map<String, Value>>,
    /// Qoder TS: `{server: {tool: {exposedName?, alwaysLoad?}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_tool_overrides: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Map<String, Value>>,
    /// Policy settings that win over every other layer (TS `managedSettingsDelivery:
    /// 'initialize'`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_settings: Option<Map<String, Value>>,
    /// `[{type: "local", path, skipMcpDiscovery?}]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<Value>>,
    /// Qoder: enable file checkpoints (`rewind_files`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_file_checkpointing: Option<bool>,
    /// Qoder: ask the host (`get_model_policy`) before each model call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_policy_provider: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialize_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_catalog_ready_initialize: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_available_models_update: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_commands_changed: Option<bool>,
    /// Qoder memory configuration (`{requester, mode, …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Value>,
    /// Qoder skill-evolution configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evolution: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitializeRequest {
    /// The hook registrations per event, each decoded; a malformed entry is an error.
    pub fn hook_matchers(&self) -> Result<Vec<(String, HookMatcherConfig)>, InitializeError> {
        let mut out = Vec::new();
        let Some(hooks) = &self.hooks else {
            return Ok(out);
        };
        for (event, list) in hooks {
            let list = list
                .as_array()
                .ok_or_else(|| InitializeError::HooksNotArray(event.clone()))?;
            for m in list {
                let cfg: HookMatcherConfig =
                    serde_json::from_value(m.clone()).map_err(|source| InitializeError::Hook {
                        event: event.clone(),
                        source,
                    })?;
                out.push((event.clone(), cfg));
            }
        }
        Ok(out)
    }

    /// The `agents` definitions, each decoded; a malformed entry is an error.
    pub fn agent_definitions(&self) -> Result<Vec<(String, AgentDefinition)>, InitializeError> {
        let Some(agents) = &self.agents else {
            return Ok(Vec::new());
        };
        agents
            .iter()
            .map(|(name, def)| {
                serde_json::from_value::<AgentDefinition>(def.clone())
                    .map(|d| (name.clone(), d))
                    .map_err(|source| InitializeError::Agent {
                        name: name.clone(),
                        source,
                    })
            })
            .collect()
    }
}

/// A malformed `hooks` or `agents` entry of an `initialize` request, named by its key.
#[derive(Debug, thiserror::Error)]
pub enum InitializeError {
    #[error("hooks.{0} must be an array")]
    HooksNotArray(String),
    #[error("hooks.{event}: {source}")]
    Hook {
        event: String,
        source: serde_json::Error,
    },
    #[error("agents.{name}: {source}")]
    Agent {
        name: String,
        source: serde_json::Error,
    },
}

/// One subagent definition from `initialize.agents`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// `sonnet|opus|haiku|inherit` or a model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Server names or `{name: config}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
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
    /// Qoder TS: keep plan mode active while changing the underlying mode.
    #[serde(
        default,
        rename = "preservePlanMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub preserve_plan_mode: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `set_model`: `null`, `""` or `"default"` mean the default model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetModelRequest {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetMaxThinkingTokensRequest {
    /// `null` restores the default.
    #[serde(default)]
    pub max_thinking_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_display: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpStatusRequest {
    /// TS: ask for a fresh probe instead of the cached status.
    #[serde(default, rename = "liveReply", skip_serializing_if = "Option::is_none")]
    pub live_reply: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetContextUsageRequest {
    /// TS: `summary` or `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelAsyncMessageRequest {
    pub message_uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `rename_session`: the session's user-facing title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RenameSessionRequest {
    pub title: String,
    /// `remote` (the default) or `host`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// When given, the title is refused unless this is still the session's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `update_queued_message`: new content for a prompt still waiting for its turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateQueuedMessageRequest {
    pub message_uuid: String,
    /// The prompt's new content (a string or content blocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<crate::content::MessageContent>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `set_cwd`: move the session to another working directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetCwdRequest {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_accepted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trusted_directory: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `register_repo_root`: another directory the session may work in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegisterRepoRootRequest {
    pub directory: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_claude_md: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_plugins: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
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

/// `{serverName}`: `mcp_reconnect`, and Qoder `mcp_clear_auth`.
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadPluginsRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_on_cache_impact: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_plugins: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuse_if_busy: Option<bool>,
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

/// `mcp_set_servers{servers:{name: config}}` (sdk entries as `{type:"sdk",name}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpSetServersRequest {
    #[serde(default)]
    pub servers: Map<String, Value>,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateSettingsRequest {
    pub source: String,
    pub settings: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpReadResourceRequest {
    pub server_name: String,
    pub uri: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundTasksRequest {
    /// Targets one task; absent backgrounds all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetTaskOutputRequest {
    pub task_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetUsageRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_behaviors: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadFileRequest {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetMcpPermissionModeOverrideRequest {
    pub server_name: String,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetProxyRequest {
    /// `null` clears the proxy.
    #[serde(default)]
    pub proxy: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPlanModeRequest {
    pub active: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetGoalRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub credits_budget: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetGoalMaxTurnsRequest {
    #[serde(default)]
    pub max_turns: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One earlier exchange given as context to a side question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideQuestionTurn {
    pub question: String,
    #[serde(default)]
    pub response: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_notice: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideQuestionRequest {
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<SideQuestionTurn>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpAuthenticateRequest {
    pub server_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpOauthCallbackUrlRequest {
    pub server_name: String,
    pub callback_url: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpInjectTokenRequest {
    pub server_name: String,
    /// `{accessToken, …}`.
    pub token: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetModelsRequest {
    /// `cache` or `live`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch_strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AddDirectoriesRequest {
    #[serde(default)]
    pub directories: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateSessionTitleRequest {
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `rewind`: conversation and/or files back to before a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewindRequest {
    pub user_message_id: String,
    /// `conversation`, `files` or `both`.
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// dcl -> host requests and the host's answers.
// ---------------------------------------------------------------------------

macro_rules! request_tags {
    ($( $(#[$doc:meta])* $tag:ident::$variant:ident = $name:literal, )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
            pub enum $tag {
                #[default]
                #[serde(rename = $name)]
                $variant,
            }
        )*
    };
}

request_tags! {
    CanUseToolTag::CanUseTool = "can_use_tool",
    HookCallbackTag::HookCallback = "hook_callback",
    McpMessageTag::McpMessage = "mcp_message",
    ElicitationTag::Elicitation = "elicitation",
    McpOauthRequiredTag::McpOauthRequired = "mcp_oauth_required",
    GetModelPolicyTag::GetModelPolicy = "get_model_policy",
    FetchServiceAccountTokenTag::FetchServiceAccountToken = "fetch_service_account_token",
    FetchJobTokenTag::FetchJobToken = "fetch_job_token",
    MemoryShouldGenerateTag::MemoryShouldGenerate = "memory_should_generate",
    SkillEvolutionShouldReviewTag::SkillEvolutionShouldReview = "skill_evolution_should_review",
    ResolveSessionArtifactsTag::ResolveSessionArtifacts = "resolve_session_artifacts",
}

macro_rules! dcl_requests {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, )*) => {
        /// Every dcl -> host control request. Each struct carries its own `subtype` tag, so
        /// the enum serializes untagged; decode with [`DclRequest::parse`].
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(untagged)]
        pub enum DclRequest {
            $( $(#[$doc])* $variant($ty), )*
        }

        /// The `subtype` of every [`DclRequest`] variant.
        pub const DCL_REQUEST_SUBTYPES: &[&str] = &[$($name),*];

        impl DclRequest {
            pub fn subtype(&self) -> &'static str {
                match self {
                    $( DclRequest::$variant(_) => $name, )*
                }
            }

            /// Decodes a `request` object dcl sent (or would send), reading `subtype` and
            /// falling back to `type`.
            pub fn parse(request: &Value) -> Result<DclRequest, RequestParseError> {
                let (subtype, obj) = normalized_request(request, DCL_REQUEST_SUBTYPES)?;
                let value = Value::Object(obj);
                let invalid = |e: serde_json::Error| RequestParseError::Invalid {
                    subtype: subtype.clone(),
                    message: e.to_string(),
                };
                match subtype.as_str() {
                    $( $name => serde_json::from_value::<$ty>(value).map(DclRequest::$variant).map_err(invalid), )*
                    _ => Err(RequestParseError::Unknown(subtype.clone())),
                }
            }
        }

        $(
            impl From<$ty> for DclRequest {
                fn from(r: $ty) -> Self {
                    DclRequest::$variant(r)
                }
            }
        )*
    };
}

dcl_requests! {
    CanUseTool(CanUseToolRequest) = "can_use_tool",
    HookCallback(HookCallbackRequest) = "hook_callback",
    McpMessage(McpMessageOut) = "mcp_message",
    Elicitation(ElicitationRequest) = "elicitation",
    McpOauthRequired(McpOauthRequiredRequest) = "mcp_oauth_required",
    GetModelPolicy(GetModelPolicyRequest) = "get_model_policy",
    FetchServiceAccountToken(FetchServiceAccountTokenRequest) = "fetch_service_account_token",
    FetchJobToken(FetchJobTokenRequest) = "fetch_job_token",
    MemoryShouldGenerate(MemoryShouldGenerateRequest) = "memory_should_generate",
    SkillEvolutionShouldReview(SkillEvolutionShouldReviewRequest) = "skill_evolution_should_review",
    ResolveSessionArtifacts(ResolveSessionArtifactsRequest) = "resolve_session_artifacts",
}

/// `can_use_tool`: ask the host to approve a tool call.
///
/// Qoder/TS extras (`title`, `decision_reason`, `agent_id`, `classifier_approvable`,
/// `details`, `permission_kind`, `options`, …) go in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CanUseToolRequest {
    pub subtype: CanUseToolTag,
    pub tool_name: String,
    pub display_name: String,
    pub input: Value,
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Omitted from the line when empty, as the reference does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl CanUseToolRequest {
    /// A request with `display_name` = `tool_name` and nothing optional set.
    pub fn new(tool_name: impl Into<String>, input: Value, tool_use_id: impl Into<String>) -> Self {
        let tool_name = tool_name.into();
        CanUseToolRequest {
            subtype: CanUseToolTag::CanUseTool,
            display_name: tool_name.clone(),
            tool_name,
            input,
            tool_use_id: tool_use_id.into(),
            description: None,
            permission_suggestions: Vec::new(),
            blocked_path: None,
            decision_reason_type: None,
            extra: Extra::new(),
        }
    }
}

/// The host's answer to `can_use_tool`.
///
/// TS adds `toolUseID` and `decisionClassification`; Qoder `permissionScope` (kept in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        #[serde(
            default,
            rename = "updatedInput",
            skip_serializing_if = "Option::is_none"
        )]
        updated_input: Option<Value>,
        #[serde(
            default,
            rename = "updatedPermissions",
            skip_serializing_if = "Option::is_none"
        )]
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

impl PermissionDecision {
    /// `updatedPermissions` entries decoded; entries that do not decode are skipped.
    pub fn permission_updates(&self) -> Vec<PermissionUpdate> {
        match self {
            PermissionDecision::Allow {
                updated_permissions: Some(list),
                ..
            } => list
                .iter()
                .filter_map(|v| serde_json::from_value(v.clone()).ok())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// One `PermissionUpdate` (in `updatedPermissions` and `permission_suggestions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionUpdate {
    AddRules(PermissionRulesUpdate),
    ReplaceRules(PermissionRulesUpdate),
    RemoveRules(PermissionRulesUpdate),
    SetMode {
        mode: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        destination: Option<String>,
        #[serde(flatten)]
        extra: Extra,
    },
    AddDirectories(PermissionDirectoriesUpdate),
    RemoveDirectories(PermissionDirectoriesUpdate),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRulesUpdate {
    pub rules: Vec<PermissionRuleValue>,
    /// `allow`, `deny` or `ask`.
    pub behavior: String,
    /// `userSettings`, `projectSettings`, `localSettings`, `session` or `cliArg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRuleValue {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionDirectoriesUpdate {
    pub directories: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
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

impl HookCallbackRequest {
    pub fn new(callback_id: impl Into<String>, input: Value, tool_use_id: Option<String>) -> Self {
        HookCallbackRequest {
            subtype: HookCallbackTag::HookCallback,
            callback_id: callback_id.into(),
            input,
            tool_use_id,
            extra: Extra::new(),
        }
    }
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
    /// `{"async": true, "asyncTimeout": ms}`: the hook finishes later.
    #[serde(default, rename = "async", skip_serializing_if = "Option::is_none")]
    pub async_: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_timeout: Option<u64>,
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

impl McpMessageOut {
    pub fn new(server_name: impl Into<String>, message: Value) -> Self {
        McpMessageOut {
            subtype: McpMessageTag::McpMessage,
            server_name: server_name.into(),
            message,
            extra: Extra::new(),
        }
    }
}

/// The host's answer to `mcp_message`: `{"mcp_response": <JSON-RPC response>}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageResponse {
    pub mcp_response: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `elicitation`: an MCP server asks the user for input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationRequest {
    pub subtype: ElicitationTag,
    pub mcp_server_name: String,
    pub message: String,
    /// `form` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ElicitationRequest {
    pub fn new(mcp_server_name: impl Into<String>, message: impl Into<String>) -> Self {
        ElicitationRequest {
            subtype: ElicitationTag::Elicitation,
            mcp_server_name: mcp_server_name.into(),
            message: message.into(),
            mode: None,
            url: None,
            elicitation_id: None,
            requested_schema: None,
            title: None,
            display_name: None,
            description: None,
            extra: Extra::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationAction {
    Accept,
    Decline,
    Cancel,
}

/// The host's answer to `elicitation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationResponse {
    pub action: ElicitationAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `mcp_oauth_required`: an MCP server needs OAuth the host performs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpOauthRequiredRequest {
    pub subtype: McpOauthRequiredTag,
    pub server_name: String,
    pub auth_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `mcp_oauth_required`: a token, a callback URL, or a code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpOauthRequiredResponse {
    /// `{accessToken, …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `get_model_policy` (only when `initialize.modelPolicyProvider` is true).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetModelPolicyRequest {
    pub subtype: GetModelPolicyTag,
    /// `main`, `plan`, `task`, `compact`, `title`, `suggestion`, `subagent`, …
    pub purpose: String,
    pub session_id: String,
    pub turn_index: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_usage: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_output_tokens: Option<u64>,
    /// `{attempt, lastError, lastModelId}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<Value>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `get_model_policy`; no `model` keeps dcl's choice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelPolicyResponse {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// `{provider, api_key, model?, url?, style, isVl?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_model: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_task: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `fetch_service_account_token` (auth payload `serviceAccountTokenProvider: "host"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FetchServiceAccountTokenRequest {
    pub subtype: FetchServiceAccountTokenTag,
    /// `initial`, `expiring` or `unauthorized`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default)]
    pub required_scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `fetch_job_token` (auth payload `jobTokenProvider: "host"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FetchJobTokenRequest {
    pub subtype: FetchJobTokenTag,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `fetch_service_account_token` / `fetch_job_token`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenResponse {
    pub token: String,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `memory_should_generate`: ask the host whether to run memory generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryShouldGenerateRequest {
    pub subtype: MemoryShouldGenerateTag,
    #[serde(rename = "callbackId")]
    pub callback_id: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `skill_evolution_should_review`: ask the host whether to review skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillEvolutionShouldReviewRequest {
    pub subtype: SkillEvolutionShouldReviewTag,
    #[serde(rename = "callbackId")]
    pub callback_id: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `memory_should_generate` / `skill_evolution_should_review`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShouldRunResponse {
    pub run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder TS `resolve_session_artifacts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResolveSessionArtifactsRequest {
    pub subtype: ResolveSessionArtifactsTag,
    pub local_session_id: String,
    pub cwd: String,
    #[serde(flatten)]
    pub extra: Extra,
}
