//! A session's settings that can change while it runs.

use crate::permissions::PermissionMode;

/// Settings read at the start of each model call or tool check.
#[derive(Debug, Clone)]
pub struct LiveSettings {
    pub model: String,
    pub permission_mode: PermissionMode,
    pub max_thinking_tokens: Option<u32>,
    /// A model change asked for during a turn; applied when the turn ends.
    pub pending_model: Option<String>,
    pub pending_thinking: Option<Option<u32>>,
    pub system_prompt: Option<String>,
    pub append_system_prompt: Option<String>,
    /// Reasoning effort (`low`…`max`, or `off`); `None` is the model's default.
    pub effort: Option<String>,
    pub pending_effort: Option<Option<String>>,
}

/// Usage and cost accumulated over the whole session.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub cost_usd: f64,
    pub model_usage: serde_json::Map<String, serde_json::Value>,
}

/// Counts over the session, reported by `get_context_usage`.
#[derive(Debug, Clone, Default)]
pub struct SessionStats {
    pub messages: u64,
    pub prompts: u64,
    pub tool_calls: u64,
    /// Lines added plus removed by Write/Edit/NotebookEdit, from their patches.
    pub lines_changed: u64,
}
