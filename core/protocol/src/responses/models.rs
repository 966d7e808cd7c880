//! Models as `initialize` and `get_models` list them, and the `set_model` answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::content::Extra;
use crate::vocab::EffortLevel;

/// A model as listed in `initialize.models` (and Qoder `get_models`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_model: Option<String>,
    pub display_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_effort: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<EffortLevel>>")]
    pub supported_effort_levels: Option<Vec<String>>,
    /// Claude: whether the model decides by itself when and how much to think.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_adaptive_thinking: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_fast_mode: Option<bool>,
    /// Qoder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_enabled: Option<bool>,
    /// Qoder: context-window tiers by label (`200K`, `1M`).
    #[serde(
        default,
        rename = "context_config",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_config: Option<BTreeMap<String, ModelContextWindow>>,
    /// Qoder: how thinking can be set for this model.
    #[serde(
        default,
        rename = "thinking_config",
        skip_serializing_if = "Option::is_none"
    )]
    pub thinking_config: Option<ModelThinkingConfig>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ModelInfo {
    pub fn new(value: impl Into<String>, display_name: impl Into<String>) -> Self {
        ModelInfo {
            value: value.into(),
            resolved_model: None,
            display_name: display_name.into(),
            description: String::new(),
            supports_effort: None,
            supported_effort_levels: None,
            supports_adaptive_thinking: None,
            supports_fast_mode: None,
            is_enabled: None,
            context_config: None,
            thinking_config: None,
            extra: Extra::new(),
        }
    }
}

/// One context-window tier of a Qoder catalogue entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelContextWindow {
    pub token_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `thinking_config`: what "off" and "on" mean for a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelThinkingConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<ModelThinkingDisabled>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<ModelThinkingEnabled>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelThinkingDisabled {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelThinkingEnabled {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// By effort level (`low`, `medium`, `high`, `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efforts: Option<BTreeMap<String, ModelEffort>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelEffort {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ModelInfo {
    /// `{value, resolvedModel, displayName, description}`.
    pub fn resolved(
        value: impl Into<String>,
        resolved_model: impl Into<String>,
        display_name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        ModelInfo {
            resolved_model: Some(resolved_model.into()),
            description: description.into(),
            ..ModelInfo::new(value, display_name)
        }
    }
}

/// The `set_model` answer: the resolved model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetModelResponse {
    pub model: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetModelsResponse {
    pub models: Vec<ModelInfo>,
    #[serde(flatten)]
    pub extra: Extra,
}
