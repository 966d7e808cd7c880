//! `system/compact_boundary`: where the conversation was compacted, and why.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Extra;
use crate::vocab::CompactTrigger;

/// `compact_boundary.compact_metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactMetadata {
    /// `manual` or `auto`.
    #[schemars(with = "CompactTrigger")]
    pub trigger: String,
    pub pre_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserved_segment: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/compact_boundary`: the conversation was compacted here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemCompactBoundary {
    pub compact_metadata: CompactMetadata,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}
