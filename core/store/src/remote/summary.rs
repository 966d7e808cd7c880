//! The SDKs' session summary fold (`fold_session_summary`): a store keeps one summary per
//! session, folded from each main-transcript append, so listing a project is one query.
//! Every field is set-once or last-wins, so a fold never re-reads earlier entries. The
//! fold must agree with the SDKs' own (their `list_sessions_from_store` reads `data`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// Entry keys whose last string value wins, and the summary key each becomes.
const LAST_WINS: &[(&str, &str)] = &[
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
];

static COMMAND_NAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"<command-name>(.*?)</command-name>").ok());
static SKIP_FIRST_PROMPT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:<local-command-stdout>|<session-start-hook>|<tick>|<goal>|\[Request interrupted by user[^\]]*\]|\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$|\s*<ide_selection>[\s\S]*</ide_selection>\s*$)",
    )
    .ok()
});

/// Folds a batch of main-transcript entries into `data` (the summary's opaque part).
pub fn fold(data: &mut Map<String, Value>, entries: &[Value]) {
    for entry in entries {
        let ms = entry
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(iso_to_ms);
        if !data.contains_key("is_sidechain") {
            let side = entry.get("isSidechain") == Some(&Value::Bool(true));
            data.insert("is_sidechain".into(), Value::Bool(side));
        }
        if !data.contains_key("created_at")
            && let Some(ms) = ms
        {
            data.insert("created_at".into(), Value::from(ms));
        }
        if !data.contains_key("cwd")
            && let Some(cwd) = entry
                .get("cwd")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
        {
            data.insert("cwd".into(), Value::from(cwd));
        }
        fold_first_prompt(data, entry);
        for (src, dst) in LAST_WINS {
            if let Some(v) = entry.get(*src).and_then(Value::as_str) {
                data.insert((*dst).into(), Value::from(v));
            }
        }
        if entry.get("type").and_then(Value::as_str) == Some("tag") {
            match entry
                .get("tag")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                Some(t) => {
                    data.insert("tag".into(), Value::from(t));
                }
                // An empty or absent tag clears it.
                None => {
                    data.remove("tag");
                }
            }
        }
    }
}

fn iso_to_ms(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|d| d.timestamp_millis())
}

fn fold_first_prompt(data: &mut Map<String, Value>, entry: &Value) {
    if data.get("first_prompt_locked") == Some(&Value::Bool(true))
        || entry.get("type").and_then(Value::as_str) != Some("user")
        || entry.get("isMeta") == Some(&Value::Bool(true))
        || entry.get("isCompactSummary") == Some(&Value::Bool(true))
    {
        return;
    }
    let content = entry.pointer("/message/content");
    if let Some(Value::Array(blocks)) = content
        && blocks
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
    {
        return;
    }
    let texts: Vec<&str> = match content {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    };
    for raw in texts {
        let text = raw.replace('\n', " ");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(re) = COMMAND_NAME.as_ref()
            && let Some(c) = re.captures(text)
        {
            let have = data
                .get("command_fallback")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty());
            if !have {
                let name = c.get(1).map(|m| m.as_str()).unwrap_or_default();
                data.insert("command_fallback".into(), Value::from(name));
            }
            continue;
        }
        if SKIP_FIRST_PROMPT
            .as_ref()
            .is_some_and(|re| re.is_match(text))
        {
            continue;
        }
        let shown = if text.chars().count() > 200 {
            let cut: String = text.chars().take(200).collect();
            format!("{}\u{2026}", cut.trim_end())
        } else {
            text.to_string()
        };
        data.insert("first_prompt".into(), Value::from(shown));
        data.insert("first_prompt_locked".into(), Value::Bool(true));
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fold_is_set_once_and_last_wins() {
        let mut d = Map::new();
        fold(
            &mut d,
            &[
                json!({"type":"user","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/r",
                       "message":{"content":"<command-name>/x</command-name>"}}),
                json!({"type":"user","message":{"content":[{"type":"text","text":"hello\nthere"}]},
                       "customTitle":"first"}),
            ],
        );
        fold(
            &mut d,
            &[
                json!({"type":"user","message":{"content":"later"},"customTitle":"second"}),
                json!({"type":"tag","tag":"t1"}),
            ],
        );
        assert_eq!(d["created_at"], json!(1704067200000_i64));
        assert_eq!(d["cwd"], json!("/r"));
        assert_eq!(d["command_fallback"], json!("/x"));
        assert_eq!(d["first_prompt"], json!("hello there"));
        assert_eq!(d["custom_title"], json!("second"));
        assert_eq!(d["is_sidechain"], json!(false));
        assert_eq!(d["tag"], json!("t1"));
        fold(&mut d, &[json!({"type":"tag","tag":""})]);
        assert!(!d.contains_key("tag"));
    }
}
