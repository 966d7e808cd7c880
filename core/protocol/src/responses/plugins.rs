//! Plugin and skill answers: `reload_plugins`, `list_plugins`, `reload_skills`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::initialize::{AgentInfo, SlashCommandInfo};
use super::mcp::McpServerStatus;
use crate::content::Extra;

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
