//! The session actor: one per conversation. It reads host messages, queues prompts, runs
//! one turn at a time on its own task (so control requests are served during a turn),
//! and emits every outbound line through its [`Emitter`].
//!
//! The modules import downwards only (`tests/module_cycles.py` fails on a cycle):
//! - parts: `emit`, `conversation`, `persist`, `checkpoints`, `hook_registry`, `state`
//!   (session state and `TurnKind`), `effort`, `model_names`, `client`, `host`;
//! - `services`: the session's types (`SessionServices`, `SessionCore`) over those parts;
//! - on the services: `models`, `mcp`, `init`, `extensions`, `hooks` (every hook event
//!   fired through one function, for the turn and the session alike);
//! - `turn`: the agent loop, its tools (`turn::registry`) and result;
//! - above the turn: `context`, `lifecycle`, `elicitation`, the `actor`, its `requests`
//!   and `control` handlers, and `build`, which puts a session together.

mod actor;
mod build;
mod checkpoints;
mod client;
mod control;
pub mod conversation;
mod describe;
pub mod effort;
mod elicitation;
pub mod emit;
mod extensions;
mod history;
mod hook_registry;
mod hooks;
pub mod host;
mod init;
mod lifecycle;
mod mcp;
mod mcp_approval;
mod model_names;
pub mod models;
mod persist;
mod remote_store;
pub(crate) mod requests;
mod services;
mod state;
mod turn;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use dcl_events::{AgentEvent, SessionCommand};
use dcl_protocol::{Message, UserMessage};
use tokio::runtime::Handle;
use tokio::sync::mpsc;

use crate::options::{OptionsError, SessionOptions};
pub use build::{SavedSession, saved_sessions};
pub use emit::{Emitter, Outbound, Outbox, Streams};
use services::SessionCore;

/// What the front end feeds the actor through the bounded input queue.
enum Input {
    Message(Box<Message>),
    /// A host line that could not be decoded but named a `request_id`: answer `error`.
    /// `(request_id, error)`, boxed so an `Input` is two words: the queue's first block
    /// (32 slots) is allocated for every session, idle or not.
    Reject(Box<(String, String)>),
}

/// Out-of-band signals: never queued behind messages, so a full input queue cannot stop
/// an interrupt or a close.
enum Signal {
    Interrupt,
    Eof,
    Close,
}

/// Lines the host may have sent that the actor has not taken yet (`DCL_INPUT_QUEUE`).
const DEFAULT_INPUT_QUEUE: usize = 1024;

/// A session, as every front end (CLI, Python, Node, Java) holds it.
pub struct Session {
    input: mpsc::Sender<Input>,
    signals: mpsc::UnboundedSender<Signal>,
    outbox: Arc<Outbox>,
    ended: AtomicBool,
    core: Arc<SessionCore>,
}

/// The session is gone; nothing more can be sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the session is closed")]
pub struct SessionClosed;

/// Why a message was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    #[error("the session is closed")]
    Closed,
    /// The input queue holds this many lines the session has not read yet.
    #[error("the session's input queue is full ({0} lines)")]
    Full(usize),
    /// A command that makes no message the session reads.
    #[error("the command cannot be sent: {0}")]
    BadCommand(String),
}

impl Session {
    /// Validates the options and starts the session actor on `handle`; it produces wire
    /// lines ([`Session::recv`]).
    pub fn spawn(handle: &Handle, options: SessionOptions) -> Result<Session, OptionsError> {
        Session::spawn_with(handle, options, Streams::LINES)
    }

    /// [`Session::spawn`], producing `streams`: wire lines ([`Session::recv`]), typed
    /// events ([`Session::recv_event`]), or both in one order ([`Session::recv_output`]).
    pub fn spawn_with(
        handle: &Handle,
        options: SessionOptions,
        streams: Streams,
    ) -> Result<Session, OptionsError> {
        let core = Arc::new(SessionCore::build_with(options, streams)?);
        // MCP elicitations reach the session's hooks through the host channel.
        core.services
            .host
            .attach_elicitation_hooks(Arc::new(elicitation::SessionElicitation(Arc::downgrade(
                &core,
            ))));
        // Background shells fire TaskCreated / TaskCompleted.
        core.services
            .shell
            .background
            .set_listener(Arc::new(hooks::ShellTaskHooks(Arc::downgrade(&core))));
        let capacity = core
            .services
            .opts
            .input_queue
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_INPUT_QUEUE);
        let (in_tx, in_rx) = mpsc::channel(capacity);
        let (sig_tx, sig_rx) = mpsc::unbounded_channel();
        let outbox = core.services.emitter.outbox().clone();
        let _guard = handle.enter();
        core.start_configured_servers();
        handle.spawn(actor::Actor::new(core.clone(), in_rx, sig_rx).run());
        Ok(Session {
            input: in_tx,
            signals: sig_tx,
            outbox,
            ended: AtomicBool::new(false),
            core,
        })
    }

    /// The session's current id: `/clear` starts a new one.
    pub fn session_id(&self) -> String {
        self.core.services.emitter.session_id()
    }

    /// The transcript's file, once it exists (a resumed session's at once): the
    /// interactive terminal shows the earlier conversation from it.
    pub fn transcript_path(&self) -> Option<std::path::PathBuf> {
        self.core.persistence.transcript_path()
    }

    /// The conversation so far as completed items (a resumed session's history, for a
    /// front end to show before the first turn). Empty while a turn holds the
    /// conversation.
    pub fn history(&self) -> Vec<AgentEvent> {
        match self.core.conversation.try_lock() {
            Ok(conv) => history::events(conv.items()),
            Err(_) => Vec::new(),
        }
    }

    /// Hands one host message (user message, control request or response) to the session.
    /// Never blocks: a full input queue is an error the caller may retry.
    pub fn send(&self, message: Message) -> Result<(), SendError> {
        if self.ended.load(Ordering::SeqCst) {
            return Err(SendError::Closed);
        }
        self.input
            .try_send(Input::Message(Box::new(message)))
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => SendError::Full(self.input.max_capacity()),
                mpsc::error::TrySendError::Closed(_) => SendError::Closed,
            })
    }

    /// Whether `recv` has seen the end of the session.
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The next outbound message; `None` once the session has ended.
    pub async fn recv(&self) -> Option<Message> {
        if self.ended.load(Ordering::SeqCst) {
            return None;
        }
        loop {
            match self.recv_output().await? {
                Output::Line(m) => return Some(*m),
                Output::Event(_) => {}
            }
        }
    }

    /// The next typed event (lines, if the session also produces them, are skipped);
    /// `None` once the session has ended.
    pub async fn recv_event(&self) -> Option<AgentEvent> {
        loop {
            match self.recv_output().await? {
                Output::Event(e) => return Some(*e),
                Output::Line(_) => {}
            }
        }
    }

    /// The next line or event, in the order the session produced them; `None` once the
    /// session has ended.
    pub async fn recv_output(&self) -> Option<Output> {
        if self.ended.load(Ordering::SeqCst) {
            return None;
        }
        match self.outbox.pop().await {
            Outbound::Line(m) => Some(Output::Line(m)),
            Outbound::Event(e) => Some(Output::Event(e)),
            Outbound::End => {
                self.ended.store(true, Ordering::SeqCst);
                None
            }
        }
    }

    /// Hands one command to the session. Never blocks: a full input queue is an error the
    /// caller may retry. A command the session cannot take (an interrupt, end of input)
    /// goes out of band, like [`Session::interrupt`].
    pub fn command(&self, command: SessionCommand) -> Result<(), SendError> {
        match command {
            SessionCommand::Interrupt => {
                self.interrupt();
                Ok(())
            }
            SessionCommand::EndInput => {
                self.end_input();
                Ok(())
            }
            other => {
                let message = emit::command::into_message(other, &self.core.services.emitter)
                    .map_err(|e| SendError::BadCommand(e.to_string()))?;
                self.send(message)
            }
        }
    }

    /// Lines emitted and not read yet (bounded by the outbox; see [`emit`]).
    pub fn queued(&self) -> usize {
        self.outbox.len()
    }

    /// Requests to the host still waiting for an answer.
    pub fn pending_host_requests(&self) -> usize {
        self.core.services.host.pending()
    }

    /// Answers a host request that could not be decoded with an `error` control response.
    pub fn reject(&self, request_id: String, error: String) -> Result<(), SessionClosed> {
        self.input
            .try_send(Input::Reject(Box::new((request_id, error))))
            .map_err(|_| SessionClosed)
    }

    /// Every outbound message that is ready, waiting for the first (at most `max`): one
    /// wake-up per burst for hosts where waking is costly. Empty once the session has ended.
    pub async fn recv_batch(&self, max: usize) -> Vec<Message> {
        loop {
            if let Some(batch) = self.try_recv_batch(max) {
                return batch;
            }
            self.outbox.readable().await;
        }
    }

    /// What [`Session::recv_batch`] would return now, without waiting: `None` when nothing
    /// is ready yet, an empty batch once the session has ended.
    pub fn try_recv_batch(&self, max: usize) -> Option<Vec<Message>> {
        if self.ended.load(Ordering::SeqCst) {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        while out.len() < max.max(1) {
            match self.outbox.try_pop() {
                Some(Outbound::Line(m)) => out.push(*m),
                // A session producing both streams is read through `recv_output`.
                Some(Outbound::Event(_)) => {}
                Some(Outbound::End) => {
                    self.ended.store(true, Ordering::SeqCst);
                    return Some(out);
                }
                None => break,
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Waits until [`Session::try_recv_batch`] has something to give (a message, or the
    /// end), taking nothing: dropping or abandoning this wait can never lose a message.
    pub async fn readable(&self) {
        if !self.ended.load(Ordering::SeqCst) {
            self.outbox.readable().await;
        }
    }

    /// Interrupts the running turn (as an `interrupt` control request would, unanswered).
    pub fn interrupt(&self) {
        let _ = self.signals.send(Signal::Interrupt);
    }

    /// No more input will come: finish the running and queued turns, then end.
    pub fn end_input(&self) {
        let _ = self.signals.send(Signal::Eof);
    }

    /// Stops at once: the running turn is cancelled (its tools killed) and the session ends.
    pub fn close(&self) {
        let _ = self.signals.send(Signal::Close);
    }
}

impl Drop for Session {
    /// Nobody can read this session any more: it stops, and nothing it still emits is kept.
    fn drop(&mut self) {
        let _ = self.signals.send(Signal::Close);
        self.outbox.reader_gone();
    }
}

/// One item of a session's output.
#[derive(Debug)]
pub enum Output {
    Line(Box<Message>),
    Event(Box<AgentEvent>),
}

/// A prompt waiting for its turn.
#[derive(Debug, Clone)]
pub(crate) struct QueuedPrompt {
    pub uuid: String,
    pub message: UserMessage,
}
