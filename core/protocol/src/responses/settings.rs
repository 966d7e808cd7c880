//! Answers about settings: the effective settings and their sources, applied flag
//! settings, permission and plan mode, proxy, directories.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::rewind::FailedPath;
use crate::content::Extra;
use crate::vocab::PermissionModeName;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPermissionModeResponse {
    #[schemars(with = "PermissionModeName")]
    pub mode: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One settings layer in `get_settings.sources` (`user` → `project` → `local` → `flag`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SettingsSource {
    pub source: String,
    /// The file the layer was read from (absent for `flag`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub settings: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What actually took effect (`get_settings.applied`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppliedSettings {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub effort: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetSettingsResponse {
    pub effective: Map<String, Value>,
    pub sources: Vec<SettingsSource>,
    pub applied: AppliedSettings,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `apply_flag_settings` answer (Qoder: `{applied: {effort, …}}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApplyFlagSettingsResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanModeState {
    pub active: bool,
}

/// The answer to `set_plan_mode` / `get_plan_mode`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanModeResponse {
    pub plan_mode: PlanModeState,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetProxyResponse {
    #[serde(default)]
    pub proxy: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AddDirectoriesResponse {
    pub added: Vec<String>,
    pub failed: Vec<FailedPath>,
    pub directories: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
