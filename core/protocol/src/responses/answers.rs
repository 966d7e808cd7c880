//! `{}` answers, and which payload type answers each request ([`ANSWER_SCHEMAS`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;

/// `{}`: the answer to requests that return nothing (`mcp_toggle`, `mcp_reconnect`,
/// `stop_task`, `seed_read_state`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyResponse {
    #[serde(flatten)]
    pub extra: Extra,
}

/// `(host request subtype, schema name)`: the payload type of dcl's `success` answer to each
/// request that answers with one (in `$defs` of the exported schema). Requests not listed
/// answer with no payload or `{}` ([`EmptyResponse`]).
pub const ANSWER_SCHEMAS: &[(&str, &str)] = &[
    ("initialize", "InitializeResponse"),
    ("interrupt", "InterruptResponse"),
    ("set_permission_mode", "SetPermissionModeResponse"),
    ("set_model", "SetModelResponse"),
    ("cancel_async_message", "CancelAsyncMessageResponse"),
    ("get_settings", "GetSettingsResponse"),
    ("apply_flag_settings", "ApplyFlagSettingsResponse"),
    ("mcp_status", "McpStatusResponse"),
    ("mcp_set_servers", "McpSetServersResponse"),
    ("mcp_authenticate", "McpAuthenticateResponse"),
    ("get_context_usage", "ContextUsageResponse"),
    ("rewind_files", "RewindFilesResponse"),
    ("rewind", "RewindResponse"),
    ("reload_plugins", "ReloadPluginsResponse"),
    ("list_plugins", "ListPluginsResponse"),
    ("reload_skills", "ReloadSkillsResponse"),
    ("set_plan_mode", "PlanModeResponse"),
    ("get_plan_mode", "PlanModeResponse"),
    ("set_proxy", "SetProxyResponse"),
    ("set_goal", "GoalResponse"),
    ("get_goal", "GoalResponse"),
    ("clear_goal", "ClearGoalResponse"),
    ("set_goal_max_turns", "GoalMaxTurnsResponse"),
    ("background_tasks", "BackgroundTasksResponse"),
    ("side_question", "SideQuestionResponse"),
    ("get_usage_info", "GetUsageInfoResponse"),
    ("account_info", "AccountInfoResponse"),
    ("get_models", "GetModelsResponse"),
    ("add_directories", "AddDirectoriesResponse"),
    ("generate_session_title", "GenerateSessionTitleResponse"),
    ("update_queued_message", "UpdateQueuedMessageResponse"),
    ("list_permission_rules", "ListPermissionRulesResponse"),
    ("get_hooks_listing", "GetHooksListingResponse"),
];
