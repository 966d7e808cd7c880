//! `list_permission_rules`: the live rules, where each comes from, and the workspace
//! directories.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;

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
