//! How a turn ends, and what it cost.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a turn stopped (ACP's stop reasons, plus `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model hit its output token limit.
    MaxTokens,
    /// The turn used up its model round trips (`maxTurns`) or its budget.
    MaxTurns,
    /// The model refused.
    Refusal,
    /// The front end interrupted the turn.
    Cancelled,
    /// The turn failed (model error, hook stop, bad structured output…); see
    /// [`TurnEnd::errors`].
    Error,
}

/// Token counts, as the model reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TokenUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

impl TokenUsage {
    pub fn add(&mut self, other: &TokenUsage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }
}

/// The end of a turn: why, and what it used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnEnd {
    pub turn_id: String,
    pub stop_reason: StopReason,
    /// The turn's tokens (every model call of it, subagents included).
    pub usage: TokenUsage,
    /// The session's cost so far, in US dollars.
    pub total_cost_usd: f64,
    /// Model round trips the turn took.
    pub num_turns: u32,
    pub duration_ms: u64,
    /// The final answer's text, when the turn produced one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The validated answer, when the session asked for structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// What went wrong, when `stop_reason` is `error`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}
