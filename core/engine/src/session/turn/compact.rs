//! Compaction: when a request would pass the auto-compact threshold (a share of the
//! model's context window), or the API refuses one as too long, or the host sends
//! `/compact [instructions]`, the model summarises the history, the summary replaces it
//! (`Conversation::compact`, which the transcript records as the reference does: a
//! `compact_boundary` entry and an `isCompactSummary` user entry), and the turn goes on.
//!
//! The stream shows it as the reference does: `system/status` `compacting`, then
//! `system/compact_boundary` with `compact_metadata{trigger, pre_tokens}`, then
//! `system/status` `null`. PreCompact hooks run first (and may block it), PostCompact
//! hooks after.

use std::time::Duration;

use dcl_protocol::ContentBlock;
use futures::StreamExt;
use serde_json::Value;

use super::TurnContext;
use crate::session::conversation::{Boundary, Conversation, Entry, NewItem, UserOrigin};
use crate::session::emit::new_uuid;
use crate::session::hooks;
use crate::session::models;
use dcl_events::hook_input::{PostCompact, PreCompact};
use dcl_model::accumulate::Accumulator;
use dcl_model::{ApiMessage, ModelError, ModelRequest, Role};

/// Below the window, what the default threshold leaves for the reply and the estimate's
/// error (the reference's default buffer).
const AUTO_COMPACT_BUFFER: u64 = 13_000;
/// The summary's own output limit.
const SUMMARY_MAX_TOKENS: u64 = 16_000;
/// How often a summarisation request that is itself too long is retried with the oldest
/// messages dropped.
const MAX_HEAD_TRIMS: usize = 4;

/// What the summariser is asked. Written for dcl in the reference's style: think in
/// `<analysis>`, answer in `<summary>` with fixed sections.
pub(crate) const COMPACT_PROMPT: &str = "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions. The summary replaces the conversation history, so it must hold everything needed to continue the work without losing context.

First think it through inside <analysis> tags: go through the conversation in order and note, for each part, what the user asked, what you did, the decisions taken, the files, code and commands involved, and the errors met and how they were fixed.

Then write the summary inside <summary> tags, with these sections:
1. Primary Request and Intent: everything the user asked for, in detail.
2. Key Technical Concepts: technologies, frameworks and conventions that matter.
3. Files and Code Sections: each file read, changed or created, why it matters, and the snippets that matter.
4. Errors and Fixes: each error and how it was fixed, including what the user said about it.
5. Problem Solving: problems solved and troubleshooting still under way.
6. All User Messages: every message of the user that is not a tool result.
7. Pending Tasks: what was asked and is not done yet.
8. Current Work: exactly what was being worked on right before this summary.
9. Optional Next Step: the next step, only when it follows directly from the user's latest request; quote that request.

Answer with text only; do not call tools.";

const SUMMARISER_SYSTEM: &str =
    "You are a helpful AI assistant tasked with summarizing conversations.";

/// After an automatic compaction the model goes on by itself.
const CONTINUE_NOTE: &str = "Please continue the conversation from where it was left off without asking the user any further questions. Continue with the last task you were asked to work on.";

/// Why a compaction runs (`compact_metadata.trigger`, the PreCompact `trigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// The threshold was passed, or the API refused a prompt as too long.
    Auto,
    /// `/compact`.
    Manual,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Manual => "manual",
        }
    }
}

/// When automatic compaction runs, for one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Policy {
    pub enabled: bool,
    /// The context window the threshold is a share of.
    pub window: u64,
    /// Compaction runs when a request is estimated above this many tokens.
    pub threshold: u64,
}

impl Policy {
    /// The threshold as a percentage of the window (`get_context_usage`).
    pub fn threshold_percentage(&self) -> f64 {
        if self.window == 0 {
            return 100.0;
        }
        (self.threshold as f64 * 10_000.0 / self.window as f64).round() / 100.0
    }
}

/// The policy from the session's environment (which includes the settings' `env` block)
/// and settings:
/// - window: the model catalogue's, lowered by `CLAUDE_CODE_AUTO_COMPACT_WINDOW` /
///   `DCL_AUTO_COMPACT_WINDOW`;
/// - threshold: `DCL_AUTOCOMPACT_PCT` / `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (1–100, percent
///   of the window), else the settings key `autoCompactThreshold` (the same percentage),
///   else the window less a 13k-token buffer;
/// - off with `DISABLE_AUTO_COMPACT` / `DISABLE_COMPACT` set to a true value, or the
///   settings key `autoCompactEnabled: false`.
pub(crate) fn policy(core: &crate::session::services::SessionCore, model: &str) -> Policy {
    let env = &core.services.env;
    let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    let truthy = |k: &str| var(k).is_some_and(|v| !matches!(v, "0" | "false" | "no" | "off"));
    let (enabled_setting, pct_setting) = core.state.with(|s| {
        (
            s.settings.get("autoCompactEnabled"),
            s.settings.get("autoCompactThreshold"),
        )
    });
    let mut window = models::context_window(model);
    if let Some(w) = ["DCL_AUTO_COMPACT_WINDOW", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"]
        .iter()
        .find_map(|k| var(k).and_then(|v| v.parse::<u64>().ok()))
        .filter(|w| *w > 0)
    {
        window = window.min(w);
    }
    let pct = ["DCL_AUTOCOMPACT_PCT", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"]
        .iter()
        .find_map(|k| var(k).and_then(|v| v.parse::<f64>().ok()))
        .or_else(|| pct_setting.as_ref().and_then(Value::as_f64))
        .filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0);
    let threshold = match pct {
        Some(p) => (window as f64 * p / 100.0) as u64,
        None => window.saturating_sub(AUTO_COMPACT_BUFFER).max(window / 2),
    };
    let enabled = !truthy("DISABLE_AUTO_COMPACT")
        && !truthy("DISABLE_COMPACT")
        && enabled_setting.as_ref().and_then(Value::as_bool) != Some(false);
    Policy {
        enabled,
        window,
        threshold,
    }
}

/// Whether the API refused a request because the prompt does not fit the window
/// (Anthropic: 400 `prompt is too long: N tokens > M maximum`; OpenAI-compatible servers:
/// `context_length_exceeded` / `maximum context length`).
pub(crate) fn prompt_too_long(e: &ModelError) -> bool {
    let ModelError::Http {
        status: 400 | 413,
        message,
        ..
    } = e
    else {
        return false;
    };
    let m = message.to_ascii_lowercase();
    m.contains("prompt is too long")
        || m.contains("context_length_exceeded")
        || m.contains("maximum context length")
        || m.contains("context window")
}

/// What a compaction did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Compacted {
    pub pre_tokens: u64,
    pub summary: String,
}

/// Why a compaction changed nothing (the history is then untouched).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompactError {
    #[error("Not enough messages to compact.")]
    NothingToCompact,
    #[error("Compaction blocked by a PreCompact hook: {0}")]
    Blocked(String),
    #[error("cancelled")]
    Cancelled,
    #[error("the model returned an empty summary")]
    EmptySummary,
    #[error("the conversation is too long to summarise: {0}")]
    TooLong(ModelError),
    /// The summary request failed (no client for the model, an API error).
    #[error("{0}")]
    Model(ModelError),
}

/// Runs one compaction of `conv` with the turn's `model`. An error says why nothing
/// changed (nothing to compact, a hook blocked it, the summary request failed); the
/// history is then untouched.
pub(crate) async fn run(
    ctx: &TurnContext,
    conv: &mut Conversation,
    model: &str,
    trigger: Trigger,
    instructions: Option<String>,
) -> Result<Compacted, CompactError> {
    let history = conv.api_messages();
    if history.is_empty() {
        return Err(CompactError::NothingToCompact);
    }
    let pre = PreCompact {
        trigger: trigger.as_str().into(),
        custom_instructions: instructions.clone(),
    };
    let verdict = hooks::fire(&ctx.hooks(), &pre).await;
    if let Some(reason) = verdict.stop.or(verdict.block) {
        return Err(CompactError::Blocked(reason));
    }
    // What PreCompact hooks add joins the host's instructions.
    let mut extra: Vec<String> = instructions.into_iter().collect();
    extra.extend(verdict.additional_context);
    ctx.emitter.compacting();
    let pre_tokens = conv
        .size_handle()
        .load(std::sync::atomic::Ordering::Relaxed) as u64
        / 4;
    let outcome = summarise(ctx, model, history, &extra).await;
    let summary = match outcome {
        Ok(s) => s,
        Err(e) => {
            ctx.emitter.compaction_over();
            return Err(e);
        }
    };
    let mut body = summary.clone();
    if trigger == Trigger::Auto {
        body.push_str("\n\n");
        body.push_str(CONTINUE_NOTE);
    }
    let boundary = Boundary {
        uuid: new_uuid(),
        trigger: trigger.as_str(),
        pre_tokens,
        summary: body.clone(),
    };
    conv.compact(
        &boundary,
        NewItem {
            uuid: new_uuid(),
            prompt_uuid: ctx.prompt_uuid.clone(),
            entry: Entry::User {
                as_text: false,
                content: vec![ContentBlock::text(format!(
                    "{}{body}",
                    dcl_store::entry::COMPACT_SUMMARY_PREFIX
                ))],
                origin: UserOrigin::CompactSummary,
            },
        },
    );
    ctx.emitter
        .compact_boundary(boundary.uuid.clone(), trigger.as_str(), pre_tokens);
    ctx.emitter.compaction_over();
    let post = PostCompact {
        trigger: trigger.as_str().into(),
        compact_summary: summary.clone(),
    };
    hooks::fire(&ctx.hooks(), &post).await;
    Ok(Compacted {
        pre_tokens,
        summary,
    })
}

/// Automatic compaction before a request, when the policy says so. A compaction that
/// fails is reported as a warning and the request goes out as it is.
pub(crate) async fn auto_if_needed(
    ctx: &TurnContext,
    conv: &mut Conversation,
    model: &str,
    estimated_tokens: u64,
) -> bool {
    if ctx.is_subagent() {
        return false;
    }
    let p = policy(&ctx.core, model);
    if !p.enabled || estimated_tokens < p.threshold || conv.items().iter().all(|i| i.excluded) {
        return false;
    }
    match run(ctx, conv, model, Trigger::Auto, None).await {
        Ok(_) => true,
        // The interrupt ends the turn at its next step; nothing failed.
        Err(_) if ctx.cancel.is_cancelled() => false,
        Err(e) => {
            ctx.emitter
                .warning(format!("Automatic compaction failed: {e}"));
            false
        }
    }
}

/// Asks the model for the summary of `history`. A request the API refuses as too long is
/// retried with the oldest messages dropped; retryable failures are retried as any
/// request is.
async fn summarise(
    ctx: &TurnContext,
    model: &str,
    mut history: Vec<ApiMessage>,
    extra: &[String],
) -> Result<String, CompactError> {
    let services = &ctx.core.services;
    let client = services
        .clients
        .client_for(model)
        .map_err(CompactError::Model)?;
    let policy = dcl_model::retry::RetryPolicy::from_env_map(&services.env);
    let mut prompt = COMPACT_PROMPT.to_string();
    if !extra.is_empty() {
        prompt.push_str("\n\nAdditional instructions:\n");
        prompt.push_str(&extra.join("\n"));
    }
    let mut trims = 0usize;
    let mut attempt = 0u32;
    loop {
        let request = ModelRequest {
            model: model.to_string(),
            system: Some(SUMMARISER_SYSTEM.to_string()),
            messages: with_prompt(history.clone(), &prompt),
            tools: Vec::new(),
            max_tokens: models::max_output_tokens(model).min(SUMMARY_MAX_TOKENS) as u32,
            thinking: None,
        };
        let once = async {
            let mut stream = client.stream(request, ctx.cancel.token.clone()).await?;
            let mut acc = Accumulator::new();
            while let Some(ev) = stream.next().await {
                acc.push(&ev?)?;
            }
            acc.finish()
        };
        let outcome = tokio::select! {
            r = once => r,
            _ = ctx.cancel.token.cancelled() => return Err(CompactError::Cancelled),
        };
        match outcome {
            Ok(turn) => {
                super::usage::record_usage(ctx, model, &turn.usage);
                let summary = format_summary(&turn.text());
                if summary.trim().is_empty() {
                    return Err(CompactError::EmptySummary);
                }
                return Ok(summary);
            }
            Err(e) if prompt_too_long(&e) && trims < MAX_HEAD_TRIMS && history.len() > 1 => {
                trims += 1;
                history = trim_head(history);
                if history.is_empty() {
                    return Err(CompactError::TooLong(e));
                }
            }
            Err(e) if policy.should_retry(&e, attempt) => {
                attempt += 1;
                let delay = policy.delay_ms(attempt, &e);
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            Err(e) => return Err(CompactError::Model(e)),
        }
    }
}

/// The history with the summarisation prompt as its last user message.
fn with_prompt(mut history: Vec<ApiMessage>, prompt: &str) -> Vec<ApiMessage> {
    match history.last_mut() {
        Some(last) if last.role == Role::User => last.content.push(ContentBlock::text(prompt)),
        _ => history.push(ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::text(prompt)],
        }),
    }
    history
}

/// Drops about the oldest quarter of `history`, then whatever no longer starts a valid
/// history (an assistant message, or tool results whose calls were dropped).
fn trim_head(history: Vec<ApiMessage>) -> Vec<ApiMessage> {
    let drop = (history.len() / 4).max(1);
    let mut rest: Vec<ApiMessage> = history.into_iter().skip(drop).collect();
    while let Some(first) = rest.first() {
        let starts_clean =
            first.role == Role::User && !first.content.iter().any(|b| b.as_tool_result().is_some());
        if starts_clean {
            break;
        }
        rest.remove(0);
    }
    rest
}

/// The summary without its `<analysis>` scratch work: the `<summary>` body when there is
/// one, as `Summary:\n…` (the reference's form), else the whole text.
pub(crate) fn format_summary(raw: &str) -> String {
    let mut text = raw.to_string();
    if let (Some(a), Some(b)) = (text.find("<analysis>"), text.find("</analysis>"))
        && a < b
    {
        text.replace_range(a..b + "</analysis>".len(), "");
    }
    if let (Some(a), Some(b)) = (text.find("<summary>"), text.rfind("</summary>"))
        && a < b
    {
        let inner = text[a + "<summary>".len()..b].trim();
        return format!("Summary:\n{inner}");
    }
    text.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_loses_its_analysis() {
        let raw = "<analysis>thinking</analysis>\n<summary>\n1. Did X\n</summary>";
        assert_eq!(format_summary(raw), "Summary:\n1. Did X");
        assert_eq!(format_summary("plain words"), "plain words");
    }

    #[test]
    fn refusals_for_length_are_recognised() {
        let long = ModelError::Http {
            status: 400,
            message: "prompt is too long: 25000 tokens > 20000 maximum".into(),
            retry_after: None,
        };
        assert!(prompt_too_long(&long));
        let other = ModelError::Http {
            status: 400,
            message: "messages: field required".into(),
            retry_after: None,
        };
        assert!(!prompt_too_long(&other));
        assert!(!prompt_too_long(&ModelError::connection(
            "prompt is too long"
        )));
    }

    #[test]
    fn trimming_keeps_a_valid_start() {
        let user = |t: &str| ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::text(t)],
        };
        let assistant = |t: &str| ApiMessage {
            role: Role::Assistant,
            content: vec![ContentBlock::text(t)],
        };
        let result = ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::tool_result(
                "t1",
                dcl_protocol::ToolResultContent::Text("r".into()),
                None,
            )],
        };
        let h = vec![
            user("a"),
            assistant("b"),
            result,
            assistant("c"),
            user("d"),
            assistant("e"),
            user("f"),
            assistant("g"),
        ];
        let t = trim_head(h);
        assert_eq!(t[0].role, Role::User);
        assert_eq!(t[0].content[0].as_text(), Some("d"));
        let with = with_prompt(vec![user("x")], "P");
        assert_eq!(with.len(), 1);
        assert_eq!(with[0].content.len(), 2);
        let with = with_prompt(vec![user("x"), assistant("y")], "P");
        assert_eq!(with.len(), 3);
    }
}
