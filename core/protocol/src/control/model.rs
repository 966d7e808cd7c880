//! The model: `set_model`, thinking tokens, `get_models`, and Qoder's host model policy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tags::GetModelPolicyTag;
use crate::content::Extra;

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
