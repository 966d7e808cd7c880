//! The conversation: a session's history changes only through [`Conversation::record`],
//! [`Conversation::compact`] (the history becomes one summary), [`Conversation::clear`]
//! and the exclusion of what the API refused.
//!
//! Each item is one line of the stream (a prompt, one assistant content block, one tool
//! result, a note dcl adds), carrying the uuid that line has on the stream, the uuid of the
//! item before it (the chain transcripts store), and the uuid of the user message that
//! started its turn (what checkpoints and `--resume-session-at` key on). Recorders — the
//! transcript store, checkpoints — subscribe to every item as it is recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dcl_protocol::{AssistantPayload, ContentBlock};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use dcl_model::{ApiMessage, Role};

/// Why a user-side item exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserOrigin {
    /// The host's prompt (with any hook context and `shouldQuery: false` blocks before it).
    Prompt,
    /// One tool's result; `tool_use_result` is the structured form shown to the host.
    ToolResult { tool_use_result: Option<Value> },
    /// Text dcl adds so the model goes on (a Stop hook's reason, a structured-output nudge).
    Continuation,
    /// The marker an interrupted turn leaves.
    Interrupted,
    /// The summary that replaces older history after compaction.
    CompactSummary,
}

/// What one item holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    User {
        content: Vec<ContentBlock>,
        origin: UserOrigin,
        /// The host sent this prompt's `content` as a string: the transcript keeps it one
        /// (docs/protocol.md "transcript user entries"; the SDKs find a turn by comparing it).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        as_text: bool,
    },
    /// One content block of a model response (`message.content` holds exactly that block).
    Assistant { message: Box<AssistantPayload> },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The uuid of this item's line on the stream.
    pub uuid: String,
    /// The item before it in this conversation (`None` for the first).
    pub parent_uuid: Option<String>,
    /// The uuid of the user message whose turn produced this item.
    pub prompt_uuid: String,
    pub timestamp: String,
    pub entry: Entry,
    /// Kept for the record but not sent to the model again (a prompt whose request the
    /// API refused: sending it again would fail every later turn the same way).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excluded: bool,
}

impl Item {
    pub fn role(&self) -> Role {
        match self.entry {
            Entry::User { .. } => Role::User,
            Entry::Assistant { .. } => Role::Assistant,
        }
    }

    pub fn content(&self) -> &[ContentBlock] {
        match &self.entry {
            Entry::User { content, .. } => content,
            Entry::Assistant { message } => &message.content,
        }
    }
}

/// Something that wants every item as it is recorded (transcripts, checkpoints).
pub trait Recorder: Send + Sync {
    fn record(&self, item: &Item);

    /// The history before `boundary` was replaced by `summary` (compaction). Recorders
    /// that only follow prompts need do nothing.
    fn compacted(&self, _boundary: &Boundary, _summary: &Item) {}

    /// These items stay recorded but are no longer sent to the model.
    fn excluded(&self, _uuids: &[String]) {}
}

/// Where a compaction cut the history: the `compact_boundary` line's uuid and what it
/// reports (`compact_metadata`).
#[derive(Debug, Clone, PartialEq)]
pub struct Boundary {
    pub uuid: String,
    /// `auto` or `manual`.
    pub trigger: &'static str,
    /// The estimated tokens of the history that was summarised.
    pub pre_tokens: u64,
    /// The summary as the model wrote it (the item's text adds the reference's preface).
    pub summary: String,
}

#[derive(Default)]
pub struct Conversation {
    items: Vec<Item>,
    recorders: Vec<Arc<dyn Recorder>>,
    /// Serialized size of the items sent to the model, for `get_context_usage` without
    /// taking the conversation's lock.
    size: Arc<AtomicUsize>,
}

/// A new item, before the conversation links it into the chain.
pub struct NewItem {
    pub uuid: String,
    pub prompt_uuid: String,
    pub entry: Entry,
}

impl Conversation {
    pub fn new() -> Self {
        Conversation::default()
    }

    /// A conversation that goes on from `items` (a resumed session); recorders are not
    /// told about them again.
    pub fn restore(items: Vec<Item>) -> Self {
        let c = Conversation {
            items,
            ..Conversation::default()
        };
        c.size.store(c.measure(), Ordering::Relaxed);
        c
    }

    pub fn subscribe(&mut self, recorder: Arc<dyn Recorder>) {
        self.recorders.push(recorder);
    }

    /// A handle that reads the request size without the conversation's lock.
    pub fn size_handle(&self) -> Arc<AtomicUsize> {
        self.size.clone()
    }

    pub fn items(&self) -> &[Item] {
        &self.items
    }

    pub fn last_uuid(&self) -> Option<&str> {
        self.items.last().map(|i| i.uuid.as_str())
    }

    /// Appends one item and tells every recorder; returns the stored item.
    pub fn record(&mut self, new: NewItem) -> &Item {
        let mut entry = new.entry;
        if let Entry::User { content, .. } = &mut entry {
            // Prompts are put together by appending (hook context, pending blocks): the
            // history keeps them at their size, not at the capacity they grew to.
            content.shrink_to_fit();
        }
        let item = Item {
            uuid: new.uuid,
            parent_uuid: self.last_uuid().map(str::to_string),
            prompt_uuid: new.prompt_uuid,
            timestamp: super::emit::now_iso(),
            entry,
            excluded: false,
        };
        for r in &self.recorders {
            r.record(&item);
        }
        if let Ok(s) = serde_json::to_string(item.content()) {
            self.size.fetch_add(s.len(), Ordering::Relaxed);
        }
        self.items.push(item);
        let last = self.items.len() - 1;
        &self.items[last]
    }

    /// Stops sending the user items of turn `prompt_uuid` that come after the last
    /// assistant item (the prompt and context the API refused). Tool results stay: the
    /// tool uses before them need them.
    pub fn exclude_unanswered(&mut self, prompt_uuid: &str) {
        let mut newly = Vec::new();
        for item in self.items.iter_mut().rev() {
            match &item.entry {
                Entry::Assistant { .. } => break,
                Entry::User { origin, .. } => {
                    if item.prompt_uuid == prompt_uuid
                        && !matches!(origin, UserOrigin::ToolResult { .. })
                        && !item.excluded
                    {
                        item.excluded = true;
                        newly.push(item.uuid.clone());
                    }
                }
            }
        }
        if !newly.is_empty() {
            for r in &self.recorders {
                r.excluded(&newly);
            }
        }
        self.size.store(self.measure(), Ordering::Relaxed);
    }

    /// Replaces the whole history with `summary` (compaction): the summary item starts a
    /// new chain under `boundary`, and recorders are told so they can write the boundary.
    /// Returns the summary item.
    pub fn compact(&mut self, boundary: &Boundary, summary: NewItem) -> &Item {
        let item = Item {
            uuid: summary.uuid,
            parent_uuid: Some(boundary.uuid.clone()),
            prompt_uuid: summary.prompt_uuid,
            timestamp: super::emit::now_iso(),
            entry: summary.entry,
            excluded: false,
        };
        for r in &self.recorders {
            r.compacted(boundary, &item);
        }
        self.items.clear();
        self.items.push(item);
        self.size.store(self.measure(), Ordering::Relaxed);
        &self.items[0]
    }

    /// The uuids of items kept but not sent to the model (see [`Item::excluded`]).
    pub fn excluded_uuids(&self) -> Vec<String> {
        self.items
            .iter()
            .filter(|i| i.excluded)
            .map(|i| i.uuid.clone())
            .collect()
    }

    /// Marks the items with these uuids as not sent again (a resumed session's refused
    /// prompts).
    pub fn exclude(&mut self, uuids: &[String]) {
        if uuids.is_empty() {
            return;
        }
        for item in &mut self.items {
            if uuids.contains(&item.uuid) {
                item.excluded = true;
            }
        }
        self.size.store(self.measure(), Ordering::Relaxed);
    }

    /// Goes back to before the prompt `uuid` (a rewind): that prompt and everything after
    /// it leave the history, and the next item continues the chain from the item before
    /// it (the transcript keeps the old branch, off the current chain). Returns the uuids
    /// removed; `None` when no prompt of this conversation has that uuid.
    pub fn rewind_before(&mut self, uuid: &str) -> Option<Vec<String>> {
        let at = self.prompt_index(uuid)?;
        let removed = self.items.split_off(at);
        self.size.store(self.measure(), Ordering::Relaxed);
        Some(removed.into_iter().map(|i| i.uuid).collect())
    }

    /// Where the prompt `uuid` is in the history.
    pub fn prompt_index(&self, uuid: &str) -> Option<usize> {
        self.items.iter().position(|i| {
            i.uuid == uuid
                && matches!(
                    i.entry,
                    Entry::User {
                        origin: UserOrigin::Prompt,
                        ..
                    }
                )
        })
    }

    /// Forgets everything (`/clear`).
    pub fn clear(&mut self) {
        self.items.clear();
        self.size.store(0, Ordering::Relaxed);
    }

    /// Tool uses of the last assistant response that have no result yet.
    pub fn unanswered_tool_uses(&self) -> Vec<String> {
        let mut answered = std::collections::HashSet::new();
        let mut rest = self.items.iter().rev().peekable();
        while let Some(Item {
            entry: Entry::User { content, .. },
            ..
        }) = rest.peek()
        {
            answered.extend(
                content
                    .iter()
                    .filter_map(ContentBlock::as_tool_result)
                    .map(|r| r.tool_use_id.clone()),
            );
            rest.next();
        }
        let mut open = Vec::new();
        while let Some(Item {
            entry: Entry::Assistant { message },
            ..
        }) = rest.peek()
        {
            open.extend(
                message
                    .content
                    .iter()
                    .filter_map(ContentBlock::as_tool_use)
                    .filter(|tu| !answered.contains(&tu.id))
                    .map(|tu| tu.id.clone()),
            );
            rest.next();
        }
        open.reverse();
        open
    }

    /// The history as the API wants it: roles alternate (consecutive items of one role are
    /// one message), excluded items left out.
    pub fn api_messages(&self) -> Vec<ApiMessage> {
        let mut out: Vec<ApiMessage> = Vec::with_capacity(self.items.len());
        for item in self.items.iter().filter(|i| !i.excluded) {
            let role = item.role();
            match out.last_mut() {
                Some(last) if last.role == role => {
                    last.content.extend(item.content().iter().cloned())
                }
                _ => out.push(ApiMessage {
                    role,
                    content: item.content().to_vec(),
                }),
            }
        }
        out
    }

    fn measure(&self) -> usize {
        self.items
            .iter()
            .filter(|i| !i.excluded)
            .filter_map(|i| serde_json::to_string(i.content()).ok())
            .map(|s| s.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;

    use super::*;

    fn user(text: &str, prompt: &str) -> NewItem {
        NewItem {
            uuid: super::super::emit::new_uuid(),
            prompt_uuid: prompt.into(),
            entry: Entry::User {
                as_text: false,
                content: vec![ContentBlock::text(text)],
                origin: UserOrigin::Prompt,
            },
        }
    }

    fn assistant(block: ContentBlock, prompt: &str) -> NewItem {
        NewItem {
            uuid: super::super::emit::new_uuid(),
            prompt_uuid: prompt.into(),
            entry: Entry::Assistant {
                message: Box::new(AssistantPayload {
                    id: "msg_1".into(),
                    kind: "message".into(),
                    role: "assistant".into(),
                    model: "m".into(),
                    content: vec![block],
                    stop_reason: None,
                    stop_sequence: None,
                    usage: None,
                    extra: Default::default(),
                }),
            },
        }
    }

    struct Log(Mutex<Vec<String>>);
    impl Recorder for Log {
        fn record(&self, item: &Item) {
            self.0.lock().unwrap().push(item.uuid.clone());
        }
    }

    #[test]
    fn items_chain_and_recorders_see_each() {
        let log = Arc::new(Log(Mutex::new(Vec::new())));
        let mut c = Conversation::new();
        c.subscribe(log.clone());
        let first = c.record(user("hi", "p1")).uuid.clone();
        let second = c.record(assistant(ContentBlock::text("a"), "p1")).clone();
        assert_eq!(second.parent_uuid.as_deref(), Some(first.as_str()));
        assert_eq!(second.prompt_uuid, "p1");
        assert_eq!(*log.0.lock().unwrap(), vec![first, second.uuid]);
    }

    #[test]
    fn a_rewind_cuts_before_the_prompt_and_the_chain_goes_on_from_before_it() {
        let mut c = Conversation::new();
        let first = c.record(user("a", "p1")).uuid.clone();
        let answer = c
            .record(assistant(ContentBlock::text("x"), "p1"))
            .uuid
            .clone();
        let second = c.record(user("b", "p2")).uuid.clone();
        c.record(assistant(ContentBlock::text("y"), "p2"));
        // Only a prompt's uuid is a place to go back to.
        assert_eq!(c.rewind_before(&answer), None);
        assert_eq!(c.rewind_before("nope"), None);
        let removed = c.rewind_before(&second).unwrap();
        assert_eq!(removed.len(), 2);
        assert_eq!(removed[0], second);
        assert_eq!(c.items().len(), 2);
        let next = c.record(user("c", "p3")).clone();
        assert_eq!(next.parent_uuid.as_deref(), Some(answer.as_str()));
        assert_eq!(c.api_messages().len(), 3);
        assert_eq!(c.rewind_before(&first).map(|r| r.len()), Some(3));
        assert!(c.items().is_empty());
    }

    #[test]
    fn blocks_of_one_role_merge_into_one_api_message() {
        let mut c = Conversation::new();
        c.record(user("a", "p1"));
        c.record(assistant(ContentBlock::text("x"), "p1"));
        c.record(assistant(ContentBlock::text("y"), "p1"));
        c.record(user("b", "p2"));
        let msgs = c.api_messages();
        assert_eq!(msgs.len(), 3);
        assert_eq!(msgs[1].content.len(), 2);
    }

    #[test]
    fn a_refused_prompt_is_kept_but_not_sent_again() {
        let mut c = Conversation::new();
        c.record(user("first", "p1"));
        c.record(assistant(ContentBlock::text("ok"), "p1"));
        c.record(user("poison", "p2"));
        c.exclude_unanswered("p2");
        c.record(user("third", "p3"));
        let msgs = c.api_messages();
        let text: Vec<&str> = msgs
            .iter()
            .flat_map(|m| m.content.iter().filter_map(ContentBlock::as_text))
            .collect();
        assert_eq!(text, vec!["first", "ok", "third"]);
        assert_eq!(c.items().len(), 4);
    }

    #[test]
    fn compaction_leaves_only_the_summary_and_tells_recorders() {
        struct Cuts(Mutex<Vec<(String, String)>>);
        impl Recorder for Cuts {
            fn record(&self, _: &Item) {}
            fn compacted(&self, b: &Boundary, s: &Item) {
                self.0
                    .lock()
                    .unwrap()
                    .push((b.uuid.clone(), s.uuid.clone()));
            }
        }
        let cuts = Arc::new(Cuts(Mutex::new(Vec::new())));
        let mut c = Conversation::new();
        c.subscribe(cuts.clone());
        c.record(user("old question", "p1"));
        c.record(assistant(ContentBlock::text("old answer"), "p1"));
        let boundary = Boundary {
            uuid: "b1".into(),
            trigger: "manual",
            pre_tokens: 10,
            summary: "we talked".into(),
        };
        let mut s = user("Summary: we talked", "p1");
        s.uuid = "s1".into();
        if let Entry::User { origin, .. } = &mut s.entry {
            *origin = UserOrigin::CompactSummary;
        }
        let item = c.compact(&boundary, s).clone();
        assert_eq!(item.parent_uuid.as_deref(), Some("b1"));
        assert_eq!(c.items().len(), 1);
        let text: Vec<String> = c
            .api_messages()
            .iter()
            .flat_map(|m| m.content.iter().filter_map(ContentBlock::as_text))
            .map(str::to_string)
            .collect();
        assert_eq!(text, vec!["Summary: we talked".to_string()]);
        assert_eq!(*cuts.0.lock().unwrap(), vec![("b1".into(), "s1".into())]);
        // The next item hangs from the summary.
        let next = c.record(user("new", "p2")).clone();
        assert_eq!(next.parent_uuid.as_deref(), Some("s1"));
    }

    #[test]
    fn excluded_uuids_round_trip() {
        let mut c = Conversation::new();
        c.record(user("first", "p1"));
        c.record(assistant(ContentBlock::text("ok"), "p1"));
        let poison = c.record(user("poison", "p2")).uuid.clone();
        c.exclude_unanswered("p2");
        assert_eq!(c.excluded_uuids(), vec![poison.clone()]);
        let mut restored = Conversation::restore(
            c.items()
                .iter()
                .cloned()
                .map(|mut i| {
                    i.excluded = false;
                    i
                })
                .collect(),
        );
        assert_eq!(restored.api_messages().len(), 3);
        restored.exclude(&[poison]);
        assert_eq!(restored.api_messages().len(), 2);
    }

    #[test]
    fn open_tool_uses_are_those_of_the_last_response_without_a_result() {
        let mut c = Conversation::new();
        c.record(user("go", "p1"));
        let tu = ContentBlock::tool_use("tu_1", "Bash", serde_json::json!({}));
        c.record(assistant(tu, "p1"));
        assert_eq!(c.unanswered_tool_uses(), vec!["tu_1".to_string()]);
        c.record(NewItem {
            uuid: "r".into(),
            prompt_uuid: "p1".into(),
            entry: Entry::User {
                as_text: false,
                content: vec![ContentBlock::tool_result(
                    "tu_1",
                    dcl_protocol::ToolResultContent::Text("ok".into()),
                    None,
                )],
                origin: UserOrigin::ToolResult {
                    tool_use_result: None,
                },
            },
        });
        assert!(c.unanswered_tool_uses().is_empty());
    }
}
