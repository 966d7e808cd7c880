//! One model request: build it from the conversation, retry what may be retried, and turn
//! its event stream into assistant lines (one per content block) and conversation items.

use std::time::{Duration, Instant};

use dcl_protocol::{AssistantPayload, ContentBlock, Extra, Usage};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::STRUCTURED_OUTPUT_TOOL;
use super::{TurnContext, TurnState};
use crate::session::conversation::{Conversation, Entry};
use crate::session::emit::{Event, new_uuid};
use crate::session::models;
use dcl_model::accumulate::{Accumulator, InvalidToolInput};
use dcl_model::{ApiMessage, Delta, ModelError, ModelRequest, Role, StreamEvent, ThinkingConfig};

pub(super) enum SampleError {
    Cancelled,
    Api(ModelError),
}

/// The assistant message of one model call.
pub(super) struct Reply {
    pub content: Vec<ContentBlock>,
    /// Tool uses whose input JSON was invalid.
    pub invalid_inputs: Vec<InvalidToolInput>,
    pub stop_reason: Option<String>,
}

/// Samples with the turn's model; a model that stays overloaded or unavailable after its
/// retries hands the rest of the turn to `--fallback-model`.
pub(super) async fn sample_with_fallback(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
) -> Result<Reply, SampleError> {
    // Qoder's model policy may pick another model (or effort) for this one call; the
    // turn's own model stays what the next call's policy request reports.
    let policy = if ctx.core.state.with(|s| s.model_policy) {
        models::ask_policy(&ctx.core, &ctx.kind, &st.model, &ctx.cancel.token)
            .await
            .map_err(|e| SampleError::Api(ModelError::Config(e.to_string())))?
    } else {
        models::PolicyChoice::default()
    };
    let base = st.model.clone();
    if let Some(m) = &policy.model {
        st.model = m.clone();
    }
    let mut request = build_request(ctx, conv, &st.model);
    if let Some(level) = &policy.effort {
        request.thinking = crate::session::effort::thinking_budget(level, request.max_tokens)
            .map(|t| ThinkingConfig { budget_tokens: t });
    }
    let outcome = sample(ctx, conv, request, st).await;
    if policy.model.is_some() {
        st.model = base;
    }
    let Err(SampleError::Api(e)) = &outcome else {
        return outcome;
    };
    let Some(fallback) = fallback_for(ctx, &st.model, e) else {
        return outcome;
    };
    ctx.emitter.warning(format!(
        "{} failed ({e}); switching to the fallback model {fallback}",
        st.model
    ));
    // PostModelSwitch only: dcl switches on its own (`source: auto`), there is nothing a
    // PreModelSwitch hook could refuse short of failing the turn.
    let switch = crate::session::models::model_switch_input(
        &ctx.core,
        &st.model,
        &fallback,
        ctx.core.services.opts.fallback_model.as_deref(),
        "auto",
    );
    st.model = fallback;
    let switched = dcl_events::hook_input::PostModelSwitch(switch);
    let v = crate::session::hooks::fire(&ctx.hooks(), &switched).await;
    if !v.additional_context.is_empty() {
        ctx.record_note(
            conv,
            v.additional_context.join("\n"),
            crate::session::conversation::UserOrigin::Continuation,
        );
    }
    let request = build_request(ctx, conv, &st.model);
    sample(ctx, conv, request, st).await
}

/// The tokens a request with `extra_chars` more of history would hold, as dcl estimates
/// them (a quarter of the characters of system prompt, tools and messages).
pub(super) fn estimate_tokens(ctx: &TurnContext, conv: &Conversation, extra_chars: usize) -> u64 {
    let system = system_prompt(ctx).map_or(0, |s| s.len());
    let tools = dcl_model::ToolSpec::list_json_size(&ctx.tool_specs()).bytes;
    let messages = conv
        .size_handle()
        .load(std::sync::atomic::Ordering::Relaxed);
    (system + tools + messages + extra_chars).div_ceil(4) as u64
}

/// The system prompt of the turn's requests: the agent's or the session's (with the
/// output style), the memory files, and the structured-output note.
fn system_prompt(ctx: &TurnContext) -> Option<String> {
    let core = &ctx.core;
    let live = core.state.live();
    let (custom, append) = match &ctx.system_prompt {
        Some(own) => (Some(own.as_str()), None),
        None => (
            live.system_prompt.as_deref(),
            live.append_system_prompt.as_deref(),
        ),
    };
    let mut system = crate::prompt::with_memory(
        crate::prompt::system_prompt(
            custom,
            append,
            core.services.dialect().empty_system_prompt_is_none(),
            &core.services.cwd,
        ),
        &core.services.memory,
    );
    // The output style shapes the main thread's answers; an agent's prompt is its own.
    if ctx.system_prompt.is_none() {
        system = crate::prompt::with_output_style(system, &core.services.output_style);
    }
    if ctx.tools.offers(STRUCTURED_OUTPUT_TOOL) && core.json_schema().is_some() {
        let note = format!(
            "When you have the final answer, call the {STRUCTURED_OUTPUT_TOOL} tool exactly once with it; its input schema is the required output format."
        );
        system = Some(match system {
            Some(s) => format!("{s}\n\n{note}"),
            None => note,
        });
    }
    system
}

fn build_request(ctx: &TurnContext, conv: &Conversation, model: &str) -> ModelRequest {
    let live = ctx.core.state.live();
    let system = system_prompt(ctx);
    let max_tokens = models::max_output_tokens(model).min(32_000) as u32;
    let budget = match live.effort.as_deref() {
        Some(level) => crate::session::effort::thinking_budget(level, max_tokens),
        None => live
            .max_thinking_tokens
            .filter(|t| *t >= 1024)
            .map(|t| t.min(max_tokens.saturating_sub(1))),
    };
    ModelRequest {
        model: model.to_string(),
        system,
        messages: conv.api_messages(),
        tools: ctx.tool_specs(),
        max_tokens,
        thinking: budget.map(|t| ThinkingConfig { budget_tokens: t }),
    }
}

/// The `--fallback-model` to try after `error`, when there is one and it would help.
fn fallback_for(ctx: &TurnContext, current: &str, error: &ModelError) -> Option<String> {
    let services = &ctx.core.services;
    let fallback = services.opts.fallback_model.as_deref()?;
    let resolved = models::resolve_alias(Some(fallback), services.clients.default_model());
    let helps = error.is_retryable() || error.kind() == dcl_model::ErrorKind::NotFound;
    (helps && resolved != current).then_some(resolved)
}

async fn sample(
    ctx: &TurnContext,
    conv: &mut Conversation,
    request: ModelRequest,
    st: &mut TurnState,
) -> Result<Reply, SampleError> {
    let services = &ctx.core.services;
    let cancel = &ctx.cancel.token;
    let client = services
        .clients
        .client_for(&request.model)
        .map_err(SampleError::Api)?;
    let policy = dcl_model::retry::RetryPolicy::from_env_map(&services.env);
    let partial = services.opts.include_partial_messages;
    let mut attempt = 0u32;
    loop {
        if partial {
            ctx.emitter.requesting();
        }
        tracing::debug!(
            model = %request.model,
            messages = request.messages.len(),
            tools = request.tools.len(),
            attempt,
            "model request"
        );
        let t0 = Instant::now();
        // Read up to the first content block: a failure before it (headers, a stream that
        // breaks or stalls early) is retried; once content is shown it is a clear error.
        let open = async {
            let stream = client.stream(request.clone(), cancel.clone()).await?;
            dcl_model::retry::prime(stream).await
        };
        let opened = tokio::select! {
            r = open => r,
            _ = cancel.cancelled() => return Err(SampleError::Cancelled),
        };
        let stream = match opened {
            Ok(s) => s,
            Err(e) if policy.should_retry(&e, attempt) => {
                attempt += 1;
                let delay = policy.delay_ms(attempt, &e);
                ctx.emitter
                    .api_retry(&e, attempt, policy.max_retries, delay);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(delay)) => continue,
                    _ = cancel.cancelled() => return Err(SampleError::Cancelled),
                }
            }
            Err(ModelError::Cancelled) => return Err(SampleError::Cancelled),
            Err(e) => {
                st.api_time += t0.elapsed();
                return Err(SampleError::Api(e));
            }
        };
        let result = consume_stream(ctx, conv, stream, st).await;
        st.api_time += t0.elapsed();
        return result;
    }
}

/// Streams one response into lines and items. Before each event it waits for the host
/// to have room in the outbox, so a host that stops reading pauses the model stream
/// instead of growing dcl's memory.
async fn consume_stream(
    ctx: &TurnContext,
    conv: &mut Conversation,
    mut stream: dcl_model::EventStream,
    st: &mut TurnState,
) -> Result<Reply, SampleError> {
    let partial = ctx.core.services.opts.include_partial_messages;
    let cancel = &ctx.cancel.token;
    let mut acc = Accumulator::new();
    let mut msg_id = new_uuid();
    let mut start_usage: Option<Usage> = None;
    let mut open_text = String::new();
    let mut items = super::stream_items::StreamItems::new(ctx, &msg_id);
    loop {
        let next = tokio::select! {
            ev = async {
                ctx.emitter.writable().await;
                stream.next().await
            } => ev,
            _ = cancel.cancelled() => Some(Err(ModelError::Cancelled)),
        };
        // The client may notice the cancellation first and end its stream with `Cancelled`.
        if matches!(next, Some(Err(ModelError::Cancelled))) || cancel.is_cancelled() {
            if !open_text.is_empty() {
                let block = ContentBlock::text(std::mem::take(&mut open_text));
                items.on_block(ctx, None, &block);
                emit_block(ctx, conv, &msg_id, &st.model, start_usage.clone(), block);
            }
            return Err(SampleError::Cancelled);
        }
        let event = match next {
            None => break,
            Some(Ok(ev)) => ev,
            Some(Err(e)) => return Err(SampleError::Api(e)),
        };
        match &event {
            StreamEvent::MessageStart { message } => {
                msg_id = message.id.clone();
                start_usage = Some(message.usage.clone());
            }
            StreamEvent::ContentBlockDelta {
                delta: Delta::TextDelta { text },
                ..
            } => open_text.push_str(text),
            _ => {}
        }
        items.on_event(ctx, &event);
        let completed = acc.push(&event).map_err(SampleError::Api)?;
        if let Some(block) = completed {
            open_text.clear();
            items.on_block(ctx, Some(block.index), &block.block);
            emit_block(
                ctx,
                conv,
                &msg_id,
                &st.model,
                start_usage.clone(),
                block.block.clone(),
            );
        }
        if partial
            && !matches!(event, StreamEvent::Ping)
            && let Ok(v) = serde_json::to_value(&event)
        {
            ctx.emitter.stream_event(v);
        }
    }
    let turn = acc.finish().map_err(SampleError::Api)?;
    st.usage.add(&turn.usage);
    super::usage::record_usage(ctx, &st.model, &turn.usage);
    Ok(Reply {
        content: turn.content,
        invalid_inputs: turn.invalid_tool_inputs,
        stop_reason: turn.stop_reason,
    })
}

/// One assistant line per content block, recorded under the line's uuid.
fn emit_block(
    ctx: &TurnContext,
    conv: &mut Conversation,
    id: &str,
    model: &str,
    usage: Option<Usage>,
    block: ContentBlock,
) {
    let uuid = new_uuid();
    let payload = AssistantPayload {
        id: id.to_string(),
        kind: "message".into(),
        role: "assistant".into(),
        model: model.to_string(),
        content: vec![block],
        stop_reason: None,
        stop_sequence: None,
        usage,
        extra: Extra::new(),
    };
    ctx.emitter.event(Event::AssistantBlock {
        uuid: uuid.clone(),
        payload: Box::new(payload.clone()),
    });
    ctx.record(
        conv,
        uuid,
        Entry::Assistant {
            message: Box::new(payload),
        },
    );
}

/// A one-shot request without tools or history (prompt suggestions); nothing is emitted
/// or recorded, only its usage is counted.
pub(super) async fn complete_text(
    ctx: &TurnContext,
    model: &str,
    system: &str,
    prompt: String,
    max_tokens: u32,
) -> Option<String> {
    let request = ModelRequest {
        model: model.to_string(),
        system: Some(system.to_string()),
        messages: vec![ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::text(prompt)],
        }],
        tools: Vec::new(),
        max_tokens,
        thinking: None,
    };
    let client = ctx.core.services.clients.client_for(model).ok()?;
    let mut stream = client
        .stream(request, CancellationToken::new())
        .await
        .ok()?;
    let mut acc = Accumulator::new();
    while let Some(ev) = stream.next().await {
        acc.push(&ev.ok()?).ok()?;
    }
    let turn = acc.finish().ok()?;
    super::usage::record_usage(ctx, model, &turn.usage);
    Some(turn.text())
}
