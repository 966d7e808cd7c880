//! Qoder goals: `set_goal` and its turn limit.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;
use crate::serde_helpers::compact_opt_f64;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetGoalRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub credits_budget: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetGoalMaxTurnsRequest {
    #[serde(default)]
    pub max_turns: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}
