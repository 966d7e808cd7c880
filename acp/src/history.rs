//! `session/load`: a saved session's transcript, replayed as `session/update`s (its
//! entries read as the events of the conversation, which the projection sends).
//!
//! The transcript is read from dcl's home (`$DCL_CONFIG_DIR`, else `~/.dcl`, then the
//! reference's `$CLAUDE_CONFIG_DIR` / `~/.claude`): `projects/<project>/<id>.jsonl`.
//! The bridge has no history API yet; this reads the reference layout the store writes
//! (sessions kept only in a remote `--session-store` are not found here).

use std::path::PathBuf;

use serde_json::Value;

use std::collections::HashMap;

use dcl_bridge::events::{AgentEvent, ContentBlock, Item, ItemBody, ToolCall, ToolStatus};

/// Only canonical UUIDs name transcript files, so an id never names another path.
pub fn is_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn homes() -> Vec<PathBuf> {
    let home = dcl_bridge::options::user_home(|k| std::env::var(k).ok());
    let mut out = Vec::new();
    match std::env::var_os("DCL_CONFIG_DIR") {
        Some(d) => out.push(PathBuf::from(d)),
        None => out.extend(home.as_ref().map(|h| h.join(".dcl"))),
    }
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(d) => out.push(PathBuf::from(d)),
        None => out.extend(home.as_ref().map(|h| h.join(".claude"))),
    }
    out
}

/// The transcript of session `id`, if one is saved.
pub fn find(id: &str) -> Option<PathBuf> {
    if !is_session_id(id) {
        return None;
    }
    let name = format!("{id}.jsonl");
    for home in homes() {
        let Ok(dirs) = std::fs::read_dir(home.join("projects")) else {
            continue;
        };
        for dir in dirs.flatten() {
            let p = dir.path().join(&name);
            if p.metadata().is_ok_and(|m| m.is_file() && m.len() > 0) {
                return Some(p);
            }
        }
    }
    None
}

/// One saved session for `session/list`.
pub struct Saved {
    pub id: String,
    pub cwd: String,
    pub title: Option<String>,
    pub modified: std::time::SystemTime,
}

/// The saved main sessions (newest first), of `cwd` only when given: the cwd is the
/// transcript's first entry's, the title its last prompt.
pub fn list(cwd: Option<&str>) -> Vec<Saved> {
    let mut out: Vec<Saved> = Vec::new();
    for home in homes() {
        let Ok(dirs) = std::fs::read_dir(home.join("projects")) else {
            continue;
        };
        for dir in dirs.flatten() {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".jsonl").filter(|i| is_session_id(i)) else {
                    continue;
                };
                if out.iter().any(|s| s.id == id) {
                    continue;
                }
                let Ok(modified) = f.metadata().and_then(|m| m.modified()) else {
                    continue;
                };
                let Ok(text) = std::fs::read_to_string(f.path()) else {
                    continue;
                };
                if let Some(saved) = summary(id, &text, modified)
                    && cwd.is_none_or(|c| c == saved.cwd)
                {
                    out.push(saved);
                }
            }
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.modified));
    out
}

fn summary(id: &str, text: &str, modified: std::time::SystemTime) -> Option<Saved> {
    let mut cwd = None;
    let mut title = None;
    for v in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) && cwd.is_none() {
            return None;
        }
        if cwd.is_none() {
            cwd = v.get("cwd").and_then(Value::as_str).map(str::to_string);
        }
        if let Some(p) = v.get("lastPrompt").and_then(Value::as_str) {
            title = Some(p.chars().take(120).collect());
        }
    }
    Some(Saved {
        id: id.to_string(),
        cwd: cwd?,
        title,
        modified,
    })
}

/// A saved transcript as the events of its conversation, for the projection to replay:
/// the user's messages, the agent's text and thinking, its tool calls and their results
/// (subagents' own entries and meta entries are left out).
pub fn replay(text: &str) -> Vec<AgentEvent> {
    let mut calls: HashMap<String, ToolCall> = HashMap::new();
    let mut out = Vec::new();
    let entries = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("isSidechain").and_then(Value::as_bool) != Some(true))
        .filter(|v| v.get("isMeta").and_then(Value::as_bool) != Some(true));
    for (n, v) in entries.enumerate() {
        let content = v.get("message").and_then(|m| m.get("content"));
        let done = |id: String, body: ItemBody| AgentEvent::ItemCompleted {
            item: Item::new(id, body),
        };
        match (v.get("type").and_then(Value::as_str), content) {
            (Some("user"), Some(Value::String(text))) => out.push(done(
                format!("user/{n}"),
                ItemBody::UserMessage {
                    content: vec![ContentBlock::text(text)],
                },
            )),
            (Some("user"), Some(Value::Array(blocks))) => {
                let mut texts = Vec::new();
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => texts.extend(
                            b.get("text")
                                .and_then(Value::as_str)
                                .map(ContentBlock::text),
                        ),
                        Some("tool_result") => {
                            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                            let Some(mut call) = calls.remove(id) else {
                                continue;
                            };
                            call.status =
                                if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                                    ToolStatus::Failed
                                } else {
                                    ToolStatus::Completed
                                };
                            call.content = vec![ContentBlock::text(result_text(b.get("content")))];
                            out.push(done(id.to_string(), ItemBody::ToolCall(call)));
                        }
                        _ => {}
                    }
                }
                if !texts.is_empty() {
                    out.push(done(
                        format!("user/{n}"),
                        ItemBody::UserMessage { content: texts },
                    ));
                }
            }
            (Some("assistant"), Some(Value::Array(blocks))) => {
                for (k, b) in blocks.iter().enumerate() {
                    let s = |key: &str| b.get(key).and_then(Value::as_str);
                    let id = format!("assistant/{n}/{k}");
                    match s("type") {
                        Some("text") => out.push(done(
                            id,
                            ItemBody::AgentText {
                                text: s("text").unwrap_or("").into(),
                            },
                        )),
                        Some("thinking") => out.push(done(
                            id,
                            ItemBody::Thinking {
                                text: s("thinking").unwrap_or("").into(),
                            },
                        )),
                        Some("tool_use") => {
                            let (Some(id), Some(name)) = (s("id"), s("name")) else {
                                continue;
                            };
                            let input = b.get("input").cloned().unwrap_or(Value::Null);
                            let call = ToolCall::describe(name, input);
                            out.push(AgentEvent::ItemStarted {
                                item: Item::new(id, ItemBody::ToolCall(call.clone())),
                            });
                            calls.insert(id.to_string(), call);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The text of a tool_result's content (a string or text blocks).
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuids_only() {
        assert!(is_session_id("0c4230ad-d66a-473b-ad49-b92b032395b7"));
        assert!(!is_session_id("../../etc/passwd"));
        assert!(!is_session_id("0c4230ad-d66a-473b-ad49-b92b032395b/"));
    }

    #[test]
    fn replay_gives_both_sides() {
        let text = concat!(
            r#"{"type":"user","message":{"role":"user","content":"hello"}}"#,
            "\n",
            r#"{"type":"last-prompt","lastPrompt":"hello"}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}"#,
            "\n",
            r#"{"type":"user","isSidechain":true,"message":{"content":"inner"}}"#,
        );
        let mut projection = crate::projection::Projection::new(PathBuf::from("/"));
        let u: Vec<Value> = replay(text)
            .iter()
            .flat_map(|e| projection.updates(e, true))
            .collect();
        assert_eq!(u.len(), 2);
        assert_eq!(u[0]["sessionUpdate"], "user_message_chunk");
        assert_eq!(u[1]["sessionUpdate"], "agent_message_chunk");
    }

    #[test]
    fn replayed_tool_calls_come_with_their_results() {
        let text = concat!(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]}}"#,
        );
        let mut projection = crate::projection::Projection::new(PathBuf::from("/"));
        let u: Vec<Value> = replay(text)
            .iter()
            .flat_map(|e| projection.updates(e, true))
            .collect();
        assert_eq!(u[0]["sessionUpdate"], "tool_call");
        assert_eq!(u[1]["status"], "completed");
        assert!(u[1].to_string().contains("a.txt"));
    }
}
