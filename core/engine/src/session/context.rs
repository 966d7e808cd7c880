//! `get_context_usage`: how much of the context window the next request would use, by
//! category, from the real system prompt, tool definitions, messages and output schema.

use serde_json::{Value, json};

use super::models;
use super::services::SessionCore;

/// Tokens as dcl estimates them everywhere a tokenizer is not at hand: a quarter of the
/// characters, rounded up (the same rule as the mock model's accounting).
fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

pub(crate) fn usage(core: &SessionCore) -> Value {
    let live = core.state.live();
    let services = &core.services;
    let system = crate::prompt::system_prompt(
        live.system_prompt.as_deref(),
        live.append_system_prompt.as_deref(),
        !services.qoder(),
        &services.cwd,
    )
    .unwrap_or_default();
    let memory = crate::memory::section(&services.memory).unwrap_or_default();
    let tools_json =
        serde_json::to_string(&services.tools.iter().map(|t| t.spec()).collect::<Vec<_>>())
            .unwrap_or_default();
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
            tokens(tools_json.len()),
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
    let mut list: Vec<Value> = categories
        .iter()
        .map(|(name, id, kind, t, color)| {
            json!({"name": name, "id": id, "type": kind, "kind": "used", "tokens": t,
                   "percentage": pct(*t), "color": color})
        })
        .collect();
    list.push(
        json!({"name": "Free space", "id": "free_space", "type": "free_space", "kind": "free",
                     "tokens": free, "percentage": pct(free), "color": "promptBorder"}),
    );
    let stats = core.state.with(|s| s.stats.clone());
    json!({
        "categories": list,
        "totalTokens": total,
        "maxTokens": max,
        "rawMaxTokens": max,
        "percentage": pct(total),
        "model": live.model,
        "isAutoCompactEnabled": false,
        "memoryFiles": services.memory.iter().map(|m| json!({
            "path": m.path.display().to_string(),
            "type": if m.scope == "user" { "User" } else { "Project" },
            "tokens": tokens(m.content.len()),
        })).collect::<Vec<_>>(),
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
        "contextWindow": {"usedPercentage": pct(total), "usedTokens": total, "maxTokens": max},
        "autoCompact": {"enabled": false, "thresholdPercentage": 100},
        // Both dialects' skill summaries: Claude's and Qoder's keys in one object.
        "skills": {"totalSkills": 0, "includedSkills": 0, "tokens": 0, "skillFrontmatter": [],
                   "count": 0, "percentageOfContext": 0, "items": []},
        "apiUsage": Value::Null,
        "duplicateFileReads": [],
        "session": {
            "messageCount": stats.messages,
            "promptCount": stats.prompts,
            "toolCalls": stats.tool_calls,
            "linesChanged": stats.lines_changed,
        },
    })
}
