//! Every host -> dcl control request dcl understands ([`HostRequest`]), by subtype.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::files::{
    AddDirectoriesRequest, ReadFileRequest, RegisterRepoRootRequest, RewindFilesRequest,
    RewindRequest, SeedReadStateRequest, SetCwdRequest,
};
use super::goal::{SetGoalMaxTurnsRequest, SetGoalRequest};
use super::initialize::InitializeRequest;
use super::mcp::{
    McpAuthenticateRequest, McpInjectTokenRequest, McpMessageRequest, McpOauthCallbackUrlRequest,
    McpReadResourceRequest, McpReconnectRequest, McpSetServersRequest, McpStatusRequest,
    McpToggleRequest,
};
use super::model::{GetModelsRequest, SetMaxThinkingTokensRequest, SetModelRequest};
use super::parse::{RequestParseError, normalized_request};
use super::permissions::{SetMcpPermissionModeOverrideRequest, SetPermissionModeRequest};
use super::session::{
    BackgroundTasksRequest, CancelAsyncMessageRequest, GenerateSessionTitleRequest,
    GetContextUsageRequest, GetTaskOutputRequest, GetUsageRequest, InterruptRequest,
    RenameSessionRequest, SideQuestionRequest, StopTaskRequest, UpdateQueuedMessageRequest,
};
use super::settings::{
    ApplyFlagSettingsRequest, ReloadPluginsRequest, SetPlanModeRequest, SetProxyRequest,
    UpdateSettingsRequest,
};
use crate::content::Extra;

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
