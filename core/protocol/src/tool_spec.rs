//! A tool as offered to the model: shared by the model clients (which put it on the wire)
//! and the tool API (where each tool describes itself), so neither depends on the other.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}
