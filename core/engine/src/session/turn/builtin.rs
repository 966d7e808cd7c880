//! Slash commands dcl answers itself, never sending them to the model (docs/protocol.md "/clear"):
//! `/clear` empties the history and starts a new session id, `/cost` and `/context` report
//! the session's totals and context use; `/compact` is recognised here and run by the agent
//! loop (`compact::run`), since it asks the model.

use super::result::{self, Finish};
use super::{TurnContext, TurnOutcome, TurnState};
use crate::session::QueuedPrompt;
use crate::session::conversation::Conversation;
use crate::session::emit::new_uuid;
use crate::session::models;

/// `/compact [instructions]`: `Some(instructions)` when `prompt` is that command (the
/// agent loop runs it, as it needs the model).
pub(super) fn compact_request(prompt: &QueuedPrompt) -> Option<Option<String>> {
    let text = prompt.message.message.content.text();
    let rest = text.trim_start().strip_prefix("/compact")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    Some((!rest.is_empty()).then(|| rest.to_string()))
}

/// Answers `prompt` when it is a built-in command; `None` lets the model have it.
pub(super) fn handle(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    prompt: &QueuedPrompt,
) -> Option<TurnOutcome> {
    let text = prompt.message.message.content.text();
    let name = text.split_whitespace().next()?.strip_prefix('/')?;
    let core = &ctx.core;
    let answer = match name {
        "clear" => {
            let old = core.services.emitter.session_id();
            let new = new_uuid();
            conv.clear();
            core.persistence.reset(&new);
            ctx.emitter.conversation_reset(old, new.clone());
            core.services.emitter.set_session_id(new);
            String::new()
        }
        "cost" => {
            let totals = core.state.with(|s| s.totals.clone());
            let sum = |k: &str| -> u64 {
                totals
                    .model_usage
                    .iter()
                    .map(|(_, m)| match k {
                        "inputTokens" => m.input_tokens,
                        _ => m.output_tokens,
                    })
                    .sum()
            };
            format!(
                "Total cost: ${:.4}\nTotal tokens: {} input, {} output",
                totals.cost_usd,
                sum("inputTokens"),
                sum("outputTokens")
            )
        }
        "context" => {
            let model = core.state.with(|s| s.live.model.clone());
            // A quarter of the characters, as the mock model counts tokens.
            let used = core
                .conversation_size
                .load(std::sync::atomic::Ordering::Relaxed) as u64
                / 4;
            let window = models::context_window(&model);
            let pct = if window == 0 {
                0.0
            } else {
                used as f64 * 100.0 / window as f64
            };
            format!("Context: ~{used} tokens of {window} ({pct:.1}%) for {model}")
        }
        _ => return None,
    };
    st.last_text = Some(answer);
    Some(result::finish(ctx, conv, st, Finish::Completed))
}
