//! One turn of the agent loop: prompt → model → tools → model … → one `result` line.
//!
//! - [`agent_loop`]: the loop itself, and the hooks around a prompt and a stop
//! - [`sampling`]: one model request — build, retry, stream into blocks and lines
//! - [`orchestrator`]: one tool call — hooks → policy → ask the host → run → post-hooks
//! - [`approval`]: the permission decision and the host's answer
//! - [`result`]: usage, cost and the `result` line
//!
//! A turn is `run_turn(&TurnContext, &mut Conversation, prompt)`: the context says what the
//! turn may use and where its lines go, the conversation is where its items are recorded.
//! A subagent is the same call with a child context and a child conversation.

mod agent_loop;
mod approval;
pub(crate) mod builtin;
mod orchestrator;
mod result;
mod sampling;

use std::sync::Arc;
use std::time::{Duration, Instant};

use dcl_protocol::{ContentBlock, Message, PermissionDenial, Usage, UserMessage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::QueuedPrompt;
use super::conversation::{Conversation, Entry, NewItem, UserOrigin};
use super::emit::{TurnEmitter, new_uuid, now_iso};
use super::services::{STRUCTURED_OUTPUT_TOOL, SessionCore};
use crate::tools::Tool;

pub(crate) use agent_loop::run_turn;
pub(crate) use result::{emit_cancelled_result, emit_refused_result, emit_startup_error};

/// How a turn ended, for the front end's exit code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnOutcome {
    pub is_error: bool,
}

/// What one turn may use and where its lines go.
pub(crate) struct TurnContext {
    pub core: Arc<SessionCore>,
    pub emitter: TurnEmitter,
    pub cancel: CancellationToken,
    /// The uuid of the user message that started this turn.
    pub prompt_uuid: String,
    /// The tools this turn offers.
    pub tools: ToolSet,
}

impl TurnContext {
    /// The context of a main-thread turn for `prompt`.
    pub fn main(core: Arc<SessionCore>, prompt_uuid: String, cancel: CancellationToken) -> Self {
        let emitter = TurnEmitter::new(core.services.emitter.clone(), None);
        TurnContext {
            tools: ToolSet::all(),
            core,
            emitter,
            cancel,
            prompt_uuid,
        }
    }

    pub fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools
            .offers(name)
            .then(|| self.core.services.tool(name))
            .flatten()
    }

    pub fn is_host_tool(&self, name: &str) -> bool {
        self.tools.offers(name) && self.core.services.is_host_tool(name)
    }

    pub fn tool_specs(&self) -> Vec<crate::model::ToolSpec> {
        self.core
            .tool_specs()
            .into_iter()
            .filter(|t| self.tools.offers(&t.name))
            .collect()
    }

    /// Records `entry` in the conversation under `uuid` (the uuid of its stream line).
    pub fn record(&self, conv: &mut Conversation, uuid: String, entry: Entry) {
        conv.record(NewItem {
            uuid,
            prompt_uuid: self.prompt_uuid.clone(),
            entry,
        });
    }

    /// Emits a user line holding `blocks` and records it as one item.
    pub fn emit_user(
        &self,
        conv: &mut Conversation,
        blocks: Vec<ContentBlock>,
        origin: UserOrigin,
    ) {
        let uuid = new_uuid();
        let mut line = UserMessage::new(dcl_protocol::MessageContent::Blocks(blocks.clone()));
        line.timestamp = Some(now_iso());
        line.uuid = Some(uuid.clone());
        if let UserOrigin::ToolResult { tool_use_result } = &origin {
            line.tool_use_result = tool_use_result.clone();
        }
        self.emitter.emit(Message::User(line));
        self.record(
            conv,
            uuid,
            Entry::User {
                content: blocks,
                origin,
            },
        );
    }

    /// Records text dcl adds for the model that is not a line of the stream.
    pub fn record_note(&self, conv: &mut Conversation, text: String, origin: UserOrigin) {
        self.record(
            conv,
            new_uuid(),
            Entry::User {
                content: vec![ContentBlock::text(text)],
                origin,
            },
        );
    }
}

/// Which tools a turn offers: all of the session's, or (for a subagent) a subset.
#[derive(Clone)]
pub(crate) struct ToolSet {
    only: Option<Arc<[String]>>,
}

impl ToolSet {
    pub fn all() -> Self {
        ToolSet { only: None }
    }

    pub fn offers(&self, name: &str) -> bool {
        name == STRUCTURED_OUTPUT_TOOL
            || self
                .only
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
    }
}

/// What a turn accumulates while it runs.
pub(crate) struct TurnState {
    pub started: Instant,
    pub api_time: Duration,
    pub num_turns: u32,
    pub usage: Usage,
    pub denials: Vec<PermissionDenial>,
    pub last_text: Option<String>,
    pub stop_reason: Option<String>,
    /// The model in use (the fallback after a switch).
    pub model: String,
    /// A hook asked to end the turn (`continue: false`).
    pub hook_stop: Option<String>,
    /// A PreToolUse hook deferred this call: the turn ends and reports it.
    pub deferred: Option<Value>,
    /// The input of a `StructuredOutput` call, when `--json-schema` is in force.
    pub structured: Option<Value>,
    /// Times the Stop hook kept the turn going.
    pub stop_hook_rounds: u32,
    pub structured_nudges: u32,
    /// The prompt's `origin`, echoed on its result.
    pub origin: Option<Value>,
}

impl TurnState {
    pub fn new(model: String, prompt: &QueuedPrompt) -> Self {
        TurnState {
            started: Instant::now(),
            api_time: Duration::ZERO,
            num_turns: 0,
            usage: Usage::default(),
            denials: Vec::new(),
            last_text: None,
            stop_reason: None,
            model,
            hook_stop: None,
            deferred: None,
            structured: None,
            stop_hook_rounds: 0,
            structured_nudges: 0,
            origin: prompt.message.origin().cloned(),
        }
    }
}
