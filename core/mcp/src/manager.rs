//! [`McpManager`]: the MCP servers of one session, their status, their tools, and tool calls.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CancelledNotification, CancelledNotificationParam, ClientCapabilities,
    ClientInfo, ClientNotification, ClientRequest, CreateElicitationRequestParams,
    CreateElicitationResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, Meta, ProtocolVersion, Request, RequestId,
    ServerResult, Tool, UrlElicitationCapability,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, Peer, PeerRequestOptions, RequestContext,
    RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::HostRpc;
use crate::config::ServerConfig;
use crate::content::to_anthropic_blocks;
use crate::error::{CallError, ConnectError, HostRpcError, ServerError};
use crate::transport::Watched;
use crate::transport::sdk::SdkTransport;
use crate::transport::sse;
use crate::transport::stdio::{self, ChildGuard};

/// Default connect timeout (`MCP_TIMEOUT`, ms).
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default tool-call timeout (`MCP_TOOL_TIMEOUT`, ms).
const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(600);
/// The scope reported for servers given to [`McpManager::start`] (`--mcp-config`, SDK options).
const DYNAMIC_SCOPE: &str = "dynamic";

/// How a manager is set up. `child_env`, filtered by `tool_env`, is the complete
/// environment of stdio servers (plus each server's own `env`); it also supplies `MCP_TIMEOUT` / `MCP_TOOL_TIMEOUT` (ms) and the
/// values of `${VAR}` in configs.
#[derive(Clone)]
pub struct McpOptions {
    pub child_env: Arc<BTreeMap<String, String>>,
    /// Filters `child_env` for stdio servers (no dcl credentials, no secret-named
    /// variables by default); a server's own configured `env` always passes.
    pub tool_env: dcl_shell::environment::ToolEnvironment,
    /// The session's working directory: the cwd of stdio servers and the base of their
    /// relative `cwd`. `None`: the process's cwd.
    pub cwd: Option<PathBuf>,
    /// `clientInfo` of the `initialize` request.
    pub client_name: String,
    pub client_version: String,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            child_env: Arc::default(),
            tool_env: dcl_shell::environment::ToolEnvironment::default(),
            cwd: None,
            client_name: "dcl".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

impl std::fmt::Debug for McpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpOptions")
            .field("child_env_keys", &self.child_env.len())
            .field("cwd", &self.cwd)
            .field("client_name", &self.client_name)
            .field("client_version", &self.client_version)
            .finish()
    }
}

/// `connected`, `pending`, `failed` or `disabled` (the `mcp_status` vocabulary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectionStatus {
    Connected,
    Pending,
    Failed,
    Disabled,
}

/// One entry of `mcp_status` (`{"mcpServers": [ServerStatus…]}`). `config` has its env and
/// header values redacted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub name: String,
    pub status: ConnectionStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `{"name", "version"}` from the server's `initialize` answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    pub tools: Vec<ToolSummary>,
    pub config: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSummary {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A tool of a connected server, as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpTool {
    /// `mcp__<server>__<tool>`, see [`qualified_tool_name`].
    pub qualified_name: String,
    pub server: String,
    /// The tool's own name on its server.
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Value,
    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `title`, …) as sent.
    pub annotations: Option<Value>,
}

/// A tool call's outcome, content already in Anthropic block form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallResult {
    pub content: Vec<Value>,
    pub is_error: bool,
    /// The MCP `structuredContent`, if any.
    pub structured_content: Option<Value>,
}

/// The answer to `mcp_set_servers`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SetServersResult {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub errors: BTreeMap<String, String>,
}

/// `mcp__<server>__<tool>`, every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn qualified_tool_name(server: &str, tool: &str) -> String {
    fn norm(s: &str) -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
    format!("mcp__{}__{}", norm(server), norm(tool))
}

/// The MCP servers of one session. Cheap to clone (shared state). Dropping the last clone
/// kills every stdio server's process group; [`McpManager::shutdown`] does it politely.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<dyn HostRpc>,
    options: McpOptions,
    connect_timeout: Duration,
    tool_timeout: Duration,
    servers: Mutex<Servers>,
}

#[derive(Default)]
struct Servers {
    map: BTreeMap<String, Entry>,
    shut_down: bool,
}

struct Entry {
    config: ServerConfig,
    scope: Option<String>,
    /// Bumped by every connect / disconnect, so a late result of an older attempt is ignored.
    generation: u64,
    state: State,
}

enum State {
    Pending,
    Connected(Arc<Connection>),
    Failed(String),
    Disabled,
}

struct Connection {
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Client>>>,
    peer: Peer<RoleClient>,
    closed: CancellationToken,
    child: Option<ChildGuard>,
    server_info: Option<Value>,
    tools: Mutex<Vec<Tool>>,
}

impl Connection {
    /// Closes the session (stdin EOF for stdio servers) and ends the child's process group.
    async fn close(&self) {
        let service = self.service.lock().await.take();
        if let Some(mut service) = service {
            let _ = service.close_with_timeout(Duration::from_millis(500)).await;
        }
        if let Some(child) = &self.child {
            child.terminate().await;
        }
    }

    /// Why the connection ended, once it has (waits a little for a child to be reaped).
    async fn death(&self) -> String {
        match &self.child {
            Some(child) => {
                let exited = child.exited();
                let _ = tokio::time::timeout(Duration::from_millis(500), exited.cancelled()).await;
                child.describe_exit()
            }
            None => "the connection closed".into(),
        }
    }

    fn tools(&self) -> Vec<Tool> {
        lock(&self.tools).clone()
    }
}

/// rmcp's client side: announces dcl, notices `notifications/tools/list_changed`, and
/// forwards the server's elicitations to the host.
struct Client {
    info: ClientInfo,
    /// The server's key in `mcpServers`.
    server: String,
    host: Arc<dyn HostRpc>,
    tools_changed: Arc<Notify>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientInfo {
        self.info.clone()
    }

    async fn create_elicitation(
        &self,
        request: CreateElicitationRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateElicitationResult, ErrorData> {
        let ask = self
            .host
            .elicit(&self.server, elicitation_request(&request));
        let answer = tokio::select! {
            answer = ask => answer.map_err(NoElicitation::from),
            _ = context.ct.cancelled() => Err(NoElicitation::ServerCancelled),
        };
        Ok(elicitation_result(&self.server, answer))
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.tools_changed.notify_one();
        std::future::ready(())
    }
}

/// The [`HostRpc::elicit`] request for a server's `elicitation/create` params.
fn elicitation_request(params: &CreateElicitationRequestParams) -> Value {
    match params {
        CreateElicitationRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let mut request = json!({"message": message, "mode": "form"});
            match serde_json::to_value(requested_schema) {
                Ok(schema) => request["requested_schema"] = schema,
                Err(e) => tracing::warn!("elicitation: cannot serialize the requested schema: {e}"),
            }
            request
        }
        CreateElicitationRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => json!({
            "message": message,
            "mode": "url",
            "url": url,
            "elicitation_id": elicitation_id,
        }),
    }
}

/// Why an elicitation is cancelled (logged as a warning; the server sees `cancel`).
#[derive(Debug, thiserror::Error)]
enum NoElicitation {
    #[error("the host gave no answer: {0}")]
    NoAnswer(#[from] HostRpcError),
    #[error("the host gave no answer: the server cancelled the request")]
    ServerCancelled,
    #[error("malformed answer ({0})")]
    Malformed(String),
}

/// The host's answer as rmcp's result: no answer or a malformed one cancels (with a warning).
fn elicitation_result(
    server: &str,
    answer: Result<Value, NoElicitation>,
) -> CreateElicitationResult {
    let parsed = answer.and_then(|a| parse_elicitation_answer(&a));
    parsed.unwrap_or_else(|why| {
        tracing::warn!(server, "elicitation cancelled: {why}");
        CreateElicitationResult {
            action: ElicitationAction::Cancel,
            content: None,
        }
    })
}

/// `{"action": "accept"|"decline"|"cancel", "content"?: {…}}`; `content` counts only when
/// accepting, and must then be an object (or absent, as for URL mode).
fn parse_elicitation_answer(answer: &Value) -> Result<CreateElicitationResult, NoElicitation> {
    let malformed = |why: &str| NoElicitation::Malformed(why.to_string());
    let Some(answer) = answer.as_object() else {
        return Err(malformed("not a JSON object"));
    };
    let action = match answer.get("action").and_then(Value::as_str) {
        Some("accept") => ElicitationAction::Accept,
        Some("decline") => ElicitationAction::Decline,
        Some("cancel") => ElicitationAction::Cancel,
        Some(other) => return Err(malformed(&format!("unknown action {other:?}"))),
        None => return Err(malformed("no \"action\"")),
    };
    let content = match (&action, answer.get("content")) {
        (ElicitationAction::Accept, Some(Value::Object(c))) => Some(Value::Object(c.clone())),
        (ElicitationAction::Accept, None | Some(Value::Null)) => None,
        (ElicitationAction::Accept, Some(_)) => {
            return Err(malformed("\"content\" is not an object"));
        }
        _ => None,
    };
    Ok(CreateElicitationResult { action, content })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn millis_from(env: &BTreeMap<String, String>, key: &str, default: Duration) -> Duration {
    env.get(key)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
        .unwrap_or(default)
}

impl McpManager {
    /// A manager whose stdio servers get `child_env` (the session's environment).
    pub fn new(
        host: Arc<dyn HostRpc>,
        child_env: impl Into<Arc<BTreeMap<String, String>>>,
    ) -> McpManager {
        McpManager::with_options(
            host,
            McpOptions {
                child_env: child_env.into(),
                ..McpOptions::default()
            },
        )
    }

    pub fn with_options(host: Arc<dyn HostRpc>, options: McpOptions) -> McpManager {
        let connect_timeout =
            millis_from(&options.child_env, "MCP_TIMEOUT", DEFAULT_CONNECT_TIMEOUT);
        let tool_timeout =
            millis_from(&options.child_env, "MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT);
        McpManager {
            inner: Arc::new(Inner {
                host,
                options,
                connect_timeout,
                tool_timeout,
                servers: Mutex::new(Servers::default()),
            }),
        }
    }

    /// Adds `servers` (scope `"dynamic"`) and connects them all concurrently, each bounded by
    /// the connect timeout. Returns when every one is connected or failed; a failure is only
    /// a status (`failed` + error), never an error of the session. To not wait, spawn it.
    pub async fn start(&self, servers: BTreeMap<String, ServerConfig>) {
        self.start_scoped(
            servers
                .into_iter()
                .map(|(name, config)| (name, (config, DYNAMIC_SCOPE.to_string())))
                .collect(),
        )
        .await;
    }

    /// [`McpManager::start`] with a scope per server (`user`, `project`, `local`, …).
    pub async fn start_scoped(&self, servers: BTreeMap<String, (ServerConfig, String)>) {
        let names: Vec<String> = servers.keys().cloned().collect();
        let mut replaced = Vec::new();
        {
            let mut s = lock(&self.inner.servers);
            for (name, (config, scope)) in servers {
                let generation = s.map.get(&name).map(|e| e.generation + 1).unwrap_or(0);
                let old = s.map.insert(
                    name,
                    Entry {
                        config,
                        scope: Some(scope),
                        generation,
                        state: State::Pending,
                    },
                );
                if let Some(Entry {
                    state: State::Connected(c),
                    ..
                }) = old
                {
                    replaced.push(c);
                }
            }
        }
        futures::future::join_all(replaced.iter().map(|c| c.close())).await;
        futures::future::join_all(names.iter().map(|n| self.connect(n))).await;
    }

    /// Lists `servers` without connecting them (status `disabled`): servers the user has
    /// not approved, which `mcp_status` still shows and [`McpManager::toggle`] may connect.
    /// A server of the same name already known is left as it is.
    pub fn hold(&self, servers: BTreeMap<String, (ServerConfig, String)>) {
        let mut s = lock(&self.inner.servers);
        for (name, (config, scope)) in servers {
            s.map.entry(name).or_insert(Entry {
                config,
                scope: Some(scope),
                generation: 0,
                state: State::Disabled,
            });
        }
    }

    /// Replaces the whole set of servers (`mcp_set_servers`): servers no longer named are
    /// disconnected and removed, new or changed ones are (re)connected, unchanged ones kept.
    pub async fn set_servers(&self, servers: BTreeMap<String, ServerConfig>) -> SetServersResult {
        let mut result = SetServersResult::default();
        let mut to_close = Vec::new();
        let mut to_start = BTreeMap::new();
        {
            let mut s = lock(&self.inner.servers);
            let gone: Vec<String> = s
                .map
                .keys()
                .filter(|k| !servers.contains_key(*k))
                .cloned()
                .collect();
            for name in gone {
                if let Some(entry) = s.map.remove(&name) {
                    if let State::Connected(c) = entry.state {
                        to_close.push(c);
                    }
                    result.removed.push(name);
                }
            }
            for (name, config) in servers {
                match s.map.get(&name) {
                    Some(e) if e.config == config => {}
                    _ => {
                        result.added.push(name.clone());
                        to_start.insert(name, (config, DYNAMIC_SCOPE.to_string()));
                    }
                }
            }
        }
        futures::future::join_all(to_close.iter().map(|c| c.close())).await;
        self.start_scoped(to_start).await;
        for name in &result.added {
            if let Some(ServerStatus { error: Some(e), .. }) =
                self.status().into_iter().find(|st| &st.name == name)
            {
                result.errors.insert(name.clone(), e);
            }
        }
        result
    }

    /// Every server, in name order.
    pub fn status(&self) -> Vec<ServerStatus> {
        let s = lock(&self.inner.servers);
        s.map
            .iter()
            .map(|(name, e)| {
                let (status, error, server_info, tools) = match &e.state {
                    State::Pending => (ConnectionStatus::Pending, None, None, Vec::new()),
                    State::Failed(err) => (
                        ConnectionStatus::Failed,
                        Some(err.clone()),
                        None,
                        Vec::new(),
                    ),
                    State::Disabled => (ConnectionStatus::Disabled, None, None, Vec::new()),
                    State::Connected(c) => (
                        ConnectionStatus::Connected,
                        None,
                        c.server_info.clone(),
                        c.tools()
                            .iter()
                            .map(|t| ToolSummary {
                                name: t.name.to_string(),
                                description: t.description.as_ref().map(|d| d.to_string()),
                                annotations: t
                                    .annotations
                                    .as_ref()
                                    .and_then(|a| serde_json::to_value(a).ok()),
                            })
                            .collect(),
                    ),
                };
                ServerStatus {
                    name: name.clone(),
                    status,
                    error,
                    server_info,
                    tools,
                    config: e.config.to_json_redacted(),
                    scope: e.scope.clone(),
                }
            })
            .collect()
    }

    /// The tools of every connected server, by server then tool order.
    pub fn tools(&self) -> Vec<McpTool> {
        let s = lock(&self.inner.servers);
        let mut out = Vec::new();
        for (server, e) in &s.map {
            if let State::Connected(c) = &e.state {
                for t in c.tools() {
                    out.push(McpTool {
                        qualified_name: qualified_tool_name(server, &t.name),
                        server: server.clone(),
                        name: t.name.to_string(),
                        description: t.description.as_ref().map(|d| d.to_string()),
                        input_schema: Value::Object((*t.input_schema).clone()),
                        annotations: t
                            .annotations
                            .as_ref()
                            .and_then(|a| serde_json::to_value(a).ok()),
                    });
                }
            }
        }
        out
    }

    /// Calls `mcp__<server>__<tool>` with `args` (a JSON object, or null for none).
    pub async fn call(
        &self,
        qualified_name: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<CallResult, CallError> {
        self.call_with_meta(qualified_name, args, None, cancel)
            .await
    }

    /// [`McpManager::call`] with `params._meta` entries (e.g. `{"claudecode/toolUseId": id}`);
    /// rmcp adds `progressToken`. `cancel` sends `notifications/cancelled` and returns
    /// `Err`; so does the tool timeout (`MCP_TOOL_TIMEOUT`).
    pub async fn call_with_meta(
        &self,
        qualified_name: &str,
        args: Value,
        meta: Option<Map<String, Value>>,
        cancel: CancellationToken,
    ) -> Result<CallResult, CallError> {
        let (server, tool, generation, conn) = self.resolve(qualified_name)?;
        let arguments = match args {
            Value::Object(m) => Some(m),
            Value::Null => None,
            other => {
                return Err(CallError::ArgumentsNotAnObject(crate::config::type_name(
                    &other,
                )));
            }
        };
        let request = ClientRequest::CallToolRequest(Request::new(CallToolRequestParams {
            meta: None,
            name: tool.clone().into(),
            arguments,
            task: None,
        }));
        let options = PeerRequestOptions {
            timeout: None,
            meta: meta.map(Meta),
        };
        let handle = match conn.peer.send_cancellable_request(request, options).await {
            Ok(h) => h,
            Err(e) => return Err(self.call_failed(&server, generation, &conn, e).await),
        };
        let (id, peer) = (handle.id.clone(), handle.peer.clone());
        let response = handle.await_response();
        tokio::pin!(response);
        let outcome = tokio::select! {
            r = &mut response => r,
            _ = cancel.cancelled() => {
                send_cancel(peer, id, "cancelled by the user");
                return Err(CallError::Cancelled(qualified_name.to_string()));
            }
            _ = tokio::time::sleep(self.inner.tool_timeout) => {
                send_cancel(peer, id, "timed out");
                return Err(CallError::TimedOut {
                    tool: qualified_name.to_string(),
                    after: self.inner.tool_timeout,
                });
            }
        };
        match outcome {
            Ok(ServerResult::CallToolResult(r)) => {
                let content: Vec<Value> = r
                    .content
                    .iter()
                    .filter_map(|c| serde_json::to_value(c).ok())
                    .collect();
                Ok(CallResult {
                    content: to_anthropic_blocks(&content, r.structured_content.as_ref()),
                    is_error: r.is_error.unwrap_or(false),
                    structured_content: r.structured_content,
                })
            }
            Ok(other) => Err(CallError::UnexpectedReply {
                reply: serde_json::to_string(&other).unwrap_or_default(),
                server,
            }),
            Err(e) => Err(self.call_failed(&server, generation, &conn, e).await),
        }
    }

    /// The error of a failed call; a dead connection also flips the server to `failed`.
    async fn call_failed(
        &self,
        server: &str,
        generation: u64,
        conn: &Arc<Connection>,
        e: ServiceError,
    ) -> CallError {
        let server = server.to_string();
        match e {
            ServiceError::McpError(e) => CallError::ErrorAnswer {
                server,
                code: e.code.0,
                message: e.message.to_string(),
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let dead = conn.closed.is_cancelled() || conn.peer.is_transport_closed();
                if !dead {
                    return CallError::Transport {
                        server,
                        source: Box::new(e),
                    };
                }
                let why = conn.death().await;
                let error = CallError::Disconnected {
                    server: server.clone(),
                    why,
                };
                // The server's status carries the same text the call reports.
                self.inner
                    .mark_dead(&server, generation, conn, error.to_string());
                error
            }
            other => CallError::Failed {
                server,
                source: Box::new(other),
            },
        }
    }

    fn resolve(
        &self,
        qualified: &str,
    ) -> Result<(String, String, u64, Arc<Connection>), CallError> {
        let s = lock(&self.inner.servers);
        let mut known_server = None;
        for (server, e) in &s.map {
            let prefix = qualified_tool_name(server, "");
            if !qualified.starts_with(&prefix) {
                continue;
            }
            match &e.state {
                State::Connected(c) => {
                    for t in c.tools() {
                        if qualified_tool_name(server, &t.name) == qualified {
                            return Ok((
                                server.clone(),
                                t.name.to_string(),
                                e.generation,
                                c.clone(),
                            ));
                        }
                    }
                }
                State::Failed(err) => {
                    known_server = Some(CallError::NotConnected {
                        server: server.clone(),
                        why: err.clone(),
                    })
                }
                State::Pending => known_server = Some(CallError::StillConnecting(server.clone())),
                State::Disabled => known_server = Some(CallError::Disabled(server.clone())),
            }
        }
        Err(known_server.unwrap_or_else(|| CallError::NoSuchTool(qualified.to_string())))
    }

    /// Disables (disconnects; status `disabled`) or enables (connects) a server.
    pub async fn toggle(&self, name: &str, enabled: bool) -> Result<(), ServerError> {
        if enabled {
            {
                let s = lock(&self.inner.servers);
                match s.map.get(name) {
                    None => return Err(not_found(name)),
                    Some(Entry {
                        state: State::Connected(_),
                        ..
                    }) => return Ok(()),
                    Some(_) => {}
                }
            }
            return self.connect(name).await;
        }
        let old = {
            let mut s = lock(&self.inner.servers);
            let entry = s.map.get_mut(name).ok_or_else(|| not_found(name))?;
            entry.generation += 1;
            match std::mem::replace(&mut entry.state, State::Disabled) {
                State::Connected(c) => Some(c),
                _ => None,
            }
        };
        if let Some(c) = old {
            c.close().await;
        }
        Ok(())
    }

    /// Disconnects (if connected) and connects again.
    pub async fn reconnect(&self, name: &str) -> Result<(), ServerError> {
        {
            let s = lock(&self.inner.servers);
            match s.map.get(name) {
                None => return Err(not_found(name)),
                Some(Entry {
                    state: State::Disabled,
                    ..
                }) => return Err(ServerError::Disabled(name.to_string())),
                Some(_) => {}
            }
        }
        self.connect(name).await
    }

    /// Closes every connection and ends every stdio server's process group (SIGTERM, then
    /// SIGKILL), waiting until they are reaped. Later connects fail.
    pub async fn shutdown(&self) {
        let conns: Vec<Arc<Connection>> = {
            let mut s = lock(&self.inner.servers);
            s.shut_down = true;
            s.map
                .values_mut()
                .filter_map(|e| {
                    e.generation += 1;
                    match std::mem::replace(
                        &mut e.state,
                        State::Failed("the session has shut down".into()),
                    ) {
                        State::Connected(c) => Some(c),
                        State::Disabled => {
                            e.state = State::Disabled;
                            None
                        }
                        _ => None,
                    }
                })
                .collect()
        };
        futures::future::join_all(conns.iter().map(|c| c.close())).await;
    }

    /// (Re)connects one server: status `pending`, then `connected` or `failed`.
    async fn connect(&self, name: &str) -> Result<(), ServerError> {
        let (generation, config, old) = {
            let mut s = lock(&self.inner.servers);
            if s.shut_down {
                return Err(ServerError::ShutDown);
            }
            let entry = s.map.get_mut(name).ok_or_else(|| not_found(name))?;
            entry.generation += 1;
            let old = match std::mem::replace(&mut entry.state, State::Pending) {
                State::Connected(c) => Some(c),
                _ => None,
            };
            (entry.generation, entry.config.clone(), old)
        };
        if let Some(old) = old {
            old.close().await;
        }
        let timeout = self.inner.connect_timeout;
        let result = match tokio::time::timeout(timeout, self.inner.establish(name, &config)).await
        {
            Ok(r) => r,
            Err(_) => Err(ConnectError::TimedOut(timeout)),
        };
        let outcome = {
            let mut s = lock(&self.inner.servers);
            match s.map.get_mut(name) {
                Some(entry) if entry.generation == generation => match result {
                    Ok((conn, tools_changed)) => {
                        let conn = Arc::new(conn);
                        entry.state = State::Connected(conn.clone());
                        spawn_monitor(
                            Arc::downgrade(&self.inner),
                            name.to_string(),
                            generation,
                            &conn,
                            tools_changed,
                        );
                        Ok(None)
                    }
                    Err(e) => {
                        tracing::debug!(server = name, "MCP server failed to connect: {e}");
                        entry.state = State::Failed(e.to_string());
                        Err(e.into())
                    }
                },
                // Superseded (disabled, reconnected, removed or shut down meanwhile).
                _ => match result {
                    Ok((conn, _)) => Ok(Some(conn)),
                    Err(e) => Err(e.into()),
                },
            }
        };
        match outcome {
            Ok(None) => Ok(()),
            Ok(Some(stale)) => {
                stale.close().await;
                Err(ServerError::Superseded(name.to_string()))
            }
            Err(e) => Err(e),
        }
    }
}

/// An error and its sources, `a: b: c`, without repeating a source already in the text.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    // rmcp's HTTP client error does not link its cause as a source.
    fn next<'a>(
        e: &'a (dyn std::error::Error + 'static),
    ) -> Option<&'a (dyn std::error::Error + 'static)> {
        match e.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(inner)) => Some(inner),
            _ => e.source(),
        }
    }
    let mut text = e.to_string();
    let mut source = next(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = next(s);
    }
    text
}

/// rmcp's handshake errors without its type names.
fn init_error_text(e: ClientInitializeError) -> String {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            format!("cannot {context}: {}", error_chain(error.error.as_ref()))
        }
        ClientInitializeError::JsonRpcError(e) => {
            format!("{} (JSON-RPC error {})", e.message, e.code.0)
        }
        ClientInitializeError::ConnectionClosed(what) => {
            format!("the connection closed while waiting for the {what}")
        }
        other => other.to_string(),
    }
}

fn not_found(name: &str) -> ServerError {
    ServerError::NotFound(name.to_string())
}

fn send_cancel(peer: Peer<RoleClient>, id: RequestId, reason: &str) {
    let notification = ClientNotification::CancelledNotification(CancelledNotification {
        params: CancelledNotificationParam {
            request_id: id,
            reason: Some(reason.to_string()),
        },
        method: Default::default(),
        extensions: Default::default(),
    });
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(5), peer.send_notification(notification))
            .await;
    });
}

/// Watches one connection: flips the server to `failed` when it dies on its own, and
/// refreshes the tool list on `notifications/tools/list_changed`.
fn spawn_monitor(
    inner: Weak<Inner>,
    name: String,
    generation: u64,
    conn: &Arc<Connection>,
    tools_changed: Arc<Notify>,
) {
    let weak_conn = Arc::downgrade(conn);
    let closed = conn.closed.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = closed.cancelled() => {
                    let (Some(inner), Some(conn)) = (inner.upgrade(), weak_conn.upgrade()) else {
                        return;
                    };
                    let why = conn.death().await;
                    inner.mark_dead(&name, generation, &conn, format!("disconnected: {why}"));
                    return;
                }
                _ = tools_changed.notified() => {
                    let (Some(inner), Some(conn)) = (inner.upgrade(), weak_conn.upgrade()) else {
                        return;
                    };
                    let listed =
                        tokio::time::timeout(inner.connect_timeout, conn.peer.list_all_tools()).await;
                    match listed {
                        Ok(Ok(tools)) => *lock(&conn.tools) = tools,
                        _ => tracing::debug!(server = %name, "refreshing the tool list failed"),
                    }
                }
            }
        }
    });
}

impl Inner {
    /// The server died by itself: `failed` with the reason, unless something else already
    /// replaced this connection.
    fn mark_dead(&self, name: &str, generation: u64, conn: &Arc<Connection>, why: String) {
        let mut s = lock(&self.servers);
        if let Some(entry) = s.map.get_mut(name)
            && entry.generation == generation
            && let State::Connected(c) = &entry.state
            && Arc::ptr_eq(c, conn)
        {
            entry.state = State::Failed(why);
        }
    }

    fn client(&self, server: &str, tools_changed: Arc<Notify>) -> Client {
        let mut client_info = Implementation::from_build_env();
        client_info.name = self.options.client_name.clone();
        client_info.version = self.options.client_version.clone();
        Client {
            info: ClientInfo {
                meta: None,
                protocol_version: ProtocolVersion::V_2025_06_18,
                capabilities: ClientCapabilities {
                    // Both modes: the host's `elicitation` request carries `url` and
                    // `elicitation_id` as well as `requested_schema`.
                    elicitation: Some(ElicitationCapability {
                        form: Some(FormElicitationCapability::default()),
                        url: Some(UrlElicitationCapability::default()),
                    }),
                    ..ClientCapabilities::default()
                },
                client_info,
            },
            server: server.to_string(),
            host: self.host.clone(),
            tools_changed,
        }
    }

    /// Opens the transport, runs the MCP handshake and lists the tools.
    async fn establish(
        &self,
        name: &str,
        config: &ServerConfig,
    ) -> Result<(Connection, Arc<Notify>), ConnectError> {
        let config = config.expand_vars(&self.options.child_env)?;
        let closed = CancellationToken::new();
        let tools_changed = Arc::new(Notify::new());
        let client = self.client(name, tools_changed.clone());
        let init_err = |e: ClientInitializeError| ConnectError::Handshake {
            text: init_error_text(e),
            exit: String::new(),
        };
        let (service, child) = match &config {
            ServerConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut full_env = self.options.tool_env.apply(&self.options.child_env);
                full_env.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
                let raw_env = self.options.tool_env.non_utf8_process_vars(&full_env);
                let cwd = match (cwd, &self.options.cwd) {
                    (Some(c), Some(base)) => Some(base.join(c)),
                    (Some(c), None) => Some(c.clone()),
                    (None, base) => base.clone(),
                };
                let (t, guard) = stdio::spawn(stdio::Spawn {
                    server: name,
                    command,
                    args,
                    env: full_env,
                    raw_env,
                    cwd,
                })?;
                let transport = Watched {
                    inner: t,
                    closed: closed.clone(),
                };
                match client.serve(transport).await {
                    Ok(service) => (service, Some(guard)),
                    Err(e) => {
                        let exited = guard.exited();
                        let _ =
                            tokio::time::timeout(Duration::from_millis(300), exited.cancelled())
                                .await;
                        let why = if exited.is_cancelled() {
                            format!(" ({})", guard.describe_exit())
                        } else {
                            String::new()
                        };
                        guard.terminate().await;
                        return Err(ConnectError::Handshake {
                            text: init_error_text(e),
                            exit: why,
                        });
                    }
                }
            }
            ServerConfig::Http { url, headers } => {
                let http = sse::http_client(headers)?;
                let t = StreamableHttpClientTransport::with_client(
                    http,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()),
                );
                let transport = Watched {
                    inner: t,
                    closed: closed.clone(),
                };
                (client.serve(transport).await.map_err(init_err)?, None)
            }
            ServerConfig::Sse { url, headers } => {
                let http = sse::http_client(headers)?;
                let t = sse::connect(name, http, url).await?;
                let transport = Watched {
                    inner: t,
                    closed: closed.clone(),
                };
                (client.serve(transport).await.map_err(init_err)?, None)
            }
            ServerConfig::Sdk { .. } => {
                let t = SdkTransport::new(name, self.host.clone());
                let transport = Watched {
                    inner: t,
                    closed: closed.clone(),
                };
                (client.serve(transport).await.map_err(init_err)?, None)
            }
        };
        let peer = service.peer().clone();
        let info = peer.peer_info();
        let server_info =
            info.map(|i| json!({"name": i.server_info.name, "version": i.server_info.version}));
        let has_tools = info
            .map(|i| i.capabilities.tools.is_some())
            .unwrap_or(false);
        let tools = match peer.list_all_tools().await {
            Ok(t) => t,
            Err(e) if has_tools => return Err(ConnectError::ListTools(Box::new(e))),
            Err(_) => Vec::new(),
        };
        Ok((
            Connection {
                service: tokio::sync::Mutex::new(Some(service)),
                peer,
                closed,
                child,
                server_info,
                tools: Mutex::new(tools),
            },
            tools_changed,
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parsed(answer: Value) -> Option<CreateElicitationResult> {
        parse_elicitation_answer(&answer).ok()
    }

    #[test]
    fn elicitation_answers_map_to_rmcp_results() {
        let accept = parsed(json!({"action": "accept", "content": {"answer": "blue"}})).unwrap();
        assert_eq!(accept.action, ElicitationAction::Accept);
        assert_eq!(accept.content, Some(json!({"answer": "blue"})));
        let url_accept = parsed(json!({"action": "accept", "_meta": {"k": 1}})).unwrap();
        assert_eq!(url_accept.action, ElicitationAction::Accept);
        assert_eq!(url_accept.content, None);
        let decline = parsed(json!({"action": "decline", "content": {"x": 1}})).unwrap();
        assert_eq!(decline.action, ElicitationAction::Decline);
        assert_eq!(decline.content, None);
        assert_eq!(
            parsed(json!({"action": "cancel"})).unwrap().action,
            ElicitationAction::Cancel
        );
    }

    #[test]
    fn malformed_or_missing_answers_cancel() {
        for bad in [
            json!({}),
            json!("accept"),
            json!({"action": "maybe"}),
            json!({"action": 1}),
            json!({"action": "accept", "content": "blue"}),
        ] {
            assert!(parsed(bad.clone()).is_none(), "{bad}");
            let r = elicitation_result("fx", Ok(bad));
            assert_eq!(r.action, ElicitationAction::Cancel);
            assert_eq!(r.content, None);
        }
        let r = elicitation_result("fx", Err(HostRpcError::failed("refused").into()));
        assert_eq!(r.action, ElicitationAction::Cancel);
    }
}
