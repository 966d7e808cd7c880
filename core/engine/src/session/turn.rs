//! One turn of the agent loop: prompt → model → tools → model … → one `result` line.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dcl_protocol::{
    AssistantMessage, AssistantPayload, CanUseToolRequest, CanUseToolTag, ContentBlock, Extra,
    LegacyTextMessage, LegacyToolResultMessage, LegacyToolStartMessage, LegacyUsageMessage,
    Message, MessageContent, PermissionDecision, PermissionDenial, ResultMessage,
    StreamEventMessage, ToolResultContent, ToolUseBlock, Usage, UserMessage,
};
use futures::StreamExt;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::emit::{new_uuid, now_iso};
use super::host::HostError;
use super::models;
use super::{QueuedPrompt, Shared, hooks};
use crate::model::accumulate::{Accumulator, InvalidToolInput};
use crate::model::{
    ApiMessage, Delta, ModelError, ModelRequest, Role, StreamEvent, ThinkingConfig,
};
use crate::permissions::{self, Policy, Verdict};
use crate::tools::{ToolContext, ToolKind, ToolOutput};

/// How a turn ended, for the front end's exit code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnOutcome {
    pub is_error: bool,
}

/// Largest tool-result text put on one stdout line; SDKs refuse lines over 1 MiB.
const MAX_RESULT_CHARS: usize = 200_000;

struct TurnState {
    started: Instant,
    api_time: Duration,
    num_turns: u32,
    usage: Usage,
    denials: Vec<PermissionDenial>,
    last_text: Option<String>,
    stop_reason: Option<String>,
    model: String,
    /// A hook asked to end the turn (`continue: false`).
    hook_stop: Option<String>,
    /// A PreToolUse hook deferred this call: the turn ends and reports it.
    deferred: Option<Value>,
    /// The input of a `StructuredOutput` call, when `--json-schema` is in force.
    structured: Option<Value>,
    /// Times the Stop hook kept the turn going.
    stop_hook_rounds: u32,
    structured_nudges: u32,
    /// The prompt's `origin`, echoed on its result.
    origin: Option<Value>,
}

enum CallError {
    Cancelled,
    Api(ModelError),
}

/// The assistant message of one model call.
struct Reply {
    content: Vec<ContentBlock>,
    /// Tool uses whose input JSON was invalid.
    invalid_inputs: Vec<InvalidToolInput>,
    stop_reason: Option<String>,
}

/// The tool a `--json-schema` session answers through (the reference's name).
pub(crate) const STRUCTURED_OUTPUT_TOOL: &str = "StructuredOutput";
/// How often a Stop hook may keep one turn going, so two hooks cannot loop forever.
const MAX_STOP_HOOK_ROUNDS: u32 = 8;

pub(crate) async fn run_turn(
    shared: Arc<Shared>,
    prompt: QueuedPrompt,
    cancel: CancellationToken,
) -> TurnOutcome {
    let model = shared.live().model.clone();
    let mut st = TurnState {
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
    };
    shared.start_sdk_servers(Vec::new());
    shared.mcp_ready().await;
    emit_init(&shared);
    if shared.opts.replay_user_messages {
        let mut echo = prompt.message.clone();
        echo.uuid = Some(prompt.uuid.clone());
        echo.session_id = None;
        echo.timestamp = Some(now_iso());
        echo.is_replay = Some(true);
        shared.emitter.emit(Message::User(echo));
    }
    let mut user_blocks: Vec<ContentBlock> =
        std::mem::take(&mut *super::lock(&shared.pending_context));
    user_blocks.extend(prompt.message.message.content.clone().into_blocks());
    match prompt_hooks(&shared, &prompt, &cancel).await {
        PromptHooks::Proceed(context) => {
            // Hook context goes first so the prompt stays the message's last word.
            let mut blocks: Vec<ContentBlock> =
                context.into_iter().map(ContentBlock::text).collect();
            blocks.append(&mut user_blocks);
            user_blocks = blocks;
        }
        PromptHooks::Stop(reason) => return finish(&shared, &mut st, Finish::HookStopped(reason)),
    }
    shared.history.lock().await.push(ApiMessage {
        role: Role::User,
        content: user_blocks,
    });
    {
        let mut stats = super::lock(&shared.stats);
        stats.prompts += 1;
        stats.messages += 1;
    }

    loop {
        if let Some(max) = shared.opts.max_turns
            && st.num_turns >= max
        {
            return finish(&shared, &mut st, Finish::MaxTurns(max));
        }
        if let Some(budget) = shared.opts.max_budget_usd
            && shared.totals().cost_usd >= budget
        {
            return finish(&shared, &mut st, Finish::Budget(budget));
        }
        st.num_turns += 1;
        let request = build_request(&shared, &st.model).await;
        let mut outcome = call_model(&shared, request, &cancel, &mut st).await;
        if let Err(CallError::Api(e)) = &outcome
            && let Some(fallback) = fallback_for(&shared, &st.model, e)
        {
            // The primary model is overloaded, unavailable or unknown after its retries:
            // the rest of this turn uses `--fallback-model`.
            let mut f = Map::new();
            f.insert(
                "content".into(),
                json!(format!(
                    "{} failed ({e}); switching to the fallback model {fallback}",
                    st.model
                )),
            );
            f.insert("level".into(), json!("warning"));
            shared.emitter.system("informational", f);
            st.model = fallback;
            let request = build_request(&shared, &st.model).await;
            outcome = call_model(&shared, request, &cancel, &mut st).await;
        }
        let reply = match outcome {
            Ok(r) => r,
            Err(CallError::Cancelled) => {
                shared.history.lock().await.push(ApiMessage {
                    role: Role::User,
                    content: vec![ContentBlock::text("[Request interrupted by user]")],
                });
                return finish(&shared, &mut st, Finish::Interrupted("aborted_streaming"));
            }
            Err(CallError::Api(e)) => return finish(&shared, &mut st, Finish::ApiError(e)),
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
        shared.history.lock().await.push(ApiMessage {
            role: Role::Assistant,
            content: reply.content.clone(),
        });
        {
            let mut stats = super::lock(&shared.stats);
            stats.messages += 1;
            stats.tool_calls += tool_uses.len() as u64;
        }
        if tool_uses.is_empty() {
            match stop_hooks_and_checks(&shared, &mut st, &cancel).await {
                AfterStop::Finish(how) => return finish_and_suggest(&shared, &mut st, how).await,
                AfterStop::Continue(text) => {
                    shared.history.lock().await.push(ApiMessage {
                        role: Role::User,
                        content: vec![ContentBlock::text(text)],
                    });
                    continue;
                }
            }
        }
        let mut results = Vec::with_capacity(tool_uses.len());
        let mut interrupted = false;
        let mut i = 0;
        while i < tool_uses.len() {
            let invalid_of = |tu: &ToolUseBlock| {
                reply
                    .invalid_inputs
                    .iter()
                    .find(|x| x.tool_use_id == tu.id)
                    .map(InvalidToolInput::tool_result_text)
            };
            let stopped = st.hook_stop.is_some() || st.deferred.is_some();
            if interrupted || cancel.is_cancelled() || stopped {
                let text = if stopped && !(interrupted || cancel.is_cancelled()) {
                    "Not run: the turn was stopped by a hook"
                } else {
                    interrupted = true;
                    "Interrupted by user"
                };
                results.push(ContentBlock::tool_result(
                    tool_uses[i].id.clone(),
                    ToolResultContent::Text(text.into()),
                    Some(true),
                ));
                i += 1;
                continue;
            }
            let mut j = i;
            while j < tool_uses.len() && runs_in_parallel(&shared, &tool_uses[j]) {
                j += 1;
            }
            if j - i >= 2 {
                let batch: Vec<(ToolUseBlock, Option<String>)> = tool_uses[i..j]
                    .iter()
                    .map(|tu| (tu.clone(), invalid_of(tu)))
                    .collect();
                results.extend(run_read_only_batch(&shared, &batch, &cancel, &mut st).await);
                i = j;
            } else {
                let tu = &tool_uses[i];
                results.push(run_tool_call(&shared, tu, invalid_of(tu), &cancel, &mut st).await);
                i += 1;
            }
        }
        shared.history.lock().await.push(ApiMessage {
            role: Role::User,
            content: results,
        });
        if interrupted || cancel.is_cancelled() {
            return finish(&shared, &mut st, Finish::Interrupted("aborted_tools"));
        }
        if let Some(reason) = st.hook_stop.take() {
            return finish(&shared, &mut st, Finish::HookStopped(reason));
        }
        if st.deferred.is_some() {
            return finish(&shared, &mut st, Finish::Deferred);
        }
        if st.structured.is_some() {
            return finish_and_suggest(&shared, &mut st, Finish::Completed).await;
        }
    }
}

/// Ends the turn; after a success, suggests the next prompt when the host asked for it.
async fn finish_and_suggest(shared: &Shared, st: &mut TurnState, how: Finish) -> TurnOutcome {
    let completed = matches!(how, Finish::Completed);
    let outcome = finish(shared, st, how);
    if completed
        && shared
            .prompt_suggestions
            .load(std::sync::atomic::Ordering::SeqCst)
        && let Some(s) = suggest_next_prompt(shared, &st.model).await
    {
        shared.emitter.emit(Message::PromptSuggestion(
            dcl_protocol::PromptSuggestionMessage {
                suggestion: s,
                session_id: String::new(),
                uuid: String::new(),
                extra: Extra::new(),
            },
        ));
    }
    outcome
}

/// Asks the model, without tools, for the user's likely next message.
async fn suggest_next_prompt(shared: &Shared, model: &str) -> Option<String> {
    let history = merge_consecutive(&shared.history.lock().await);
    let recent: Vec<String> = history
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(|m| {
            let text: Vec<&str> = m.content.iter().filter_map(ContentBlock::as_text).collect();
            format!("{:?}: {}", m.role, text.join(" "))
        })
        .collect();
    let request = ModelRequest {
        model: model.to_string(),
        system: Some("You predict what the user will type next to a coding agent. Reply with that one short message only.".into()),
        messages: vec![ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::text(format!(
                "Conversation so far:\n{}\n\nWhat is the user's most likely next message?",
                recent.join("\n")
            ))],
        }],
        tools: Vec::new(),
        max_tokens: 64,
        thinking: None,
    };
    let client = shared.clients.client_for(model).ok()?;
    let cancel = CancellationToken::new();
    let mut stream = client.stream(request, cancel).await.ok()?;
    let mut acc = Accumulator::new();
    while let Some(ev) = stream.next().await {
        acc.push(&ev.ok()?).ok()?;
    }
    let turn = acc.finish().ok()?;
    record_usage(shared, model, &turn.usage);
    let text = turn.text().trim().to_string();
    (!text.is_empty()).then_some(text)
}

enum PromptHooks {
    Proceed(Vec<String>),
    Stop(String),
}

/// SessionStart (first turn only) and UserPromptSubmit hooks.
async fn prompt_hooks(
    shared: &Shared,
    prompt: &QueuedPrompt,
    cancel: &CancellationToken,
) -> PromptHooks {
    let mut context = Vec::new();
    if !shared
        .session_started
        .swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        let mut input = Map::new();
        input.insert("source".into(), json!("startup"));
        let v = hooks::run(shared, "SessionStart", None, None, input, cancel).await;
        context.extend(v.additional_context);
    }
    let mut input = Map::new();
    input.insert(
        "prompt".into(),
        json!(prompt.message.message.content.text()),
    );
    let v = hooks::run(shared, "UserPromptSubmit", None, None, input, cancel).await;
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
async fn stop_hooks_and_checks(
    shared: &Shared,
    st: &mut TurnState,
    cancel: &CancellationToken,
) -> AfterStop {
    let mut input = Map::new();
    input.insert("stop_hook_active".into(), json!(st.stop_hook_rounds > 0));
    if let Some(t) = &st.last_text {
        input.insert("last_assistant_message".into(), json!(t));
    }
    let v = hooks::run(shared, "Stop", None, None, input, cancel).await;
    if let Some(reason) = v.stop {
        return AfterStop::Finish(Finish::HookStopped(reason));
    }
    if let Some(reason) = v.block
        && st.stop_hook_rounds < MAX_STOP_HOOK_ROUNDS
    {
        st.stop_hook_rounds += 1;
        return AfterStop::Continue(reason);
    }
    if shared.json_schema().is_some() && st.structured.is_none() {
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

/// The `system/init` line that opens every turn (Qoder also sends one before `initialize`'s answer).
pub(crate) fn emit_init(shared: &Shared) {
    let live = shared.live().clone();
    let mut f = Map::new();
    f.insert("cwd".into(), json!(shared.cwd.display().to_string()));
    f.insert("tools".into(), json!(shared.tool_names()));
    let servers: Vec<Value> = shared
        .mcp
        .status()
        .into_iter()
        .map(|s| json!({"name": s.name, "status": s.status}))
        .collect();
    f.insert("mcp_servers".into(), json!(servers));
    f.insert("model".into(), json!(live.model));
    f.insert(
        "permissionMode".into(),
        json!(live.permission_mode.as_str()),
    );
    f.insert("slash_commands".into(), json!([]));
    f.insert(
        "apiKeySource".into(),
        json!(shared.clients.api_key_source()),
    );
    f.insert(
        "claude_code_version".into(),
        json!(dcl_protocol::PROTOCOL_LEVEL),
    );
    f.insert("dcl_version".into(), json!(dcl_protocol::DCL_VERSION));
    f.insert("output_style".into(), json!("default"));
    f.insert("agents".into(), json!([]));
    f.insert("skills".into(), json!([]));
    f.insert("plugins".into(), json!([]));
    if shared.qoder() {
        f.insert(
            "qodercli_version".into(),
            json!(dcl_protocol::PROTOCOL_LEVEL),
        );
        f.insert(
            "protocol_version".into(),
            json!(dcl_protocol::QODER_PROTOCOL_VERSION),
        );
        f.insert(
            "capabilities".into(),
            json!(super::control::QODER_CAPABILITIES),
        );
    }
    shared.emitter.system("init", f);
}

async fn build_request(shared: &Shared, model: &str) -> ModelRequest {
    let live = shared.live().clone();
    let mut system = crate::prompt::with_memory(
        crate::prompt::system_prompt(
            live.system_prompt.as_deref(),
            live.append_system_prompt.as_deref(),
            !shared.qoder(),
            &shared.cwd,
        ),
        &shared.memory,
    );
    if shared.json_schema().is_some() {
        let note = format!(
            "When you have the final answer, call the {STRUCTURED_OUTPUT_TOOL} tool exactly once with it; its input schema is the required output format."
        );
        system = Some(match system {
            Some(s) => format!("{s}\n\n{note}"),
            None => note,
        });
    }
    let max_tokens = models::max_output_tokens(model).min(32_000) as u32;
    let budget = match live.effort.as_deref() {
        Some(level) => super::effort::thinking_budget(level, max_tokens),
        None => live
            .max_thinking_tokens
            .filter(|t| *t >= 1024)
            .map(|t| t.min(max_tokens.saturating_sub(1))),
    };
    let history = shared.history.lock().await;
    ModelRequest {
        model: model.to_string(),
        system,
        messages: merge_consecutive(&history),
        tools: shared.tool_specs(),
        max_tokens,
        thinking: budget.map(|t| ThinkingConfig { budget_tokens: t }),
    }
}

/// The API wants alternating roles; an interrupted turn can leave two user messages in a row.
fn merge_consecutive(history: &[ApiMessage]) -> Vec<ApiMessage> {
    let mut out: Vec<ApiMessage> = Vec::with_capacity(history.len());
    for m in history {
        match out.last_mut() {
            Some(last) if last.role == m.role => last.content.extend(m.content.iter().cloned()),
            _ => out.push(m.clone()),
        }
    }
    out
}

/// `DCL_MAX_RETRIES` / `CLAUDE_CODE_MAX_RETRIES`, `DCL_RETRY_BASE_MS`, … from the env map.
fn retry_settings(shared: &Shared) -> crate::model::retry::RetryPolicy {
    crate::model::retry::RetryPolicy::from_env_map(&shared.env)
}

async fn call_model(
    shared: &Shared,
    request: ModelRequest,
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> Result<Reply, CallError> {
    let client = shared
        .clients
        .client_for(&request.model)
        .map_err(CallError::Api)?;
    let policy = retry_settings(shared);
    let max_retries = policy.max_retries;
    let partial = shared.opts.include_partial_messages;
    let mut attempt = 0u32;
    loop {
        if partial {
            let mut f = Map::new();
            f.insert("status".into(), json!("requesting"));
            shared.emitter.system("status", f);
        }
        let t0 = Instant::now();
        // Read up to the first content block: a failure before it (headers, a stream that
        // breaks or stalls early) is retried; once content is shown it is a clear error.
        let open = async {
            let stream = client.stream(request.clone(), cancel.clone()).await?;
            crate::model::retry::prime(stream).await
        };
        let opened = tokio::select! {
            r = open => r,
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
        };
        let stream = match opened {
            Ok(s) => s,
            Err(e) if policy.should_retry(&e, attempt) => {
                attempt += 1;
                let delay = backoff_ms(&policy, attempt, &e);
                let mut f = Map::new();
                f.insert("attempt".into(), json!(attempt));
                f.insert("max_retries".into(), json!(max_retries));
                f.insert("retry_delay_ms".into(), json!(delay));
                f.insert("error_status".into(), json!(e.status()));
                f.insert("error".into(), json!(error_kind(&e)));
                shared.emitter.system("api_retry", f);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(delay)) => continue,
                    _ = cancel.cancelled() => return Err(CallError::Cancelled),
                }
            }
            Err(ModelError::Cancelled) => return Err(CallError::Cancelled),
            Err(e) => {
                st.api_time += t0.elapsed();
                return Err(CallError::Api(e));
            }
        };
        let result = consume_stream(shared, stream, cancel, st).await;
        st.api_time += t0.elapsed();
        return result;
    }
}

/// The `--fallback-model` to try after `error`, when there is one and it would help.
fn fallback_for(shared: &Shared, current: &str, error: &ModelError) -> Option<String> {
    let fallback = shared.opts.fallback_model.as_deref()?;
    let resolved = models::resolve_alias(Some(fallback), shared.clients.default_model());
    let helps = error.is_retryable() || matches!(error.status(), Some(404));
    (helps && resolved != current).then_some(resolved)
}

/// `retry-after` (capped), else exponential backoff with jitter; see `model::retry`.
fn backoff_ms(policy: &crate::model::retry::RetryPolicy, attempt: u32, err: &ModelError) -> u64 {
    policy.delay_ms(attempt, err)
}

fn error_kind(e: &ModelError) -> &'static str {
    match e {
        ModelError::Http { status: 529, .. } => "overloaded",
        ModelError::Http { status: 429, .. } => "rate_limit",
        ModelError::Http { .. } => "server_error",
        ModelError::Stream(m) if m.contains("overloaded") => "overloaded",
        ModelError::Connection(_) => "connection_error",
        ModelError::Stream(_) => "stream_error",
        ModelError::Config(_) => "config_error",
        ModelError::Cancelled => "cancelled",
    }
}

async fn consume_stream(
    shared: &Shared,
    mut stream: crate::model::EventStream,
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> Result<Reply, CallError> {
    let partial = shared.opts.include_partial_messages;
    let mut acc = Accumulator::new();
    let mut msg_id = new_uuid();
    let mut start_usage: Option<Usage> = None;
    let mut open_text = String::new();
    loop {
        let next = tokio::select! {
            ev = stream.next() => ev,
            _ = cancel.cancelled() => Some(Err(ModelError::Cancelled)),
        };
        // The client may notice the cancellation first and end its stream with `Cancelled`.
        if matches!(next, Some(Err(ModelError::Cancelled))) || cancel.is_cancelled() {
            if !open_text.is_empty() {
                emit_assistant_block(
                    shared,
                    &msg_id,
                    &st.model,
                    start_usage.clone(),
                    ContentBlock::text(open_text),
                );
            }
            return Err(CallError::Cancelled);
        }
        let event = match next {
            None => break,
            Some(Ok(ev)) => ev,
            Some(Err(e)) => return Err(CallError::Api(e)),
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
        let completed = acc.push(&event).map_err(CallError::Api)?;
        if let Some(block) = completed {
            open_text.clear();
            emit_assistant_block(
                shared,
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
            shared
                .emitter
                .emit(Message::StreamEvent(StreamEventMessage::new(v, "", "")));
        }
    }
    let turn = acc.finish().map_err(CallError::Api)?;
    st.usage.add(&turn.usage);
    record_usage(shared, &st.model, &turn.usage);
    Ok(Reply {
        content: turn.content,
        invalid_inputs: turn.invalid_tool_inputs,
        stop_reason: turn.stop_reason,
    })
}

fn emit_assistant_block(
    shared: &Shared,
    id: &str,
    model: &str,
    usage: Option<Usage>,
    block: ContentBlock,
) {
    if shared.legacy_events() {
        emit_legacy_for_block(shared, &block);
    }
    shared.emitter.emit(Message::Assistant(AssistantMessage {
        message: AssistantPayload {
            id: id.to_string(),
            kind: "message".into(),
            role: "assistant".into(),
            model: model.to_string(),
            content: vec![block],
            stop_reason: None,
            stop_sequence: None,
            usage,
            extra: Extra::new(),
        },
        parent_tool_use_id: dcl_protocol::parent_tool_use_id_null(),
        session_id: String::new(),
        uuid: String::new(),
        error: None,
        extra: Extra::new(),
    }));
}

/// Legacy lines (`text`, `tool_start`) kept for old scripts; the emitter stamps ids.
fn emit_legacy_for_block(shared: &Shared, block: &ContentBlock) {
    if let Some(text) = block.as_text() {
        shared.emitter.emit(Message::Text(LegacyTextMessage {
            text: text.to_string(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }));
    } else if let Some(tu) = block.as_tool_use() {
        shared
            .emitter
            .emit(Message::ToolStart(LegacyToolStartMessage {
                tool_use_id: tu.id.clone(),
                name: tu.name.clone(),
                input: tu.input.clone(),
                session_id: String::new(),
                uuid: String::new(),
                extra: Extra::new(),
            }));
    }
}

fn record_usage(shared: &Shared, model: &str, usage: &Usage) {
    if let Some(notice) = shared.clients.unpriced_notice(model) {
        let mut f = Map::new();
        f.insert("content".into(), json!(notice));
        f.insert("level".into(), json!("warning"));
        shared.emitter.system("informational", f);
    }
    let cost = models::price_per_mtok(model).map_or(0.0, |(i, o, cr, cw)| {
        (usage.input_tokens as f64 * i
            + usage.output_tokens as f64 * o
            + usage.cache_read_input_tokens as f64 * cr
            + usage.cache_creation_input_tokens as f64 * cw)
            / 1_000_000.0
    });
    let mut totals = shared.totals();
    totals.cost_usd += cost;
    let entry = totals
        .model_usage
        .entry(model.to_string())
        .or_insert_with(|| {
            json!({
                "inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": 0.0,
                "contextWindow": models::context_window(model),
                "maxOutputTokens": models::max_output_tokens(model),
            })
        });
    let add = |e: &mut Value, key: &str, n: u64| {
        let cur = e.get(key).and_then(Value::as_u64).unwrap_or(0);
        e[key] = json!(cur + n);
    };
    add(entry, "inputTokens", usage.input_tokens);
    add(entry, "outputTokens", usage.output_tokens);
    add(entry, "cacheReadInputTokens", usage.cache_read_input_tokens);
    add(
        entry,
        "cacheCreationInputTokens",
        usage.cache_creation_input_tokens,
    );
    let cur = entry.get("costUSD").and_then(Value::as_f64).unwrap_or(0.0);
    entry["costUSD"] = json!(cur + cost);
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

/// The fields every tool hook's input starts with.
fn tool_hook_input(tu: &ToolUseBlock, input: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("tool_name".into(), json!(tu.name));
    m.insert("tool_input".into(), input);
    m.insert("tool_use_id".into(), json!(tu.id));
    m
}

/// A call after its PreToolUse hooks and permission decision, before it runs.
struct Prepared {
    tu: ToolUseBlock,
    tool: Option<Arc<dyn crate::tools::Tool>>,
    ctx: ToolContext,
    /// The input to run with, when approved.
    approved: Option<Value>,
    invalid_input: Option<String>,
    /// The result of a call that ends before running (denied, deferred).
    early: Option<ToolOutput>,
    context: Vec<String>,
}

async fn run_tool_call(
    shared: &Shared,
    tu: &ToolUseBlock,
    invalid_input: Option<String>,
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> ContentBlock {
    let prepared = prepare_tool_call(shared, tu, invalid_input, cancel, st).await;
    let started = Instant::now();
    let output = match &prepared.early {
        Some(out) => out.clone(),
        None => {
            let (out, structured) = execute(shared, &prepared).await;
            if structured.is_some() {
                st.structured = structured;
            }
            out
        }
    };
    finish_tool_call(shared, prepared, output, started.elapsed(), cancel, st).await
}

/// Runs consecutive read-only calls concurrently: decisions and hooks stay in order,
/// only the tools' own work overlaps. Results are emitted in the model's order.
async fn run_read_only_batch(
    shared: &Shared,
    batch: &[(ToolUseBlock, Option<String>)],
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> Vec<ContentBlock> {
    let mut prepared = Vec::with_capacity(batch.len());
    for (tu, invalid) in batch {
        prepared.push(prepare_tool_call(shared, tu, invalid.clone(), cancel, st).await);
    }
    let started = Instant::now();
    let outputs = futures::future::join_all(prepared.iter().map(|p| async move {
        match &p.early {
            Some(out) => out.clone(),
            None => execute(shared, p).await.0,
        }
    }))
    .await;
    let elapsed = started.elapsed();
    let mut blocks = Vec::with_capacity(batch.len());
    for (p, out) in prepared.into_iter().zip(outputs) {
        blocks.push(finish_tool_call(shared, p, out, elapsed, cancel, st).await);
    }
    blocks
}

/// Built-in read-only tools may run side by side with their neighbours.
fn runs_in_parallel(shared: &Shared, tu: &ToolUseBlock) -> bool {
    shared
        .tool(&tu.name)
        .is_some_and(|t| t.kind() == ToolKind::Read)
}

async fn prepare_tool_call(
    shared: &Shared,
    tu: &ToolUseBlock,
    invalid_input: Option<String>,
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> Prepared {
    let ctx = ToolContext {
        cwd: shared.cwd.clone(),
        shell: shared.shell.clone(),
        env: shared.env.clone(),
        cancel: cancel.clone(),
        todos: shared.shell.todos.clone(),
        background: shared.shell.background.clone(),
    };
    let tool = shared.tool(&tu.name);
    let mut input = tu.input.clone();
    let mut context = Vec::new();
    let mut hook_permission = None;
    let mut hook_denial = None;
    if invalid_input.is_none() {
        let hook_input = tool_hook_input(tu, tu.input.clone());
        let pre = hooks::run(
            shared,
            "PreToolUse",
            Some(&tu.name),
            Some(&tu.id),
            hook_input,
            cancel,
        )
        .await;
        if let Some(reason) = pre.stop {
            // `continue: false` ends the turn before this call runs.
            st.hook_stop = Some(reason);
            return Prepared {
                tu: tu.clone(),
                tool,
                ctx,
                approved: None,
                invalid_input,
                early: Some(ToolOutput::error(
                    "Not run: a PreToolUse hook stopped the turn",
                )),
                context,
            };
        }
        if let Some(u) = pre.updated_input {
            input = u;
        }
        context.extend(pre.additional_context);
        let reason = pre.permission_reason.clone().or(pre.block.clone());
        match pre.permission.as_deref() {
            Some("deny") => hook_denial = Some(reason.unwrap_or_else(|| "denied".into())),
            Some("defer") => {
                st.deferred = Some(json!({"id": tu.id, "name": tu.name, "input": input}));
                return Prepared {
                    tu: tu.clone(),
                    tool,
                    ctx,
                    approved: None,
                    invalid_input,
                    early: Some(ToolOutput::error(
                        "The tool call was deferred by a PreToolUse hook",
                    )),
                    context,
                };
            }
            other => {
                if let Some(b) = pre.block {
                    hook_denial = Some(b);
                } else {
                    hook_permission = other.map(str::to_string);
                }
            }
        }
    }
    let decision = match hook_denial {
        Some(reason) => Decision::Deny(format!("PreToolUse:{} hook error: {reason}", tu.name)),
        None if invalid_input.is_some() => Decision::Allow(input.clone()),
        None => {
            decide(
                shared,
                tu,
                &input,
                tool.as_deref(),
                &ctx,
                hook_permission.as_deref(),
                cancel,
            )
            .await
        }
    };
    let (approved, early) = match decision {
        Decision::Deny(message) => {
            st.denials.push(PermissionDenial {
                tool_name: tu.name.clone(),
                tool_use_id: tu.id.clone(),
                tool_input: input.clone(),
                extra: Extra::new(),
            });
            let mut hook_input = tool_hook_input(tu, input.clone());
            hook_input.insert("reason".into(), json!(message));
            hooks::run(
                shared,
                "PermissionDenied",
                Some(&tu.name),
                Some(&tu.id),
                hook_input,
                cancel,
            )
            .await;
            (None, Some(ToolOutput::error(message)))
        }
        Decision::Allow(input) => (Some(input), None),
    };
    Prepared {
        tu: tu.clone(),
        tool,
        ctx,
        approved,
        invalid_input,
        early,
        context,
    }
}

/// PostToolUse hooks for a call that ran, hook context, and the tool_result line.
async fn finish_tool_call(
    shared: &Shared,
    prepared: Prepared,
    output: ToolOutput,
    elapsed: Duration,
    cancel: &CancellationToken,
    st: &mut TurnState,
) -> ContentBlock {
    let Prepared {
        tu,
        approved,
        mut context,
        ..
    } = prepared;
    if let Some(input) = approved {
        let event = if output.is_error {
            "PostToolUseFailure"
        } else {
            "PostToolUse"
        };
        let mut hook_input = tool_hook_input(&tu, input);
        hook_input.insert("duration_ms".into(), json!(elapsed.as_millis() as u64));
        if output.is_error {
            hook_input.insert("error".into(), json!(output.content.to_text()));
        } else {
            hook_input.insert(
                "tool_response".into(),
                output
                    .structured
                    .clone()
                    .unwrap_or_else(|| json!(output.content.to_text())),
            );
        }
        let post = hooks::run(
            shared,
            event,
            Some(&tu.name),
            Some(&tu.id),
            hook_input,
            cancel,
        )
        .await;
        if let Some(reason) = post.stop {
            st.hook_stop = Some(reason);
        }
        if let Some(reason) = post.block {
            context.push(format!("{event}:{} hook feedback: {reason}", tu.name));
        }
        context.extend(post.additional_context);
    }
    let output = if context.is_empty() {
        output
    } else {
        with_context(output, &context)
    };
    emit_tool_result(shared, &tu.id, output)
}

/// Hook context reaches the model next to the tool's own result.
fn with_context(mut output: ToolOutput, context: &[String]) -> ToolOutput {
    let note = context.join("\n");
    output.content = match output.content {
        ToolResultContent::Text(t) => {
            ToolResultContent::Text(format!("{t}\n\n<hook-context>\n{note}\n</hook-context>"))
        }
        ToolResultContent::Blocks(mut b) => {
            b.push(ContentBlock::text(format!(
                "<hook-context>\n{note}\n</hook-context>"
            )));
            ToolResultContent::Blocks(b)
        }
    };
    output
}

/// Runs an approved call: a built-in tool, the structured-output tool, or an MCP tool.
/// Returns the output and, for a valid structured-output call, the structured value.
async fn execute(shared: &Shared, p: &Prepared) -> (ToolOutput, Option<Value>) {
    if let Some(err) = &p.invalid_input {
        return (ToolOutput::error(err.clone()), None);
    }
    let input = p.approved.clone().unwrap_or_else(|| p.tu.input.clone());
    if p.tu.name == STRUCTURED_OUTPUT_TOOL
        && let Some(schema) = shared.json_schema()
    {
        return match crate::structured::validate(&input, schema) {
            Ok(()) => (
                ToolOutput::ok("Structured output provided successfully"),
                Some(input),
            ),
            Err(e) => (
                ToolOutput::error(format!(
                    "The structured output does not match the schema: {e}"
                )),
                None,
            ),
        };
    }
    let output = match &p.tool {
        Some(t) => t.call(input, &p.ctx).await,
        None if shared.is_host_tool(&p.tu.name) => {
            super::mcp::call(shared, &p.tu.name, &p.tu.id, input, &p.ctx.cancel).await
        }
        None => ToolOutput::error(format!(
            "<tool_use_error>Error: No such tool available: {}</tool_use_error>",
            p.tu.name
        )),
    };
    (output, None)
}

enum Decision {
    Allow(Value),
    Deny(String),
}

#[allow(clippy::too_many_arguments)]
async fn decide(
    shared: &Shared,
    tu: &ToolUseBlock,
    input: &Value,
    tool: Option<&dyn crate::tools::Tool>,
    ctx: &ToolContext,
    hook_permission: Option<&str>,
    cancel: &CancellationToken,
) -> Decision {
    if tu.name == STRUCTURED_OUTPUT_TOOL && shared.json_schema().is_some() {
        return Decision::Allow(input.clone());
    }
    let policy = {
        let live = shared.live();
        let mut allowed = shared.opts.allowed_tools.clone();
        allowed.extend(shared.settings_allow());
        allowed.extend(match shared.session_allow.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        });
        let mut denied = shared.opts.disallowed_tools.clone();
        denied.extend(shared.settings_deny());
        Policy::new(
            live.permission_mode,
            &allowed,
            &denied,
            &shared.cwd,
            &shared.allowed_dirs(),
        )
    };
    let kind = tool.map_or(ToolKind::Other, |t| t.kind());
    let verdict = policy.check(&tu.name, tool, input, ctx);
    let verdict = match (hook_permission, verdict) {
        // A hook's "allow" skips the prompt, never a deny rule or plan mode.
        (Some("allow"), Verdict::Ask { .. }) => Verdict::Allow,
        (Some("ask"), Verdict::Allow) => Verdict::Ask {
            blocked_path: None,
            decision_reason_type: Some("hook"),
        },
        (_, v) => v,
    };
    match verdict {
        Verdict::Allow => Decision::Allow(input.clone()),
        Verdict::Deny(msg) => Decision::Deny(msg),
        Verdict::Ask { .. } if tool.is_none() && !shared.is_host_tool(&tu.name) => {
            // Nothing to approve: the call fails as an unknown tool.
            Decision::Allow(input.clone())
        }
        Verdict::Ask {
            blocked_path,
            decision_reason_type,
        } => {
            let mut hook_input = Map::new();
            hook_input.insert("tool_name".into(), json!(tu.name));
            hook_input.insert("tool_input".into(), input.clone());
            let v = hooks::run(
                shared,
                "PermissionRequest",
                Some(&tu.name),
                Some(&tu.id),
                hook_input,
                cancel,
            )
            .await;
            if let Some(d) = v.permission_request_decision {
                match d.get("behavior").and_then(Value::as_str) {
                    Some("allow") => {
                        return Decision::Allow(
                            d.get("updatedInput")
                                .filter(|u| u.is_object())
                                .cloned()
                                .unwrap_or_else(|| input.clone()),
                        );
                    }
                    Some("deny") => {
                        return Decision::Deny(
                            d.get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("Denied by a PermissionRequest hook")
                                .to_string(),
                        );
                    }
                    _ => {}
                }
            }
            let can_ask = shared.stream_json()
                && !shared.opts.non_interactive
                && shared
                    .opts
                    .permission_prompt_tool
                    .as_deref()
                    .is_none_or(|p| p == "stdio");
            if !can_ask || policy.mode == permissions::PermissionMode::DontAsk {
                let message =
                    permissions::auto_denial_message(&tu.name, kind, blocked_path.as_deref());
                // Nobody was asked: say so on the stream as well as in the tool result.
                let mut f = Map::new();
                f.insert("tool_name".into(), json!(tu.name));
                f.insert("tool_use_id".into(), json!(tu.id));
                f.insert("message".into(), json!(message));
                shared.emitter.system("permission_denied", f);
                return Decision::Deny(message);
            }
            let asked = ToolUseBlock {
                input: input.clone(),
                ..tu.clone()
            };
            ask_host(
                shared,
                &asked,
                tool,
                blocked_path,
                decision_reason_type,
                cancel,
            )
            .await
        }
    }
}

async fn ask_host(
    shared: &Shared,
    tu: &ToolUseBlock,
    tool: Option<&dyn crate::tools::Tool>,
    blocked_path: Option<std::path::PathBuf>,
    decision_reason_type: Option<&'static str>,
    cancel: &CancellationToken,
) -> Decision {
    let description = tool.and_then(|t| t.describe(&tu.input));
    let mut suggestions = Vec::new();
    if let Some(cmd) = tu.input.get("command").and_then(Value::as_str) {
        suggestions.push(json!({"type":"addRules","rules":[{"toolName":tu.name,"ruleContent":cmd}],"behavior":"allow","destination":"localSettings"}));
    }
    suggestions.push(json!({"type":"setMode","mode":"acceptEdits","destination":"session"}));
    let request = CanUseToolRequest {
        subtype: CanUseToolTag::CanUseTool,
        tool_name: tu.name.clone(),
        display_name: tu.name.clone(),
        input: tu.input.clone(),
        tool_use_id: tu.id.clone(),
        description,
        permission_suggestions: suggestions,
        blocked_path: blocked_path.map(|p| p.display().to_string()),
        decision_reason_type: decision_reason_type.map(str::to_string),
        extra: Extra::new(),
    };
    let request = match serde_json::to_value(&request) {
        Ok(v) => v,
        Err(e) => return Decision::Deny(format!("could not build the approval request: {e}")),
    };
    match shared.host.request(&shared.emitter, request, cancel).await {
        Ok(answer) => match serde_json::from_value::<PermissionDecision>(answer.clone()) {
            Ok(PermissionDecision::Allow {
                updated_input,
                updated_permissions,
                ..
            }) => {
                if let Some(updates) = updated_permissions {
                    apply_permission_updates(shared, &updates);
                }
                Decision::Allow(updated_input.unwrap_or_else(|| tu.input.clone()))
            }
            Ok(PermissionDecision::Deny { message, .. }) => Decision::Deny(if message.is_empty() {
                "The user denied this tool use.".to_string()
            } else {
                message
            }),
            Err(e) => Decision::Deny(format!(
                "The host's permission answer was not understood ({e}): {answer}"
            )),
        },
        Err(HostError::Cancelled) => Decision::Deny("Interrupted by user".into()),
        Err(e) => Decision::Deny(format!(
            "Permission to use {} was not granted: {e}",
            tu.name
        )),
    }
}

/// Applies the session-scoped parts of a host's `updatedPermissions`.
fn apply_permission_updates(shared: &Shared, updates: &[Value]) {
    for u in updates {
        match u.get("type").and_then(Value::as_str) {
            Some("setMode") => {
                if let Some(mode) = u.get("mode").and_then(Value::as_str) {
                    match permissions::PermissionMode::parse(mode) {
                        Ok(m) => shared.live().permission_mode = m,
                        Err(e) => tracing::warn!("updatedPermissions: {e}"),
                    }
                }
            }
            Some("addRules") if u.get("behavior").and_then(Value::as_str) == Some("allow") => {
                let rules = u
                    .get("rules")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let mut allow = match shared.session_allow.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                for r in rules {
                    if let Some(name) = r.get("toolName").and_then(Value::as_str) {
                        match r.get("ruleContent").and_then(Value::as_str) {
                            Some(c) => allow.push(format!("{name}({c})")),
                            None => allow.push(name.to_string()),
                        }
                    }
                }
            }
            other => tracing::warn!(
                "updatedPermissions entry {other:?} is not applied by this dcl build"
            ),
        }
    }
}

/// Lines added and removed according to a Write/Edit `structuredPatch`.
fn patch_lines(structured: Option<&Value>) -> u64 {
    structured
        .and_then(|s| s.get("structuredPatch"))
        .and_then(Value::as_array)
        .map(|hunks| {
            hunks
                .iter()
                .filter_map(|h| h.get("lines").and_then(Value::as_array))
                .flatten()
                .filter_map(Value::as_str)
                .filter(|l| l.starts_with('+') || l.starts_with('-'))
                .count() as u64
        })
        .unwrap_or(0)
}

fn emit_tool_result(shared: &Shared, tool_use_id: &str, output: ToolOutput) -> ContentBlock {
    super::lock(&shared.stats).lines_changed += patch_lines(output.structured.as_ref());
    let content = match output.content {
        ToolResultContent::Text(t) => ToolResultContent::Text(cap_text(t)),
        blocks => blocks,
    };
    let block = ContentBlock::tool_result(tool_use_id, content.clone(), Some(output.is_error));
    if shared.legacy_events() {
        shared
            .emitter
            .emit(Message::ToolResult(LegacyToolResultMessage {
                tool_use_id: tool_use_id.to_string(),
                content: content.to_text(),
                is_error: output.is_error,
                session_id: String::new(),
                uuid: String::new(),
                extra: Extra::new(),
            }));
    }
    let mut line = UserMessage::new(MessageContent::Blocks(vec![block.clone()]));
    line.timestamp = Some(now_iso());
    line.tool_use_result = output.structured.map(cap_value);
    shared.emitter.emit(Message::User(line));
    block
}

fn cap_text(t: String) -> String {
    if t.chars().count() <= MAX_RESULT_CHARS {
        return t;
    }
    let head: String = t.chars().take(MAX_RESULT_CHARS).collect();
    let dropped = t.chars().count() - MAX_RESULT_CHARS;
    format!("{head}\n... [{dropped} characters truncated to keep the output line under 1 MiB] ...")
}

fn cap_value(v: Value) -> Value {
    match serde_json::to_string(&v) {
        Ok(s) if s.len() > MAX_RESULT_CHARS * 2 => json!({"truncated": true, "bytes": s.len()}),
        _ => v,
    }
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

enum Finish {
    Completed,
    MaxTurns(u32),
    Interrupted(&'static str),
    ApiError(ModelError),
    /// A hook ended the turn (`continue: false`, or a blocked prompt).
    HookStopped(String),
    Budget(f64),
    Deferred,
    StructuredOutputMissing,
}

fn finish(shared: &Shared, st: &mut TurnState, how: Finish) -> TurnOutcome {
    let (subtype, is_error, result, terminal, errors, api_status) = match how {
        Finish::Completed => {
            let text = match &st.structured {
                Some(v) => Some(v.to_string()),
                None => st.last_text.clone().or(Some(String::new())),
            };
            ("success", false, text, "completed", None, None)
        }
        Finish::HookStopped(reason) => ("success", false, Some(reason), "hook_stopped", None, None),
        Finish::Budget(budget) => (
            "error_max_budget_usd",
            true,
            None,
            "budget_exhausted",
            Some(vec![format!("Reached the maximum budget (${budget})")]),
            None,
        ),
        Finish::Deferred => (
            "success",
            false,
            st.last_text.clone(),
            "tool_deferred",
            None,
            None,
        ),
        Finish::StructuredOutputMissing => (
            "error_max_structured_output_retries",
            true,
            None,
            "structured_output_missing",
            Some(vec![format!(
                "The model did not call {STRUCTURED_OUTPUT_TOOL} with output matching the schema"
            )]),
            None,
        ),
        Finish::MaxTurns(max) => (
            "error_max_turns",
            true,
            None,
            "max_turns",
            Some(vec![format!("Reached maximum number of turns ({max})")]),
            None,
        ),
        Finish::Interrupted(reason) => {
            let mut line = UserMessage::new(MessageContent::Blocks(vec![ContentBlock::text(
                "[Request interrupted by user]",
            )]));
            line.timestamp = Some(now_iso());
            shared.emitter.emit(Message::User(line));
            (
                "error_during_execution",
                true,
                None,
                reason,
                Some(vec!["Interrupted by user".to_string()]),
                None,
            )
        }
        Finish::ApiError(e) => {
            let text = e.to_string();
            emit_synthetic_error(shared, &text, &e);
            st.stop_reason = Some("stop_sequence".into());
            (
                "success",
                true,
                Some(text.clone()),
                "api_error",
                Some(vec![text]),
                e.status(),
            )
        }
    };
    emit_result(
        shared, st, subtype, is_error, result, terminal, errors, api_status,
    );
    TurnOutcome { is_error }
}

/// Usage as the SDKs type it (`NonNullableUsage`): the token counts plus the keys the
/// Messages API always reports, filled with their neutral values where dcl has none.
fn full_usage(u: &Usage) -> Usage {
    let mut u = u.clone();
    let defaults = [
        (
            "server_tool_use",
            json!({"web_search_requests": 0, "web_fetch_requests": 0}),
        ),
        ("service_tier", json!("standard")),
        (
            "cache_creation",
            json!({"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}),
        ),
        ("inference_geo", json!("")),
        ("iterations", json!([])),
        ("speed", json!("standard")),
    ];
    for (k, v) in defaults {
        u.extra.entry(k).or_insert(v);
    }
    u
}

fn emit_synthetic_error(shared: &Shared, text: &str, e: &ModelError) {
    let kind = match e {
        ModelError::Http {
            status: 401 | 403, ..
        } => "authentication_failed",
        ModelError::Http { status: 429, .. } => "rate_limit",
        ModelError::Http { status: 400, .. } => "invalid_request",
        ModelError::Http { .. } => "server_error",
        _ => "unknown",
    };
    shared.emitter.emit(Message::Assistant(AssistantMessage {
        message: AssistantPayload {
            id: new_uuid(),
            kind: "message".into(),
            role: "assistant".into(),
            model: "<synthetic>".into(),
            content: vec![ContentBlock::text(text)],
            stop_reason: Some("stop_sequence".into()),
            stop_sequence: Some(String::new()),
            usage: Some(full_usage(&Usage::default())),
            extra: Extra::new(),
        },
        parent_tool_use_id: dcl_protocol::parent_tool_use_id_null(),
        session_id: String::new(),
        uuid: String::new(),
        error: Some(kind.into()),
        extra: Extra::new(),
    }));
}

#[allow(clippy::too_many_arguments)]
fn emit_result(
    shared: &Shared,
    st: &TurnState,
    subtype: &str,
    is_error: bool,
    result: Option<String>,
    terminal: &str,
    errors: Option<Vec<String>>,
    api_status: Option<u16>,
) {
    let totals = shared.totals().clone();
    if shared.legacy_events() {
        shared.emitter.emit(Message::Usage(LegacyUsageMessage {
            usage: st.usage.clone(),
            total_cost_usd: totals.cost_usd,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }));
    }
    let mut extra = Extra::new();
    if shared.qoder() {
        extra.insert("total_credits".into(), json!(0));
    }
    if let Some(d) = &st.deferred {
        extra.insert("deferred_tool_use".into(), d.clone());
    }
    if let Some(o) = &st.origin {
        extra.insert("origin".into(), o.clone());
    }
    shared.emitter.emit(Message::Result(ResultMessage {
        subtype: subtype.to_string(),
        is_error,
        duration_ms: st.started.elapsed().as_millis() as u64,
        duration_api_ms: st.api_time.as_millis() as u64,
        num_turns: st.num_turns,
        result,
        stop_reason: st.stop_reason.clone(),
        session_id: String::new(),
        total_cost_usd: totals.cost_usd,
        usage: full_usage(&st.usage),
        model_usage: totals.model_usage,
        permission_denials: st.denials.clone(),
        terminal_reason: Some(terminal.to_string()),
        errors,
        structured_output: st.structured.clone(),
        api_error_status: Some(api_status.map_or(Value::Null, |s| json!(s))),
        uuid: None,
        extra,
    }));
}

/// A queued prompt cancelled before it started still gets its own result.
pub(crate) fn emit_cancelled_result(shared: &Shared, prompt: &QueuedPrompt) {
    let st = TurnState {
        started: Instant::now(),
        api_time: Duration::ZERO,
        num_turns: 0,
        usage: Usage::default(),
        denials: Vec::new(),
        last_text: None,
        stop_reason: None,
        model: shared.live().model.clone(),
        hook_stop: None,
        deferred: None,
        structured: None,
        stop_hook_rounds: 0,
        structured_nudges: 0,
        origin: prompt.message.origin().cloned(),
    };
    emit_result(
        shared,
        &st,
        "error_during_execution",
        true,
        None,
        "aborted_streaming",
        Some(vec![format!(
            "The queued message {} was cancelled before it started",
            prompt.uuid
        )]),
        None,
    );
}
