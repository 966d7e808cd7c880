//! MCP servers of a session: configured ones (`dcl mcp add`, `--mcp-config`) connect when
//! the session opens; host-provided ones (`type: "sdk"`, `initialize.sdkMcpServers`)
//! connect when the host has initialized, their JSON-RPC riding `mcp_message` requests.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use dcl_mcp::{
    ConnectionStatus, HostRpc, HostRpcError, McpManager, McpOptions, Scope, ServerConfig,
    ServerStatus,
};
use dcl_protocol::{
    ElicitationRequest, ElicitationResponse, Extra, McpMessageOut, McpServerState, McpServerStatus,
    McpToolInfo, ToolResultContent,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::emit::Emitter;
pub(crate) use super::host::ElicitError;
use super::host::HostChannel;
use super::services::SessionCore;
use super::state::McpStartup;
use crate::options::SessionOptions;
use dcl_tool_api::ToolOutput;

/// `mcp_message` and `elicitation` over the control channel.
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
    ) -> futures::future::BoxFuture<'_, Result<Value, HostRpcError>> {
        let request = serde_json::to_value(McpMessageOut::new(server, message));
        Box::pin(async move {
            let request = request.map_err(HostRpcError::failed)?;
            self.host
                .request(&self.emitter, request, &self.closed)
                .await
                .map_err(HostRpcError::failed)
        })
    }

    /// `control_request{subtype:"elicitation", mcp_server_name, message, …}`; the answer
    /// must be an `ElicitationResponse` (`{"action", "content"?, "_meta"?}`), else `Err`
    /// (dcl-mcp then cancels the elicitation).
    fn elicit(
        &self,
        server: &str,
        request: Value,
    ) -> futures::future::BoxFuture<'_, Result<Value, HostRpcError>> {
        let wire = serde_json::to_value(elicitation_request(server, &request));
        let server = server.to_string();
        Box::pin(async move {
            let ask_host = async {
                let wire = wire.map_err(ElicitError::Serialize)?;
                let answer = self
                    .host
                    .request(&self.emitter, wire, &self.closed)
                    .await
                    .map_err(ElicitError::Host)?;
                let answer: ElicitationResponse =
                    serde_json::from_value(answer).map_err(ElicitError::MalformedAnswer)?;
                serde_json::to_value(answer).map_err(ElicitError::Serialize)
            };
            // Elicitation hooks may answer before the host is asked.
            let answer = match self.host.elicitation_hooks() {
                Some(hooks) => hooks.elicit(&server, &request, Box::pin(ask_host)).await,
                None => ask_host.await,
            };
            answer.map_err(HostRpcError::failed)
        })
    }
}

/// The control protocol's `elicitation` request for dcl-mcp's `elicit` request
/// (`{"message", "mode"?, "requested_schema"?, "url"?, "elicitation_id"?, …}`).
fn elicitation_request(server: &str, request: &Value) -> ElicitationRequest {
    let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_string);
    let mut out = ElicitationRequest::new(server, text("message").unwrap_or_default());
    out.mode = text("mode");
    out.url = text("url");
    out.elicitation_id = text("elicitation_id");
    out.requested_schema = request
        .get("requested_schema")
        .filter(|v| !v.is_null())
        .cloned();
    out.title = text("title");
    out.display_name = text("display_name");
    out.description = text("description");
    out
}

/// A configured MCP server list that could not be read (`--mcp-config`, `mcp.json`,
/// `.mcp.json`), as dcl-mcp words what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    #[error("{0}")]
    Config(#[from] dcl_mcp::ConfigError),
    #[error("{0}")]
    Store(#[from] dcl_mcp::config_store::StoreError),
}

/// The servers a session starts with, split into configured and host-provided ones.
pub struct ServerPlan {
    pub configured: BTreeMap<String, (ServerConfig, String)>,
    /// Names of `type: "sdk"` servers given in `--mcp-config`.
    pub sdk: Vec<String>,
}

/// Reads `--mcp-config` values and, unless `--strict-mcp-config`, the config files:
/// `mcp.json` in the user folders (client home, then dcl home — `--data-dir`,
/// `DCL_CONFIG_DIR`, `~/.dcl` — per docs/protocol.md "dcl home"), then the project's `.mcp.json`,
/// then `.dcl/mcp.local.json`; a later file's server of the same name wins.
pub fn plan(
    opts: &SessionOptions,
    user_folders: &[&Path],
    cwd: &Path,
) -> Result<ServerPlan, McpConfigError> {
    let mut configured = BTreeMap::new();
    if !opts.strict_mcp_config {
        for dir in user_folders {
            let path = dir.join("mcp.json");
            if !path.is_file() {
                continue;
            }
            let servers = dcl_mcp::parse_mcp_config(&path.to_string_lossy(), cwd)?;
            for (name, config) in servers {
                configured.insert(name, (config, Scope::User.as_str().to_string()));
            }
        }
        // The project scopes do not depend on the home.
        for scope in [Scope::Project, Scope::Local] {
            let servers = dcl_mcp::config_store::load_scope(scope, Path::new(""), cwd)?;
            for (name, config) in servers {
                configured.insert(name, (config, scope.as_str().to_string()));
            }
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

pub fn manager(
    rpc: ControlRpc,
    env: &Arc<BTreeMap<String, String>>,
    cwd: &Path,
    tool_env: dcl_tools::environment::ToolEnvironment,
) -> McpManager {
    McpManager::with_options(
        Arc::new(rpc),
        McpOptions {
            child_env: env.clone(),
            cwd: Some(cwd.to_path_buf()),
            tool_env,
            ..McpOptions::default()
        },
    )
}

/// Calls an MCP tool; the result keeps its content blocks (the seed: MCP results stay
/// block arrays).
pub(crate) async fn call(
    manager: &dcl_mcp::McpManager,
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
    match manager
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
        Err(e) => ToolOutput::error(e.to_string()),
    }
}

/// An MCP connection state as the wire names it.
pub(crate) fn mcp_state(status: ConnectionStatus) -> McpServerState {
    match status {
        ConnectionStatus::Connected => McpServerState::Connected,
        ConnectionStatus::Pending => McpServerState::Pending,
        ConnectionStatus::Failed => McpServerState::Failed,
        ConnectionStatus::Disabled => McpServerState::Disabled,
    }
}

/// An MCP server's entry in `mcp_status` and `reload_plugins`.
pub(crate) fn mcp_server_status(s: ServerStatus) -> McpServerStatus {
    McpServerStatus {
        error: s.error,
        server_info: s.server_info,
        tools: Some(
            s.tools
                .into_iter()
                .map(|t| McpToolInfo {
                    name: t.name,
                    description: t.description,
                    annotations: t.annotations,
                    extra: Extra::new(),
                })
                .collect(),
        ),
        config: Some(s.config),
        scope: s.scope,
        ..McpServerStatus::new(s.name, mcp_state(s.status).as_str())
    }
}

/// Starting the session's MCP servers, and waiting for them.
impl SessionCore {
    /// Starts the configured MCP servers (when the actor starts).
    /// The project's `.mcp.json` servers only when approved (see `mcp_approval`).
    pub fn start_configured_servers(&self) {
        let (configured, approval) = self.state.with(|s| {
            (
                std::mem::take(&mut s.mcp.configured),
                s.settings.mcpjson_approval(),
            )
        });
        let sorted = super::mcp_approval::sort(configured, &approval, self.services.can_ask_host());
        self.services.mcp.hold(sorted.held);
        self.start_servers(sorted.start);
        self.ask_host_to_start(sorted.ask);
    }

    /// Starts the host-provided MCP servers that are waiting (at `initialize`, or at the
    /// first turn when the host never sends one).
    pub fn start_sdk_servers(&self, mut names: Vec<String>) {
        names.extend(self.state.with(|s| std::mem::take(&mut s.mcp.sdk)));
        let servers = names
            .into_iter()
            .map(|n| {
                (
                    n.clone(),
                    (
                        dcl_mcp::ServerConfig::Sdk { name: n },
                        "dynamic".to_string(),
                    ),
                )
            })
            .collect();
        self.start_servers(servers);
    }

    /// Starts the servers an `initialize` delivered after the session was built
    /// (`type: "sdk"` entries join the host-provided ones waiting).
    pub fn start_delivered_servers(&self, servers: Vec<(String, dcl_mcp::ServerConfig)>) {
        let (sdk, external): (Vec<_>, Vec<_>) = servers
            .into_iter()
            .partition(|(_, c)| matches!(c, dcl_mcp::ServerConfig::Sdk { .. }));
        self.start_sdk_servers(sdk.into_iter().map(|(name, _)| name).collect());
        self.start_servers(
            external
                .into_iter()
                .map(|(name, config)| (name, (config, "dynamic".to_string())))
                .collect(),
        );
    }

    /// Connects `servers` on a task of their own; turns wait for them through
    /// [`SessionCore::mcp_ready`].
    fn start_servers(&self, servers: BTreeMap<String, (dcl_mcp::ServerConfig, String)>) {
        if servers.is_empty() {
            return;
        }
        let m = self.services.mcp.clone();
        let started = startup(tokio::spawn(async move { m.start_scoped(servers).await }));
        self.state.with(|s| s.mcp.startups.push(started));
    }

    /// Waits for MCP servers that are still connecting (each bounded by its timeout).
    pub async fn mcp_ready(&self) {
        let pending: Vec<McpStartup> = self.state.with(|s| s.mcp.startups.clone());
        futures::future::join_all(pending).await;
    }
}

/// Project servers the host is asked about.
impl SessionCore {
    /// Asks the host about each of `servers` (concurrently), then starts the approved
    /// ones and lists the others as disabled. Turns wait for it like any start-up.
    pub(crate) fn ask_host_to_start(&self, servers: super::mcp_approval::Servers) {
        if servers.is_empty() {
            return;
        }
        let host = self.services.host.clone();
        let emitter = self.services.emitter.clone();
        let closed = self.services.closed.clone();
        let manager = self.services.mcp.clone();
        let local = self.services.settings_files.local.clone();
        let task = tokio::spawn(async move {
            let asks = servers.into_iter().map(|(name, server)| {
                let wire = super::mcp_approval::request(&name, &server.0);
                let (host, emitter, closed, local) = (&host, &emitter, &closed, &local);
                async move {
                    let answer = host.request(emitter, wire, closed).await;
                    let yes = match &answer {
                        Ok(a) => super::mcp_approval::approved(a),
                        Err(_) => false,
                    };
                    if let Ok(a) = &answer
                        && super::mcp_approval::remembered(a)
                        && let Err(e) = super::mcp_approval::remember(local, &name)
                    {
                        // Approved for this session all the same; only the memory failed.
                        tracing::warn!("MCP server {name:?} approved, but not remembered: {e}");
                    }
                    if !yes {
                        let why = match answer {
                            Ok(_) => "the host did not approve it".to_string(),
                            Err(e) => format!("no approval from the host: {e}"),
                        };
                        tracing::warn!(
                            "MCP server {name:?} of the project's .mcp.json was not started \
                             ({why}); enabledMcpjsonServers in the settings approves it"
                        );
                    }
                    (yes, name, server)
                }
            });
            let (mut start, mut held) = (BTreeMap::new(), BTreeMap::new());
            for (yes, name, server) in futures::future::join_all(asks).await {
                if yes {
                    start.insert(name, server);
                } else {
                    held.insert(name, server);
                }
            }
            manager.hold(held);
            if !start.is_empty() {
                manager.start_scoped(start).await;
            }
        });
        self.state.with(|s| s.mcp.startups.push(startup(task)));
    }
}

fn startup(handle: tokio::task::JoinHandle<()>) -> McpStartup {
    use futures::FutureExt;
    async move {
        let _ = handle.await;
    }
    .boxed()
    .shared()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn mcp_json_is_read_from_the_user_folders_then_the_project() {
        let root = tempfile::tempdir().unwrap();
        let client = root.path().join("client");
        let dcl_home = root.path().join("data");
        let cwd = root.path().join("repo");
        for d in [&client, &dcl_home, &cwd] {
            std::fs::create_dir_all(d).unwrap();
        }
        let server =
            |cmd: &str| json!({"mcpServers": {"s": {"command": cmd}, cmd: {"command": cmd}}});
        std::fs::write(client.join("mcp.json"), server("client").to_string()).unwrap();
        std::fs::write(dcl_home.join("mcp.json"), server("dcl").to_string()).unwrap();
        let opts = SessionOptions::default();
        let first = plan(&opts, &[client.as_path(), dcl_home.as_path()], &cwd).unwrap();
        let names: Vec<&str> = first.configured.keys().map(String::as_str).collect();
        assert_eq!(names, ["client", "dcl", "s"]);
        // dcl home wins over the client home.
        let (config, scope) = &first.configured["s"];
        assert_eq!(scope, "user");
        assert!(
            serde_json::to_string(&config.to_json())
                .unwrap()
                .contains("dcl")
        );
        std::fs::write(cwd.join(".mcp.json"), server("project").to_string()).unwrap();
        let plan2 = plan(&opts, &[client.as_path(), dcl_home.as_path()], &cwd).unwrap();
        assert_eq!(plan2.configured["s"].1, "project");
        let strict = SessionOptions {
            strict_mcp_config: true,
            ..SessionOptions::default()
        };
        assert!(
            plan(&strict, &[dcl_home.as_path()], &cwd)
                .unwrap()
                .configured
                .is_empty()
        );
        std::fs::write(dcl_home.join("mcp.json"), "{not json").unwrap();
        let broken = plan(&opts, &[dcl_home.as_path()], &cwd)
            .err()
            .unwrap()
            .to_string();
        assert!(broken.contains("mcp.json"), "{broken}");
    }

    #[test]
    fn elicitation_requests_carry_the_server_and_the_fields() {
        let form = json!({"message": "colour?", "mode": "form",
            "requested_schema": {"type": "object", "properties": {"answer": {"type": "string"}}}});
        assert_eq!(
            serde_json::to_value(elicitation_request("fx", &form)).unwrap(),
            json!({"subtype": "elicitation", "mcp_server_name": "fx", "message": "colour?",
                "mode": "form",
                "requested_schema": {"type": "object", "properties": {"answer": {"type": "string"}}}})
        );
        let url = json!({"message": "sign in", "mode": "url", "url": "https://x.invalid/a",
            "elicitation_id": "e1"});
        assert_eq!(
            serde_json::to_value(elicitation_request("fx", &url)).unwrap(),
            json!({"subtype": "elicitation", "mcp_server_name": "fx", "message": "sign in",
                "mode": "url", "url": "https://x.invalid/a", "elicitation_id": "e1"})
        );
    }
}
