//! The Agent tool: a subagent is a child turn — `drive(child context, child conversation)`
//! inside the tool call — with its own prompt, tools, model and conversation. Its lines
//! carry the Agent call's id as `parent_tool_use_id`; its final text is the tool result.
//! A background subagent runs on its own task and reports through task frames.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dcl_protocol::{ContentBlock, TaskEndStatus};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::result::Finish;
use super::{ToolSet, TurnContext, TurnKind, TurnState, TurnStop};
use crate::agents::{AgentCatalog, AgentSpec, GENERAL_PURPOSE};
use crate::session::QueuedPrompt;
use crate::session::conversation::{Conversation, Entry, UserOrigin};
use crate::session::emit::{Event, TurnEmitter, new_uuid};
use crate::session::hooks::{self, HookScope};
use crate::session::models;
use crate::session::services::SessionCore;
use dcl_events::hook_input::{SubagentStart, Task, TaskCompleted, TaskCreated};
use dcl_tool_api::{ChildTurn, ToolOutput, TurnError};

/// The subagent tool's name to the model.
pub(crate) const AGENT_TOOL: &str = "Agent";
/// Its name in `system/init.tools` and in older clients' rules and matchers.
pub(crate) const AGENT_TOOL_ALIAS: &str = "Task";

#[derive(Debug, Deserialize)]
struct AgentInput {
    description: String,
    prompt: String,
    subagent_type: Option<String>,
    model: Option<String>,
    #[serde(default)]
    run_in_background: bool,
}

/// What a background subagent has done so far (`agentProgressSummaries`).
#[derive(Default)]
pub(crate) struct Progress {
    pub tool_uses: AtomicU64,
    pub last_tool: std::sync::Mutex<Option<String>>,
}

impl Progress {
    pub fn tool_called(&self, name: &str) {
        self.tool_uses.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut last) = self.last_tool.lock() {
            *last = Some(name.to_string());
        }
    }
}

/// Runs a turn's loop to its end (the agent loop's `drive`). A child turn is handed the
/// loop by whoever runs the Agent call, so this module never imports the loop that calls it.
pub(super) type Drive = for<'a> fn(
    &'a TurnContext,
    &'a mut Conversation,
    &'a mut TurnState,
) -> dcl_model::BoxFuture<'a, Finish>;

pub(crate) fn is_agent_tool(name: &str) -> bool {
    name == AGENT_TOOL || name == AGENT_TOOL_ALIAS
}

/// The tool definition the model sees, listing the agents it may pick: built once per
/// change of the session's agents (the catalog keeps it), and shared by the sessions that
/// list the same agents.
pub(crate) fn tool_spec(agents: &AgentCatalog) -> dcl_model::ToolSpec {
    agents.tool_spec(definition)
}

fn definition(agents: &AgentCatalog) -> dcl_model::ToolSpec {
    static LAST: std::sync::Mutex<Option<dcl_model::ToolSpec>> = std::sync::Mutex::new(None);
    let listing: Vec<String> = agents
        .iter()
        .map(|a| format!("- {}: {}", a.name, a.description))
        .collect();
    crate::derived_spec::shared_through(
        &LAST,
        AGENT_TOOL,
        format!(
            "Launch a subagent to handle a complex, multi-step task on its own. It starts with a fresh context, works with its own tools, and returns one final report, which is all you see of its work. Give it a complete, self-contained prompt.\n\nAvailable agent types (subagent_type):\n{}",
            listing.join("\n")
        ),
        || {
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
                    "prompt": {"type": "string", "description": "The task for the agent to perform"},
                    "subagent_type": {"type": "string", "description": "The type of specialized agent to use for this task"},
                    "model": {"type": "string", "enum": ["sonnet", "opus", "haiku"], "description": "Optional model for this agent; it inherits the caller's model otherwise"},
                    "run_in_background": {"type": "boolean", "description": "Run the agent in the background; you are told when it finishes"}
                },
                "required": ["description", "prompt"],
                "additionalProperties": false
            })
        },
    )
}

/// A definition's or call's model: `None`/`inherit` keeps the caller's.
pub(crate) fn resolve_model(core: &SessionCore, model: Option<&str>) -> Option<String> {
    match model.map(str::trim) {
        None | Some("") | Some("inherit") => None,
        Some(m) => Some(models::resolve_alias(
            Some(m),
            core.services.clients.default_model(),
        )),
    }
}

/// An Agent call's input as the child turn it asks for; invalid input is the call's
/// error result.
pub(super) fn child_turn(input: Value) -> Result<ChildTurn, ToolOutput> {
    let input: AgentInput = serde_json::from_value(input).map_err(|e| {
        ToolOutput::error(format!(
            "<tool_use_error>InputValidationError: {e}</tool_use_error>"
        ))
    })?;
    Ok(ChildTurn {
        description: input.description,
        prompt: input.prompt,
        agent: input.subagent_type,
        model: input.model,
        background: input.run_in_background,
    })
}

/// What a child turn takes from the turn whose call starts it.
#[derive(Clone)]
pub(super) struct Parent {
    pub core: Arc<SessionCore>,
    pub emitter: TurnEmitter,
    pub cancel: CancellationToken,
    /// The uuid of the user message that started the parent turn.
    pub prompt_uuid: String,
    /// The agent loop, which the child runs in.
    pub drive: Drive,
}

impl Parent {
    pub fn of(ctx: &TurnContext, drive: Drive) -> Self {
        Parent {
            core: ctx.core.clone(),
            emitter: ctx.emitter.clone(),
            cancel: ctx.cancel.token.clone(),
            prompt_uuid: ctx.prompt_uuid.clone(),
            drive,
        }
    }
}

/// Runs the child turn of the Agent call `tool_use_id`: its final text, or (for a
/// background one) that it started.
pub(super) async fn run(
    parent: &Parent,
    tool_use_id: &str,
    child: ChildTurn,
) -> Result<String, TurnError> {
    let core = &parent.core;
    let wanted = child.agent.as_deref().unwrap_or(GENERAL_PURPOSE);
    let (agent, forward_text) = core
        .state
        .with(|s| (s.agents.get(wanted).cloned(), s.forward_subagent_text));
    let Some(agent) = agent else {
        let known = core.state.with(|s| s.agents.names());
        return Err(TurnError::Failed(format!(
            "Agent type '{wanted}' not found. Available agents: {}",
            known.join(", ")
        )));
    };
    let agent_id = new_uuid().replace('-', "")[..16].to_string();
    let model = resolve_model(core, child.model.as_deref())
        .or_else(|| resolve_model(core, agent.model.as_deref()));
    if child.background || agent.background {
        return Ok(start_background(
            parent,
            tool_use_id,
            agent,
            agent_id,
            model,
            child,
            forward_text,
        ));
    }
    let ctx = child_context(
        core.clone(),
        &parent.prompt_uuid,
        &agent,
        &agent_id,
        tool_use_id,
        model,
        forward_text,
        parent.cancel.child_token(),
    );
    Box::pin(run_child(ctx, parent.drive, child.prompt))
        .await
        .map_err(|e| TurnError::Failed(e.to_string()))
}

#[allow(clippy::too_many_arguments)] // one constructor, called from two places
fn child_context(
    core: Arc<SessionCore>,
    prompt_uuid: &str,
    agent: &AgentSpec,
    agent_id: &str,
    tool_use_id: &str,
    model: Option<String>,
    forward_text: bool,
    cancel: CancellationToken,
) -> TurnContext {
    let emitter = TurnEmitter::subagent(
        core.services.emitter.clone(),
        tool_use_id.to_string(),
        forward_text,
    );
    TurnContext {
        emitter,
        // No cause of its own: only a main turn's is read (the Interrupt hook).
        cancel: TurnStop::under(cancel),
        prompt_uuid: prompt_uuid.to_string(),
        tools: ToolSet::for_agent(agent, false),
        kind: TurnKind::Subagent {
            agent_id: agent_id.to_string(),
            agent_type: agent.name.clone(),
        },
        system_prompt: Some(agent.prompt.clone()).filter(|p| !p.is_empty()),
        model,
        max_turns: agent.max_turns,
        progress: None,
        grants: Arc::default(),
        core,
    }
}

/// Why a subagent ended without its answer; the text is the Agent tool's error result
/// (and a background agent's task summary).
#[derive(Debug, thiserror::Error)]
enum SubagentError {
    #[error("not a subagent context")]
    NotASubagent,
    #[error(
        "The agent stopped after {turns} model calls without finishing. Its last words: {last_words}"
    )]
    MaxTurns { turns: u32, last_words: String },
    #[error("The agent was interrupted")]
    Interrupted,
    #[error("The agent failed: {0}")]
    Api(dcl_model::ModelError),
    #[error("The agent stopped at the budget (${0})")]
    Budget(f64),
    #[error("The agent gave no answer")]
    NoAnswer,
    #[error("The agent failed: {0}")]
    CommandFailed(String),
}

/// Runs a child turn to its end: its final text, or why it failed.
async fn run_child(
    ctx: TurnContext,
    drive: Drive,
    prompt: String,
) -> Result<String, SubagentError> {
    let TurnKind::Subagent {
        agent_id,
        agent_type,
    } = ctx.kind.clone()
    else {
        return Err(SubagentError::NotASubagent);
    };
    let start = SubagentStart {
        agent_id: agent_id.clone(),
        agent_type: agent_type.clone(),
    };
    let started = hooks::fire(&ctx.hooks(), &start).await;
    let mut blocks: Vec<ContentBlock> = started
        .additional_context
        .into_iter()
        .map(ContentBlock::text)
        .collect();
    blocks.push(ContentBlock::text(prompt.clone()));
    let mut conv = Conversation::new();
    // The child's own transcript beside the session's (`<session>/subagents/agent-<id>`).
    let meta = json!({
        "agentType": agent_type,
        "toolUseId": ctx.emitter.parent_tool_use_id(),
    });
    if let Some(recorder) = ctx.core.persistence.subagent_recorder(&agent_id, &meta) {
        conv.subscribe(recorder);
    }
    ctx.record(
        &mut conv,
        new_uuid(),
        Entry::User {
            as_text: false,
            content: blocks,
            origin: UserOrigin::Prompt,
        },
    );
    if ctx.emitter.forwards_text() {
        // `forwardSubagentText`: the nested transcript starts with the subagent's prompt.
        ctx.emitter.event(Event::SubagentPrompt { prompt: &prompt });
    }
    let model = ctx
        .model
        .clone()
        .unwrap_or_else(|| ctx.core.state.with(|s| s.live.model.clone()));
    let queued = QueuedPrompt {
        uuid: ctx.prompt_uuid.clone(),
        message: dcl_protocol::UserMessage::new(dcl_protocol::MessageContent::Text(prompt)),
    };
    let mut st = TurnState::new(model, &queued);
    let how = drive(&ctx, &mut conv, &mut st).await;
    match how {
        Finish::Completed | Finish::HookStopped(_) | Finish::Deferred => {
            Ok(st.last_text.unwrap_or_default())
        }
        Finish::MaxTurns(n) => Err(SubagentError::MaxTurns {
            turns: n,
            last_words: st.last_text.unwrap_or_default(),
        }),
        Finish::Interrupted(_) => Err(SubagentError::Interrupted),
        Finish::ApiError(e) => Err(SubagentError::Api(e)),
        Finish::Budget(b) => Err(SubagentError::Budget(b)),
        Finish::StructuredOutputMissing => Err(SubagentError::NoAnswer),
        Finish::CommandFailed(why) => Err(SubagentError::CommandFailed(why)),
    }
}

/// Starts a background child turn on its own task; the answer says it started.
fn start_background(
    parent: &Parent,
    tool_use_id: &str,
    agent: AgentSpec,
    agent_id: String,
    model: Option<String>,
    input: ChildTurn,
    forward_text: bool,
) -> String {
    let core = parent.core.clone();
    let drive = parent.drive;
    let task_id = agent_id.clone();
    // A background agent outlives the turn, not the session.
    let cancel = core.services.closed.child_token();
    let progress = core
        .state
        .with(|s| s.agent_progress)
        .then(|| Arc::new(Progress::default()));
    let mut child = child_context(
        core.clone(),
        &parent.prompt_uuid,
        &agent,
        &agent_id,
        tool_use_id,
        model,
        forward_text,
        cancel.clone(),
    );
    child.progress = progress.clone();
    core.state
        .with(|s| s.background_agents.insert(task_id.clone(), cancel.clone()));
    parent
        .emitter
        .session()
        .task_started(&task_id, &input.description, tool_use_id);
    let description = input.description.clone();
    let tool_use_id = tool_use_id.to_string();
    let emitter = core.services.emitter.clone();
    tokio::spawn(async move {
        let prompt = input.prompt.clone();
        // The agent call's description is the task's subject, its prompt the description.
        let task = Task::new(&task_id, &description, &prompt);
        hooks::fire(&HookScope::session(&core), &TaskCreated(task.clone())).await;
        let began = Instant::now();
        let ticker = progress.map(|p| {
            let emitter = emitter.clone();
            let (task_id, description, tool_use_id) =
                (task_id.clone(), description.clone(), tool_use_id.clone());
            let every = core
                .services
                .env
                .get("DCL_AGENT_PROGRESS_MS")
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(5_000)
                .max(50);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(every)).await;
                    let last_tool = p.last_tool.lock().ok().and_then(|l| l.clone());
                    emitter.task_progress(
                        (&task_id, &description, &tool_use_id),
                        p.tool_uses.load(Ordering::Relaxed),
                        began.elapsed().as_millis() as u64,
                        last_tool,
                    );
                }
            })
        });
        let ended = run_child(child, drive, input.prompt).await;
        if let Some(t) = ticker {
            t.abort();
        }
        let stopped = cancel.is_cancelled();
        core.state.with(|s| s.background_agents.remove(&task_id));
        let (status, summary) = match (&ended, stopped) {
            (_, true) => (TaskEndStatus::Stopped, "The agent was stopped".to_string()),
            (Ok(text), false) => (TaskEndStatus::Completed, text.clone()),
            (Err(e), false) => (TaskEndStatus::Failed, e.to_string()),
        };
        if status == TaskEndStatus::Completed {
            hooks::fire(&HookScope::session(&core), &TaskCompleted(task)).await;
        }
        emitter.task_ended(
            (&task_id, &tool_use_id),
            status,
            &summary,
            began.elapsed().as_millis() as u64,
        );
        // The main thread learns of it with its next prompt.
        let note = format!(
            "<task-notification>\nBackground agent {task_id} ({description}) {status}:\n{summary}\n</task-notification>"
        );
        core.state
            .with(|s| s.pending_context.push(ContentBlock::text(note)));
    });
    format!(
        "Started agent {agent_id} in the background ({}). You will be told when it finishes; do not wait for it.",
        input.description
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_names_are_the_agent_tool() {
        assert!(is_agent_tool("Agent"));
        assert!(is_agent_tool("Task"));
        assert!(!is_agent_tool("Bash"));
    }

    #[test]
    fn the_spec_lists_every_agent() {
        let (catalog, _) = AgentCatalog::load(&[]);
        let spec = tool_spec(&catalog);
        assert_eq!(spec.name(), "Agent");
        assert!(spec.description().contains("general-purpose"));
        assert!(spec.description().contains("Explore"));
        assert_eq!(
            spec.input_schema()["required"],
            json!(["description", "prompt"])
        );
    }
}
