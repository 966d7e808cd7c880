//! The end of a turn: usage and cost, and the one `result` line (with what the dialect
//! says of the turn's usage before it).

use std::time::{Duration, Instant};

use dcl_protocol::{ContentBlock, ResultSubtype, StopReason, TerminalReason};
use serde_json::Value;

use super::STRUCTURED_OUTPUT_TOOL;
use super::{TurnContext, TurnOutcome, TurnState};
use crate::session::QueuedPrompt;
use crate::session::conversation::{Conversation, UserOrigin};
use crate::session::emit::{Emitter, Ending, Event, TurnSummary, full_usage, new_uuid};
use crate::session::persist::StartupError;
use crate::session::services::SessionCore;
use dcl_model::ModelError;

/// Why a turn ended.
pub(super) enum Finish {
    Completed,
    MaxTurns(u32),
    Interrupted(TerminalReason),
    ApiError(ModelError),
    /// A hook ended the turn (`continue: false`, or a blocked prompt).
    HookStopped(String),
    Budget(f64),
    Deferred,
    StructuredOutputMissing,
    /// A built-in command could not do what it was asked (`/compact` with nothing to
    /// compact, or blocked by a hook): the reason.
    CommandFailed(String),
}

/// What a turn's result says, for each way it can end.
fn ending(how: &Finish, st: &TurnState) -> Ending {
    match how {
        Finish::Completed => Ending::success(
            match &st.structured {
                Some(v) => Some(v.to_string()),
                None => Some(st.last_text.clone().unwrap_or_default()),
            },
            TerminalReason::Completed,
        ),
        Finish::HookStopped(reason) => {
            Ending::success(Some(reason.clone()), TerminalReason::HookStopped)
        }
        Finish::Deferred => Ending::success(st.last_text.clone(), TerminalReason::ToolDeferred),
        Finish::Budget(budget) => Ending::error(
            ResultSubtype::ErrorMaxBudgetUsd,
            TerminalReason::BudgetExhausted,
            format!("Reached the maximum budget (${budget})"),
        ),
        Finish::StructuredOutputMissing => Ending::error(
            ResultSubtype::ErrorMaxStructuredOutputRetries,
            TerminalReason::StructuredOutputMissing,
            format!(
                "The model did not call {STRUCTURED_OUTPUT_TOOL} with output matching the schema"
            ),
        ),
        Finish::MaxTurns(max) => Ending::error(
            ResultSubtype::ErrorMaxTurns,
            TerminalReason::MaxTurns,
            format!("Reached maximum number of turns ({max})"),
        ),
        Finish::Interrupted(reason) => Ending::error(
            ResultSubtype::ErrorDuringExecution,
            *reason,
            "Interrupted by user".to_string(),
        ),
        Finish::CommandFailed(why) => Ending::error(
            ResultSubtype::ErrorDuringExecution,
            TerminalReason::TurnSetupFailed,
            why.clone(),
        ),
        Finish::ApiError(e) => {
            let text = e.to_string();
            Ending {
                subtype: ResultSubtype::Success,
                is_error: true,
                result: Some(text.clone()),
                terminal_reason: if super::compact::prompt_too_long(e) {
                    TerminalReason::PromptTooLong
                } else {
                    TerminalReason::ApiError
                },
                errors: Some(vec![text]),
                api_error_status: e.status(),
                startup_failure_reason: None,
            }
        }
    }
}

pub(super) fn finish(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    how: Finish,
) -> TurnOutcome {
    match &how {
        Finish::Interrupted(_) => ctx.emit_user(
            conv,
            vec![ContentBlock::text("[Request interrupted by user]")],
            UserOrigin::Interrupted,
        ),
        Finish::ApiError(e) => {
            ctx.emitter.event(Event::ApiError(e));
            st.stop_reason = Some(StopReason::StopSequence.into());
        }
        _ => {}
    }
    let end = ending(&how, st);
    let is_error = end.is_error;
    emit_result(&ctx.core, &ctx.core.services.emitter, st, end);
    TurnOutcome { is_error }
}

/// Ends the turn; after a success, suggests the next prompt when the host asked for it.
pub(super) async fn finish_and_suggest(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    how: Finish,
) -> TurnOutcome {
    let completed = matches!(how, Finish::Completed);
    let outcome = finish(ctx, conv, st, how);
    if completed
        && ctx.core.state.with(|s| s.prompt_suggestions)
        && let Some(s) = super::suggestion::suggest_next_prompt(ctx, conv, &st.model).await
    {
        ctx.emitter.prompt_suggestion(s);
    }
    outcome
}

/// Why the turn stopped, as typed events say it.
fn stop_reason(end: &Ending, st: &TurnState) -> dcl_events::StopReason {
    use dcl_events::StopReason as Stop;
    match end.terminal_reason {
        TerminalReason::MaxTurns | TerminalReason::BudgetExhausted => Stop::MaxTurns,
        TerminalReason::AbortedStreaming | TerminalReason::AbortedTools => Stop::Cancelled,
        _ if end.is_error => Stop::Error,
        _ => match st.stop_reason.as_deref() {
            Some("max_tokens") => Stop::MaxTokens,
            Some("refusal") => Stop::Refusal,
            _ => Stop::EndTurn,
        },
    }
}

fn emit_result(core: &SessionCore, emitter: &Emitter, st: &TurnState, end: Ending) {
    let totals = core.state.with(|s| s.totals.clone());
    emitter.event(Event::TurnUsage {
        usage: &st.usage,
        total_cost_usd: totals.cost_usd,
    });
    let usage = crate::session::emit::agent::usage(&st.usage);
    emitter.agent(|| dcl_events::AgentEvent::Usage {
        usage,
        total_cost_usd: totals.cost_usd,
    });
    // Before the turn's end, so a front end that answers the turn on it (ACP's prompt
    // response) has already shown how full the context is.
    if emitter.wants_events() {
        let context = super::context_usage::usage(core);
        emitter.agent(|| dcl_events::AgentEvent::ContextUsage {
            used_tokens: context.total_tokens,
            context_window: context.max_tokens,
        });
    }
    emitter.agent(|| {
        dcl_events::AgentEvent::TurnEnded(dcl_events::TurnEnd {
            turn_id: st.turn_id.clone(),
            stop_reason: stop_reason(&end, st),
            usage,
            total_cost_usd: totals.cost_usd,
            num_turns: st.num_turns,
            duration_ms: st.started.elapsed().as_millis() as u64,
            result: end.result.clone(),
            structured_output: st.structured.clone(),
            errors: end.errors.clone().unwrap_or_default(),
        })
    });
    let (model, mode) = core
        .state
        .with(|s| (s.live.model.clone(), s.live.permission_mode));
    let saved = dcl_store::SessionState {
        model: Some(model),
        permission_mode: Some(mode.as_str().to_string()),
        total_cost_usd: totals.cost_usd,
        num_turns: u64::from(st.num_turns),
        usage: serde_json::to_value(full_usage(&st.usage)).unwrap_or(Value::Null),
        model_usage: Value::Object(
            totals
                .model_usage
                .iter()
                .map(|(m, u)| (m.clone(), serde_json::to_value(u).unwrap_or(Value::Null)))
                .collect(),
        ),
        // The transcript recorder fills in what it was told the conversation excludes.
        excluded: Vec::new(),
    };
    emitter.store_frames(core.persistence.before_result(&saved));
    emitter.event(Event::TurnResult(Box::new(TurnSummary {
        ending: end,
        duration_ms: st.started.elapsed().as_millis() as u64,
        duration_api_ms: st.api_time.as_millis() as u64,
        num_turns: st.num_turns,
        stop_reason: st.stop_reason.clone(),
        total_cost_usd: totals.cost_usd,
        usage: st.usage.clone(),
        model_usage: totals.model_usage,
        permission_denials: st.denials.clone(),
        structured_output: st.structured.clone(),
        deferred_tool_use: st.deferred.clone(),
        origin: st.origin.clone(),
    })));
}

/// A queued prompt cancelled before it started still gets its own result.
pub(crate) fn emit_cancelled_result(core: &SessionCore, prompt: &QueuedPrompt) {
    let mut st = TurnState::new(core.state.with(|s| s.live.model.clone()), prompt);
    st.started = Instant::now();
    st.api_time = Duration::ZERO;
    let end = Ending::error(
        ResultSubtype::ErrorDuringExecution,
        TerminalReason::AbortedStreaming,
        format!(
            "The queued message {} was cancelled before it started",
            prompt.uuid
        ),
    );
    emit_result(core, &core.services.emitter, &st, end);
}

/// A host message refused before it became a turn still gets its own result.
pub(crate) fn emit_refused_result(core: &SessionCore, prompt: &QueuedPrompt, error: String) {
    let st = TurnState::new(core.state.with(|s| s.live.model.clone()), prompt);
    let end = Ending::error(
        ResultSubtype::ErrorDuringExecution,
        TerminalReason::PromptRefused,
        error,
    );
    emit_result(core, &core.services.emitter, &st, end);
}

/// A session that could not be opened as asked (a resume of a missing session, a refused
/// `--resume-drops-turn`): one error result, after the host has its `initialize` answer.
pub(crate) fn emit_startup_error(core: &SessionCore, error: StartupError) {
    let prompt = QueuedPrompt {
        uuid: new_uuid(),
        message: dcl_protocol::UserMessage::new(dcl_protocol::MessageContent::Text(String::new())),
    };
    let st = TurnState::new(core.state.with(|s| s.live.model.clone()), &prompt);
    let end = Ending {
        startup_failure_reason: error.reason,
        ..Ending::error(
            ResultSubtype::ErrorDuringExecution,
            TerminalReason::SessionUnavailable,
            error.message,
        )
    };
    emit_result(core, &core.services.emitter, &st, end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state() -> TurnState {
        let prompt = QueuedPrompt {
            uuid: "u".into(),
            message: dcl_protocol::UserMessage::new(dcl_protocol::MessageContent::Text(
                "hi".into(),
            )),
        };
        TurnState::new("mock-model".into(), &prompt)
    }

    #[test]
    fn a_completed_turn_reports_its_last_text_or_structured_output() {
        let mut st = state();
        st.last_text = Some("done".into());
        let e = ending(&Finish::Completed, &st);
        assert_eq!((e.subtype.as_str(), e.is_error), ("success", false));
        assert_eq!(e.result.as_deref(), Some("done"));
        st.structured = Some(json!({"a": 1}));
        assert_eq!(
            ending(&Finish::Completed, &st).result.as_deref(),
            Some(r#"{"a":1}"#)
        );
    }

    #[test]
    fn limits_and_interrupts_are_errors_with_their_reason() {
        let st = state();
        let e = ending(&Finish::MaxTurns(3), &st);
        assert_eq!(
            (e.subtype.as_str(), e.terminal_reason.as_str()),
            ("error_max_turns", "max_turns")
        );
        assert_eq!(
            e.errors,
            Some(vec!["Reached maximum number of turns (3)".into()])
        );
        let e = ending(&Finish::Interrupted(TerminalReason::AbortedTools), &st);
        assert_eq!(
            (e.subtype.as_str(), e.is_error, e.terminal_reason.as_str()),
            ("error_during_execution", true, "aborted_tools")
        );
    }

    #[test]
    fn an_api_error_carries_its_status() {
        let st = state();
        let e = ending(
            &Finish::ApiError(ModelError::Http {
                status: 400,
                message: "bad".into(),
                retry_after: None,
            }),
            &st,
        );
        assert_eq!((e.subtype.as_str(), e.is_error), ("success", true));
        assert_eq!(e.api_error_status, Some(400));
        assert_eq!(e.terminal_reason.as_str(), "api_error");
    }
}
