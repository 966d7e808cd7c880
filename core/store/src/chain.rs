//! The conversation a transcript holds: the `parentUuid` chain from a leaf back to the root
//! (the newest main-chain leaf unless one is named), then the model-facing history.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::writer::is_chain_entry;

/// Index of the entry the SDK helpers treat as the current leaf: of the terminal entries
/// (no child), walk back to the nearest `user`/`assistant`; prefer main-chain ones (not
/// sidechain, team or meta) and the latest in the file.
pub fn default_leaf(entries: &[Value]) -> Option<usize> {
    let index = uuid_index(entries);
    let parents: HashSet<&str> = entries
        .iter()
        .filter(|e| is_chain_entry(e))
        .filter_map(|e| e.get("parentUuid").and_then(Value::as_str))
        .collect();
    let mut leaves: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if !is_chain_entry(e) || parents.contains(uuid_of(e)) {
            continue;
        }
        let mut cur = Some(i);
        let mut seen = HashSet::new();
        while let Some(c) = cur {
            if !seen.insert(c) {
                break;
            }
            if matches!(type_of(&entries[c]), "user" | "assistant") {
                leaves.push(c);
                break;
            }
            cur = parent_of(&entries[c]).and_then(|p| index.get(p).copied());
        }
    }
    let main = leaves.iter().copied().filter(|&i| {
        let e = &entries[i];
        !flag(e, "isSidechain")
            && !flag(e, "isMeta")
            && e.get("teamName").is_none_or(Value::is_null)
    });
    main.max().or_else(|| leaves.iter().copied().max())
}

/// The chain ending at `leaf` (an index into `entries`), root first. It starts at the last
/// compaction boundary: what came before was summarised.
pub fn chain_to(entries: &[Value], leaf: usize) -> Vec<usize> {
    let index = uuid_index(entries);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut cur = Some(leaf);
    while let Some(c) = cur {
        if !seen.insert(c) {
            break;
        }
        out.push(c);
        cur = parent_of(&entries[c]).and_then(|p| index.get(p).copied());
    }
    out.reverse();
    if let Some(b) = out.iter().rposition(|&i| is_compact_boundary(&entries[i])) {
        out.drain(..b);
    }
    out
}

/// The index of the chain entry with this uuid.
pub fn find_uuid(entries: &[Value], uuid: &str) -> Option<usize> {
    entries
        .iter()
        .rposition(|e| is_chain_entry(e) && uuid_of(e) == uuid)
}

/// A user entry that starts a turn: a prompt, not tool results, meta text or a summary.
pub fn is_prompt(entry: &Value) -> bool {
    if type_of(entry) != "user" || flag(entry, "isMeta") || flag(entry, "isCompactSummary") {
        return false;
    }
    match entry.pointer("/message/content") {
        Some(Value::Array(blocks)) => !blocks
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")),
        Some(Value::String(_)) => true,
        _ => false,
    }
}

pub fn is_compact_boundary(entry: &Value) -> bool {
    type_of(entry) == "system"
        && entry.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
}

/// One message of the history handed back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Content blocks (a string content becomes one text block).
    pub content: Vec<Value>,
    /// The transcript entries merged into this message.
    pub uuids: Vec<String>,
    /// The assistant message's API id.
    pub message_id: Option<String>,
    /// The assistant message's model.
    pub model: Option<String>,
    /// True for the summary a compaction left.
    pub is_compact_summary: bool,
}

/// What a tool call that never got its result is answered with on resume.
pub const INTERRUPTED_TOOL_RESULT: &str =
    "The tool call was interrupted: the session ended before it finished.";

/// The model-facing history of a chain. Consecutive entries of one role merge into one
/// message (the reference writes one assistant entry per content block and one user entry
/// per tool result); a tool call left without a result (the process died mid-tool) gets an
/// error result, and a result without its call is dropped, so the history is always one
/// the Messages API accepts.
pub fn history(entries: &[Value], chain: &[usize]) -> Vec<HistoryMessage> {
    let mut out: Vec<HistoryMessage> = Vec::new();
    for &i in chain {
        let e = &entries[i];
        let role = type_of(e);
        if role != "user" && role != "assistant" {
            continue;
        }
        let Some(msg) = e.get("message") else {
            continue;
        };
        let blocks: Vec<Value> = match msg.get("content") {
            Some(Value::String(s)) if !s.is_empty() => vec![json!({"type": "text", "text": s})],
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        if blocks.is_empty() {
            continue;
        }
        let uuid = uuid_of(e).to_string();
        let message_id = msg.get("id").and_then(Value::as_str).map(str::to_string);
        match out.last_mut() {
            Some(last) if last.role == role => {
                last.content.extend(blocks);
                last.uuids.push(uuid);
                if last.message_id.is_none() {
                    last.message_id = message_id;
                }
            }
            _ => out.push(HistoryMessage {
                role: role.to_string(),
                content: blocks,
                uuids: vec![uuid],
                message_id,
                model: msg.get("model").and_then(Value::as_str).map(str::to_string),
                is_compact_summary: flag(e, "isCompactSummary"),
            }),
        }
    }
    pair_tool_results(out)
}

/// Makes every tool_use answered by a tool_result in the next message, and every
/// tool_result answer a tool_use of the message before.
fn pair_tool_results(messages: Vec<HistoryMessage>) -> Vec<HistoryMessage> {
    let mut out: Vec<HistoryMessage> = Vec::with_capacity(messages.len() + 1);
    let mut open: Vec<String> = Vec::new();
    for mut m in messages {
        if m.role == "user" {
            let calls: HashSet<String> = open.iter().cloned().collect();
            m.content.retain(|b| match tool_result_id(b) {
                Some(id) => calls.contains(id),
                None => true,
            });
            let answered: HashSet<&str> = m.content.iter().filter_map(tool_result_id).collect();
            let missing: Vec<Value> = open
                .iter()
                .filter(|id| !answered.contains(id.as_str()))
                .map(|id| interrupted_result(id))
                .collect();
            if !missing.is_empty() {
                // Results come first in a user message, as the API expects.
                let n = m
                    .content
                    .iter()
                    .take_while(|b| tool_result_id(b).is_some())
                    .count();
                m.content.splice(n..n, missing);
            }
            open.clear();
            if !m.content.is_empty() {
                out.push(m);
            }
        } else {
            if !open.is_empty() {
                out.push(synthetic_results(&open));
            }
            open = m
                .content
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_string))
                .collect();
            out.push(m);
        }
    }
    if !open.is_empty() {
        out.push(synthetic_results(&open));
    }
    out
}

fn synthetic_results(ids: &[String]) -> HistoryMessage {
    HistoryMessage {
        role: "user".into(),
        content: ids.iter().map(|id| interrupted_result(id)).collect(),
        uuids: Vec::new(),
        message_id: None,
        model: None,
        is_compact_summary: false,
    }
}

fn interrupted_result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": INTERRUPTED_TOOL_RESULT, "is_error": true})
}

fn tool_result_id(b: &Value) -> Option<&str> {
    (b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .then(|| b.get("tool_use_id").and_then(Value::as_str))
        .flatten()
}

fn uuid_index(entries: &[Value]) -> HashMap<&str, usize> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| is_chain_entry(e))
        .map(|(i, e)| (uuid_of(e), i))
        .collect()
}

pub(crate) fn uuid_of(e: &Value) -> &str {
    e.get("uuid").and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn type_of(e: &Value) -> &str {
    e.get("type").and_then(Value::as_str).unwrap_or("")
}

fn parent_of(e: &Value) -> Option<&str> {
    e.get("parentUuid").and_then(Value::as_str)
}

pub(crate) fn flag(e: &Value, key: &str) -> bool {
    e.get(key).and_then(Value::as_bool).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(kind: &str, uuid: &str, parent: Option<&str>, content: Value) -> Value {
        json!({"type": kind, "uuid": uuid, "parentUuid": parent, "message": {"role": kind, "content": content}})
    }

    #[test]
    fn newest_main_leaf_wins_and_branches_are_followed() {
        let entries = vec![
            e("user", "u1", None, json!("hi")),
            e(
                "assistant",
                "a1",
                Some("u1"),
                json!([{"type":"text","text":"one"}]),
            ),
            e("user", "u2", Some("a1"), json!("second")),
            e(
                "assistant",
                "a2",
                Some("u2"),
                json!([{"type":"text","text":"two"}]),
            ),
            // A branch from a1 (a resume at a1), written later: it becomes the leaf.
            e("user", "u3", Some("a1"), json!("other")),
            json!({"type":"tag","tag":"x","sessionId":"s"}),
        ];
        let leaf = default_leaf(&entries).unwrap();
        assert_eq!(uuid_of(&entries[leaf]), "u3");
        let chain: Vec<&str> = chain_to(&entries, leaf)
            .iter()
            .map(|&i| uuid_of(&entries[i]))
            .collect();
        assert_eq!(chain, ["u1", "a1", "u3"]);
        let at = find_uuid(&entries, "a2").unwrap();
        let chain: Vec<&str> = chain_to(&entries, at)
            .iter()
            .map(|&i| uuid_of(&entries[i]))
            .collect();
        assert_eq!(chain, ["u1", "a1", "u2", "a2"]);
    }

    #[test]
    fn blocks_merge_and_unanswered_tool_calls_get_results() {
        let entries = vec![
            e("user", "u1", None, json!("go")),
            json!({"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}),
            json!({"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}),
            json!({"type":"assistant","uuid":"a3","parentUuid":"a2","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{}}]}}),
            e(
                "user",
                "r1",
                Some("a3"),
                json!([{"type":"tool_result","tool_use_id":"t1","content":"hi"}, {"type":"tool_result","tool_use_id":"zz","content":"stray"}]),
            ),
        ];
        let chain = chain_to(&entries, default_leaf(&entries).unwrap());
        let h = history(&entries, &chain);
        assert_eq!(h.len(), 3);
        assert_eq!(h[1].content.len(), 3);
        assert_eq!(h[1].uuids, ["a1", "a2", "a3"]);
        assert_eq!(h[1].message_id.as_deref(), Some("m1"));
        let ids: Vec<&str> = h[2].content.iter().filter_map(tool_result_id).collect();
        assert_eq!(ids, ["t1", "t2"]);
        assert_eq!(h[2].content[1]["is_error"], true);

        // Killed right after the tool call: the call is answered as interrupted.
        let h = history(&entries[..3], &[0, 1, 2]);
        assert_eq!(h.last().unwrap().role, "user");
        assert_eq!(h.last().unwrap().content[0]["tool_use_id"], "t1");
    }

    #[test]
    fn history_starts_at_the_last_compaction() {
        let entries = vec![
            e("user", "u1", None, json!("old")),
            json!({"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"u1"}),
            json!({"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"role":"user","content":"summary"}}),
            e(
                "assistant",
                "a",
                Some("s"),
                json!([{"type":"text","text":"new"}]),
            ),
        ];
        let chain = chain_to(&entries, default_leaf(&entries).unwrap());
        let h = history(&entries, &chain);
        assert_eq!(h.len(), 2);
        assert!(h[0].is_compact_summary);
        assert!(!is_prompt(&entries[2]));
        assert!(is_prompt(&entries[0]));
    }
}
