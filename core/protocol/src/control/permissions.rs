//! Permissions: `can_use_tool` and the host's decision, permission updates, and the
//! requests that change the permission mode.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tags::CanUseToolTag;
use crate::content::Extra;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPermissionModeRequest {
    pub mode: String,
    /// Qoder TS: keep plan mode active while changing the underlying mode.
    #[serde(
        default,
        rename = "preservePlanMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub preserve_plan_mode: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetMcpPermissionModeOverrideRequest {
    pub server_name: String,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `can_use_tool`: ask the host to approve a tool call.
///
/// Qoder/TS extras (`title`, `decision_reason`, `agent_id`, `classifier_approvable`,
/// `details`, `permission_kind`, `options`, …) go in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CanUseToolRequest {
    pub subtype: CanUseToolTag,
    pub tool_name: String,
    pub display_name: String,
    pub input: Value,
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Omitted from the line when empty, as the reference does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl CanUseToolRequest {
    /// A request with `display_name` = `tool_name` and nothing optional set.
    pub fn new(tool_name: impl Into<String>, input: Value, tool_use_id: impl Into<String>) -> Self {
        let tool_name = tool_name.into();
        CanUseToolRequest {
            subtype: CanUseToolTag::CanUseTool,
            display_name: tool_name.clone(),
            tool_name,
            input,
            tool_use_id: tool_use_id.into(),
            description: None,
            permission_suggestions: Vec::new(),
            blocked_path: None,
            decision_reason_type: None,
            extra: Extra::new(),
        }
    }
}

/// The host's answer to `can_use_tool`.
///
/// TS adds `toolUseID` and `decisionClassification`; Qoder `permissionScope` (kept in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        #[serde(
            default,
            rename = "updatedInput",
            skip_serializing_if = "Option::is_none"
        )]
        updated_input: Option<Value>,
        #[serde(
            default,
            rename = "updatedPermissions",
            skip_serializing_if = "Option::is_none"
        )]
        updated_permissions: Option<Vec<Value>>,
        #[serde(flatten)]
        extra: Extra,
    },
    Deny {
        #[serde(default)]
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
        #[serde(flatten)]
        extra: Extra,
    },
}

impl PermissionDecision {
    /// `updatedPermissions` entries decoded; entries that do not decode are skipped.
    pub fn permission_updates(&self) -> Vec<PermissionUpdate> {
        match self {
            PermissionDecision::Allow {
                updated_permissions: Some(list),
                ..
            } => list
                .iter()
                .filter_map(|v| serde_json::from_value(v.clone()).ok())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// One `PermissionUpdate` (in `updatedPermissions` and `permission_suggestions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionUpdate {
    AddRules(PermissionRulesUpdate),
    ReplaceRules(PermissionRulesUpdate),
    RemoveRules(PermissionRulesUpdate),
    SetMode {
        mode: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        destination: Option<String>,
        #[serde(flatten)]
        extra: Extra,
    },
    AddDirectories(PermissionDirectoriesUpdate),
    RemoveDirectories(PermissionDirectoriesUpdate),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRulesUpdate {
    pub rules: Vec<PermissionRuleValue>,
    /// `allow`, `deny` or `ask`.
    pub behavior: String,
    /// `userSettings`, `projectSettings`, `localSettings`, `session` or `cliArg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRuleValue {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionDirectoriesUpdate {
    pub directories: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
