//! MCP answers: `mcp_status` (servers, their tools), `mcp_set_servers`, `mcp_authenticate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Extra;
use crate::vocab::McpServerState;

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
