//! `initialize`: everything the SDK options carry that is not an argv flag, and the
//! subagent definitions it brings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::hooks::HookMatcherConfig;
use crate::content::Extra;

/// A system prompt given in `initialize`: a string or (TS SDK) an array of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SystemPromptValue {
    Text(String),
    Parts(Vec<String>),
}

impl SystemPromptValue {
    pub fn joined(&self) -> String {
        match self {
            SystemPromptValue::Text(t) => t.clone(),
            SystemPromptValue::Parts(p) => p.join("\n\n"),
        }
    }
}

/// `initialize`: everything the SDK options carry that is not an argv flag.
///
/// Claude sends `hooks: null` when there are none; Qoder omits `hooks`. Both read as `None`
/// (and serialize as `null`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    #[serde(default)]
    pub hooks: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<SystemPromptValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_suggestions: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_progress_summaries: Option<bool>,
    /// Main-session skill allowlist (`[]` hides all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_dynamic_sections: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_snapshot: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_subagent_text: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_mode_instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// TS: `{server: {initializeResult, toolsListResult}}`, the pre-run MCP handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_server_manifests: Option<Map<String, Value>>,
    /// Qoder TS: `{server: {tool: {exposedName?, alwaysLoad?}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_tool_overrides: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Map<String, Value>>,
    /// Policy settings that win over every other layer (TS `managedSettingsDelivery:
    /// 'initialize'`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_settings: Option<Map<String, Value>>,
    /// `[{type: "local", path, skipMcpDiscovery?}]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<Value>>,
    /// Qoder: enable file checkpoints (`rewind_files`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_file_checkpointing: Option<bool>,
    /// Qoder: ask the host (`get_model_policy`) before each model call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_policy_provider: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialize_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_catalog_ready_initialize: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_available_models_update: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_commands_changed: Option<bool>,
    /// Qoder memory configuration (`{requester, mode, …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Value>,
    /// Qoder skill-evolution configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evolution: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitializeRequest {
    /// The hook registrations per event, each decoded; a malformed entry is an error.
    pub fn hook_matchers(&self) -> Result<Vec<(String, HookMatcherConfig)>, InitializeError> {
        let mut out = Vec::new();
        let Some(hooks) = &self.hooks else {
            return Ok(out);
        };
        for (event, list) in hooks {
            let list = list
                .as_array()
                .ok_or_else(|| InitializeError::HooksNotArray(event.clone()))?;
            for m in list {
                let cfg: HookMatcherConfig =
                    serde_json::from_value(m.clone()).map_err(|source| InitializeError::Hook {
                        event: event.clone(),
                        source,
                    })?;
                out.push((event.clone(), cfg));
            }
        }
        Ok(out)
    }

    /// The `agents` definitions, each decoded; a malformed entry is an error.
    pub fn agent_definitions(&self) -> Result<Vec<(String, AgentDefinition)>, InitializeError> {
        let Some(agents) = &self.agents else {
            return Ok(Vec::new());
        };
        agents
            .iter()
            .map(|(name, def)| {
                serde_json::from_value::<AgentDefinition>(def.clone())
                    .map(|d| (name.clone(), d))
                    .map_err(|source| InitializeError::Agent {
                        name: name.clone(),
                        source,
                    })
            })
            .collect()
    }
}

/// A malformed `hooks` or `agents` entry of an `initialize` request, named by its key.
#[derive(Debug, thiserror::Error)]
pub enum InitializeError {
    #[error("hooks.{0} must be an array")]
    HooksNotArray(String),
    #[error("hooks.{event}: {source}")]
    Hook {
        event: String,
        source: serde_json::Error,
    },
    #[error("agents.{name}: {source}")]
    Agent {
        name: String,
        source: serde_json::Error,
    },
}

/// One subagent definition from `initialize.agents`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// `sonnet|opus|haiku|inherit` or a model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Server names or `{name: config}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
