//! Answers about the session: interrupts, queued and background work, side questions,
//! titles, usage and account.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Extra;

/// The `interrupt` answer: uuids of queued messages that were not cancelled (Qoder also lists
/// `cancelled`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterruptResponse {
    #[serde(default)]
    pub still_queued: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelAsyncMessageResponse {
    pub cancelled: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `background_tasks` answer (`backgrounded` only when a task was targeted).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundTasksResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backgrounded: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideQuestionResponse {
    pub response: Option<String>,
    pub synthetic: bool,
    /// `{original_model, fallback_model, content}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal_fallback: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetUsageInfoResponse {
    pub usage: Option<Value>,
    /// `{total_credits, model_usage: {model: {credits}}}`.
    pub session: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_error: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccountInfoResponse {
    pub account: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateSessionTitleResponse {
    pub title: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `update_queued_message`: `updated`, or `not_queued` when no waiting prompt has that
/// uuid (it already started, was cancelled, or never was).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateQueuedMessageResponse {
    pub outcome: String,
    #[serde(flatten)]
    pub extra: Extra,
}
