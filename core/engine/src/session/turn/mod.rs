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
pub(crate) mod compact;
pub(crate) mod context_usage;
mod custom_commands;
pub(crate) mod interactive;
mod link;
mod offer;
mod orchestrator;
mod registry;
mod result;
mod sampling;
mod stream_items;
mod subagent;
mod suggestion;
mod usage;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use dcl_protocol::{ContentBlock, PermissionDenial, Usage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::QueuedPrompt;
use super::conversation::{Conversation, Entry, NewItem, UserOrigin};
use super::emit::{Event, TurnEmitter, new_uuid};
use super::hooks::HookScope;
use super::services::SessionCore;

pub(crate) use agent_loop::run_turn;
pub(crate) use result::{emit_cancelled_result, emit_refused_result, emit_startup_error};
pub(crate) use subagent::{AGENT_TOOL, AGENT_TOOL_ALIAS};

/// The tool a `--json-schema` session answers through (the reference's name).
pub(crate) const STRUCTURED_OUTPUT_TOOL: &str = "StructuredOutput";

/// How a turn ended, for the front end's exit code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnOutcome {
    pub is_error: bool,
}

pub(crate) use super::state::TurnKind;

/// Why a turn's token was cancelled, for the Interrupt hook (the SDK's `source`, `reason`
/// and `via`). The first cause recorded stands: a later cancel finds the turn already
/// stopping for the earlier reason.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum StopCause {
    /// The session is ending: the SDK fires no Interrupt then.
    Closing,
    Stopped {
        source: &'static str,
        reason: &'static str,
        via: Option<&'static str>,
    },
}

impl StopCause {
    /// An `interrupt` request or `Session::interrupt()`: a client that does not say who
    /// sent it counts as the user.
    pub const USER_STOP: StopCause = StopCause::Stopped {
        source: "user",
        reason: "stop",
        via: Some("client"),
    };
}

/// A turn's cancel token and why it was cancelled; clones share both. Whoever may stop
/// the turn (the actor, an approval) and the turn itself hold one.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnStop {
    pub token: CancellationToken,
    cause: Arc<OnceLock<StopCause>>,
}

impl TurnStop {
    /// Under `token`, with no cause of its own: a subagent under its parent's, hooks run
    /// outside a turn.
    pub fn under(token: CancellationToken) -> Self {
        TurnStop {
            token,
            cause: Arc::default(),
        }
    }

    /// Records `why` (unless a cause is already recorded), then cancels: the turn reads
    /// the cause only after it saw the cancel, so it must be there first.
    pub fn stop(&self, why: StopCause) {
        let _ = self.cause.set(why);
        self.token.cancel();
    }

    pub fn cause(&self) -> Option<StopCause> {
        self.cause.get().copied()
    }

    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

/// What one turn may use and where its lines go.
pub(crate) struct TurnContext {
    pub core: Arc<SessionCore>,
    pub emitter: TurnEmitter,
    pub cancel: TurnStop,
    /// The uuid of the user message that started this turn.
    pub prompt_uuid: String,
    /// The tools this turn offers.
    pub tools: ToolSet,
    pub kind: TurnKind,
    /// Replaces the session's system prompt (a subagent's, or the main thread's agent).
    pub system_prompt: Option<String>,
    /// The model this turn starts on (`None`: the session's current model).
    pub model: Option<String>,
    /// Model calls allowed in this turn (`None`: the session's `--max-turns`).
    pub max_turns: Option<u32>,
    /// Counts the calls of a background subagent that reports progress.
    pub progress: Option<Arc<subagent::Progress>>,
    /// Allow rules for this turn only (a command's or a skill's `allowed-tools`).
    pub grants: Arc<std::sync::Mutex<Vec<String>>>,
}

impl TurnContext {
    /// The context of a main-thread turn for `prompt` (as the session's main agent, when
    /// one is set).
    pub fn main(core: Arc<SessionCore>, prompt_uuid: String, cancel: TurnStop) -> Self {
        let emitter = TurnEmitter::new(core.services.emitter.clone(), None);
        let agent = core.state.with(|s| {
            s.main_agent
                .as_ref()
                .and_then(|name| s.agents.get(name).cloned())
        });
        let mut ctx = TurnContext {
            tools: ToolSet::all(),
            core,
            emitter,
            cancel,
            prompt_uuid,
            kind: TurnKind::Main,
            system_prompt: None,
            model: None,
            max_turns: None,
            progress: None,
            grants: Arc::default(),
        };
        if let Some(a) = agent {
            ctx.tools = ToolSet::for_agent(&a, true);
            ctx.system_prompt = Some(a.prompt.clone()).filter(|p| !p.is_empty());
            ctx.max_turns = a.max_turns;
            ctx.model = subagent::resolve_model(&ctx.core, a.model.as_deref());
        }
        ctx
    }

    /// Where this turn's hook events happen: its session, its emitter and stop, and the
    /// subagent it runs as.
    pub(crate) fn hooks(&self) -> HookScope<'_> {
        HookScope {
            core: &self.core,
            emitter: self.emitter.clone(),
            cancel: self.cancel.token.clone(),
            agent: match &self.kind {
                TurnKind::Main => None,
                TurnKind::Subagent {
                    agent_id,
                    agent_type,
                } => Some((agent_id, agent_type)),
            },
        }
    }

    pub fn is_subagent(&self) -> bool {
        matches!(self.kind, TurnKind::Subagent { .. })
    }

    /// What the model is offered in this turn.
    pub fn tool_specs(&self) -> Vec<dcl_model::ToolSpec> {
        registry::Registry::new(&self.core, &self.tools).offer()
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
        let tool_use_result = match &origin {
            UserOrigin::ToolResult { tool_use_result } => tool_use_result.clone(),
            _ => None,
        };
        self.emitter.event(Event::UserBlocks {
            uuid: uuid.clone(),
            content: &blocks,
            tool_use_result,
        });
        self.record(
            conv,
            uuid,
            Entry::User {
                as_text: false,
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
                as_text: false,
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
    without: Arc<[String]>,
    /// The main thread answers through StructuredOutput; subagents do not.
    structured: bool,
}

impl ToolSet {
    pub fn all() -> Self {
        ToolSet {
            only: None,
            without: Arc::new([]),
            structured: true,
        }
    }

    /// An agent's tools (`tools`, less `disallowedTools`); a subagent never gets the
    /// Agent tool, so delegation cannot recurse.
    pub fn for_agent(agent: &crate::agents::AgentSpec, main: bool) -> Self {
        let mut without: Vec<String> = agent.disallowed_tools.clone();
        if !main {
            // Delegation does not recurse, and only the main thread talks to the user.
            without.push(subagent::AGENT_TOOL.to_string());
            without.push(interactive::ASK_USER_QUESTION.to_string());
            without.push(interactive::EXIT_PLAN_MODE.to_string());
        }
        ToolSet {
            only: agent.tools.clone().map(Into::into),
            without: without.into(),
            structured: main,
        }
    }

    pub fn offers(&self, name: &str) -> bool {
        if name == STRUCTURED_OUTPUT_TOOL {
            return self.structured;
        }
        !self.without.iter().any(|n| n == name)
            && self
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
    /// StructuredOutput calls whose input did not match the schema.
    pub invalid_outputs: u32,
    /// The prompt's `origin`, echoed on its result.
    pub origin: Option<Value>,
    /// The history was compacted after the API refused the last request as too long; a
    /// second refusal in a row ends the turn.
    pub compacted_after_refusal: bool,
    /// The prompt's uuid, which names the turn in typed events.
    pub turn_id: String,
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
            invalid_outputs: 0,
            origin: prompt.message.origin().cloned(),
            compacted_after_refusal: false,
            turn_id: prompt.uuid.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{AgentSource, AgentSpec};

    fn agent(tools: Option<Vec<&str>>, without: Vec<&str>) -> AgentSpec {
        AgentSpec {
            name: "a".into(),
            description: "d".into(),
            prompt: "p".into(),
            tools: tools.map(|t| t.into_iter().map(str::to_string).collect()),
            disallowed_tools: without.into_iter().map(str::to_string).collect(),
            model: None,
            max_turns: None,
            background: false,
            source: AgentSource::BuiltIn,
        }
    }

    #[test]
    fn a_subagent_gets_its_tools_and_never_the_agent_tool() {
        let set = ToolSet::for_agent(&agent(Some(vec!["Read", "Agent"]), vec![]), false);
        assert!(set.offers("Read"));
        assert!(!set.offers("Bash"));
        assert!(!set.offers(subagent::AGENT_TOOL));
        assert!(!set.offers(STRUCTURED_OUTPUT_TOOL));
        let all = ToolSet::for_agent(&agent(None, vec!["Write"]), false);
        assert!(all.offers("Bash"));
        assert!(!all.offers("Write"));
        assert!(!all.offers(subagent::AGENT_TOOL));
        assert!(ToolSet::all().offers(subagent::AGENT_TOOL));
        assert!(ToolSet::all().offers(STRUCTURED_OUTPUT_TOOL));
    }
}
