//! One ACP session: a dcl session opened for typed events ([`AgentEvent`] out,
//! [`SessionCommand`] in), and the task that reads it and speaks for it to the client.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::RequestPermissionRequest;
use dcl_bridge::events::{
    AgentEvent, ContentBlock, HostRequest, PermissionDecision, PermissionRequest, SessionCommand,
    SessionDescription, TurnEnd,
};
use dcl_bridge::{Bridge, BridgeError, SessionOptions, Streams};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::client_files::{EditorFiles, EditorTerminal, FsCapabilities};
use crate::projection::Projection;
use crate::update::send_update;
use crate::{mcp_approval, permission};

/// Why a turn could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("a prompt is already running in this session")]
    Busy,
    #[error("the session has ended")]
    Ended,
    #[error("the session did not take the prompt: {0}")]
    Refused(#[from] BridgeError),
}

#[derive(Debug, thiserror::Error)]
pub enum SetModelError {
    #[error("unknown model {0:?}")]
    Unknown(String),
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}

pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    bridge: Bridge,
    /// The running turn's prompt, waiting for its end (`None` when the session ended).
    turn: Mutex<Option<oneshot::Sender<Option<TurnEnd>>>>,
    cancelled: AtomicBool,
    ended: AtomicBool,
    mode: Mutex<String>,
    /// The `model` config option, when dcl lists models.
    model: Mutex<Option<Value>>,
    /// Requests sent on to the client, by dcl's request id: dropping one withdraws it.
    asking: Mutex<HashMap<String, oneshot::Sender<()>>>,
    /// Set once the client has the session's id (its `session/new` answer): questions
    /// about the session wait for it, so the client knows what they are about.
    announced: tokio::sync::watch::Sender<bool>,
}

impl Session {
    /// Opens the dcl session and starts reading it; updates go to `cx`. File tools go
    /// through the editor for what `fs` says it offers.
    pub fn open(
        id: String,
        options: SessionOptions,
        fs: FsCapabilities,
        cx: ConnectionTo<Client>,
    ) -> Result<(Arc<Session>, SessionDescription), BridgeError> {
        let cwd = options.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        let bridge = dcl_bridge::open_streams(options, Streams::EVENTS)?;
        if fs.any() {
            bridge.set_client_files(Some(Arc::new(EditorFiles {
                cx: cx.clone(),
                session_id: id.clone(),
                can: fs,
            })));
        }
        if fs.terminal {
            bridge.set_client_terminal(Some(Arc::new(EditorTerminal {
                cx: cx.clone(),
                session_id: id.clone(),
            })));
        }
        let description = bridge.describe();
        let session = Arc::new(Session {
            id,
            cwd,
            bridge,
            turn: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            ended: AtomicBool::new(false),
            mode: Mutex::new(description.permission_mode.clone()),
            model: Mutex::new(None),
            asking: Mutex::new(HashMap::new()),
            announced: tokio::sync::watch::Sender::new(false),
        });
        dcl_bridge::runtime()?.spawn(read(Arc::clone(&session), cx));
        Ok((session, description))
    }

    /// Sends a prompt; the receiver gets the turn's end (`None`: the session ended first).
    pub fn start_turn(
        &self,
        content: Vec<ContentBlock>,
    ) -> Result<oneshot::Receiver<Option<TurnEnd>>, StartError> {
        let mut turn = lock(&self.turn);
        if turn.as_ref().is_some_and(|t| !t.is_closed()) {
            return Err(StartError::Busy);
        }
        if self.ended() {
            return Err(StartError::Ended);
        }
        let (tx, rx) = oneshot::channel();
        self.cancelled.store(false, Ordering::SeqCst);
        self.bridge
            .command(SessionCommand::Prompt { content, id: None })?;
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
            self.bridge.interrupt();
        }
    }

    /// The mode for the next tool calls (the command is taken in order, before any
    /// prompt sent after it).
    pub fn set_mode(&self, mode: &str) -> Result<(), BridgeError> {
        self.bridge.command(SessionCommand::SetMode {
            mode: mode.to_string(),
        })?;
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
    pub fn set_model(&self, model: &str) -> Result<(), SetModelError> {
        let known = lock(&self.model).as_ref().is_some_and(|o| {
            o["options"]
                .as_array()
                .is_some_and(|l| l.iter().any(|m| m["value"] == model))
        });
        if !known {
            return Err(SetModelError::Unknown(model.to_string()));
        }
        self.bridge.command(SessionCommand::SetModel {
            model: Some(model.to_string()),
        })?;
        if let Some(o) = lock(&self.model).as_mut() {
            o["currentValue"] = json!(model);
        }
        Ok(())
    }

    pub fn mode(&self) -> String {
        lock(&self.mode).clone()
    }

    /// Stops the session now (running tools are killed); its reader ends with it.
    pub fn close(&self) {
        self.bridge.close();
    }

    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The client has been told the session's id.
    pub fn mark_announced(&self) {
        self.announced.send_replace(true);
    }

    pub async fn wait_announced(&self) {
        let mut rx = self.announced.subscribe();
        // An error means the sender is gone, i.e. the session too: nothing to wait for.
        let _ = rx.wait_for(|a| *a).await;
    }

    /// Answers one of dcl's requests (a closed session needs no answer).
    fn answer(&self, command: SessionCommand) {
        if let Err(e) = self.bridge.command(command) {
            tracing::debug!("answer not delivered: {e}");
        }
    }

    /// A request is being asked of the client: the receiver fires if dcl withdraws it.
    fn asking(&self, request_id: &str) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        lock(&self.asking).insert(request_id.to_string(), tx);
        rx
    }

    fn asked(&self, request_id: &str) {
        lock(&self.asking).remove(request_id);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reads the session until it ends: events become updates, the turn's end answers the
/// prompt, requests go to the client.
async fn read(session: Arc<Session>, cx: ConnectionTo<Client>) {
    let mut projection = Projection::new(session.cwd.clone());
    while let Some(event) = session.bridge.recv_event().await {
        match event {
            AgentEvent::TurnEnded(end) => {
                if let Some(tx) = lock(&session.turn).take() {
                    let _ = tx.send(Some(end));
                }
            }
            AgentEvent::Request(request) => serve(&session, &cx, request),
            AgentEvent::RequestWithdrawn { request_id } => {
                // Dropping the sender wakes the task asking the client.
                lock(&session.asking).remove(&request_id);
            }
            AgentEvent::SessionConfigured {
                permission_mode: Some(mode),
                ..
            } if *lock(&session.mode) == mode => {
                // Already shown (the client set it, or an "always" answer did).
            }
            other => {
                if let AgentEvent::SessionConfigured {
                    permission_mode: Some(mode),
                    ..
                } = &other
                {
                    *lock(&session.mode) = mode.clone();
                }
                for update in projection.updates(&other, false) {
                    send_update(&cx, &session.id, update);
                }
            }
        }
    }
    session.ended.store(true, Ordering::SeqCst);
    lock(&session.asking).clear();
    if let Some(tx) = lock(&session.turn).take() {
        let _ = tx.send(None);
    }
}

/// One of dcl's requests: permissions and project MCP server approvals are asked of the
/// client; what ACP has no way to ask is refused, so dcl goes on without it.
fn serve(session: &Arc<Session>, cx: &ConnectionTo<Client>, request: HostRequest) {
    match request {
        HostRequest::Permission(asked) => {
            // Registered before the task runs, so a withdrawal that comes first is seen.
            let withdrawn = session.asking(&asked.request_id);
            tokio::spawn(ask_permission(
                Arc::clone(session),
                cx.clone(),
                asked,
                withdrawn,
            ));
        }
        HostRequest::Other {
            request_id,
            subtype,
            request,
        } if subtype == mcp_approval::SUBTYPE => {
            let withdrawn = session.asking(&request_id);
            tokio::spawn(ask_mcp_approval(
                Arc::clone(session),
                cx.clone(),
                request_id,
                request,
                withdrawn,
            ));
        }
        HostRequest::Elicitation { request_id, .. } => {
            session.answer(SessionCommand::AnswerElicitation {
                request_id,
                action: dcl_bridge::events::ElicitationAction::Decline,
                content: None,
            })
        }
        other => {
            let what = match &other {
                HostRequest::Question { .. } => "questions to the user".to_string(),
                HostRequest::HookCallback { .. } => "hook callbacks".to_string(),
                HostRequest::Other { subtype, .. } => format!("{subtype} requests"),
                _ => "this request".to_string(),
            };
            session.answer(SessionCommand::Answer {
                request_id: other.request_id().to_string(),
                result: Value::Null,
                error: Some(format!("dcl acp does not serve {what}")),
            });
        }
    }
}

/// One approval: `session/request_permission` to the client, its choice back to dcl.
/// When dcl withdraws the request first (the turn was cancelled, or dcl's host timeout
/// passed), the client's late answer is dropped.
async fn ask_permission(
    session: Arc<Session>,
    cx: ConnectionTo<Client>,
    asked: PermissionRequest,
    withdrawn: oneshot::Receiver<()>,
) {
    let id = asked.request_id.clone();
    let params = permission::request(&session.id, &asked);
    let request = match serde_json::from_value::<RequestPermissionRequest>(params) {
        Ok(r) => r,
        Err(e) => {
            session.asked(&id);
            session.answer(SessionCommand::AnswerPermission {
                request_id: id,
                decision: PermissionDecision::Deny {
                    message: format!("cannot ask the client: {e}"),
                    interrupt: false,
                    updated_permissions: None,
                },
            });
            return;
        }
    };
    let asked_client = cx.send_request(request).block_task();
    let outcome = tokio::select! {
        _ = withdrawn => return,
        r = asked_client => r,
    };
    session.asked(&id);
    let decision = match outcome {
        Ok(response) if !session.was_cancelled() => {
            let outcome = serde_json::to_value(&response.outcome).unwrap_or(Value::Null);
            permission::answer(&asked, &outcome)
        }
        Ok(_) => permission::answer(&asked, &json!({"outcome": "cancelled"})),
        Err(e) => PermissionDecision::Deny {
            message: format!("The client did not answer the permission request: {e}"),
            interrupt: false,
            updated_permissions: None,
        },
    };
    let new_mode = permission::new_mode(&decision);
    session.answer(SessionCommand::AnswerPermission {
        request_id: id,
        decision,
    });
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
    withdrawn: oneshot::Receiver<()>,
) {
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
    session.asked(&id);
    session.answer(SessionCommand::Answer {
        request_id: id,
        result: answer,
        error: None,
    });
}
