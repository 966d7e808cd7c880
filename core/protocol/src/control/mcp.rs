//! MCP: the host's requests about MCP servers (status, toggle, reconnect, servers, auth),
//! `mcp_message` in both directions, and Qoder's `mcp_oauth_required`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::tags::{McpMessageTag, McpOauthRequiredTag};
use crate::content::Extra;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpStatusRequest {
    /// TS: ask for a fresh probe instead of the cached status.
    #[serde(default, rename = "liveReply", skip_serializing_if = "Option::is_none")]
    pub live_reply: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToggleRequest {
    pub server_name: String,
    pub enabled: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{serverName}`: `mcp_reconnect`, and Qoder `mcp_clear_auth`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpReconnectRequest {
    pub server_name: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `mcp_set_servers{servers:{name: config}}` (sdk entries as `{type:"sdk",name}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpSetServersRequest {
    #[serde(default)]
    pub servers: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageRequest {
    pub server_name: String,
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpReadResourceRequest {
    pub server_name: String,
    pub uri: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpAuthenticateRequest {
    pub server_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpOauthCallbackUrlRequest {
    pub server_name: String,
    pub callback_url: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpInjectTokenRequest {
    pub server_name: String,
    /// `{accessToken, …}`.
    pub token: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `mcp_message` (dcl -> host): JSON-RPC for a host-provided MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageOut {
    pub subtype: McpMessageTag,
    pub server_name: String,
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

impl McpMessageOut {
    pub fn new(server_name: impl Into<String>, message: Value) -> Self {
        McpMessageOut {
            subtype: McpMessageTag::McpMessage,
            server_name: server_name.into(),
            message,
            extra: Extra::new(),
        }
    }
}

/// The host's answer to `mcp_message`: `{"mcp_response": <JSON-RPC response>}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpMessageResponse {
    pub mcp_response: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `mcp_oauth_required`: an MCP server needs OAuth the host performs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpOauthRequiredRequest {
    pub subtype: McpOauthRequiredTag,
    pub server_name: String,
    pub auth_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `mcp_oauth_required`: a token, a callback URL, or a code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpOauthRequiredResponse {
    /// `{accessToken, …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
