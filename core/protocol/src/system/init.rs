//! `system/init`: what a session starts with (tools, MCP servers, model, mode, …).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;
use crate::responses::PluginInfo;
use crate::vocab::{McpServerState, PermissionModeName};

/// An MCP server in `system/init.mcp_servers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InitMcpServer {
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
    #[schemars(with = "McpServerState")]
    pub status: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitMcpServer {
    pub fn new(name: impl Into<String>, status: impl Into<String>) -> Self {
        InitMcpServer {
            name: name.into(),
            status: status.into(),
            extra: Extra::new(),
        }
    }
}

/// `system/init`: at the start of every turn (Qoder: also before the `initialize` answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemInit {
    pub cwd: String,
    pub session_id: String,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub mcp_servers: Vec<InitMcpServer>,
    pub model: String,
    #[serde(rename = "permissionMode")]
    #[schemars(with = "PermissionModeName")]
    pub permission_mode: String,
    #[serde(default)]
    pub slash_commands: Vec<String>,
    #[serde(rename = "apiKeySource")]
    pub api_key_source: String,
    /// The protocol level (SDK version gates read it). Absent on real Qoder lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcl_version: Option<String>,
    pub output_style: String,
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub plugins: Vec<PluginInfo>,
    pub uuid: String,
    /// Qoder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qodercli_version: Option<String>,
    /// Qoder (`1.4.0`; TS checks the major).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Qoder: identical in every init and in the `initialize` answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SystemInit {
    /// An init with dcl's versions filled in, `permissionMode: "default"`,
    /// `apiKeySource: "none"`, `output_style: "default"` and empty lists.
    pub fn new(
        session_id: impl Into<String>,
        uuid: impl Into<String>,
        cwd: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        SystemInit {
            cwd: cwd.into(),
            session_id: session_id.into(),
            tools: Vec::new(),
            mcp_servers: Vec::new(),
            model: model.into(),
            permission_mode: "default".into(),
            slash_commands: Vec::new(),
            api_key_source: "none".into(),
            claude_code_version: Some(crate::PROTOCOL_LEVEL.into()),
            dcl_version: Some(crate::DCL_VERSION.into()),
            output_style: "default".into(),
            agents: Vec::new(),
            skills: Vec::new(),
            plugins: Vec::new(),
            uuid: uuid.into(),
            qodercli_version: None,
            protocol_version: None,
            capabilities: None,
            extra: Extra::new(),
        }
    }

    /// Adds the Qoder fields: `qodercli_version` (the protocol level), `protocol_version`
    /// and `capabilities`.
    pub fn with_qoder(mut self, capabilities: Vec<String>) -> Self {
        self.qodercli_version = Some(crate::PROTOCOL_LEVEL.into());
        self.protocol_version = Some(crate::QODER_PROTOCOL_VERSION.into());
        self.capabilities = Some(capabilities);
        self
    }
}

// frame with `emitter.emit(frame.into_message())`, and the emitter stamps both.
// ---------------------------------------------------------------------------

impl SystemInit {
    /// An init for the emitter (no `session_id`/`uuid` yet); see [`SystemInit::new`].
    pub fn unstamped(cwd: impl Into<String>, model: impl Into<String>) -> Self {
        SystemInit::new("", "", cwd, model)
    }

    pub fn with_tools(mut self, tools: Vec<String>) -> Self {
        self.tools = tools;
        self
    }

    pub fn with_mcp_servers(mut self, servers: Vec<InitMcpServer>) -> Self {
        self.mcp_servers = servers;
        self
    }

    pub fn with_permission_mode(mut self, mode: PermissionModeName) -> Self {
        self.permission_mode = mode.into();
        self
    }

    /// Where the API key came from (`ANTHROPIC_API_KEY`, `none`, …).
    pub fn with_api_key_source(mut self, source: impl Into<String>) -> Self {
        self.api_key_source = source.into();
        self
    }
}

impl InitMcpServer {
    /// An entry from a typed state.
    pub fn with_state(name: impl Into<String>, state: McpServerState) -> Self {
        InitMcpServer::new(name, state.as_str())
    }
}
