//! `get_context_usage`: how much of the context window the next request would use, by
//! category, from the real system prompt, tool definitions, messages and output schema.

use dcl_protocol::{ContextCategory, ContextUsageResponse};
use serde_json::{Value, json};

use crate::session::models;
use crate::session::services::SessionCore;

/// Tokens as dcl estimates them everywhere a tokenizer is not at hand: a quarter of the
/// characters, rounded up (the same rule as the mock model's accounting).
fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

pub(crate) fn usage(core: &SessionCore) -> ContextUsageResponse {
    let live = core.state.live();
    let services = &core.services;
    let system = crate::prompt::with_output_style(
        crate::prompt::system_prompt(
            live.system_prompt.as_deref(),
            live.append_system_prompt.as_deref(),
            services.dialect().empty_system_prompt_is_none(),
            &services.cwd,
        ),
        &services.output_style,
    )
    .unwrap_or_default();
    let memory = crate::memory::section(&services.memory).unwrap_or_default();
    let tools_chars = dcl_model::ToolSpec::list_json_size(
        &services.tools.iter().map(|t| t.spec()).collect::<Vec<_>>(),
    )
    .bytes;
    // The conversation keeps its size up to date, so a running turn (which holds the
    // conversation) never makes this wait.
    let messages_chars = core
        .conversation_size
        .load(std::sync::atomic::Ordering::Relaxed);
    let schema_chars = core.json_schema().map(|s| s.to_string().len()).unwrap_or(0);
    // (name, id, Qoder type, tokens, colour)
    let categories = [
        (
            "System prompt",
            "system_prompt",
            "system_prompt",
            tokens(system.len()),
            "promptBorder",
        ),
        (
            "System tools",
            "system_tools",
            "system_tools",
            tokens(tools_chars),
            "inactive",
        ),
        (
            "Memory files",
            "memory_files",
            "other",
            tokens(memory.len()),
            "claude",
        ),
        (
            "Messages",
            "messages",
            "messages",
            tokens(messages_chars),
            "purple_FOR_SUBAGENTS_ONLY",
        ),
        (
            "Output schema",
            "output_schema",
            "other",
            tokens(schema_chars),
            "cyan_FOR_SUBAGENTS_ONLY",
        ),
    ];
    let total: u64 = categories.iter().map(|c| c.3).sum();
    let max = models::context_window(&live.model).max(1);
    let free = max.saturating_sub(total);
    let pct = |t: u64| (t as f64 * 10_000.0 / max as f64).round() / 100.0;
    // One superset shape serves both dialects: Claude reads name/tokens/kind, Qoder
    // reads type/percentage and the top-level contextWindow/session blocks.
    let mut list: Vec<ContextCategory> = categories
        .iter()
        .map(|(name, id, kind, t, color)| {
            ContextCategory::full(*name, *id, *kind, "used", *t, pct(*t), *color)
        })
        .collect();
    list.push(ContextCategory::full(
        "Free space",
        "free_space",
        "free_space",
        "free",
        free,
        pct(free),
        "promptBorder",
    ));
    let stats = core.state.with(|s| s.stats.clone());
    let compact = super::compact::policy(core, &live.model);
    let memory_files = services
        .memory
        .iter()
        .map(|m| {
            json!({
                "path": m.path.display().to_string(),
                "type": if m.scope == "user" { "User" } else { "Project" },
                "tokens": tokens(m.content.len()),
            })
        })
        .collect();
    ContextUsageResponse {
        memory_files: Some(memory_files),
        mcp_tools: Some(Vec::new()),
        agents: Some(Vec::new()),
        grid_rows: Some(Vec::new()),
        context_window: Some(
            json!({"usedPercentage": pct(total), "usedTokens": total, "maxTokens": max}),
        ),
        auto_compact: Some(json!({
            "enabled": compact.enabled,
            "thresholdPercentage": compact.threshold_percentage(),
        })),
        is_auto_compact_enabled: compact.enabled,
        auto_compact_threshold: Some(compact.threshold),
        // Both dialects' skill summaries: Claude's and Qoder's keys in one object.
        skills: Some(json!({"totalSkills": 0, "includedSkills": 0, "tokens": 0,
            "skillFrontmatter": [], "count": 0, "percentageOfContext": 0, "items": []})),
        api_usage: Some(Value::Null),
        duplicate_file_reads: Some(Vec::new()),
        session: Some(json!({
            "messageCount": stats.messages,
            "promptCount": stats.prompts,
            "toolCalls": stats.tool_calls,
            "linesChanged": stats.lines_changed,
        })),
        ..ContextUsageResponse::new(list, total, max, pct(total), live.model.clone())
    }
}
