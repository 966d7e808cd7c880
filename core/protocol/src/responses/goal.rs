//! Qoder goal answers: `set_goal` / `get_goal`, `clear_goal`, `set_goal_max_turns`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Extra;
use crate::serde_helpers::{compact_f64, compact_opt_f64};

/// A goal as Qoder reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GoalSnapshot {
    pub id: String,
    pub objective: String,
    pub status: String,
    pub turns_used: u64,
    #[serde(serialize_with = "compact_f64")]
    pub time_used_seconds: f64,
    pub created_at: Value,
    pub updated_at: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub credits_budget: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub credits_used: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The answer to `set_goal` / `get_goal`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GoalResponse {
    pub goal: Option<GoalSnapshot>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClearGoalResponse {
    pub cleared: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GoalMaxTurnsResponse {
    pub goal_max_turns: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}
