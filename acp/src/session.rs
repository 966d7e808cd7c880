//! One ACP session: a dcl session behind a bridge [`Host`], and the task that reads it
//! and speaks for it to the client.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionNotification};
use dcl_bridge::host::{Host, HostConfig, HostError, kind};
use dcl_bridge::{BridgeError, SessionOptions};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::from_stream_json::Translator;
use crate::{mcp_approval, permission};

/// How a turn ended, for the prompt waiting on it.
pub enum TurnEnd {
    /// dcl's `result` line.
    Result(Value),
    /// The session ended before the turn did.
    Ended,
}

/// Why a turn could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("a prompt is already running in this session")]
    Busy,
    #[error("the session has ended")]
    Ended,
    #[error("the session did not take the prompt: {0}")]
    Refused(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SetModelError {
    #[error("unknown model {0:?}")]
    Unknown(String),
    #[error(transparent)]
    Host(#[from] HostError),
}

pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    host: Host,
    turn: Mutex<Option<oneshot::Sender<TurnEnd>>>,
    cancelled: AtomicBool,
    mode: Mutex<String>,
    /// The `model` config option (from dcl's initialize answer), once known.
    model: Mutex<Option<Value>>,
    /// Set once the client has the session's id (its `session/new` answer): questions
    /// about the session wait for it, so the client knows what they are about.
    announced: tokio::sync::watch::Sender<bool>,
}

impl Session {
    /// Opens the dcl session and starts reading it; updates go to `cx`.
    pub fn open(
        id: String,
        options: SessionOptions,
        mode: String,
        cx: ConnectionTo<Client>,
    ) -> Result<Arc<Session>, BridgeError> {
        let cwd = options.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        let bridge = dcl_bridge::open_with(options)?;
        // No timeout of our own: dcl's host timeout applies to a client that never answers.
        let host = Host::over(bridge, HostConfig::default())?;
        let session = Arc::new(Session {
            id,
            cwd,
            host,
            turn: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            mode: Mutex::new(mode),
            model: Mutex::new(None),
            announced: tokio::sync::watch::Sender::new(false),
        });
        dcl_bridge::runtime()?.spawn(read(Arc::clone(&session), cx));
        Ok(session)
    }

    /// dcl's `initialize` (MCP servers start; the answer lists the slash commands).
    pub async fn initialize(&self) -> Result<Value, HostError> {
        self.host
            .request_with_timeout(json!({"subtype": "initialize"}), None)
            .await
    }

    /// Sends a prompt (its stream-json user line); the receiver gets the turn's end.
    pub fn start_turn(&self, line: &str) -> Result<oneshot::Receiver<TurnEnd>, StartError> {
        let mut turn = lock(&self.turn);
        if turn.as_ref().is_some_and(|t| !t.is_closed()) {
            return Err(StartError::Busy);
        }
        if self.host.ended() {
            return Err(StartError::Ended);
        }
        let (tx, rx) = oneshot::channel();
        self.cancelled.store(false, Ordering::SeqCst);
        self.host
            .send(line)
            .map_err(|e| StartError::Refused(e.to_string()))?;
        *turn = Some(tx);
        Ok(rx)
    }

    pub fn was_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// `session/cancel`: the running turn stops, its tools are killed, and requests
    /// dcl still waits on are withdrawn.
    pub fn cancel(&self) {
        if lock(&self.turn).is_some() {
            self.cancelled.store(true, Ordering::SeqCst);
            self.host.interrupt();
        }
    }

    pub async fn set_mode(&self, mode: &str) -> Result<(), HostError> {
        self.host
            .request(json!({"subtype": "set_permission_mode", "mode": mode}))
            .await?;
        *lock(&self.mode) = mode.to_string();
        Ok(())
    }

    pub fn set_model_option(&self, option: Option<Value>) {
        *lock(&self.model) = option;
    }

    /// The config options to show: the model selector when dcl listed models.
    pub fn config_options(&self) -> Vec<Value> {
        lock(&self.model).iter().cloned().collect()
    }

    /// `set_model` to dcl; the selector's current value follows.
    pub async fn set_model(&self, model: &str) -> Result<(), SetModelError> {
        let known = lock(&self.model).as_ref().is_some_and(|o| {
            o["options"]
                .as_array()
                .is_some_and(|l| l.iter().any(|m| m["value"] == model))
        });
        if !known {
            return Err(SetModelError::Unknown(model.to_string()));
        }
        self.host
            .request(json!({"subtype": "set_model", "model": model}))
            .await?;
        if let Some(o) = lock(&self.model).as_mut() {
            o["currentValue"] = json!(model);
        }
        Ok(())
    }

    pub fn set_current_mode(&self, mode: &str) {
        *lock(&self.mode) = mode.to_string();
    }

    pub fn mode(&self) -> String {
        lock(&self.mode).clone()
    }

    /// Stops the session now (running tools are killed); its reader ends with it.
    pub fn close(&self) {
        self.host.close();
    }

    pub fn ended(&self) -> bool {
        self.host.ended()
    }

    /// The client has been told the session's id.
    pub fn mark_announced(&self) {
        self.announced.send_replace(true);
    }

    async fn wait_announced(&self) {
        let mut rx = self.announced.subscribe();
        // An error means the sender is gone, i.e. the session too: nothing to wait for.
        let _ = rx.wait_for(|a| *a).await;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sends one `session/update`; an update the crate's types refuse is a bug here, logged.
pub fn send_update(cx: &ConnectionTo<Client>, session_id: &str, update: Value) {
    let params = json!({"sessionId": session_id, "update": update});
    match serde_json::from_value::<SessionNotification>(params) {
        Ok(n) => {
            if let Err(e) = cx.send_notification(n) {
                tracing::debug!("session/update not sent: {e}");
            }
        }
        Err(e) => tracing::warn!("dcl acp built an invalid session/update ({e})"),
    }
}

/// Reads the session until it ends: messages become updates, the turn's `result`
/// answers the prompt, approvals go to the client.
async fn read(session: Arc<Session>, cx: ConnectionTo<Client>) {
    let mut translator = Translator::new(session.cwd.clone());
    loop {
        let events = session.host.next_events(64).await;
        if events.is_empty() {
            if let Some(tx) = lock(&session.turn).take() {
                let _ = tx.send(TurnEnd::Ended);
            }
            return;
        }
        for event in events {
            match event.kind.as_str() {
                kind::MESSAGE => {
                    let Ok(line) = serde_json::from_str::<Value>(&event.payload) else {
                        continue;
                    };
                    if line.get("type").and_then(Value::as_str) == Some("result") {
                        if let Some(usage) = translator.usage_update(&line) {
                            send_update(&cx, &session.id, usage);
                        }
                        if let Some(tx) = lock(&session.turn).take() {
                            let _ = tx.send(TurnEnd::Result(line));
                        }
                        continue;
                    }
                    for update in translator.updates(&line, false) {
                        send_update(&cx, &session.id, update);
                    }
                }
                "can_use_tool" => {
                    let payload = event.payload_json().unwrap_or(Value::Null);
                    tokio::spawn(ask_client(
                        Arc::clone(&session),
                        cx.clone(),
                        event.id,
                        payload,
                    ));
                }
                mcp_approval::SUBTYPE => {
                    let payload = event.payload_json().unwrap_or(Value::Null);
                    tokio::spawn(ask_mcp_approval(
                        Arc::clone(&session),
                        cx.clone(),
                        event.id,
                        payload,
                    ));
                }
                kind::CANCEL | kind::CONTROL_RESPONSE => {}
                other => {
                    let message = format!("dcl acp does not serve {other} requests");
                    if let Err(e) = session.host.respond(&event.id, Err(message.into())) {
                        tracing::debug!("answer to {other} not delivered: {e}");
                    }
                }
            }
        }
    }
}

/// One approval: `session/request_permission` to the client, its choice back to dcl.
/// When dcl withdraws the request first (the turn was cancelled, or dcl's host timeout
/// passed), the client's late answer is dropped.
async fn ask_client(session: Arc<Session>, cx: ConnectionTo<Client>, id: String, payload: Value) {
    let params = permission::request(&session.id, &payload);
    let request = match serde_json::from_value::<RequestPermissionRequest>(params) {
        Ok(r) => r,
        Err(e) => {
            let _ = session
                .host
                .respond(&id, Err(format!("cannot ask the client: {e}").into()));
            return;
        }
    };
    let withdrawn = session.host.withdrawn(&id);
    let asked = cx.send_request(request).block_task();
    let outcome = tokio::select! {
        _ = withdrawn => return,
        r = asked => r,
    };
    let answer = match outcome {
        Ok(response) if !session.was_cancelled() => {
            let outcome = serde_json::to_value(&response.outcome).unwrap_or(Value::Null);
            permission::answer(&payload, &outcome)
        }
        Ok(_) => permission::answer(&payload, &json!({"outcome": "cancelled"})),
        Err(e) => json!({"behavior": "deny",
            "message": format!("The client did not answer the permission request: {e}")}),
    };
    let new_mode = answer
        .get("updatedPermissions")
        .and_then(Value::as_array)
        .and_then(|u| {
            u.iter()
                .find(|p| p.get("type").and_then(Value::as_str) == Some("setMode"))
        })
        .and_then(|p| p.get("mode").and_then(Value::as_str))
        .map(str::to_string);
    if let Err(e) = session.host.respond(&id, Ok(answer)) {
        tracing::debug!("permission answer not delivered: {e}");
        return;
    }
    if let Some(mode) = new_mode {
        *lock(&session.mode) = mode.clone();
        send_update(
            &cx,
            &session.id,
            json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
        );
    }
}

/// A project MCP server's approval: asked once the client knows the session; a request
/// dcl withdraws (the session closed, or dcl's host timeout passed) is not answered.
async fn ask_mcp_approval(
    session: Arc<Session>,
    cx: ConnectionTo<Client>,
    id: String,
    payload: Value,
) {
    let withdrawn = session.host.withdrawn(&id);
    let params = mcp_approval::request(&session.id, &payload);
    let answer = match serde_json::from_value::<RequestPermissionRequest>(params) {
        Ok(request) => {
            let asked = async {
                session.wait_announced().await;
                cx.send_request(request).block_task().await
            };
            tokio::select! {
                _ = withdrawn => return,
                r = asked => match r {
                    Ok(response) => {
                        let outcome = serde_json::to_value(&response.outcome).unwrap_or(Value::Null);
                        mcp_approval::answer(&outcome)
                    }
                    Err(e) => {
                        tracing::warn!("the client did not answer the MCP server approval: {e}");
                        json!({"approved": false})
                    }
                },
            }
        }
        Err(e) => {
            tracing::warn!("cannot ask the client about an MCP server: {e}");
            json!({"approved": false})
        }
    };
    if let Err(e) = session.host.respond(&id, Ok(answer)) {
        tracing::debug!("MCP server approval not delivered: {e}");
    }
}
