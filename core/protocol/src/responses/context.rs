//! `get_context_usage`: how the context window is spent, by category.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Extra;
use crate::serde_helpers::{compact_f64, present_value};

/// One category of `get_context_usage` (`System prompt`, `System tools`, `Messages`, …).
/// Claude reads `name`/`tokens`/`color`; Qoder reads `type`/`percentage`; dcl writes both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextCategory {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Qoder's category type (`system_prompt`, `messages`, `free_space`, `other`, …).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `used` or `free`.
    #[serde(default, rename = "kind", skip_serializing_if = "Option::is_none")]
    pub usage_kind: Option<String>,
    pub tokens: u64,
    /// Of the context window, 0–100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage: Option<f64>,
    pub color: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ContextCategory {
    pub fn new(name: impl Into<String>, tokens: u64, color: impl Into<String>) -> Self {
        ContextCategory {
            name: name.into(),
            id: None,
            kind: None,
            usage_kind: None,
            tokens,
            percentage: None,
            color: color.into(),
            extra: Extra::new(),
        }
    }

    /// The superset entry dcl writes for both dialects.
    pub fn full(
        name: impl Into<String>,
        id: impl Into<String>,
        kind: impl Into<String>,
        usage_kind: impl Into<String>,
        tokens: u64,
        percentage: f64,
        color: impl Into<String>,
    ) -> Self {
        ContextCategory {
            id: Some(id.into()),
            kind: Some(kind.into()),
            usage_kind: Some(usage_kind.into()),
            percentage: Some(percentage),
            ..ContextCategory::new(name, tokens, color)
        }
    }
}

/// The `get_context_usage` answer (Claude shape; Qoder's extra keys such as
/// `contextWindow`, `autoCompact`, `session` go in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsageResponse {
    pub categories: Vec<ContextCategory>,
    pub total_tokens: u64,
    pub max_tokens: u64,
    pub raw_max_tokens: u64,
    /// 0–100.
    #[serde(serialize_with = "compact_f64")]
    pub percentage: f64,
    pub model: String,
    pub is_auto_compact_enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_compact_threshold: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autocompact_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_files: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_tools: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_rows: Option<Vec<Vec<Value>>>,
    /// Qoder: `{usedPercentage, usedTokens, maxTokens}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<Value>,
    /// Qoder: `{enabled, thresholdPercentage}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_compact: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slash_commands: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_breakdown: Option<Value>,
    /// Usage of the last request; an explicit `null` before the first one.
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub api_usage: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_file_reads: Option<Vec<Value>>,
    /// Qoder: `{messageCount, promptCount, toolCalls, linesChanged}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ContextUsageResponse {
    /// The required fields; everything optional unset, auto-compact off.
    pub fn new(
        categories: Vec<ContextCategory>,
        total_tokens: u64,
        max_tokens: u64,
        percentage: f64,
        model: impl Into<String>,
    ) -> Self {
        ContextUsageResponse {
            categories,
            total_tokens,
            max_tokens,
            raw_max_tokens: max_tokens,
            percentage,
            model: model.into(),
            is_auto_compact_enabled: false,
            auto_compact_threshold: None,
            autocompact_source: None,
            memory_files: None,
            mcp_tools: None,
            agents: None,
            grid_rows: None,
            context_window: None,
            auto_compact: None,
            slash_commands: None,
            skills: None,
            message_breakdown: None,
            api_usage: None,
            duplicate_file_reads: None,
            session: None,
            extra: Extra::new(),
        }
    }
}
