//! The session: interrupts, context and usage, queued messages, tasks, titles and side
//! questions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Extra;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterruptRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_queued: Option<bool>,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StopTaskRequest {
    pub task_id: String,
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
pub struct GenerateSessionTitleRequest {
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}
