//! Sessions that last: every conversation item goes to the session's transcript
//! (`dcl_store`, the reference CLI's layout), a resumed session starts from its transcript,
//! and with `--session-mirror` the committed entries leave as `transcript_mirror` frames
//! before each result.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use dcl_protocol::{AssistantPayload, ContentBlock, StartupFailureReason};
use dcl_store::{
    CompactIds, Homes, MirrorSink, Redactor, ResumeRequest, SessionState, Store, StoreError,
    Target, Transcript, TranscriptOptions,
};
use serde_json::{Map, Value, json};

use super::conversation::{Boundary, Conversation, Entry, Item, NewItem, Recorder, UserOrigin};
use super::emit::{StoreFrames, new_uuid};
use super::remote_store::{Remote, RemoteError, RemoteStore};
use crate::options::SessionOptions;

/// What a tool call left open by a session that died mid-tool is answered with.
const INTERRUPTED_TOOL: &str =
    "The tool call was interrupted: the session ended before it finished.";

/// Why `rename_session` could not write the title.
#[derive(Debug, thiserror::Error)]
pub enum RenameError {
    #[error("this session keeps no transcript (--no-session-persistence)")]
    NoTranscript,
    #[error("the session's transcript could not be created")]
    NotCreated,
    #[error("{}: {message}", path.display())]
    Write {
        path: std::path::PathBuf,
        message: String,
    },
}

/// A session's persistence, fixed when it opens.
pub(crate) struct Persistence {
    recorder: Option<Arc<TranscriptRecorder>>,
    mirror: Option<MirrorSink>,
    /// The session store the transcript drains to (`--session-store`), if any.
    remote: Remote,
    /// A `--fork-session` resume: its copied chain passes the fork barrier before the
    /// `initialize` answer.
    forked: bool,
    /// A resume that could not be done: the host gets it as the error result of each
    /// prompt (or once at the end of its input), after its `initialize` is answered.
    startup_error: Mutex<Option<StartupError>>,
}

/// Why a session could not be opened as asked.
#[derive(Clone, Debug)]
pub(crate) struct StartupError {
    pub message: String,
    /// The error result's `startup_failure_reason` (the TS SDK's `SDKStartupFailureReason`),
    /// for the failures that list names.
    pub reason: Option<StartupFailureReason>,
}

impl StartupError {
    fn other(message: impl Into<String>) -> Self {
        StartupError {
            message: message.into(),
            reason: None,
        }
    }

    fn store(e: &StoreError) -> Self {
        let reason = match e {
            StoreError::SessionNotFound { .. } => Some(StartupFailureReason::ResumeTargetNotFound),
            _ => None,
        };
        StartupError {
            message: e.to_string(),
            reason,
        }
    }

    fn remote(e: &RemoteError) -> Self {
        match e {
            RemoteError::Layout(s) => StartupError::store(s),
            other => StartupError::other(other.to_string()),
        }
    }
}

/// What opening a session's persistence decided.
pub(crate) struct Opened {
    pub session_id: String,
    pub persistence: Persistence,
    /// The resumed conversation (empty for a new session).
    pub items: Vec<Item>,
    /// What the resumed session carried besides its history.
    pub state: Option<SessionState>,
}

impl Persistence {
    /// Subscribes the transcript to `conv` and answers tool calls a crash left open.
    pub fn attach(&self, conv: &mut Conversation) {
        if let Some(r) = &self.recorder {
            conv.subscribe(r.clone());
        }
        let open = conv.unanswered_tool_uses();
        if open.is_empty() {
            return;
        }
        let prompt_uuid = conv
            .items()
            .last()
            .map(|i| i.prompt_uuid.clone())
            .unwrap_or_default();
        let content = open
            .iter()
            .map(|id| {
                ContentBlock::tool_result(
                    id.clone(),
                    dcl_protocol::ToolResultContent::Text(INTERRUPTED_TOOL.into()),
                    Some(true),
                )
            })
            .collect();
        conv.record(NewItem {
            uuid: new_uuid(),
            prompt_uuid,
            entry: Entry::User {
                as_text: false,
                content,
                origin: UserOrigin::ToolResult {
                    tool_use_result: None,
                },
            },
        });
    }

    /// A subagent's transcript recorder, beside the session's transcript (with its
    /// `.meta.json`); `None` when the session has no open transcript.
    pub fn subagent_recorder(&self, agent_id: &str, meta: &Value) -> Option<Arc<dyn Recorder>> {
        let main = self.recorder.as_ref()?;
        let st = lock(&main.state);
        let RecState::Open(t) = &*st else {
            return None;
        };
        match t.subagent(agent_id, meta) {
            Ok(sub) => Some(Arc::new(TranscriptRecorder {
                store: main.store.clone(),
                opts: main.opts.clone(),
                state: Mutex::new(RecState::Open(Box::new(sub))),
                excluded: Mutex::new(Vec::new()),
            })),
            Err(e) => {
                tracing::warn!("no transcript for subagent {agent_id}: {e}");
                None
            }
        }
    }

    /// `/clear`: the next entry starts a new transcript, for `session_id`.
    pub fn reset(&self, session_id: &str) {
        if let Some(r) = &self.recorder {
            r.reset(session_id);
        }
    }

    /// The transcript's file, once it exists (hook inputs' `transcript_path`).
    pub fn transcript_path(&self) -> Option<std::path::PathBuf> {
        let r = self.recorder.as_ref()?;
        match &*lock(&r.state) {
            RecState::Open(t) => Some(t.path().to_path_buf()),
            _ => None,
        }
    }

    /// A subagent's transcript file, once it exists (SubagentStop's
    /// `agent_transcript_path`).
    pub fn subagent_transcript_path(&self, agent_id: &str) -> Option<std::path::PathBuf> {
        let r = self.recorder.as_ref()?;
        match &*lock(&r.state) {
            RecState::Open(t) => t.subagent_path(agent_id).ok().filter(|p| p.is_file()),
            _ => None,
        }
    }

    /// `rename_session`: a `custom-title` entry in the transcript (created if the session
    /// has none yet). Errs when the session keeps no transcript.
    pub fn rename(&self, title: &str) -> Result<(), RenameError> {
        let r = self.recorder.as_ref().ok_or(RenameError::NoTranscript)?;
        let mut result = Err(RenameError::NotCreated);
        r.with_transcript(|t| {
            let written = t.custom_title(title);
            result = match &written {
                Ok(()) => Ok(()),
                Err(e) => Err(RenameError::Write {
                    path: t.path().to_path_buf(),
                    message: e.to_string(),
                }),
            };
            written
        });
        result
    }

    /// Why the session could not be opened as asked, if it could not.
    pub fn startup_error(&self) -> Option<StartupError> {
        lock(&self.startup_error).clone()
    }

    /// Before each result: the state line (model, mode, totals) that a resume carries
    /// over, then the mirror frames of everything committed since the last result.
    pub fn before_result(&self, state: &SessionState) -> StoreFrames {
        if let Some(r) = &self.recorder {
            r.write_state(state);
        }
        StoreFrames {
            warnings: self
                .remote
                .as_ref()
                .map(|r| r.warnings())
                .unwrap_or_default(),
            mirror: self.mirror_frames(),
        }
    }

    /// The fork barrier (`session_store_fork_barrier_v1`): before `initialize` is
    /// answered, a fork's copied entries are in dcl's session store and leave as
    /// `transcript_mirror` frames, so a host's store holds the fork before it goes on.
    /// Empty for any other session.
    pub fn fork_barrier(&self) -> StoreFrames {
        if !self.forked {
            return StoreFrames::default();
        }
        let mut out = StoreFrames::default();
        if let Some(r) = &self.remote {
            if !r.barrier() {
                tracing::warn!("session store: the fork's entries are not all stored yet");
            }
            out.warnings = r.warnings();
        }
        out.mirror = self.mirror_frames();
        out
    }

    fn mirror_frames(&self) -> Vec<Value> {
        self.mirror
            .as_ref()
            .map(|m| m.drain_frames())
            .unwrap_or_default()
    }
}

impl Drop for Persistence {
    /// The session is over: what is queued for the session store goes out (bounded) and
    /// its leases are given up.
    fn drop(&mut self) {
        if let Some(r) = &self.remote {
            r.close();
        }
    }
}

/// Opens the session's store: a new transcript (created with its first entry), or the
/// resumed one (`--resume`, `--continue`, `--fork-session`, `--resume-session-at`,
/// `--resume-drops-turn`). Never fails: what cannot be done becomes the start-up error.
/// With a session store (`store_url`), a resumed session the store holds is brought into
/// the local layout first, and the session's lease is taken.
pub(crate) fn open(
    opts: &SessionOptions,
    homes: Homes,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    requested_id: Option<String>,
    store_url: Option<&str>,
) -> Opened {
    let persist = opts.persist_session != Some(false);
    let store = Store::new(homes, cwd);
    let mut redactor = Redactor::from_env(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if let Some(k) = &opts.api_key {
        redactor.add(k);
    }
    // A store is only of use to a session that keeps a transcript.
    if store_url.is_some() && !persist {
        tracing::warn!("the session store is not used: this session keeps no transcript");
    }
    let (remote, remote_error) =
        match RemoteStore::open(store_url.filter(|_| persist), env, &store, &mut redactor) {
            Ok(r) => (r.map(Arc::new), None),
            Err(e) => (None, Some(e.to_string())),
        };
    let mirror = opts.session_mirror.then(MirrorSink::new);
    let topts = TranscriptOptions {
        redactor: Arc::new(redactor),
        mirror: mirror.clone(),
        spool: remote.as_ref().map(|r| r.sink()),
    };
    let fresh = |id: String, error: Option<StartupError>| {
        let error = error
            .or_else(|| remote_error.clone().map(StartupError::other))
            .or_else(|| {
                // A new session's lease, so no other worker writes it meanwhile.
                let r = remote.as_ref().filter(|_| persist)?;
                r.acquire(&id).err().map(|e| StartupError::remote(&e))
            });
        let recorder = (persist && error.is_none()).then(|| {
            Arc::new(TranscriptRecorder {
                store: store.clone(),
                opts: topts.clone(),
                state: Mutex::new(RecState::Pending {
                    session_id: id.clone(),
                }),
                excluded: Mutex::new(Vec::new()),
            })
        });
        Opened {
            session_id: id,
            persistence: Persistence {
                recorder,
                mirror: mirror.clone(),
                remote: remote.clone(),
                forked: false,
                startup_error: Mutex::new(error),
            },
            items: Vec::new(),
            state: None,
        }
    };

    let mut target = match (&opts.resume, opts.continue_conversation) {
        (Some(id), _) => Target::Id(id.clone()),
        (None, true) => Target::Continue,
        (None, false) => {
            let id = requested_id.unwrap_or_else(new_uuid);
            let in_use = store
                .files_for(&id)
                .ok()
                .filter(|f| std::fs::metadata(&f.transcript).is_ok_and(|m| m.len() > 0));
            let error = in_use.filter(|_| persist).map(|f| {
                StartupError::store(&StoreError::SessionExists {
                    session_id: id.clone(),
                    path: f.transcript,
                })
            });
            return fresh(id, error);
        }
    };
    if let Some(e) = &remote_error {
        return fresh(
            requested_id.unwrap_or_else(new_uuid),
            Some(StartupError::other(e.clone())),
        );
    }
    if let Some(r) = &remote
        && let Err(e) = r.prepare_resume(&store, &mut target, !opts.fork_session)
    {
        return fresh(
            requested_id.unwrap_or_else(new_uuid),
            Some(StartupError::remote(&e)),
        );
    }
    let req = ResumeRequest {
        target,
        at: opts.resume_session_at.clone(),
        drops_turn: opts.resume_drops_turn.clone(),
    };
    let resumed = match store.resume(&req) {
        Ok(r) => r,
        // `--continue` with nothing to continue starts afresh, as the reference does.
        Err(StoreError::NothingToContinue { .. }) => {
            return fresh(requested_id.unwrap_or_else(new_uuid), None);
        }
        Err(e) => {
            return fresh(
                requested_id.unwrap_or_else(new_uuid),
                Some(StartupError::store(&e)),
            );
        }
    };
    for w in resumed.warnings() {
        tracing::warn!("{w}");
    }
    let fork_id = opts
        .fork_session
        .then(|| requested_id.clone().unwrap_or_else(new_uuid));
    let session_id = fork_id
        .clone()
        .unwrap_or_else(|| resumed.session_id().to_string());
    // The session this worker writes from now on (the fork, or the resumed one; a resume
    // by id already holds it, `--continue` takes it here).
    if let Some(r) = &remote
        && persist
        && let Err(e) = r.acquire(&session_id)
    {
        return fresh(session_id, Some(StartupError::remote(&e)));
    }
    let source_excluded = resumed
        .state
        .as_ref()
        .map(|s| s.excluded.clone())
        .unwrap_or_default();
    let (recorder, entries) = if persist {
        match store.reopen(&resumed, fork_id.as_deref(), topts.clone()) {
            Ok(r) => (
                Some(Arc::new(TranscriptRecorder {
                    store: store.clone(),
                    opts: topts.clone(),
                    state: Mutex::new(RecState::Open(Box::new(r.transcript))),
                    excluded: Mutex::new(excluded_in(&r.entries, &source_excluded)),
                })),
                r.entries,
            ),
            Err(e) => return fresh(session_id, Some(StartupError::store(&e))),
        }
    } else {
        (None, resumed.chain_entries().cloned().collect())
    };
    Opened {
        session_id,
        persistence: Persistence {
            recorder,
            mirror,
            remote,
            forked: fork_id.is_some(),
            startup_error: Mutex::new(None),
        },
        items: mark_excluded(to_items(&entries), &excluded_in(&entries, &source_excluded)),
        state: resumed.state.clone(),
    }
}

/// The uuids of `entries` that the source session had stopped sending: its own, or (in a
/// fork, whose copies have new uuids) those whose `forkedFrom.messageUuid` it named.
fn excluded_in(entries: &[Value], excluded: &[String]) -> Vec<String> {
    if excluded.is_empty() {
        return Vec::new();
    }
    let named = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|u| excluded.iter().any(|x| x == u))
    };
    entries
        .iter()
        .filter(|e| named(e.get("uuid")) || named(e.pointer("/forkedFrom/messageUuid")))
        .filter_map(|e| e.get("uuid").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// Items the live session had stopped sending (what the API refused) stay unsent after a
/// resume.
fn mark_excluded(mut items: Vec<Item>, excluded: &[String]) -> Vec<Item> {
    for item in &mut items {
        if excluded.contains(&item.uuid) {
            item.excluded = true;
        }
    }
    items
}

/// Transcript entries (a chain, root first) as conversation items. Entries that are not
/// conversation (system lines) or do not parse are left out, with a warning for the latter.
pub(crate) fn to_items(entries: &[Value]) -> Vec<Item> {
    let mut out = Vec::new();
    let mut prompt = String::new();
    for e in entries {
        let kind = e.get("type").and_then(Value::as_str).unwrap_or("");
        let Some(uuid) = e.get("uuid").and_then(Value::as_str) else {
            continue;
        };
        let flag = |k: &str| e.get(k).and_then(Value::as_bool).unwrap_or(false);
        let message = e.get("message").cloned().unwrap_or(Value::Null);
        let entry = match kind {
            "user" => {
                let as_text = matches!(message.get("content"), Some(Value::String(_)));
                let content: Vec<ContentBlock> = match message.get("content") {
                    Some(Value::String(s)) => vec![ContentBlock::text(s.clone())],
                    Some(v @ Value::Array(_)) => match serde_json::from_value(v.clone()) {
                        Ok(c) => c,
                        Err(err) => {
                            tracing::warn!(
                                "transcript entry {uuid}: unreadable content ({err}); left out"
                            );
                            continue;
                        }
                    },
                    _ => continue,
                };
                let origin = if flag("isCompactSummary") {
                    UserOrigin::CompactSummary
                } else if content.iter().any(|b| b.as_tool_result().is_some()) {
                    UserOrigin::ToolResult {
                        tool_use_result: e.get("toolUseResult").cloned(),
                    }
                } else if flag("isMeta") {
                    UserOrigin::Continuation
                } else {
                    prompt = uuid.to_string();
                    UserOrigin::Prompt
                };
                Entry::User {
                    content,
                    origin,
                    as_text,
                }
            }
            "assistant" => match serde_json::from_value::<AssistantPayload>(message) {
                Ok(m) => Entry::Assistant {
                    message: Box::new(m),
                },
                Err(err) => {
                    tracing::warn!("transcript entry {uuid}: unreadable message ({err}); left out");
                    continue;
                }
            },
            _ => continue,
        };
        out.push(Item {
            uuid: uuid.to_string(),
            parent_uuid: e
                .get("parentUuid")
                .and_then(Value::as_str)
                .map(str::to_string),
            prompt_uuid: prompt.clone(),
            timestamp: e
                .get("timestamp")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            entry,
            excluded: false,
        });
    }
    out
}

/// The transcript as a conversation recorder. A new session's file is created with its
/// first entry, so a session that never gets a prompt leaves nothing behind.
struct TranscriptRecorder {
    store: Store,
    opts: TranscriptOptions,
    state: Mutex<RecState>,
    /// Items no longer sent to the model, carried in the state line so a resume keeps
    /// them out too.
    excluded: Mutex<Vec<String>>,
}

enum RecState {
    Pending {
        session_id: String,
    },
    Open(Box<Transcript>),
    /// The transcript could not be created; said once, then the session goes on.
    Off,
}

impl TranscriptRecorder {
    fn with_transcript(&self, f: impl FnOnce(&mut Transcript) -> dcl_store::Result<()>) {
        let mut st = lock(&self.state);
        if let RecState::Pending { session_id } = &*st {
            *st = match self.store.start(session_id, self.opts.clone()) {
                Ok(t) => RecState::Open(Box::new(t)),
                Err(e) => {
                    tracing::warn!("no transcript for this session: {e}");
                    RecState::Off
                }
            };
        }
        if let RecState::Open(t) = &mut *st
            && let Err(e) = f(t)
        {
            tracing::warn!("transcript {}: {e}", t.path().display());
        }
    }

    fn reset(&self, session_id: &str) {
        lock(&self.excluded).clear();
        let mut st = lock(&self.state);
        if !matches!(&*st, RecState::Off) {
            *st = RecState::Pending {
                session_id: session_id.to_string(),
            };
        }
    }

    fn write_state(&self, state: &SessionState) {
        let st = lock(&self.state);
        // A session without entries has no transcript to carry state in.
        if matches!(&*st, RecState::Open(_)) {
            drop(st);
            let mut state = state.clone();
            state.excluded = lock(&self.excluded).clone();
            self.with_transcript(|t| t.state(&state));
        }
    }
}

impl Recorder for TranscriptRecorder {
    fn compacted(&self, boundary: &Boundary, summary: &Item) {
        // What was excluded is gone from the history now.
        lock(&self.excluded).clear();
        let ids = CompactIds {
            boundary: boundary.uuid.clone(),
            summary: summary.uuid.clone(),
        };
        self.with_transcript(|t| {
            t.compact_as(
                &ids,
                boundary.trigger,
                boundary.pre_tokens,
                &boundary.summary,
            )
        });
    }

    fn excluded(&self, uuids: &[String]) {
        lock(&self.excluded).extend(uuids.iter().cloned());
    }

    fn record(&self, item: &Item) {
        self.with_transcript(|t| {
            t.set_leaf(item.parent_uuid.clone());
            match &item.entry {
                Entry::Assistant { message } => {
                    let msg = serde_json::to_value(message)?;
                    t.assistant(&item.uuid, msg, Map::new())
                }
                Entry::User {
                    content,
                    origin,
                    as_text,
                } => {
                    let msg = match (as_text, content.as_slice()) {
                        (true, [only]) if only.as_text().is_some() => {
                            json!({"role": "user", "content": only.as_text()})
                        }
                        _ => json!({"role": "user", "content": content}),
                    };
                    let mut extra = Map::new();
                    match origin {
                        UserOrigin::ToolResult {
                            tool_use_result: Some(r),
                        } => {
                            extra.insert("toolUseResult".into(), r.clone());
                        }
                        UserOrigin::CompactSummary => {
                            extra.insert("isVisibleInTranscriptOnly".into(), json!(true));
                            extra.insert("isCompactSummary".into(), json!(true));
                        }
                        UserOrigin::Continuation => {
                            extra.insert("isMeta".into(), json!(true));
                        }
                        _ => {}
                    }
                    t.user(&item.uuid, msg, extra)?;
                    if matches!(origin, UserOrigin::Prompt) {
                        let text: Vec<&str> =
                            content.iter().filter_map(ContentBlock::as_text).collect();
                        if !text.is_empty() {
                            t.last_prompt(&text.join(" "))?;
                        }
                    }
                    Ok(())
                }
            }
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
