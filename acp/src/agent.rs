//! The ACP agent side: one connection, many sessions, each a dcl session on the one
//! runtime. Handlers answer from spawned tasks, so a slow session (or a turn) never
//! holds the connection's dispatch loop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AuthenticateRequest, AuthenticateResponse, CancelNotification, CloseSessionRequest,
    CloseSessionResponse, ForkSessionRequest, ForkSessionResponse, InitializeRequest,
    InitializeResponse, ListSessionsRequest, ListSessionsResponse, LoadSessionRequest,
    LoadSessionResponse, NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse,
    ResumeSessionRequest, ResumeSessionResponse, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, ErrorCode};
use dcl_bridge::SessionOptions;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::client_files::FsCapabilities;
use crate::projection::{Projection, stop_reason};
use crate::session::{Session, SetModelError, StartError};
use crate::update::send_update;
use crate::{history, modes, prompt};

pub type AcpResult<T> = Result<T, agent_client_protocol::Error>;

pub struct Agent {
    /// The options `dcl acp`'s flags make; each session starts from a copy.
    template: SessionOptions,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// What the client offers of its files (`initialize`'s `clientCapabilities.fs`).
    fs: Mutex<FsCapabilities>,
}

/// A typed message of the crate from the JSON built here.
pub fn typed<T: DeserializeOwned>(v: Value) -> AcpResult<T> {
    serde_json::from_value(v).map_err(|e| {
        agent_client_protocol::Error::internal_error()
            .data(json!(format!("dcl acp built an invalid message: {e}")))
    })
}

fn json_of<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn not_found(session_id: &str) -> agent_client_protocol::Error {
    agent_client_protocol::Error::new(ErrorCode::RESOURCE_NOT_FOUND, "Session not found")
        .data(json!({"sessionId": session_id}))
}

fn invalid(message: impl std::fmt::Display) -> agent_client_protocol::Error {
    agent_client_protocol::Error::invalid_params().data(json!(message.to_string()))
}

fn internal(message: impl std::fmt::Display) -> agent_client_protocol::Error {
    agent_client_protocol::Error::internal_error().data(json!(message.to_string()))
}

/// Runs `work` off the dispatch loop and answers with what it gives.
pub fn answer_later<T, F>(responder: Responder<T>, work: F) -> AcpResult<()>
where
    T: agent_client_protocol::JsonRpcResponse + Send + 'static,
    F: Future<Output = AcpResult<T>> + Send + 'static,
{
    tokio::spawn(async move {
        let sent = match work.await {
            Ok(v) => responder.respond(v),
            Err(e) => responder.respond_with_error(e),
        };
        if let Err(e) = sent {
            tracing::debug!("answer not sent: {e}");
        }
    });
    Ok(())
}

/// The environment variables whose presence means a model key is configured.
const KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "DCL_API_KEY",
];
pub const AUTH_METHOD: &str = "api-key-env";

impl Agent {
    pub fn new(template: SessionOptions) -> Arc<Agent> {
        Arc::new(Agent {
            template,
            sessions: Mutex::new(HashMap::new()),
            fs: Mutex::new(FsCapabilities::default()),
        })
    }

    fn session(&self, id: &str) -> AcpResult<Arc<Session>> {
        self.lock().get(id).cloned().ok_or_else(|| not_found(id))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn initialize(&self, req: InitializeRequest) -> AcpResult<InitializeResponse> {
        let asked = json_of(&req.protocol_version).as_u64().unwrap_or(1);
        let fs = FsCapabilities::of(&json_of(&req.client_capabilities));
        *self.fs.lock().unwrap_or_else(|p| p.into_inner()) = fs;
        typed(json!({
            "protocolVersion": asked.min(1),
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                "sessionCapabilities": {"close": {}, "fork": {}, "list": {}, "resume": {}},
            },
            "agentInfo": {"name": "dcl", "title": "dcl", "version": env!("CARGO_PKG_VERSION")},
            "authMethods": [{
                "id": AUTH_METHOD,
                "name": "API key in the environment",
                "description": "Set ANTHROPIC_API_KEY (or the configured provider's key) in the environment dcl acp starts with",
            }],
        }))
    }

    pub fn authenticate(&self, req: AuthenticateRequest) -> AcpResult<AuthenticateResponse> {
        let method = json_of(&req.method_id);
        if method.as_str() != Some(AUTH_METHOD) {
            return Err(invalid(format!("unknown authentication method {method}")));
        }
        let offline = self.template.model.as_deref() == Some("mock-model");
        let keyed = self.template.api_key.is_some()
            || KEY_VARS
                .iter()
                .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()));
        if offline || keyed {
            typed(json!({}))
        } else {
            Err(agent_client_protocol::Error::auth_required().data(json!(
                "no API key in the environment: set ANTHROPIC_API_KEY and restart dcl acp"
            )))
        }
    }

    /// The options of a new session: the flags' template, the client's cwd and MCP servers.
    fn options_for(&self, req: &Value, id: &str) -> AcpResult<SessionOptions> {
        let mut options = self.template.clone();
        let cwd = req.get("cwd").and_then(Value::as_str).unwrap_or("");
        if !std::path::Path::new(cwd).is_absolute() {
            return Err(invalid(format!(
                "cwd must be an absolute path, got {cwd:?}"
            )));
        }
        options.cwd = Some(cwd.into());
        options.session_id = Some(id.to_string());
        let servers = req
            .get("mcpServers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if !servers.is_empty() {
            options
                .mcp_config
                .push(mcp_config(&servers).map_err(invalid)?.to_string());
        }
        Ok(options)
    }

    pub async fn new_session(
        self: Arc<Self>,
        req: NewSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> AcpResult<NewSessionResponse> {
        let req = json_of(&req);
        let id = uuid_v4();
        let options = self.options_for(&req, &id)?;
        let (session, commands) = self.start(id, options, &cx).await?;
        let mut answer = session_state(&session);
        answer["sessionId"] = json!(session.id);
        let answer = typed(answer);
        announce(cx, Arc::clone(&session), commands);
        answer
    }

    /// `session/load`: the saved session is resumed and its history replayed as
    /// `session/update`s before the answer.
    pub async fn load_session(
        self: Arc<Self>,
        req: LoadSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> AcpResult<LoadSessionResponse> {
        typed(self.reopen(json_of(&req), true, cx).await?)
    }

    /// `session/resume`: the saved session goes on, without its history replayed (the
    /// client still shows it).
    pub async fn resume_session(
        self: Arc<Self>,
        req: ResumeSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> AcpResult<ResumeSessionResponse> {
        typed(self.reopen(json_of(&req), false, cx).await?)
    }

    /// `session/fork`: a new session (a new id) whose conversation starts as a copy of a
    /// saved or open session's, as `--resume <id> --fork-session` makes it; the source's
    /// transcript is not written to. A source that is open but has nothing saved yet has
    /// nothing to copy: the fork starts empty.
    pub async fn fork_session(
        self: Arc<Self>,
        req: ForkSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> AcpResult<ForkSessionResponse> {
        let req = json_of(&req);
        let source = session_id_of(&req).to_string();
        let saved = history::find(&source).is_some();
        if !saved && !self.lock().contains_key(&source) {
            return Err(not_found(&source));
        }
        let id = uuid_v4();
        // `session_id` is the fork's id (the engine's fork takes the requested id).
        let mut options = self.options_for(&req, &id)?;
        if saved {
            options.resume = Some(source);
            options.fork_session = true;
        }
        let (session, commands) = self.start(id, options, &cx).await?;
        let mut answer = session_state(&session);
        answer["sessionId"] = json!(session.id);
        let answer = typed(answer);
        announce(cx, session, commands);
        answer
    }

    /// Opens a saved session again (`replay`: its history is sent first); the answer's
    /// JSON.
    async fn reopen(&self, req: Value, replay: bool, cx: ConnectionTo<Client>) -> AcpResult<Value> {
        let id = session_id_of(&req).to_string();
        if self.lock().contains_key(&id) {
            return Err(agent_client_protocol::Error::invalid_request()
                .data(json!("the session is already open")));
        }
        let path = history::find(&id).ok_or_else(|| not_found(&id))?;
        let text = if replay {
            tokio::fs::read_to_string(&path).await.map_err(internal)?
        } else {
            String::new()
        };
        let mut options = self.options_for(&req, &id)?;
        options.session_id = None;
        options.resume = Some(id.clone());
        let (session, commands) = self.start(id.clone(), options, &cx).await?;
        let mut projection = Projection::new(session.cwd.clone());
        for event in history::replay(&text) {
            for update in projection.updates(&event, true) {
                send_update(&cx, &id, update);
            }
        }
        let answer = session_state(&session);
        announce(cx, session, commands);
        Ok(answer)
    }

    /// Opens a dcl session and registers it; the commands to announce.
    async fn start(
        &self,
        id: String,
        options: SessionOptions,
        cx: &ConnectionTo<Client>,
    ) -> AcpResult<(Arc<Session>, Value)> {
        let fs = *self.fs.lock().unwrap_or_else(|p| p.into_inner());
        let (session, description) =
            Session::open(id.clone(), options, fs, cx.clone()).map_err(invalid)?;
        let model = self.template.model.as_deref().unwrap_or("default");
        session.set_model_option(modes::model_option(&description, model));
        self.lock().insert(id, Arc::clone(&session));
        Ok((session, modes::available_commands(&description)))
    }

    /// Starts the turn at once (in the order prompts arrive, so a second prompt for a
    /// busy session is refused, never the first); the returned future waits for its end.
    pub fn prompt(
        &self,
        req: PromptRequest,
    ) -> impl Future<Output = AcpResult<PromptResponse>> + Send + 'static {
        let started = self.start_prompt(req);
        async move {
            let (session, rx) = started?;
            let end = rx.await.ok().flatten();
            // The session's commands are sent before its first prompt is answered, so a
            // client has them by the time it acts on the answer.
            session.wait_announced().await;
            match end {
                Some(end) => {
                    let reason = stop_reason(end.stop_reason, &end.errors, session.was_cancelled())
                        .map_err(internal)?;
                    typed(json!({"stopReason": reason}))
                }
                None if session.was_cancelled() => typed(json!({"stopReason": "cancelled"})),
                None => Err(internal("the session ended during the turn")),
            }
        }
    }

    fn start_prompt(
        &self,
        req: PromptRequest,
    ) -> AcpResult<(
        Arc<Session>,
        tokio::sync::oneshot::Receiver<Option<dcl_bridge::events::TurnEnd>>,
    )> {
        let req = json_of(&req);
        let id = session_id_of(&req);
        let session = self.session(id)?;
        let blocks = req
            .get("prompt")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let content = prompt::to_content(&blocks).map_err(invalid)?;
        match session.start_turn(content) {
            Ok(rx) => Ok((session, rx)),
            Err(StartError::Busy) => Err(agent_client_protocol::Error::invalid_request()
                .data(json!(StartError::Busy.to_string()))),
            Err(e) => Err(internal(e)),
        }
    }

    pub fn cancel(&self, n: CancelNotification) {
        let id = json_of(&n.session_id);
        match id.as_str().and_then(|id| self.session(id).ok()) {
            Some(s) => s.cancel(),
            None => tracing::warn!("session/cancel for an unknown session {id}"),
        }
    }

    pub async fn set_mode(
        self: Arc<Self>,
        req: SetSessionModeRequest,
        cx: ConnectionTo<Client>,
    ) -> AcpResult<SetSessionModeResponse> {
        let req = json_of(&req);
        let id = session_id_of(&req);
        let mode = req.get("modeId").and_then(Value::as_str).unwrap_or("");
        let session = self.session(id)?;
        if !modes::is_mode(mode) {
            return Err(invalid(format!("unknown mode {mode:?}")));
        }
        session.set_mode(mode).map_err(internal)?;
        send_update(
            &cx,
            id,
            json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
        );
        typed(json!({}))
    }

    /// `session/list`: the saved sessions (of the asked cwd), newest first, in one page.
    pub async fn list_sessions(
        self: Arc<Self>,
        req: ListSessionsRequest,
    ) -> AcpResult<ListSessionsResponse> {
        let req = json_of(&req);
        let cwd = req.get("cwd").and_then(Value::as_str).map(str::to_string);
        let saved = tokio::task::spawn_blocking(move || history::list(cwd.as_deref()))
            .await
            .map_err(internal)?;
        let sessions: Vec<Value> = saved
            .into_iter()
            .map(|s| {
                let updated = rfc3339(s.modified);
                json!({"sessionId": s.id, "cwd": s.cwd, "title": s.title, "updatedAt": updated})
            })
            .collect();
        typed(json!({"sessions": sessions}))
    }

    /// `session/set_config_option`: the model (the one option dcl offers).
    pub async fn set_config_option(
        self: Arc<Self>,
        req: SetSessionConfigOptionRequest,
    ) -> AcpResult<SetSessionConfigOptionResponse> {
        let req = json_of(&req);
        let id = session_id_of(&req);
        let session = self.session(id)?;
        let config = req.get("configId").and_then(Value::as_str).unwrap_or("");
        if config != modes::MODEL_CONFIG {
            return Err(invalid(format!("unknown config option {config:?}")));
        }
        let Some(value) = req.get("value").and_then(Value::as_str) else {
            return Err(invalid("the model option takes a string value"));
        };
        session.set_model(value).map_err(|e| match e {
            SetModelError::Unknown(_) => invalid(e),
            SetModelError::Bridge(b) => internal(b),
        })?;
        typed(json!({"configOptions": session.config_options()}))
    }

    pub fn close_session(&self, req: CloseSessionRequest) -> AcpResult<CloseSessionResponse> {
        let id = json_of(&req.session_id);
        let id = id.as_str().unwrap_or("");
        let session = self.lock().remove(id).ok_or_else(|| not_found(id))?;
        // A running turn's prompt answers `cancelled`.
        session.cancel();
        session.close();
        typed(json!({}))
    }

    /// The client went away: every session stops (tools killed, transcripts flushed by
    /// the engine as it ends); waits a little for them to end.
    pub async fn close_all(&self) {
        let sessions: Vec<Arc<Session>> = self.lock().drain().map(|(_, s)| s).collect();
        for s in &sessions {
            s.cancel();
            s.close();
        }
        for _ in 0..100 {
            if sessions.iter().all(|s| s.ended()) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        tracing::warn!("some sessions had not ended 2s after the client left");
    }
}

/// ACP `mcpServers` as a dcl MCP config (`{"mcpServers": {name: spec}}`).
pub fn mcp_config(servers: &[Value]) -> Result<Value, String> {
    let mut out = serde_json::Map::new();
    let pairs = |v: Option<&Value>| -> serde_json::Map<String, Value> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|p| {
                        Some((
                            p.get("name")?.as_str()?.to_string(),
                            p.get("value")?.clone(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    for s in servers {
        let name = s
            .get("name")
            .and_then(Value::as_str)
            .ok_or("an MCP server without a name")?;
        let spec = match s.get("type").and_then(Value::as_str) {
            Some(t @ ("http" | "sse")) => json!({
                "type": t,
                "url": s.get("url").cloned().unwrap_or(Value::Null),
                "headers": pairs(s.get("headers")),
            }),
            None | Some("stdio") => json!({
                "type": "stdio",
                "command": s.get("command").cloned().unwrap_or(Value::Null),
                "args": s.get("args").cloned().unwrap_or(json!([])),
                "env": pairs(s.get("env")),
            }),
            Some(other) => {
                return Err(format!(
                    "MCP server {name:?}: transport {other:?} is not supported"
                ));
            }
        };
        out.insert(name.to_string(), spec);
    }
    Ok(json!({"mcpServers": out}))
}

/// The session's commands, sent after the answer so the client knows the session first.
fn announce(cx: ConnectionTo<Client>, session: Arc<Session>, commands: Value) {
    tokio::spawn(async move {
        tokio::task::yield_now().await;
        send_update(&cx, &session.id, commands);
        session.mark_announced();
    });
}

/// RFC 3339 (UTC, seconds) of a file time.
fn rfc3339(t: std::time::SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn uuid_v4() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The `sessionId` a request names ("" when it names none: no session has that id).
fn session_id_of(req: &Value) -> &str {
    req.get("sessionId").and_then(Value::as_str).unwrap_or("")
}

/// What every answer that opens a session carries: its modes and config options.
fn session_state(session: &Session) -> Value {
    json!({"modes": modes::state(&session.mode()), "configOptions": session.config_options()})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_servers_of_every_transport() {
        let c = mcp_config(&[
            json!({"name": "s", "command": "srv", "args": ["-x"],
                "env": [{"name": "K", "value": "v"}]}),
            json!({"type": "http", "name": "h", "url": "http://127.0.0.1:1/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer t"}]}),
            json!({"type": "sse", "name": "e", "url": "http://127.0.0.1:1/sse", "headers": []}),
        ])
        .expect("config");
        let s = &c["mcpServers"];
        assert_eq!(s["s"]["type"], "stdio");
        assert_eq!(s["s"]["env"]["K"], "v");
        assert_eq!(s["h"]["headers"]["Authorization"], "Bearer t");
        assert_eq!(s["e"]["type"], "sse");
        assert!(mcp_config(&[json!({"type": "acp", "name": "a"})]).is_err());
        assert!(mcp_config(&[json!({"command": "x"})]).is_err());
    }

    #[test]
    fn file_times_are_rfc3339() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400 + 61);
        assert_eq!(rfc3339(t), "1970-01-02T00:01:01Z");
    }
}
