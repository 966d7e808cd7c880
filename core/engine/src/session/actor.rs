//! The session actor: reads host messages and signals, queues prompts, and runs one turn
//! at a time on its own task, so control requests are served while a turn runs.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use dcl_protocol::{ContentBlock, Message, MessageContent, UserMessage};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::services::SessionCore;
use super::turn::{self, StopCause, TurnContext, TurnOutcome, TurnStop};
use super::{Input, QueuedPrompt, Signal, emit};

/// How long a closed session's turn may take to stop by itself (killing its tools)
/// before it is aborted.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

struct RunningTurn {
    handle: JoinHandle<TurnOutcome>,
    cancel: TurnStop,
}

pub(super) struct Actor {
    pub(super) core: Arc<SessionCore>,
    rx: mpsc::Receiver<Input>,
    signals: mpsc::UnboundedReceiver<Signal>,
    pub(super) queue: VecDeque<QueuedPrompt>,
    current: Option<RunningTurn>,
    input_closed: bool,
    pub(super) initialized: bool,
    /// A start-up error has been answered at least once.
    startup_reported: bool,
    /// Control answers still being worked out (MCP connects, rewinds); the session ends
    /// only after they are out.
    pub(super) answers: tokio::task::JoinSet<()>,
    /// SessionEnd's `reason`: `prompt_input_exit` when the host's input ended, `other`
    /// when the session was closed (dropped, SIGTERM).
    end_reason: &'static str,
    /// When the host, having had its last result, has been silent long enough for an
    /// `idle_prompt` Notification; `None` while a turn runs or queues.
    idle_deadline: Option<tokio::time::Instant>,
}

/// A host's `tool_result` that answers no open tool call (the prompt is refused).
#[derive(Debug, thiserror::Error)]
#[error(
    "refused a user message: its tool_result answers tool_use_id {tool_use_id:?}, which is no open tool call of this conversation"
)]
pub struct UnansweredToolResult {
    pub tool_use_id: String,
}

impl Actor {
    pub(super) fn new(
        core: Arc<SessionCore>,
        rx: mpsc::Receiver<Input>,
        signals: mpsc::UnboundedReceiver<Signal>,
    ) -> Self {
        Actor {
            core,
            rx,
            signals,
            queue: VecDeque::new(),
            current: None,
            input_closed: false,
            initialized: false,
            startup_reported: false,
            answers: tokio::task::JoinSet::new(),
            end_reason: "prompt_input_exit",
            idle_deadline: None,
        }
    }

    pub(super) async fn run(mut self) {
        loop {
            if self.current.is_none() {
                if let Some(next) = self.queue.pop_front() {
                    if self.queue.is_empty() {
                        // A drained queue gives back its buffer: an idle session (of
                        // thousands a server may hold) keeps no room for prompts.
                        self.queue = VecDeque::new();
                    }
                    self.start_turn(next);
                } else if self.input_closed {
                    break;
                }
            }
            let turn_done = async {
                match self.current.as_mut() {
                    Some(t) => Some((&mut t.handle).await),
                    None => std::future::pending().await,
                }
            };
            let idle_deadline = self.idle_deadline;
            let idle = async move {
                match idle_deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                signal = self.signals.recv() => match signal {
                    Some(Signal::Interrupt) => { self.interrupt(true, StopCause::USER_STOP); }
                    Some(Signal::Eof) => {
                        // Lines sent before the end of input are still served, in order.
                        while let Ok(input) = self.rx.try_recv() {
                            self.handle_input(input);
                        }
                        self.input_closed = true;
                        self.idle_deadline = None;
                        self.core.services.host.close_input();
                        // A host that only closes its input still learns why nothing ran.
                        self.report_startup_error(true);
                    }
                    // The handle is gone (dropped without a close): stop as if closed.
                    Some(Signal::Close) | None => {
                        // Boxed, as the end below: a state the task reaches once would
                        // otherwise size every idle session's task.
                        Box::pin(self.close()).await;
                        self.end_reason = "other";
                        break;
                    }
                },
                input = self.rx.recv(), if !self.input_closed => match input {
                    Some(input) => self.handle_input(input),
                    None => {
                        self.input_closed = true;
                        self.idle_deadline = None;
                        self.core.services.host.close_input();
                        self.report_startup_error(true);
                    }
                },
                // Finished answers are reaped as they end, so the set stays small.
                Some(_) = self.answers.join_next(), if !self.answers.is_empty() => {}
                () = idle => {
                    self.idle_deadline = None;
                    let core = self.core.clone();
                    self.answers.spawn(async move { super::lifecycle::idle_notification(&core).await });
                }
                done = turn_done => {
                    self.current = None;
                    self.idle_deadline = (self.queue.is_empty() && !self.input_closed)
                        .then(|| super::lifecycle::idle_deadline(&self.core))
                        .flatten();
                    if let Some(Err(e)) = done {
                        tracing::error!("turn task failed: {e}");
                    }
                    self.core.state.with(|s| s.live.apply_pending());
                }
            }
        }
        // End of input: requests already taken still get their answers.
        while self.answers.join_next().await.is_some() {}
        Box::pin(super::lifecycle::session_end(&self.core, self.end_reason)).await;
        let services = &self.core.services;
        services.closed.cancel();
        Box::pin(services.mcp.shutdown()).await;
        services.shell.background.kill_all();
        services.emitter.end();
    }

    /// Stops the running turn: cancelled first so it kills its tools, aborted if it has
    /// not ended within the grace period. Nothing of it runs on in the host process.
    async fn close(&mut self) {
        self.answers.abort_all();
        self.interrupt(true, StopCause::Closing);
        if let Some(mut t) = self.current.take()
            && tokio::time::timeout(CLOSE_GRACE, &mut t.handle)
                .await
                .is_err()
        {
            t.handle.abort();
            let _ = t.handle.await;
        }
    }

    fn start_turn(&mut self, prompt: QueuedPrompt) {
        self.idle_deadline = None;
        let stop = TurnStop::default();
        let core = self.core.clone();
        let turn_stop = stop.clone();
        let handle = tokio::spawn(async move {
            let ctx = TurnContext::main(core.clone(), prompt.uuid.clone(), turn_stop);
            let mut conv = core.conversation.lock().await;
            turn::run_turn(&ctx, &mut conv, prompt).await
        });
        self.current = Some(RunningTurn {
            handle,
            cancel: stop,
        });
    }

    pub(super) fn turn_running(&self) -> bool {
        self.current.is_some()
    }

    /// Cancels the running turn and, when `cancel_queued`, every queued prompt (each still
    /// gets its own result). Returns the uuids still queued.
    pub(super) fn interrupt(&mut self, cancel_queued: bool, why: StopCause) -> Vec<String> {
        if let Some(t) = &self.current {
            t.cancel.stop(why);
        }
        if cancel_queued {
            for p in std::mem::take(&mut self.queue) {
                turn::emit_cancelled_result(&self.core, &p);
            }
        }
        self.queue.iter().map(|p| p.uuid.clone()).collect()
    }

    fn handle_input(&mut self, input: Input) {
        match input {
            Input::Message(m) => self.handle_message(*m),
            Input::Reject(rejected) => {
                let (request_id, error) = *rejected;
                self.respond(request_id, Err(error));
            }
        }
    }

    fn handle_message(&mut self, message: Message) {
        match message {
            Message::User(user) => {
                if !self.report_startup_error(false) {
                    self.enqueue(user);
                }
            }
            Message::ControlRequest(req) => self.handle_control(req),
            Message::ControlResponse(resp) => {
                let id = resp.response.request_id().to_string();
                if !self.core.services.host.resolve(resp.response) {
                    tracing::warn!(
                        "control_response for unknown or expired request_id {id:?}; ignored"
                    );
                }
            }
            Message::ControlCancelRequest(c) => {
                tracing::debug!("host cancelled its request {}", c.request_id);
            }
            Message::KeepAlive(_) => {}
            other => {
                tracing::warn!(
                    "ignoring a {:?} message from the host: only user messages and control messages are accepted",
                    other.kind()
                );
            }
        }
    }

    /// A session that could not be opened as asked (a missing session, a refused
    /// `--resume-drops-turn`) runs nothing: every prompt is answered with that error as its
    /// result, and a host that only closes its input gets it once at the end. The session
    /// stays up meanwhile (its `initialize` is answered), so a client never sees a dead
    /// process; the exit code is 1. Returns whether the session is in that state.
    fn report_startup_error(&mut self, at_end: bool) -> bool {
        let Some(error) = self.core.persistence.startup_error() else {
            return false;
        };
        if !(at_end && self.startup_reported) {
            tracing::error!("{}", error.message);
            turn::emit_startup_error(&self.core, error);
            self.startup_reported = true;
        }
        true
    }

    fn enqueue(&mut self, user: UserMessage) {
        if let MessageContent::Blocks(b) = &user.message.content
            && b.is_empty()
        {
            tracing::warn!("user message with empty content ignored");
            return;
        }
        let uuid = user.uuid.clone().unwrap_or_else(emit::new_uuid);
        let prompt = QueuedPrompt {
            uuid,
            message: user,
        };
        if let Err(e) = self.check_tool_results(&prompt) {
            tracing::warn!("{e}");
            turn::emit_refused_result(&self.core, &prompt, e.to_string());
            return;
        }
        if prompt.message.should_query() == Some(false) {
            // Context for the next turn, not a turn of its own.
            let blocks = prompt.message.message.content.into_blocks();
            self.core.state.with(|s| s.pending_context.extend(blocks));
            return;
        }
        match prompt.message.priority() {
            // `now` replaces the running turn; `next` (the default) and `later` queue.
            Some("now") => {
                if let Some(t) = &self.current {
                    // Replaced, not stopped: the SDK's word for that is "other".
                    t.cancel.stop(StopCause::Stopped {
                        source: "user",
                        reason: "other",
                        via: Some("client"),
                    });
                }
                self.queue.push_front(prompt);
            }
            _ => self.queue.push_back(prompt),
        }
    }

    /// A `tool_result` from the host must answer a tool use the model made and nobody
    /// answered; anything else would reach the API as an invalid request.
    fn check_tool_results(&self, prompt: &QueuedPrompt) -> Result<(), UnansweredToolResult> {
        let MessageContent::Blocks(blocks) = &prompt.message.message.content else {
            return Ok(());
        };
        let ids: Vec<&str> = blocks
            .iter()
            .filter_map(ContentBlock::as_tool_result)
            .map(|r| r.tool_use_id.as_str())
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        // While a turn runs its calls are its own to answer; a queued prompt is checked
        // against the conversation as it stands.
        let open = match self.core.conversation.try_lock() {
            Ok(conv) => conv.unanswered_tool_uses(),
            Err(_) => Vec::new(),
        };
        match ids.iter().find(|id| !open.iter().any(|o| o == *id)) {
            Some(id) => Err(UnansweredToolResult {
                tool_use_id: id.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Answers the host's control request `request_id`.
    pub(super) fn respond(
        &self,
        request_id: String,
        answer: Result<Option<Value>, impl std::fmt::Display>,
    ) {
        self.core
            .services
            .emitter
            .control_answer(request_id, answer);
    }
}
