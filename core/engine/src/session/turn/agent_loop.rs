//! The loop of one turn: record the prompt, then sample and run tools until the model
//! stops calling them, a limit is reached, a hook stops the turn or it is interrupted.

use dcl_protocol::{ContentBlock, TerminalReason, ToolUseBlock};

use super::STRUCTURED_OUTPUT_TOOL;
use super::compact::{self, Trigger};
use super::orchestrator::{self, CallOutcome};
use super::result::{self, Finish};
use super::sampling::{self, SampleError};
use super::{TurnContext, TurnKind, TurnOutcome, TurnState};
use crate::session::QueuedPrompt;
use crate::session::conversation::{Conversation, Entry, UserOrigin};
use crate::session::emit::Event;
use crate::session::hooks::{self, HookScope};
use dcl_events::hook_input::{
    InstructionsLoaded, Interrupt, SessionStart, Stop, StopFailure, SubagentStop, UserPromptSubmit,
};

/// How often a Stop hook may keep one turn going, so two hooks cannot loop forever.
const MAX_STOP_HOOK_ROUNDS: u32 = 8;

pub(crate) async fn run_turn(
    ctx: &TurnContext,
    conv: &mut Conversation,
    prompt: QueuedPrompt,
) -> TurnOutcome {
    let core = &ctx.core;
    let model = ctx
        .model
        .clone()
        .unwrap_or_else(|| core.state.with(|s| s.live.model.clone()));
    let mut st = TurnState::new(model, &prompt);
    core.start_sdk_servers(Vec::new());
    core.mcp_ready().await;
    crate::session::init::emit_init(core);
    ctx.emitter.agent(|| dcl_events::AgentEvent::TurnStarted {
        turn_id: prompt.uuid.clone(),
    });
    if ctx.emitter.wants_events() {
        let item = dcl_events::Item::new(
            prompt.uuid.clone(),
            dcl_events::ItemBody::UserMessage {
                content: crate::session::emit::agent::content(
                    &prompt.message.message.content.clone().into_blocks(),
                ),
            },
        );
        ctx.emitter
            .agent(|| dcl_events::AgentEvent::ItemStarted { item: item.clone() });
        ctx.emitter
            .agent(|| dcl_events::AgentEvent::ItemCompleted { item });
    }
    if core.services.opts.replay_user_messages {
        ctx.emitter.event(Event::PromptReplay {
            uuid: &prompt.uuid,
            message: &prompt.message,
        });
    }
    if let Some(instructions) = super::builtin::compact_request(&prompt) {
        return compact_command(ctx, conv, &mut st, instructions).await;
    }
    if let Some(done) = super::builtin::handle(ctx, conv, &mut st, &prompt) {
        return done;
    }
    let (prompt, expansion_context) =
        match super::custom_commands::expand(ctx, &mut st, prompt).await {
            Ok(expanded) => expanded,
            Err(blocked) => {
                return result::finish(ctx, conv, &mut st, Finish::HookStopped(blocked.reason));
            }
        };
    let mut user_blocks: Vec<ContentBlock> =
        core.state.with(|s| std::mem::take(&mut s.pending_context));
    let as_text = matches!(
        prompt.message.message.content,
        dcl_protocol::MessageContent::Text(_)
    );
    user_blocks.extend(prompt.message.message.content.clone().into_blocks());
    match prompt_hooks(ctx, &prompt).await {
        PromptHooks::Proceed(mut context) => {
            context.splice(0..0, expansion_context);
            // Hook context goes first so the prompt stays the message's last word.
            let mut blocks: Vec<ContentBlock> =
                context.into_iter().map(ContentBlock::text).collect();
            blocks.append(&mut user_blocks);
            user_blocks = blocks;
        }
        PromptHooks::Stop(reason) => {
            return result::finish(ctx, conv, &mut st, Finish::HookStopped(reason));
        }
    }
    // Compacting before the prompt is recorded keeps the prompt itself, word for word,
    // after the summary.
    let prompt_chars = serde_json::to_string(&user_blocks).map_or(0, |s| s.len());
    let estimate = sampling::estimate_tokens(ctx, conv, prompt_chars);
    compact::auto_if_needed(ctx, conv, &st.model, estimate).await;
    ctx.record(
        conv,
        prompt.uuid.clone(),
        Entry::User {
            as_text: as_text && user_blocks.len() == 1,
            content: user_blocks,
            origin: UserOrigin::Prompt,
        },
    );
    core.state.with(|s| {
        s.stats.prompts += 1;
        s.stats.messages += 1;
    });
    match drive(ctx, conv, &mut st).await {
        Finish::Completed => {
            result::finish_and_suggest(ctx, conv, &mut st, Finish::Completed).await
        }
        Finish::ApiError(e) => {
            stop_failure_hooks(ctx, &st, &e).await;
            result::finish(ctx, conv, &mut st, Finish::ApiError(e))
        }
        how => {
            if matches!(how, Finish::Interrupted(_)) {
                interrupt_hooks(ctx).await;
            }
            result::finish(ctx, conv, &mut st, how)
        }
    }
}

/// Interrupt: a main-thread turn ended because something stopped it, and that was not
/// the session closing. Its output is ignored, as the SDK ignores it. The turn's own
/// token is cancelled by now and would kill the hooks at once, so they run as outside
/// any turn.
async fn interrupt_hooks(ctx: &TurnContext) {
    if ctx.is_subagent() {
        return;
    }
    let Some(super::StopCause::Stopped {
        source,
        reason,
        via,
    }) = ctx.cancel.cause()
    else {
        return;
    };
    let interrupt = Interrupt {
        source: source.into(),
        reason: reason.into(),
        via: via.map(str::to_string),
    };
    hooks::fire(&HookScope::session(&ctx.core), &interrupt).await;
}

/// StopFailure: the turn ends on an API error instead of the model's answer. Its output
/// is not acted on (the reference ignores it too): the turn is over either way.
async fn stop_failure_hooks(ctx: &TurnContext, st: &TurnState, e: &dcl_model::ModelError) {
    let failure = StopFailure {
        error: e.assistant_error().into(),
        error_details: e.to_string(),
        last_assistant_message: st.last_text.clone(),
    };
    hooks::fire(&ctx.hooks(), &failure).await;
}

/// InstructionsLoaded: one per memory file (DCL.md, CLAUDE.md, AGENTS.md,
/// CLAUDE.local.md) the session's system prompt carries, when its first prompt starts.
async fn instructions_loaded_hooks(ctx: &TurnContext) {
    for file in &ctx.core.services.memory {
        let memory_type = if file
            .path
            .file_name()
            .is_some_and(|n| n == "CLAUDE.local.md")
        {
            "Local"
        } else if file.scope == "user" {
            "User"
        } else {
            "Project"
        };
        let loaded = InstructionsLoaded {
            file_path: file.path.display().to_string(),
            memory_type: memory_type.into(),
            load_reason: "session_start".into(),
        };
        hooks::fire(&ctx.hooks(), &loaded).await;
    }
}

/// [`drive`] as the subagents' child turns take it.
fn drive_boxed<'a>(
    ctx: &'a TurnContext,
    conv: &'a mut Conversation,
    st: &'a mut TurnState,
) -> dcl_model::BoxFuture<'a, Finish> {
    Box::pin(drive(ctx, conv, st))
}

/// Samples and runs tools until the model stops calling them, a limit is reached, a hook
/// stops the turn or it is interrupted. The prompt is already recorded; nothing of the
/// turn's ending is emitted here, so a subagent's child turn runs the same loop.
pub(super) async fn drive(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
) -> Finish {
    let core = &ctx.core;
    let max_turns = ctx.max_turns.or(core.services.opts.max_turns);
    loop {
        if let Some(max) = max_turns
            && st.num_turns >= max
        {
            return Finish::MaxTurns(max);
        }
        if let Some(budget) = core.services.opts.max_budget_usd
            && core.state.with(|s| s.totals.cost_usd) >= budget
        {
            return Finish::Budget(budget);
        }
        if st.num_turns > 0 {
            let estimate = sampling::estimate_tokens(ctx, conv, 0);
            compact::auto_if_needed(ctx, conv, &st.model, estimate).await;
        }
        st.num_turns += 1;
        let reply = match sampling::sample_with_fallback(ctx, conv, st).await {
            Ok(r) => {
                // A later refusal may compact again: only back-to-back ones give up.
                st.compacted_after_refusal = false;
                r
            }
            Err(SampleError::Cancelled) => {
                return Finish::Interrupted(TerminalReason::AbortedStreaming);
            }
            Err(SampleError::Api(e))
                if compact::prompt_too_long(&e)
                    && !st.compacted_after_refusal
                    && !ctx.is_subagent() =>
            {
                // The estimate fell short of the API's count: compact once and retry.
                st.compacted_after_refusal = true;
                let model = st.model.clone();
                match compact::run(ctx, conv, &model, Trigger::Auto, None).await {
                    Ok(_) => {
                        st.num_turns -= 1;
                        continue;
                    }
                    Err(_) if ctx.cancel.is_cancelled() => {
                        return Finish::Interrupted(TerminalReason::AbortedStreaming);
                    }
                    Err(why) => {
                        ctx.emitter
                            .warning(format!("Automatic compaction failed: {why}"));
                        conv.exclude_unanswered(&ctx.prompt_uuid);
                        return Finish::ApiError(e);
                    }
                }
            }
            Err(SampleError::Api(e)) => {
                // What the API refused must not be sent again, or every later turn fails
                // the same way.
                conv.exclude_unanswered(&ctx.prompt_uuid);
                return Finish::ApiError(e);
            }
        };
        st.stop_reason = reply.stop_reason.clone();
        let text: Vec<&str> = reply
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        if !text.is_empty() {
            st.last_text = Some(text.join(""));
        }
        let tool_uses: Vec<ToolUseBlock> = reply
            .content
            .iter()
            .filter_map(|b| b.as_tool_use().cloned())
            .collect();
        core.state.with(|s| {
            s.stats.messages += 1;
            s.stats.tool_calls += tool_uses.len() as u64;
        });
        if tool_uses.is_empty() {
            match stop_hooks_and_checks(ctx, st).await {
                AfterStop::Finish(how) => return how,
                AfterStop::Continue(text) => {
                    ctx.record_note(conv, text, UserOrigin::Continuation);
                    continue;
                }
            }
        }
        match orchestrator::run_calls(
            ctx,
            conv,
            st,
            &tool_uses,
            &reply.invalid_inputs,
            drive_boxed,
        )
        .await
        {
            CallOutcome::Interrupted => return Finish::Interrupted(TerminalReason::AbortedTools),
            CallOutcome::Done => {}
        }
        if let Some(reason) = st.hook_stop.take() {
            return Finish::HookStopped(reason);
        }
        if st.deferred.is_some() {
            return Finish::Deferred;
        }
        if st.structured.is_some() {
            return Finish::Completed;
        }
        if st.invalid_outputs >= crate::structured::MAX_INVALID_OUTPUTS {
            return Finish::StructuredOutputMissing;
        }
    }
}

/// `/compact [instructions]`: summarise the history now; the result says what happened.
async fn compact_command(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    instructions: Option<String>,
) -> TurnOutcome {
    let model = st.model.clone();
    match compact::run(ctx, conv, &model, Trigger::Manual, instructions).await {
        Ok(done) => {
            st.last_text = Some(format!(
                "Compacted the conversation (~{} tokens summarised).",
                done.pre_tokens
            ));
            result::finish(ctx, conv, st, Finish::Completed)
        }
        Err(_) if ctx.cancel.is_cancelled() => {
            interrupt_hooks(ctx).await;
            result::finish(
                ctx,
                conv,
                st,
                Finish::Interrupted(TerminalReason::AbortedStreaming),
            )
        }
        Err(why) => result::finish(ctx, conv, st, Finish::CommandFailed(why.to_string())),
    }
}

enum PromptHooks {
    Proceed(Vec<String>),
    Stop(String),
}

/// SessionStart (first turn only) and UserPromptSubmit hooks.
async fn prompt_hooks(ctx: &TurnContext, prompt: &QueuedPrompt) -> PromptHooks {
    let mut context = Vec::new();
    let first = ctx
        .core
        .state
        .with(|s| !std::mem::replace(&mut s.session_started, true));
    if first {
        instructions_loaded_hooks(ctx).await;
        let start = SessionStart {
            source: "startup".into(),
        };
        let v = hooks::fire(&ctx.hooks(), &start).await;
        context.extend(v.additional_context);
    }
    let submit = UserPromptSubmit {
        prompt: prompt.message.message.content.text(),
    };
    let v = hooks::fire(&ctx.hooks(), &submit).await;
    if let Some(reason) = v.stop.or(v.block) {
        return PromptHooks::Stop(reason);
    }
    context.extend(v.additional_context);
    PromptHooks::Proceed(context)
}

enum AfterStop {
    Finish(Finish),
    /// Keep going: this text is the next user message.
    Continue(String),
}

/// The model stopped calling tools: Stop hooks may keep it going, and a `--json-schema`
/// turn must have produced its structured output.
async fn stop_hooks_and_checks(ctx: &TurnContext, st: &mut TurnState) -> AfterStop {
    let stop_hook_active = st.stop_hook_rounds > 0;
    let last_assistant_message = st.last_text.clone();
    let v = match &ctx.kind {
        TurnKind::Main => {
            let stop = Stop {
                stop_hook_active,
                last_assistant_message,
            };
            hooks::fire(&ctx.hooks(), &stop).await
        }
        TurnKind::Subagent {
            agent_id,
            agent_type,
        } => {
            let stop = SubagentStop {
                stop_hook_active,
                last_assistant_message,
                agent_id: agent_id.clone(),
                agent_type: agent_type.clone(),
                // Empty when the session keeps no transcript.
                agent_transcript_path: ctx
                    .core
                    .persistence
                    .subagent_transcript_path(agent_id)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            };
            hooks::fire(&ctx.hooks(), &stop).await
        }
    };
    if let Some(reason) = v.stop {
        return AfterStop::Finish(Finish::HookStopped(reason));
    }
    if let Some(reason) = v.block
        && st.stop_hook_rounds < MAX_STOP_HOOK_ROUNDS
    {
        st.stop_hook_rounds += 1;
        return AfterStop::Continue(reason);
    }
    if !ctx.is_subagent() && ctx.core.json_schema().is_some() && st.structured.is_none() {
        if st.structured_nudges < 2 {
            st.structured_nudges += 1;
            return AfterStop::Continue(format!(
                "You must call the {STRUCTURED_OUTPUT_TOOL} tool with your final answer as its input."
            ));
        }
        return AfterStop::Finish(Finish::StructuredOutputMissing);
    }
    AfterStop::Finish(Finish::Completed)
}
