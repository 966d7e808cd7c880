//! Every outbound line gets the session id and its own uuid, and waits in one bounded
//! outbox until the front end reads it.
//!
//! Policy when the host stops reading: nothing is ever dropped. `emit` itself never blocks
//! (it is called from synchronous code), so the sources that can produce without bound —
//! the model stream and the tool pipeline — wait on [`Emitter::writable`] before producing
//! more. The outbox therefore holds at most its capacity plus what one step emits (one
//! model event, or the lines of one tool call), and a host that never reads stalls the
//! turn instead of growing dcl's memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use dcl_events::{AgentEvent, Item};

use dcl_protocol::system::SystemSubtype;
use dcl_protocol::{Extra, Message};
use serde_json::Value;
use tokio::sync::Notify;

use super::dialect::Dialect;
use super::event::Event;

/// What the session hands to its front end.
#[derive(Debug)]
pub enum Outbound {
    Line(Box<Message>),
    /// A typed event (sessions opened with [`Streams::events`]).
    Event(Box<AgentEvent>),
    /// The session is over; nothing follows.
    End,
}

/// Lines waiting for the front end before producers pause (`DCL_OUTBOX_LINES`).
pub const DEFAULT_OUTBOX_LINES: usize = 1024;

struct Queue {
    lines: VecDeque<Outbound>,
    /// The front end dropped its handle: nobody will read, so nothing is kept.
    reader_gone: bool,
}

/// The bounded queue between a session and its front end.
pub struct Outbox {
    queue: Mutex<Queue>,
    readable: Notify,
    writable: Notify,
    capacity: usize,
}

impl Outbox {
    pub fn new(capacity: usize) -> Arc<Outbox> {
        Arc::new(Outbox {
            queue: Mutex::new(Queue {
                lines: VecDeque::new(),
                reader_gone: false,
            }),
            readable: Notify::new(),
            writable: Notify::new(),
            capacity: capacity.max(1),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        match self.queue.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn push(&self, item: Outbound) {
        let mut q = self.lock();
        if q.reader_gone {
            return;
        }
        q.lines.push_back(item);
        drop(q);
        self.readable.notify_one();
    }

    /// Lines waiting to be read.
    pub fn len(&self) -> usize {
        self.lock().lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The next item, waiting for one. Cancel-safe: a dropped wait takes nothing.
    pub async fn pop(&self) -> Outbound {
        loop {
            let notified = self.readable.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(item) = self.try_pop() {
                return item;
            }
            notified.await;
        }
    }

    /// Waits until an item is queued (or nobody reads any more), taking nothing: a host
    /// whose waits can be abandoned mid-delivery (asyncio) takes the item itself, on its
    /// own thread, once it knows the wait is still wanted.
    pub async fn readable(&self) {
        loop {
            let notified = self.readable.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let q = self.lock();
                if q.reader_gone || !q.lines.is_empty() {
                    return;
                }
            }
            notified.await;
        }
    }

    pub fn try_pop(&self) -> Option<Outbound> {
        let item = {
            let mut q = self.lock();
            let item = q.lines.pop_front();
            if q.lines.is_empty() {
                // Read out: the buffer goes back, so an idle session keeps no room sized
                // for its last turn.
                q.lines = VecDeque::new();
            }
            item
        };
        if item.is_some() {
            self.writable.notify_waiters();
        }
        item
    }

    /// Called when the front end's handle is dropped: queued lines are freed and
    /// producers never wait again.
    pub fn reader_gone(&self) {
        let mut q = self.lock();
        q.reader_gone = true;
        q.lines.clear();
        drop(q);
        self.writable.notify_waiters();
    }

    /// Waits until the outbox has room (or nobody reads any more).
    pub async fn writable(&self) {
        loop {
            let notified = self.writable.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let q = self.lock();
                if q.reader_gone || q.lines.len() < self.capacity {
                    return;
                }
            }
            notified.await;
        }
    }
}

/// What a session produces for its front end: wire lines, typed events, or both (in one
/// outbox, so their order is kept and one reader's pace holds both back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streams {
    pub lines: bool,
    pub events: bool,
}

impl Streams {
    pub const LINES: Streams = Streams {
        lines: true,
        events: false,
    };
    pub const EVENTS: Streams = Streams {
        lines: false,
        events: true,
    };
    pub const BOTH: Streams = Streams {
        lines: true,
        events: true,
    };
}

impl Default for Streams {
    fn default() -> Self {
        Streams::LINES
    }
}

#[derive(Clone)]
pub struct Emitter {
    outbox: Arc<Outbox>,
    session_id: Arc<Mutex<String>>,
    dialect: Dialect,
    streams: Streams,
    /// What typed events refer back to (kept only when the session produces them).
    open: Arc<Mutex<Open>>,
}

#[derive(Default)]
struct Open {
    /// Tool call items started and not completed yet, by id: their completion repeats
    /// the call with its status and result.
    calls: HashMap<String, Item>,
    /// The input of each `AskUserQuestion` call waiting for answers, by request id: an
    /// `answer_question` command carries the answers only.
    questions: HashMap<String, Value>,
}

pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Emitter {
    pub fn new(outbox: Arc<Outbox>, session_id: String) -> Self {
        Emitter {
            outbox,
            session_id: Arc::new(Mutex::new(session_id)),
            dialect: Dialect::default(),
            streams: Streams::LINES,
            open: Arc::default(),
        }
    }

    /// The same emitter producing `streams`.
    pub(crate) fn with_streams(mut self, streams: Streams) -> Self {
        self.streams = streams;
        self
    }

    /// Whether anyone reads typed events (so callers need not build them otherwise).
    pub(crate) fn wants_events(&self) -> bool {
        self.streams.events
    }

    /// Sends one typed event, built only when the session produces events.
    pub(crate) fn agent(&self, make: impl FnOnce() -> AgentEvent) {
        if self.streams.events {
            self.outbox.push(Outbound::Event(Box::new(make())));
        }
    }

    /// Remembers a tool call item that was started, for its completion.
    pub(crate) fn open_call(&self, item: &Item) {
        if self.streams.events {
            lock(&self.open).calls.insert(item.id.clone(), item.clone());
        }
    }

    /// The started tool call item `id`, forgotten (it is being completed).
    pub(crate) fn take_call(&self, id: &str) -> Option<Item> {
        if !self.streams.events {
            return None;
        }
        lock(&self.open).calls.remove(id)
    }

    /// The started tool call `id`, if it is still open.
    pub(crate) fn open_tool_call(&self, id: &str) -> Option<dcl_events::ToolCall> {
        lock(&self.open)
            .calls
            .get(id)
            .and_then(Item::as_tool_call)
            .cloned()
    }

    /// Remembers the input of the question asked under `request_id`.
    pub(crate) fn asked(&self, request_id: &str, input: Value) {
        if self.streams.events {
            lock(&self.open)
                .questions
                .insert(request_id.to_string(), input);
        }
    }

    /// The input of the question asked under `request_id`, forgotten.
    pub(crate) fn take_question(&self, request_id: &str) -> Option<Value> {
        lock(&self.open).questions.remove(request_id)
    }

    /// The same emitter rendering [`Event`]s in `dialect` (until set: Claude's lines,
    /// with neither `tool_progress` nor legacy lines).
    pub(crate) fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    pub fn session_id(&self) -> String {
        match self.session_id.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// From now on lines carry `id` (`/clear` starts a new conversation id).
    pub fn set_session_id(&self, id: String) {
        match self.session_id.lock() {
            Ok(mut g) => *g = id,
            Err(p) => *p.into_inner() = id,
        }
    }

    pub fn outbox(&self) -> &Arc<Outbox> {
        &self.outbox
    }

    /// Waits until the front end has read enough for more output to be produced.
    pub async fn writable(&self) {
        self.outbox.writable().await;
    }

    /// Sends one line, stamping `session_id` and a fresh `uuid` where they are missing.
    pub fn emit(&self, mut message: Message) {
        if !self.streams.lines {
            return;
        }
        let sid = self.session_id();
        match &mut message {
            Message::User(m) => {
                m.session_id.get_or_insert(sid);
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::Assistant(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::System(m) => {
                m.session_id.get_or_insert(sid);
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::Result(m) => {
                m.session_id = sid;
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::StreamEvent(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::PromptSuggestion(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::ToolProgress(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::ControlRequest(m) => stamp(&mut m.extra, sid),
            Message::ControlResponse(m) => stamp(&mut m.extra, sid),
            Message::ControlCancelRequest(m) => stamp(&mut m.extra, sid),
            Message::KeepAlive(extra) => stamp(extra, sid),
            // Mirror frames carry transcript entries only, as the reference sends them.
            Message::TranscriptMirror(_) => {}
            Message::ConversationReset(m) => {
                if m.session_id.is_empty() {
                    m.session_id = sid;
                }
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::Text(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::ToolStart(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::ToolResult(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::Usage(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
        }
        self.outbox.push(Outbound::Line(Box::new(message)));
    }

    /// A typed `system` line (`SystemInit`, `SystemApiRetry`, …), stamped like any other.
    pub fn system(&self, frame: impl SystemSubtype) {
        self.emit(frame.into_message());
    }

    /// Sends the lines `event` becomes in the session's dialect.
    pub(crate) fn event(&self, event: Event<'_>) {
        for line in self.dialect.render(event) {
            self.emit(line);
        }
    }

    pub fn end(&self) {
        self.agent(|| AgentEvent::SessionEnded);
        self.outbox.push(Outbound::End);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The emitter a turn writes through: it stamps `parent_tool_use_id` on the lines of a
/// subagent's turn (`None` for the main thread), so nested turns need no other plumbing.
#[derive(Clone)]
pub struct TurnEmitter {
    inner: Emitter,
    parent_tool_use_id: Option<String>,
    /// A subagent's own text (and partial messages) reach the host only when it asked
    /// (`initialize.forwardSubagentText`); its tool calls and results always do.
    forward_text: bool,
}

impl TurnEmitter {
    pub fn new(inner: Emitter, parent_tool_use_id: Option<String>) -> Self {
        TurnEmitter {
            inner,
            parent_tool_use_id,
            forward_text: true,
        }
    }

    /// The emitter of a subagent started by the Agent call `parent_tool_use_id`.
    pub fn subagent(inner: Emitter, parent_tool_use_id: String, forward_text: bool) -> Self {
        TurnEmitter {
            inner,
            parent_tool_use_id: Some(parent_tool_use_id),
            forward_text,
        }
    }

    pub fn session(&self) -> &Emitter {
        &self.inner
    }

    /// Whether a subagent's whole conversation (its prompt and text) reaches the host.
    pub fn forwards_text(&self) -> bool {
        self.forward_text
    }

    pub fn parent_tool_use_id(&self) -> Option<&str> {
        self.parent_tool_use_id.as_deref()
    }

    pub async fn writable(&self) {
        self.inner.writable().await;
    }

    pub fn emit(&self, mut message: Message) {
        if let Some(parent) = &self.parent_tool_use_id {
            let text_only = match &message {
                Message::Assistant(m) => m.message.content.iter().all(|b| b.as_text().is_some()),
                Message::StreamEvent(_) | Message::Text(_) => true,
                // Legacy lines and results belong to the main thread.
                Message::ToolStart(_) | Message::ToolResult(_) | Message::Usage(_) => return,
                _ => false,
            };
            if text_only && !self.forward_text {
                return;
            }
            let value = Some(Some(parent.clone()));
            match &mut message {
                Message::Assistant(m) => m.parent_tool_use_id = value,
                Message::User(m) => m.parent_tool_use_id = value,
                Message::StreamEvent(m) => m.parent_tool_use_id = value,
                _ => {}
            }
        }
        self.inner.emit(message);
    }

    pub fn system(&self, frame: impl SystemSubtype) {
        self.inner.system(frame);
    }

    /// Sends one typed event; a subagent's items and plan carry the `Agent` call that
    /// scopes them.
    pub(crate) fn agent(&self, make: impl FnOnce() -> AgentEvent) {
        let parent = self.parent_tool_use_id.clone();
        self.inner.agent(|| {
            let mut event = make();
            if parent.is_some() {
                match &mut event {
                    AgentEvent::ItemStarted { item } | AgentEvent::ItemCompleted { item } => {
                        item.parent_tool_call_id.clone_from(&parent)
                    }
                    AgentEvent::PlanUpdated {
                        parent_tool_call_id,
                        ..
                    } => parent_tool_call_id.clone_from(&parent),
                    _ => {}
                }
            }
            event
        });
    }

    pub(crate) fn wants_events(&self) -> bool {
        self.inner.wants_events()
    }

    /// A warning for the user: a `system/informational` line (level `warning`) and a
    /// `notice` event.
    pub(crate) fn warning(&self, text: impl Into<String>) {
        let text = text.into();
        self.agent(|| AgentEvent::notice(dcl_events::NoticeLevel::Warning, text.clone()));
        self.system(dcl_protocol::SystemInformational::warning(text));
    }

    /// A message for the user (a hook's `systemMessage`): a `system/informational` line
    /// (level `notice`) and an info `notice` event.
    pub(crate) fn notice(&self, text: impl Into<String>) {
        let text = text.into();
        self.agent(|| AgentEvent::notice(dcl_events::NoticeLevel::Info, text.clone()));
        self.system(dcl_protocol::SystemInformational::new(
            text,
            dcl_protocol::InformationalLevel::Notice,
        ));
    }

    /// Sends the lines `event` becomes in the session's dialect, as [`TurnEmitter::emit`]
    /// sends each (a subagent's legacy lines stay with the main thread).
    pub(crate) fn event(&self, event: Event<'_>) {
        for line in self.inner.dialect.render(event) {
            self.emit(line);
        }
    }
}

fn stamp_fields(session_id: &mut String, uuid: &mut String, sid: String) {
    if session_id.is_empty() {
        *session_id = sid;
    }
    if uuid.is_empty() {
        *uuid = new_uuid();
    }
}

fn stamp(extra: &mut Extra, sid: String) {
    extra.entry("session_id").or_insert(Value::String(sid));
    extra
        .entry("uuid")
        .or_insert_with(|| Value::String(new_uuid()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcl_protocol::SystemMessage;
    use serde_json::Map;

    fn line(n: usize) -> Message {
        Message::System(SystemMessage {
            subtype: format!("s{n}"),
            session_id: None,
            uuid: None,
            fields: Map::new(),
        })
    }

    #[tokio::test]
    async fn writable_waits_while_full_and_wakes_on_read() {
        let outbox = Outbox::new(2);
        let e = Emitter::new(outbox.clone(), "sid".into());
        e.emit(line(1));
        e.emit(line(2));
        let blocked =
            tokio::time::timeout(std::time::Duration::from_millis(50), e.writable()).await;
        assert!(blocked.is_err(), "a full outbox must make producers wait");
        let waiter = tokio::spawn({
            let e = e.clone();
            async move { e.writable().await }
        });
        assert!(matches!(outbox.pop().await, Outbound::Line(_)));
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("a read frees a place")
            .expect("join");
    }

    #[tokio::test]
    async fn nothing_is_kept_once_the_reader_is_gone() {
        let outbox = Outbox::new(1);
        let e = Emitter::new(outbox.clone(), "sid".into());
        e.emit(line(1));
        outbox.reader_gone();
        e.emit(line(2));
        assert!(outbox.is_empty());
        e.writable().await;
    }

    #[test]
    fn subagent_lines_carry_their_parent() {
        let outbox = Outbox::new(8);
        let e = TurnEmitter::new(
            Emitter::new(outbox.clone(), "sid".into()),
            Some("tu_1".into()),
        );
        e.emit(Message::User(dcl_protocol::UserMessage::new(
            dcl_protocol::MessageContent::Text("x".into()),
        )));
        match outbox.try_pop() {
            Some(Outbound::Line(m)) => match *m {
                Message::User(u) => {
                    assert_eq!(u.parent_tool_use_id, Some(Some("tu_1".into())))
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_subagents_events_leave_their_legacy_lines_to_the_main_thread() {
        let outbox = Outbox::new(8);
        let dialect = Dialect::new(crate::options::Dialect::Claude, true, true);
        let session = Emitter::new(outbox.clone(), "sid".into()).with_dialect(dialect);
        let main = TurnEmitter::new(session.clone(), None);
        let sub = TurnEmitter::subagent(session, "tu_agent".into(), true);
        let kinds = |outbox: &Outbox| {
            std::iter::from_fn(|| outbox.try_pop())
                .map(|o| match o {
                    Outbound::Line(m) => serde_json::to_value(&*m).expect("json")["type"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    Outbound::Event(_) => "event".into(),
                    Outbound::End => "end".into(),
                })
                .collect::<Vec<_>>()
        };
        main.event(super::super::event::samples::tool_use_block());
        assert_eq!(kinds(&outbox), ["tool_start", "assistant"]);
        sub.event(super::super::event::samples::tool_use_block());
        assert_eq!(kinds(&outbox), ["assistant"]);
    }
}
