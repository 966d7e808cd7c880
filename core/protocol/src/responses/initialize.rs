//! The `initialize` answer: commands, agents, models, account and output styles the
//! session offers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::models::ModelInfo;
use crate::content::Extra;
use crate::vocab::PermissionModeName;

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
