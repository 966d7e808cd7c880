//! `get_context_usage`: how much of the context window the next request would use, by
//! category, from the real system prompt, tool definitions, messages and output schema.

use serde_json::{Value, json};

use super::{Shared, models};

/// Tokens as dcl estimates them everywhere a tokenizer is not at hand: a quarter of the
/// characters, rounded up (the same rule as the mock model's accounting).
fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

pub fn usage(shared: &Shared) -> Value {
    let live = shared.live().clone();
    let system = crate::prompt::system_prompt(
        live.system_prompt.as_deref(),
        live.append_system_prompt.as_deref(),
        !shared.qoder(),
        &shared.cwd,
    )
    .unwrap_or_default();
    let tools_json =
        serde_json::to_string(&shared.tools.iter().map(|t| t.spec()).collect::<Vec<_>>())
            .unwrap_or_default();
    // The history is locked only briefly by a turn; if a turn holds it right now, the
    // messages are counted from the last snapshot a request was built from.
    let messages_chars = match shared.history.try_lock() {
        Ok(h) => {
            let n = serde_json::to_string(&*h).map(|s| s.len()).unwrap_or(0);
            *super::lock(&shared.last_messages_chars) = n;
            n
        }
        Err(_) => *super::lock(&shared.last_messages_chars),
    };
    let schema_chars = shared
        .json_schema()
        .map(|s| s.to_string().len())
        .unwrap_or(0);
    let categories = [
        ("System prompt", tokens(system.len()), "promptBorder"),
        ("System tools", tokens(tools_json.len()), "inactive"),
        (
            "Messages",
            tokens(messages_chars),
            "purple_FOR_SUBAGENTS_ONLY",
        ),
        (
            "Output schema",
            tokens(schema_chars),
            "cyan_FOR_SUBAGENTS_ONLY",
        ),
    ];
    let total: u64 = categories.iter().map(|c| c.1).sum();
    let max = models::context_window(&live.model);
    let free = max.saturating_sub(total);
    let mut list: Vec<Value> = categories
        .iter()
        .map(|(name, t, color)| json!({"name": name, "tokens": t, "color": color}))
        .collect();
    list.push(json!({"name": "Free space", "tokens": free, "color": "promptBorder"}));
    json!({
        "categories": list,
        "totalTokens": total,
        "maxTokens": max,
        "rawMaxTokens": max,
        "percentage": (total as f64 * 10_000.0 / max.max(1) as f64).round() / 100.0,
        "model": live.model,
        "isAutoCompactEnabled": false,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
    })
}
