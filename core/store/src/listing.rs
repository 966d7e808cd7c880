//! Listing and reading sessions, as the SDKs' `list_sessions` / `get_session_messages` see
//! them (for dcl's own Python API, which reads the same files).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::chain::{self, flag, type_of, uuid_of};
use crate::error::Result;
use crate::layout::{is_uuid, projects_dir};
use crate::loader;
use crate::resume::{find_session, project_dirs};

/// One session, as `list_sessions` reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SessionInfo {
    pub session_id: String,
    /// Title, else the last prompt, else a summary line, else the first prompt.
    pub summary: String,
    /// Modification time, ms since the epoch.
    pub last_modified: i64,
    pub file_size: u64,
    pub custom_title: Option<String>,
    pub first_prompt: Option<String>,
    pub git_branch: Option<String>,
    pub cwd: Option<String>,
    pub tag: Option<String>,
    /// The first entry's timestamp, ms since the epoch.
    pub created_at: Option<i64>,
    pub path: PathBuf,
}

/// Sessions newest first, one per id: this project's (when `project_key` is given) or
/// every project's, across `homes`. Subagent and metadata-only files are left out.
pub fn list_sessions(homes: &[&Path], project_key: Option<&str>) -> Vec<SessionInfo> {
    let mut out: Vec<SessionInfo> = Vec::new();
    for home in homes {
        let dirs: Vec<PathBuf> = match project_key {
            Some(k) => project_dirs(home, k),
            None => std::fs::read_dir(projects_dir(home))
                .map(|r| {
                    r.flatten()
                        .map(|d| d.path())
                        .filter(|p| p.is_dir())
                        .collect()
                })
                .unwrap_or_default(),
        };
        for dir in dirs {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for f in read.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".jsonl").filter(|s| is_uuid(s)) else {
                    continue;
                };
                if let Some(info) = session_info(&f.path(), id) {
                    match out.iter_mut().find(|s| s.session_id == info.session_id) {
                        Some(s) if s.last_modified < info.last_modified => *s = info,
                        Some(_) => {}
                        None => out.push(info),
                    }
                }
            }
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.last_modified));
    out
}

/// The info of one transcript file; `None` for a sidechain or a file without a prompt or
/// title.
pub fn session_info(path: &Path, session_id: &str) -> Option<SessionInfo> {
    let meta = std::fs::metadata(path).ok()?;
    let loaded = loader::parse(&std::fs::read(path).ok()?, path);
    let entries = &loaded.entries;
    if entries.first().is_some_and(|e| flag(e, "isSidechain")) {
        return None;
    }
    let last_str = |ty: &str, key: &str| -> Option<String> {
        entries
            .iter()
            .rev()
            .filter(|e| ty.is_empty() || type_of(e) == ty)
            .find_map(|e| e.get(key).and_then(Value::as_str).map(str::to_string))
            .filter(|s| !s.is_empty())
    };
    let custom_title = last_str("", "customTitle").or_else(|| last_str("", "aiTitle"));
    let first_prompt = entries
        .iter()
        .find(|e| chain::is_prompt(e))
        .and_then(prompt_text);
    let summary = custom_title
        .clone()
        .or_else(|| last_str("", "lastPrompt"))
        .or_else(|| last_str("summary", "summary"))
        .or_else(|| first_prompt.clone())?;
    let tag = last_str("tag", "tag");
    let first_str = |key: &str| {
        entries
            .iter()
            .find_map(|e| e.get(key).and_then(Value::as_str).map(str::to_string))
    };
    let created_at = first_str("timestamp")
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.timestamp_millis());
    let last_modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    Some(SessionInfo {
        session_id: session_id.to_string(),
        summary,
        last_modified,
        file_size: meta.len(),
        custom_title,
        first_prompt,
        git_branch: last_str("", "gitBranch"),
        cwd: first_str("cwd"),
        tag,
        created_at,
        path: path.to_path_buf(),
    })
}

/// A session's visible messages, root first, as `get_session_messages` returns them:
/// `{"type","uuid","session_id","message","parent_tool_use_id"}` for each user and
/// assistant entry of the chain that is not meta or sidechain.
pub fn session_messages(
    homes: &[&Path],
    project_key: &str,
    session_id: &str,
) -> Result<Vec<Value>> {
    let found = find_session(homes, project_key, session_id)?;
    let loaded = loader::load(&found.files.transcript)?;
    let entries = &loaded.entries;
    let Some(leaf) = chain::default_leaf(entries) else {
        return Ok(Vec::new());
    };
    Ok(chain::chain_to(entries, leaf)
        .into_iter()
        .map(|i| &entries[i])
        .filter(|e| matches!(type_of(e), "user" | "assistant"))
        .filter(|e| !flag(e, "isMeta") && !flag(e, "isSidechain"))
        .filter(|e| e.get("teamName").is_none_or(Value::is_null))
        .map(|e| {
            json!({
                "type": type_of(e),
                "uuid": uuid_of(e),
                "session_id": e.get("sessionId").cloned().unwrap_or(Value::Null),
                "message": e.get("message").cloned().unwrap_or(Value::Null),
                "parent_tool_use_id": Value::Null,
            })
        })
        .collect())
}

fn prompt_text(e: &Value) -> Option<String> {
    let text = match e.pointer("/message/content")? {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    let flat = text.replace('\n', " ").trim().to_string();
    if flat.is_empty() {
        return None;
    }
    Some(if flat.chars().count() > 200 {
        let mut s: String = flat
            .chars()
            .take(200)
            .collect::<String>()
            .trim_end()
            .to_string();
        s.push('…');
        s
    } else {
        flat
    })
}
