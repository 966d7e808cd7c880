//! `session/load`: a saved session's transcript, replayed as `session/update`s.
//!
//! The transcript is read from dcl's home (`$DCL_CONFIG_DIR`, else `~/.dcl`, then the
//! reference's `$CLAUDE_CONFIG_DIR` / `~/.claude`): `projects/<project>/<id>.jsonl`.
//! The bridge has no history API yet; this reads the reference layout the store writes
//! (sessions kept only in a remote `--session-store` are not found here).

use std::path::PathBuf;

use serde_json::Value;

use crate::from_stream_json::Translator;

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
    let home = std::env::var_os("HOME").map(PathBuf::from);
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

/// The updates that replay a transcript: the user's messages, the agent's, its tool
/// calls and their results (subagents' own lines are left out).
pub fn replay(text: &str, translator: &mut Translator) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("isSidechain").and_then(Value::as_bool) != Some(true))
        .filter(|v| v.get("isMeta").and_then(Value::as_bool) != Some(true))
        .flat_map(|v| translator.updates(&v, true))
        .collect()
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
        let u = replay(text, &mut Translator::new(PathBuf::from("/")));
        assert_eq!(u.len(), 2);
        assert_eq!(u[0]["sessionUpdate"], "user_message_chunk");
        assert_eq!(u[1]["sessionUpdate"], "agent_message_chunk");
    }
}
