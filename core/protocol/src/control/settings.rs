//! Settings: flag settings, `update_settings`, plugins, proxy and plan mode.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Extra;

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
pub struct UpdateSettingsRequest {
    pub source: String,
    pub settings: Map<String, Value>,
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
