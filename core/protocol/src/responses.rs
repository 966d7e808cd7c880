//! Payloads of dcl's `success` answers to host control requests (`response.response`).
//!
//! Every struct keeps unknown fields in `extra`, so a reference answer survives a round trip.
//! Build one and send it with [`crate::ControlResponse::success_with`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use crate::content::Extra;
use crate::serde_helpers::{compact_f64, compact_opt_f64, present_value};
use crate::vocab::{EffortLevel, McpServerState, PermissionModeName};

/// `{}`: the answer to requests that return nothing (`mcp_toggle`, `mcp_reconnect`,
/// `stop_task`, `seed_read_state`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyResponse {
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// initialize
// ---------------------------------------------------------------------------

/// A slash command as listed in `initialize.commands` and `reload_plugins.commands`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommandInfo {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub argument_hint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SlashCommandInfo {
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        SlashCommandInfo {
            name: name.into(),
            description: description.into(),
            argument_hint: String::new(),
            builtin: None,
            aliases: None,
            extra: Extra::new(),
        }
    }
}

/// A subagent as listed in `initialize.agents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

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

/// `initialize.account`. Every field is optional (`{}` is a valid answer).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_provider: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `initialize` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InitializeResponse {
    pub commands: Vec<SlashCommandInfo>,
    pub agents: Vec<AgentInfo>,
    pub output_style: String,
    pub available_output_styles: Vec<String>,
    pub models: Vec<ModelInfo>,
    #[serde(default)]
    pub account: AccountInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// dcl always sends `true` (the Python SDK requires it for `onFailure: "block"` hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_on_failure_supported: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// dcl's own version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcl_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<PermissionModeName>")]
    pub current_permission_mode: Option<String>,
    /// Qoder: identical to `system/init.capabilities`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// What was accepted but not acted on (options, flags); absent when nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    /// Whether the `hooks` of the request were registered (present when it had hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks_applied: Option<bool>,
    /// Whether the request's `settings` are in force (present when it carried them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_applied: Option<bool>,
    /// Whether the request's `disallowedTools` are in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools_applied: Option<bool>,
    /// Whether the request's `managedSettings` are in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_settings_applied: Option<bool>,
    /// Whether the request's external `mcpServers` were loaded (the newest TS SDK ends the
    /// session when this key is missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers_applied: Option<bool>,
    /// Whether the request's `plugins` were loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins_applied: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Default for InitializeResponse {
    /// The minimal safe answer: no commands, agents or models; `default` output style; this
    /// process's pid; `hook_on_failure_supported: true`; the protocol level.
    fn default() -> Self {
        InitializeResponse {
            commands: Vec::new(),
            agents: Vec::new(),
            output_style: "default".into(),
            available_output_styles: vec!["default".into()],
            models: Vec::new(),
            account: AccountInfo::default(),
            pid: Some(std::process::id()),
            hook_on_failure_supported: Some(true),
            claude_code_version: Some(crate::PROTOCOL_LEVEL.into()),
            dcl_version: Some(crate::DCL_VERSION.into()),
            current_permission_mode: None,
            capabilities: None,
            warnings: None,
            hooks_applied: None,
            settings_applied: None,
            disallowed_tools_applied: None,
            managed_settings_applied: None,
            mcp_servers_applied: None,
            plugins_applied: None,
            extra: Extra::new(),
        }
    }
}

impl InitializeResponse {
    pub fn with_models(mut self, models: Vec<ModelInfo>) -> Self {
        self.models = models;
        self
    }

    pub fn with_account(mut self, account: AccountInfo) -> Self {
        self.account = account;
        self
    }

    pub fn with_permission_mode(mut self, mode: PermissionModeName) -> Self {
        self.current_permission_mode = Some(mode.into());
        self
    }

    /// Qoder: the same list as `system/init.capabilities`.
    pub fn with_capabilities(mut self, capabilities: Vec<String>) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sets `warnings`, leaving the key out when there are none.
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = (!warnings.is_empty()).then_some(warnings);
        self
    }
}

impl AccountInfo {
    /// `{tokenSource, apiKeySource, apiProvider}`.
    pub fn new(
        token_source: impl Into<String>,
        api_key_source: impl Into<String>,
        api_provider: impl Into<String>,
    ) -> Self {
        AccountInfo {
            token_source: Some(token_source.into()),
            api_key_source: Some(api_key_source.into()),
            api_provider: Some(api_provider.into()),
            extra: Extra::new(),
        }
    }
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

// ---------------------------------------------------------------------------
// Turn control and session settings.
// ---------------------------------------------------------------------------

/// The `interrupt` answer: uuids of queued messages that were not cancelled (Qoder also lists
/// `cancelled`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterruptResponse {
    #[serde(default)]
    pub still_queued: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPermissionModeResponse {
    #[schemars(with = "PermissionModeName")]
    pub mode: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `set_model` answer: the resolved model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetModelResponse {
    pub model: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelAsyncMessageResponse {
    pub cancelled: bool,
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

// ---------------------------------------------------------------------------
// MCP.
// ---------------------------------------------------------------------------

/// A tool of an MCP server in `mcp_status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpToolInfo {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One MCP server in `mcp_status` / `reload_plugins` (fields in the order dcl's MCP manager
/// writes them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatus {
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
    #[schemars(with = "McpServerState")]
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `{name, version}` from the server's `initialize` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpToolInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl McpServerStatus {
    pub fn new(name: impl Into<String>, status: impl Into<String>) -> Self {
        McpServerStatus {
            name: name.into(),
            status: status.into(),
            error: None,
            server_info: None,
            tools: None,
            config: None,
            scope: None,
            extra: Extra::new(),
        }
    }
}

/// The `mcp_status` answer. Claude reads `mcpServers`, Qoder TS reads `servers`; dcl fills
/// both ([`McpStatusResponse::new`]). Each is optional so either shape round-trips.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpStatusResponse {
    #[serde(
        default,
        rename = "mcpServers",
        skip_serializing_if = "Option::is_none"
    )]
    pub mcp_servers: Option<Vec<McpServerStatus>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<McpServerStatus>>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl McpStatusResponse {
    /// The same list under `mcpServers` and `servers`.
    pub fn new(servers: Vec<McpServerStatus>) -> Self {
        McpStatusResponse {
            mcp_servers: Some(servers.clone()),
            servers: Some(servers),
            extra: Extra::new(),
        }
    }

    /// The servers, from whichever key is present.
    pub fn list(&self) -> &[McpServerStatus] {
        self.mcp_servers
            .as_deref()
            .or(self.servers.as_deref())
            .unwrap_or(&[])
    }
}

/// The `mcp_set_servers` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpSetServersResponse {
    #[serde(default)]
    pub added: Vec<String>,
    #[serde(default)]
    pub removed: Vec<String>,
    #[serde(default)]
    pub errors: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `mcp_authenticate` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpAuthenticateResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_url: Option<String>,
    pub requires_user_action: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// Context usage.
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Checkpoints.
// ---------------------------------------------------------------------------

/// The `rewind_files` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewindFilesResponse {
    pub can_rewind: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A file that could not be restored by Qoder `rewind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FailedPath {
    pub path: String,
    pub error: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The Qoder `rewind` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewindResponse {
    /// `ready`, `success`, `partial` or `rejected`.
    pub status: String,
    pub target_user_message_id: String,
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retained_leaf_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_message_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_files: Option<Vec<FailedPath>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// Plugins and skills.
// ---------------------------------------------------------------------------

/// A plugin in `reload_plugins`, Qoder `list_plugins` and `system/init.plugins`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PluginInfo {
    pub name: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `reload_plugins` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadPluginsResponse {
    pub commands: Vec<SlashCommandInfo>,
    pub agents: Vec<AgentInfo>,
    pub plugins: Vec<PluginInfo>,
    #[serde(rename = "mcpServers")]
    pub mcp_servers: Vec<McpServerStatus>,
    pub error_count: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The Qoder `list_plugins` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListPluginsResponse {
    pub plugins: Vec<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The Qoder TS `reload_skills` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadSkillsResponse {
    pub skills: Vec<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// Qoder extras.
// ---------------------------------------------------------------------------

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

/// The `background_tasks` answer (`backgrounded` only when a task was targeted).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundTasksResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backgrounded: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideQuestionResponse {
    pub response: Option<String>,
    pub synthetic: bool,
    /// `{original_model, fallback_model, content}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal_fallback: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetUsageInfoResponse {
    pub usage: Option<Value>,
    /// `{total_credits, model_usage: {model: {credits}}}`.
    pub session: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_error: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AccountInfoResponse {
    pub account: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetModelsResponse {
    pub models: Vec<ModelInfo>,
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateSessionTitleResponse {
    pub title: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `update_queued_message`: `updated`, or `not_queued` when no waiting prompt has that
/// uuid (it already started, was cancelled, or never was).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateQueuedMessageResponse {
    pub outcome: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `list_permission_rules`: the session's live rules and workspace directories.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListPermissionRulesResponse {
    pub state: PermissionRulesState,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRulesState {
    pub rules: Vec<PermissionRuleEntry>,
    pub workspace_directories: Vec<WorkspaceDirectory>,
    pub original_cwd: String,
    pub managed_only: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One rule with where it comes from (`userSettings`, `projectSettings`, `localSettings`,
/// `flagSettings`, `cliArg`, `session`) and whether a host may change it there
/// (`persistent`, `session`, `readonly`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRuleEntry {
    /// `allow`, `deny` or `ask`.
    pub behavior: String,
    pub source: String,
    pub rule: String,
    pub editability: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceDirectory {
    pub path: String,
    pub source: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `get_hooks_listing`: the hooks a session runs, grouped by event, as the reference's
/// /hooks menu lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetHooksListingResponse {
    /// Events with at least one hook, in the SDK's order.
    pub events: Vec<HookListingEvent>,
    pub hooks: Vec<HookListingRow>,
    /// Every event the SDK names, in its order.
    pub event_catalog: Vec<HookListingCatalogEntry>,
    pub policy: HookListingPolicy,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingEvent {
    pub name: String,
    pub summary: String,
    pub supports_matcher: bool,
    pub hook_count: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One hook: a settings file's or a plugin's command, or a host callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingRow {
    pub event: String,
    /// `""` when the entry has none.
    pub matcher: String,
    /// `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `pluginHook`,
    /// `sessionHook` (a host callback).
    pub source: String,
    pub source_label: String,
    /// `command` or `callback`.
    #[serde(rename = "type")]
    pub kind: String,
    pub display_text: String,
    pub command_text: String,
    pub content_label: String,
    /// Seconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub timeout: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingCatalogEntry {
    pub name: String,
    pub summary: String,
    pub supports_matcher: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingPolicy {
    pub disabled_by_policy: bool,
    pub managed_only: bool,
    pub plugin_only: bool,
    pub all_disabled: bool,
    pub policy_hook_count: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `(host request subtype, schema name)`: the payload type of dcl's `success` answer to each
/// request that answers with one (in `$defs` of the exported schema). Requests not listed
/// answer with no payload or `{}` ([`EmptyResponse`]).
pub const ANSWER_SCHEMAS: &[(&str, &str)] = &[
    ("initialize", "InitializeResponse"),
    ("interrupt", "InterruptResponse"),
    ("set_permission_mode", "SetPermissionModeResponse"),
    ("set_model", "SetModelResponse"),
    ("cancel_async_message", "CancelAsyncMessageResponse"),
    ("get_settings", "GetSettingsResponse"),
    ("apply_flag_settings", "ApplyFlagSettingsResponse"),
    ("mcp_status", "McpStatusResponse"),
    ("mcp_set_servers", "McpSetServersResponse"),
    ("mcp_authenticate", "McpAuthenticateResponse"),
    ("get_context_usage", "ContextUsageResponse"),
    ("rewind_files", "RewindFilesResponse"),
    ("rewind", "RewindResponse"),
    ("reload_plugins", "ReloadPluginsResponse"),
    ("list_plugins", "ListPluginsResponse"),
    ("reload_skills", "ReloadSkillsResponse"),
    ("set_plan_mode", "PlanModeResponse"),
    ("get_plan_mode", "PlanModeResponse"),
    ("set_proxy", "SetProxyResponse"),
    ("set_goal", "GoalResponse"),
    ("get_goal", "GoalResponse"),
    ("clear_goal", "ClearGoalResponse"),
    ("set_goal_max_turns", "GoalMaxTurnsResponse"),
    ("background_tasks", "BackgroundTasksResponse"),
    ("side_question", "SideQuestionResponse"),
    ("get_usage_info", "GetUsageInfoResponse"),
    ("account_info", "AccountInfoResponse"),
    ("get_models", "GetModelsResponse"),
    ("add_directories", "AddDirectoriesResponse"),
    ("generate_session_title", "GenerateSessionTitleResponse"),
    ("update_queued_message", "UpdateQueuedMessageResponse"),
    ("list_permission_rules", "ListPermissionRulesResponse"),
    ("get_hooks_listing", "GetHooksListingResponse"),
];
