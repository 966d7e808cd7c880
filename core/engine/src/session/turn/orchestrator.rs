//! The tool pipeline of one model response: for each call, PreToolUse hooks → the
//! permission decision (policy, then the host) → run → PostToolUse hooks → its result line.
//! Consecutive read-only calls run side by side; decisions and hooks stay in order.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dcl_protocol::{ContentBlock, Extra, PermissionDenial, ToolResultContent, ToolUseBlock};
use serde_json::{Value, json};

use super::approval::{self, Decision, HookPermission};
use super::link::TurnLink;
use super::registry::Registry;
use super::{TurnContext, TurnState, subagent};
use crate::session::conversation::{Conversation, UserOrigin};
use crate::session::emit::Event;
use crate::session::hooks::{self, HookVerdict};
use dcl_events::HookEvent;
use dcl_events::hook_input::{
    BatchedCall, CwdChanged, FileChanged, PermissionDenied, PostToolBatch, PostToolUse,
    PostToolUseFailure, PreToolUse,
};
use dcl_model::accumulate::InvalidToolInput;
use dcl_tool_api::{Tool, ToolContext, ToolKind, ToolOutput, TurnEvent};

/// Largest tool-result text put on one stdout line; SDKs refuse lines over 1 MiB.
const MAX_RESULT_CHARS: usize = 200_000;

/// How the calls of one response ended.
#[derive(Debug, PartialEq)]
pub(super) enum CallOutcome {
    Done,
    /// The turn was interrupted; calls not run got an "Interrupted by user" result.
    Interrupted,
}

/// What the PreToolUse hooks decided for one call.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PreHook {
    /// `continue: false`: the turn ends before this call runs.
    Stop(String),
    /// `permissionDecision: "defer"`: the turn ends and reports the call.
    Defer { input: Value },
    /// A hook refused the call.
    Deny(String),
    Proceed {
        input: Value,
        permission: HookPermission,
        context: Vec<String>,
    },
}

impl PreHook {
    /// Folds the hooks' verdict for a call whose input was `input`.
    pub fn from_verdict(verdict: HookVerdict, input: &Value) -> PreHook {
        if let Some(reason) = verdict.stop {
            return PreHook::Stop(reason);
        }
        let input = verdict.updated_input.unwrap_or_else(|| input.clone());
        let reason = verdict.permission_reason.or(verdict.block.clone());
        match verdict.permission.as_deref() {
            Some("deny") => PreHook::Deny(reason.unwrap_or_else(|| "denied".into())),
            Some("defer") => PreHook::Defer { input },
            other => match verdict.block {
                Some(b) => PreHook::Deny(b),
                None => PreHook::Proceed {
                    input,
                    permission: match other {
                        Some("allow") => HookPermission::Allow,
                        Some("ask") => HookPermission::Ask,
                        _ => HookPermission::None,
                    },
                    context: verdict.additional_context,
                },
            },
        }
    }
}

/// A call after its hooks and permission decision, before it runs.
struct Prepared {
    tu: ToolUseBlock,
    /// The tool the call names, when the turn has one by that name.
    tool: Option<Arc<dyn Tool>>,
    tool_ctx: ToolContext,
    /// The input to run with, when approved.
    approved: Option<Value>,
    invalid_input: Option<String>,
    /// The result of a call that ends before running (denied, deferred).
    early: Option<ToolOutput>,
    context: Vec<String>,
}

/// Which calls run as a batch: `(start, end)` ranges of parallel-safe calls (read-only
/// tools, subagents) at least two long; everything else runs alone.
pub(super) fn batches(read_only: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < read_only.len() {
        let mut j = i;
        while j < read_only.len() && read_only[j] {
            j += 1;
        }
        if j - i >= 2 {
            out.push((i, j));
            i = j;
        } else {
            out.push((i, i + 1));
            i += 1;
        }
    }
    out
}

pub(super) async fn run_calls(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    tool_uses: &[ToolUseBlock],
    invalid_inputs: &[InvalidToolInput],
    drive: subagent::Drive,
) -> CallOutcome {
    let invalid_of = |tu: &ToolUseBlock| {
        invalid_inputs
            .iter()
            .find(|x| x.tool_use_id == tu.id)
            .map(InvalidToolInput::tool_result_text)
    };
    let registry = Registry::new(&ctx.core, &ctx.tools);
    let parent = subagent::Parent::of(ctx, drive);
    // Each tool says whether it may run side by side with the response's other calls.
    let read_only: Vec<bool> = tool_uses
        .iter()
        .map(|tu| registry.get(&tu.name).is_some_and(|t| t.parallel_safe()))
        .collect();
    if let Some(p) = &ctx.progress {
        for tu in tool_uses {
            p.tool_called(&tu.name);
        }
    }
    let mut interrupted = false;
    // What PostToolBatch hooks see: every call of this response that ran.
    let mut ran = Vec::new();
    for (start, end) in batches(&read_only) {
        let stopped = st.hook_stop.is_some() || st.deferred.is_some();
        if interrupted || ctx.cancel.is_cancelled() || stopped {
            for tu in &tool_uses[start..end] {
                let text = if stopped && !(interrupted || ctx.cancel.is_cancelled()) {
                    "Not run: the turn was stopped by a hook"
                } else {
                    interrupted = true;
                    "Interrupted by user"
                };
                let content = ToolResultContent::Text(text.into());
                complete_call(ctx, &tu.id, &content, true);
                let block = ContentBlock::tool_result(tu.id.clone(), content, Some(true));
                ctx.record(
                    conv,
                    crate::session::emit::new_uuid(),
                    crate::session::conversation::Entry::User {
                        as_text: false,
                        content: vec![block],
                        origin: UserOrigin::ToolResult {
                            tool_use_result: None,
                        },
                    },
                );
            }
            continue;
        }
        // A host that stopped reading stalls the pipeline here instead of growing memory.
        ctx.emitter.writable().await;
        let mut prepared = Vec::with_capacity(end - start);
        for tu in &tool_uses[start..end] {
            let turn = TurnLink::new(parent.clone(), tu.clone());
            prepared.push(prepare(ctx, st, tu, invalid_of(tu), &registry, turn).await);
        }
        let started = Instant::now();
        let outputs = futures::future::join_all(prepared.iter().map(|p| async move {
            match &p.early {
                Some(out) => (out.clone(), None),
                None => execute(ctx, p).await,
            }
        }))
        .await;
        let elapsed = started.elapsed();
        for (p, (out, structured)) in prepared.into_iter().zip(outputs) {
            if structured.is_some() {
                st.structured = structured;
            } else if out.is_error && p.tool.as_ref().is_some_and(|t| t.answers_turn()) {
                st.invalid_outputs += 1;
            }
            if let Some(input) = p.approved.as_ref().filter(|_| p.early.is_none()) {
                ran.push(BatchedCall {
                    tool_name: p.tu.name.clone(),
                    tool_input: input.clone(),
                    tool_use_id: p.tu.id.clone(),
                    tool_response: tool_response(&out),
                });
            }
            finish_call(ctx, conv, st, p, out, elapsed).await;
        }
    }
    if interrupted || ctx.cancel.is_cancelled() {
        return CallOutcome::Interrupted;
    }
    if !ran.is_empty() && st.hook_stop.is_none() {
        post_tool_batch(ctx, conv, st, ran).await;
    }
    CallOutcome::Done
}

/// PostToolBatch: once every call of one model response has its result, before the
/// model is asked again. `continue: false` ends the turn; `additionalContext` (and a
/// block's reason) reach the model beside the results.
async fn post_tool_batch(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    calls: Vec<BatchedCall>,
) {
    let batch = PostToolBatch { tool_calls: calls };
    let v = hooks::fire(&ctx.hooks(), &batch).await;
    if let Some(reason) = v.stop {
        st.hook_stop = Some(reason);
        return;
    }
    let mut context = v.additional_context;
    if let Some(reason) = v.block {
        context.push(format!("PostToolBatch hook feedback: {reason}"));
    }
    if !context.is_empty() {
        ctx.record_note(
            conv,
            format!("<hook-context>\n{}\n</hook-context>", context.join("\n")),
            UserOrigin::Continuation,
        );
    }
}

/// A call's output as PostToolUse / PostToolBatch hooks see it.
fn tool_response(output: &ToolOutput) -> Value {
    output
        .structured
        .clone()
        .unwrap_or_else(|| json!(output.content.to_text()))
}

async fn prepare(
    ctx: &TurnContext,
    st: &mut TurnState,
    tu: &ToolUseBlock,
    invalid_input: Option<String>,
    registry: &Registry,
    turn: TurnLink,
) -> Prepared {
    let services = &ctx.core.services;
    let tool_ctx = ToolContext {
        cwd: services.cwd.clone(),
        shell: services.shell.clone(),
        env: services.env.clone(),
        cancel: ctx.cancel.token.clone(),
        todos: services.shell.todos.clone(),
        background: services.shell.background.clone(),
        grants: ctx.grants.clone(),
        tool_use_id: tu.id.clone(),
        turn: Some(Arc::new(turn)),
        checked: Arc::default(),
    };
    let tool = registry.get(&tu.name);
    let mut prepared = Prepared {
        tu: tu.clone(),
        tool,
        tool_ctx,
        approved: None,
        invalid_input,
        early: None,
        context: Vec::new(),
    };
    if prepared.invalid_input.is_some() {
        // The call fails as it is; no hook or approval is needed to say so.
        prepared.approved = Some(tu.input.clone());
        return prepared;
    }
    let pre = PreToolUse {
        tool_name: tu.name.clone(),
        tool_input: tu.input.clone(),
        tool_use_id: tu.id.clone(),
    };
    let verdict = hooks::fire(&ctx.hooks(), &pre).await;
    let mut input = tu.input.clone();
    let decision = match PreHook::from_verdict(verdict, &tu.input) {
        PreHook::Stop(reason) => {
            st.hook_stop = Some(reason);
            prepared.early = Some(ToolOutput::error(
                "Not run: a PreToolUse hook stopped the turn",
            ));
            return prepared;
        }
        PreHook::Defer { input } => {
            st.deferred = Some(json!({"id": tu.id, "name": tu.name, "input": input}));
            prepared.early = Some(ToolOutput::error(
                "The tool call was deferred by a PreToolUse hook",
            ));
            return prepared;
        }
        PreHook::Deny(reason) => {
            Decision::Deny(format!("PreToolUse:{} hook error: {reason}", tu.name))
        }
        PreHook::Proceed {
            input: updated,
            permission,
            context,
        } => {
            prepared.context = context;
            input = updated;
            approval::decide(
                ctx,
                tu,
                &input,
                prepared.tool.as_deref(),
                &prepared.tool_ctx,
                permission,
            )
            .await
        }
    };
    match &decision {
        Decision::Allow(_) => tracing::debug!(tool = %tu.name, id = %tu.id, "permission: allow"),
        Decision::Deny(why) => {
            tracing::debug!(tool = %tu.name, id = %tu.id, "permission: deny ({why})")
        }
    }
    match decision {
        Decision::Deny(message) => {
            st.denials.push(PermissionDenial {
                tool_name: tu.name.clone(),
                tool_use_id: tu.id.clone(),
                tool_input: input.clone(),
                extra: Extra::new(),
            });
            let denied = PermissionDenied {
                tool_name: tu.name.clone(),
                tool_input: input,
                tool_use_id: tu.id.clone(),
                reason: message.clone(),
            };
            hooks::fire(&ctx.hooks(), &denied).await;
            prepared.early = Some(ToolOutput::error(message));
        }
        Decision::Allow(input) => prepared.approved = Some(input),
    }
    prepared
}

/// Runs an approved call with the tool it names. Returns the output and, for a tool whose
/// input answers the turn (StructuredOutput), that answer when the call succeeded.
async fn execute(ctx: &TurnContext, p: &Prepared) -> (ToolOutput, Option<Value>) {
    if let Some(err) = &p.invalid_input {
        return (ToolOutput::error(err.clone()), None);
    }
    let input = p.approved.clone().unwrap_or_else(|| p.tu.input.clone());
    let Some(tool) = &p.tool else {
        return (
            ToolOutput::error(format!(
                "<tool_use_error>Error: No such tool available: {}</tool_use_error>",
                p.tu.name
            )),
            None,
        );
    };
    let answer = tool.answers_turn().then(|| input.clone());
    ctx.emitter.agent(|| dcl_events::AgentEvent::ItemDelta {
        item_id: p.tu.id.clone(),
        delta: dcl_events::ItemDelta::ToolStatus {
            status: dcl_events::ToolStatus::InProgress,
        },
    });
    if tool.kind() == ToolKind::Delegate {
        // A child turn reports its own calls (progress, checkpoints, file and directory
        // hooks); wrapping it as well would say each of them twice.
        return (tool.call(input, &p.tool_ctx).await, None);
    }
    let checkpoints = &ctx.core.services.checkpoints;
    // The files an edit touches (and whether each was there) and the shell's directory
    // before the call, for FileChanged and CwdChanged hooks.
    let mut edited: Vec<(std::path::PathBuf, bool)> = Vec::new();
    let cwd_before = p.tool_ctx.shell.cwd();
    let (pending, mut notes) = match tool.kind() {
        kind @ (ToolKind::Edit | ToolKind::Execute) => {
            let paths = match kind {
                ToolKind::Edit => tool.paths(&input, &p.tool_ctx),
                _ => Vec::new(),
            };
            edited = paths.iter().map(|f| (f.clone(), f.exists())).collect();
            checkpoints.before(&ctx.prompt_uuid, kind, paths).await
        }
        _ => Default::default(),
    };
    let call = tool.call(input, &p.tool_ctx);
    let output = with_progress(ctx, &p.tool_ctx, call).await;
    notes.extend(checkpoints.after(&ctx.prompt_uuid, pending).await);
    if !output.is_error {
        file_changed_hooks(ctx, &p.tu, &edited).await;
    }
    cwd_changed_hooks(ctx, &cwd_before).await;
    for note in notes {
        // Said to the host, not the model: the call itself went as it would without them.
        ctx.emitter.warning(note);
    }
    let answer = answer.filter(|_| !output.is_error);
    (output, answer)
}

/// How often a running call reports `tool_progress` (`DCL_TOOL_PROGRESS_MS`).
const TOOL_PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Runs one call, saying `tool_progress` (elapsed seconds) each [`TOOL_PROGRESS_EVERY`]
/// while it runs, as the reference does for long calls, when the host hears of it.
async fn with_progress(
    ctx: &TurnContext,
    tool_ctx: &ToolContext,
    call: impl std::future::Future<Output = ToolOutput>,
) -> ToolOutput {
    let services = &ctx.core.services;
    let Some(turn) = tool_ctx.turn.as_ref() else {
        return call.await;
    };
    if !services.dialect().reports_tool_progress() {
        return call.await;
    }
    let every = services
        .env
        .get("DCL_TOOL_PROGRESS_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(TOOL_PROGRESS_EVERY, |ms| Duration::from_millis(ms.max(50)));
    let started = Instant::now();
    tokio::pin!(call);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            out = &mut call => return out,
            _ = ticks.tick() => turn.emit(TurnEvent::Progress {
                elapsed_seconds: started.elapsed().as_secs_f64().round(),
            }),
        }
    }
}

/// FileChanged for each file a successful Write/Edit/NotebookEdit call touched: `add`
/// for one it created, `unlink` for one gone after it, `change` otherwise. Matchers test
/// the file's name.
async fn file_changed_hooks(
    ctx: &TurnContext,
    tu: &ToolUseBlock,
    edited: &[(std::path::PathBuf, bool)],
) {
    for (path, existed) in edited {
        let event = match (*existed, path.exists()) {
            (false, true) => "add",
            (true, false) => "unlink",
            _ => "change",
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let changed = FileChanged {
            file_path: path.display().to_string(),
            event: event.to_string(),
            file_name: name,
            tool_use_id: tu.id.clone(),
        };
        hooks::fire(&ctx.hooks(), &changed).await;
    }
}

/// CwdChanged when a call moved the shell's persistent directory (a Bash `cd`).
async fn cwd_changed_hooks(ctx: &TurnContext, before: &std::path::Path) {
    let after = ctx.core.services.shell.cwd();
    if after.as_path() == before {
        return;
    }
    let changed = CwdChanged {
        old_cwd: before.display().to_string(),
        new_cwd: after.display().to_string(),
    };
    hooks::fire(&ctx.hooks(), &changed).await;
}

/// PostToolUse hooks for a call that ran, hook context, and the tool_result line.
async fn finish_call(
    ctx: &TurnContext,
    conv: &mut Conversation,
    st: &mut TurnState,
    prepared: Prepared,
    output: ToolOutput,
    elapsed: Duration,
) {
    let Prepared {
        tu,
        approved,
        mut context,
        early,
        ..
    } = prepared;
    if let Some(input) = approved.filter(|_| early.is_none()) {
        let (tool_name, tool_use_id) = (tu.name.clone(), tu.id.clone());
        let duration_ms = elapsed.as_millis() as u64;
        let (event, post) = if output.is_error {
            let failed = PostToolUseFailure {
                tool_name,
                tool_input: input,
                tool_use_id,
                duration_ms,
                error: output.content.to_text(),
            };
            (
                PostToolUseFailure::NAME,
                hooks::fire(&ctx.hooks(), &failed).await,
            )
        } else {
            let post = PostToolUse {
                tool_name,
                tool_input: input,
                tool_use_id,
                duration_ms,
                tool_response: tool_response(&output),
            };
            (PostToolUse::NAME, hooks::fire(&ctx.hooks(), &post).await)
        };
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
    emit_result(ctx, conv, &tu.id, output);
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

fn emit_result(ctx: &TurnContext, conv: &mut Conversation, tool_use_id: &str, output: ToolOutput) {
    let changed = patch_lines(output.structured.as_ref());
    ctx.core.state.with(|s| s.stats.lines_changed += changed);
    let content = match output.content {
        ToolResultContent::Text(t) => ToolResultContent::Text(cap_text(t)),
        blocks => blocks,
    };
    ctx.emitter.event(Event::ToolResult {
        tool_use_id,
        content: &content,
        is_error: output.is_error,
    });
    complete_call(ctx, tool_use_id, &content, output.is_error);
    let block = ContentBlock::tool_result(tool_use_id, content, Some(output.is_error));
    ctx.emit_user(
        conv,
        vec![block],
        UserOrigin::ToolResult {
            tool_use_result: output.structured.map(cap_value),
        },
    );
}

/// The tool call item `tool_use_id`, completed with its result.
fn complete_call(ctx: &TurnContext, tool_use_id: &str, content: &ToolResultContent, failed: bool) {
    let Some(mut item) = ctx.emitter.session().take_call(tool_use_id) else {
        return;
    };
    if let dcl_events::ItemBody::ToolCall(call) = &mut item.body {
        call.status = if failed {
            dcl_events::ToolStatus::Failed
        } else {
            dcl_events::ToolStatus::Completed
        };
        call.content = crate::session::emit::agent::result_content(content);
    }
    ctx.emitter
        .agent(|| dcl_events::AgentEvent::ItemCompleted { item });
}

fn cap_text(t: String) -> String {
    let count = t.chars().count();
    if count <= MAX_RESULT_CHARS {
        return t;
    }
    let head: String = t.chars().take(MAX_RESULT_CHARS).collect();
    let dropped = count - MAX_RESULT_CHARS;
    format!("{head}\n... [{dropped} characters truncated to keep the output line under 1 MiB] ...")
}

fn cap_value(v: Value) -> Value {
    match serde_json::to_string(&v) {
        Ok(s) if s.len() > MAX_RESULT_CHARS * 2 => json!({"truncated": true, "bytes": s.len()}),
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> HookVerdict {
        HookVerdict::default()
    }

    #[test]
    fn no_hook_proceeds_with_the_input() {
        let input = json!({"command": "ls"});
        assert_eq!(
            PreHook::from_verdict(verdict(), &input),
            PreHook::Proceed {
                input,
                permission: HookPermission::None,
                context: vec![]
            }
        );
    }

    #[test]
    fn stop_wins_over_everything() {
        let mut v = verdict();
        v.stop = Some("halt".into());
        v.permission = Some("allow".into());
        assert_eq!(
            PreHook::from_verdict(v, &json!({})),
            PreHook::Stop("halt".into())
        );
    }

    #[test]
    fn deny_and_block_refuse_with_their_reason() {
        let mut v = verdict();
        v.permission = Some("deny".into());
        v.permission_reason = Some("no".into());
        assert_eq!(
            PreHook::from_verdict(v, &json!({})),
            PreHook::Deny("no".into())
        );
        let mut v = verdict();
        v.block = Some("blocked".into());
        assert_eq!(
            PreHook::from_verdict(v, &json!({})),
            PreHook::Deny("blocked".into())
        );
    }

    #[test]
    fn defer_keeps_the_updated_input() {
        let mut v = verdict();
        v.permission = Some("defer".into());
        v.updated_input = Some(json!({"x": 2}));
        assert_eq!(
            PreHook::from_verdict(v, &json!({"x": 1})),
            PreHook::Defer {
                input: json!({"x": 2})
            }
        );
    }

    #[test]
    fn allow_and_ask_reach_the_decision() {
        for (word, want) in [
            ("allow", HookPermission::Allow),
            ("ask", HookPermission::Ask),
        ] {
            let mut v = verdict();
            v.permission = Some(word.into());
            v.additional_context = vec!["ctx".into()];
            match PreHook::from_verdict(v, &json!({})) {
                PreHook::Proceed {
                    permission,
                    context,
                    ..
                } => {
                    assert_eq!(permission, want);
                    assert_eq!(context, vec!["ctx".to_string()]);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn read_only_runs_batch_only_when_two_or_more() {
        assert_eq!(batches(&[]), vec![]);
        assert_eq!(batches(&[true]), vec![(0, 1)]);
        assert_eq!(
            batches(&[true, true, false, true]),
            vec![(0, 2), (2, 3), (3, 4)]
        );
        assert_eq!(batches(&[false, true, true, true]), vec![(0, 1), (1, 4)]);
    }

    #[test]
    fn hook_context_follows_the_result() {
        let out = with_context(ToolOutput::ok("done"), &["a".into(), "b".into()]);
        assert_eq!(
            out.content.to_text(),
            "done\n\n<hook-context>\na\nb\n</hook-context>"
        );
    }

    #[test]
    fn long_text_is_cut_with_a_marker() {
        let t = "x".repeat(MAX_RESULT_CHARS + 5);
        let cut = cap_text(t);
        assert!(
            cut.contains("[5 characters truncated"),
            "{}",
            &cut[cut.len() - 80..]
        );
    }
}
