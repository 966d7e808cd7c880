//! Checkpoint answers: `rewind_files` and Qoder `rewind`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;

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
