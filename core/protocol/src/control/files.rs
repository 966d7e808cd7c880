//! Files and directories: the working directory, extra directories, reads and rewinds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;

/// `set_cwd`: move the session to another working directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetCwdRequest {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_accepted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trusted_directory: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `register_repo_root`: another directory the session may work in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegisterRepoRootRequest {
    pub directory: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_claude_md: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_plugins: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewindFilesRequest {
    pub user_message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedReadStateRequest {
    pub path: String,
    pub mtime: f64,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadFileRequest {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AddDirectoriesRequest {
    #[serde(default)]
    pub directories: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `rewind`: conversation and/or files back to before a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RewindRequest {
    pub user_message_id: String,
    /// `conversation`, `files` or `both`.
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}
