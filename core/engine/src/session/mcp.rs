//! MCP servers of a session: configured ones (`dcl mcp add`, `--mcp-config`) connect when
//! the session opens; host-provided ones (`type: "sdk"`, `initialize.sdkMcpServers`)
//! connect when the host has initialized, their JSON-RPC riding `mcp_message` requests.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use dcl_mcp::{HostRpc, McpManager, McpOptions, ServerConfig};
use dcl_protocol::{McpMessageOut, ToolResultContent};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::emit::Emitter;
use super::host::HostChannel;
use crate::options::SessionOptions;
use crate::tools::ToolOutput;

/// `mcp_message` over the control channel.
pub struct ControlRpc {
    pub host: Arc<HostChannel>,
    pub emitter: Emitter,
    /// Cancelled when the session closes, so no MCP call waits on a host that is gone.
    pub closed: CancellationToken,
}

impl HostRpc for ControlRpc {
    fn mcp_message(
        &self,
        server: &str,
        message: Value,
    ) -> futures::future::BoxFuture<'_, Result<Value, String>> {
        let request = serde_json::to_value(McpMessageOut::new(server, message));
        Box::pin(async move {
            let request = request.map_err(|e| e.to_string())?;
            self.host
                .request(&self.emitter, request, &self.closed)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

/// The servers a session starts with, split into configured and host-provided ones.
pub struct ServerPlan {
    pub configured: BTreeMap<String, (ServerConfig, String)>,
    /// Names of `type: "sdk"` servers given in `--mcp-config`.
    pub sdk: Vec<String>,
}

/// Reads `--mcp-config` values and, unless `--strict-mcp-config`, the `dcl mcp` config files.
pub fn plan(opts: &SessionOptions, home: Option<&Path>, cwd: &Path) -> Result<ServerPlan, String> {
    let mut configured = BTreeMap::new();
    if !opts.strict_mcp_config
        && let Some(home) = home
    {
        for (name, (config, scope)) in dcl_mcp::config_store::load_all(home, cwd)? {
            configured.insert(name, (config, scope.as_str().to_string()));
        }
    }
    let mut sdk = Vec::new();
    for arg in &opts.mcp_config {
        for (name, config) in dcl_mcp::parse_mcp_config(arg, cwd)? {
            if matches!(config, ServerConfig::Sdk { .. }) {
                configured.remove(&name);
                sdk.push(name);
            } else {
                configured.insert(name, (config, "dynamic".to_string()));
            }
        }
    }
    Ok(ServerPlan { configured, sdk })
}

pub fn manager(rpc: ControlRpc, env: &BTreeMap<String, String>, cwd: &Path) -> McpManager {
    McpManager::with_options(
        Arc::new(rpc),
        McpOptions {
            child_env: env.clone(),
            cwd: Some(cwd.to_path_buf()),
            ..McpOptions::default()
        },
    )
}

/// Calls an MCP tool; the result keeps its content blocks (the seed: MCP results stay
/// block arrays).
pub async fn call(
    shared: &Shared,
    name: &str,
    tool_use_id: &str,
    input: Value,
    cancel: &CancellationToken,
) -> ToolOutput {
    let mut meta = serde_json::Map::new();
    meta.insert(
        "claudecode/toolUseId".into(),
        Value::String(tool_use_id.to_string()),
    );
    match shared
        .mcp
        .call_with_meta(name, input, Some(meta), cancel.clone())
        .await
    {
        Ok(result) => {
            let blocks = result
                .content
                .into_iter()
                .filter_map(|b| serde_json::from_value(b).ok())
                .collect();
            ToolOutput {
                content: ToolResultContent::Blocks(blocks),
                is_error: result.is_error,
                structured: result.structured_content,
            }
        }
        Err(e) => ToolOutput::error(e),
    }
}
