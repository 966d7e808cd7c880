//! The session's state lines: status, API retries, thinking tokens, denied permissions,
//! informational notices, session state and plan mode changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Extra;
use crate::responses::PlanModeState;
use crate::serde_helpers::compact_f64;
use crate::vocab::{InformationalLevel, PermissionModeName, SessionState, StatusKind};

/// `system/status`: `status` is `requesting`, `compacting` or `null`; `permissionMode` after a
/// mode change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemStatus {
    #[serde(default)]
    #[schemars(with = "Option<StatusKind>")]
    pub status: Option<String>,
    #[serde(
        default,
        rename = "permissionMode",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<PermissionModeName>")]
    pub permission_mode: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/api_retry`: one retry of a failed model request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    #[serde(serialize_with = "compact_f64")]
    pub retry_delay_ms: f64,
    /// HTTP status; `null` for a connection error.
    #[serde(default)]
    pub error_status: Option<u16>,
    pub error: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/thinking_tokens`: estimated thinking so far (with partial messages).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemThinkingTokens {
    pub estimated_tokens: u64,
    pub estimated_tokens_delta: i64,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/permission_denied`: a tool call was refused without asking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemPermissionDenied {
    pub tool_name: String,
    pub tool_use_id: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<Value>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/informational`, e.g. a hook's `systemMessage` (`"PreToolUse:Bash says: …"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemInformational {
    pub content: String,
    /// `notice`, `warning`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<InformationalLevel>")]
    pub level: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/session_state_changed`: `idle`, `running` or `requires_action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemSessionStateChanged {
    #[schemars(with = "SessionState")]
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_host_only: Option<bool>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `system/plan_mode_changed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemPlanModeChanged {
    pub plan_mode: PlanModeState,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SystemStatus {
    fn unstamped(status: Option<StatusKind>, mode: Option<PermissionModeName>) -> Self {
        SystemStatus {
            status: status.map(String::from),
            permission_mode: mode.map(String::from),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }

    /// `{"status":"requesting"}`: a model request is about to go out.
    pub fn requesting() -> Self {
        SystemStatus::unstamped(Some(StatusKind::Requesting), None)
    }

    /// `{"status":"compacting"}`.
    pub fn compacting() -> Self {
        SystemStatus::unstamped(Some(StatusKind::Compacting), None)
    }

    /// `{"status":null,"permissionMode":…}`: the permission mode changed.
    pub fn permission_mode_changed(mode: PermissionModeName) -> Self {
        SystemStatus::unstamped(None, Some(mode))
    }
}

impl SystemApiRetry {
    /// Retry `attempt` of `max_retries`, after `retry_delay_ms`; `error_status` is the HTTP
    /// status (`None` for a connection error), `error` the kind (`overloaded`, …).
    pub fn new(
        attempt: u32,
        max_retries: u32,
        retry_delay_ms: u64,
        error_status: Option<u16>,
        error: impl Into<String>,
    ) -> Self {
        SystemApiRetry {
            attempt,
            max_retries,
            retry_delay_ms: retry_delay_ms as f64,
            error_status,
            error: error.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemPermissionDenied {
    /// A call refused without asking anybody.
    pub fn new(
        tool_name: impl Into<String>,
        tool_use_id: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        SystemPermissionDenied {
            tool_name: tool_name.into(),
            tool_use_id: tool_use_id.into(),
            message: message.into(),
            agent_id: None,
            decision_reason_type: None,
            decision_reason: None,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemInformational {
    pub fn new(content: impl Into<String>, level: InformationalLevel) -> Self {
        SystemInformational {
            content: content.into(),
            level: Some(level.into()),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }

    /// `{"content":…,"level":"warning"}`.
    pub fn warning(content: impl Into<String>) -> Self {
        SystemInformational::new(content, InformationalLevel::Warning)
    }
}
