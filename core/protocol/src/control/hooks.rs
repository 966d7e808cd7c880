//! Hooks: the registrations `initialize` carries, `hook_callback`, and what a hook returns.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::tags::HookCallbackTag;
use crate::content::Extra;
use crate::serde_helpers::compact_opt_f64;

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
