//! stream-json lines -> ACP `session/update` payloads, in one place so the typed event
//! projection can replace it: a [`Translator`] per session remembers the tool calls it
//! announced, to report their results (and the diffs of edits) when they come back.
//!
//! Everything here is JSON in, JSON out (`update` objects of `session/update`); the
//! caller turns them into the crate's typed notifications, which checks their shape.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// A tool call announced to the client, kept until its result.
struct Announced {
    name: String,
    input: Value,
    /// The file's text before a Write, for the diff.
    old_text: Option<String>,
}

pub struct Translator {
    cwd: PathBuf,
    announced: HashMap<String, Announced>,
    /// Messages whose text and thinking were sent as they streamed
    /// (`--include-partial-messages`): their whole copy is not sent again.
    streamed: HashSet<String>,
    /// The main agent's last message usage: what the context holds now.
    last_usage: Option<Value>,
}

impl Translator {
    pub fn new(cwd: PathBuf) -> Self {
        Translator {
            cwd,
            announced: HashMap::new(),
            streamed: HashSet::new(),
            last_usage: None,
        }
    }

    /// The updates one stream-json line gives. `replaying`: a saved transcript is read
    /// back (`session/load`), so the user's own messages are sent too.
    pub fn updates(&mut self, line: &Value, replaying: bool) -> Vec<Value> {
        let message = line.get("message");
        let content = message.and_then(|m| m.get("content"));
        match line.get("type").and_then(Value::as_str) {
            Some("stream_event") => self.stream_event(line).into_iter().collect(),
            Some("assistant") => {
                let parent = line.get("parent_tool_use_id").and_then(Value::as_str);
                if parent.is_none()
                    && let Some(u) = message.and_then(|m| m.get("usage"))
                {
                    self.last_usage = Some(u.clone());
                }
                let streamed = message
                    .and_then(|m| m.get("id"))
                    .and_then(Value::as_str)
                    .is_some_and(|id| self.streamed.contains(id));
                let blocks = content
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                blocks
                    .iter()
                    .filter(|b| {
                        !streamed || b.get("type").and_then(Value::as_str) == Some("tool_use")
                    })
                    .filter_map(|b| self.assistant_block(b, parent))
                    .collect()
            }
            Some("user") => match content {
                Some(Value::String(text)) if replaying => vec![chunk("user_message_chunk", text)],
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("tool_result") => self.tool_result(b),
                        Some("text") if replaying => b
                            .get("text")
                            .and_then(Value::as_str)
                            .map(|t| chunk("user_message_chunk", t)),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// A text or thinking delta of the main agent, as it streams.
    fn stream_event(&mut self, line: &Value) -> Option<Value> {
        if line.get("parent_tool_use_id").is_some_and(|p| !p.is_null()) {
            return None;
        }
        let event = line.get("event")?;
        match event.get("type")?.as_str()? {
            "message_start" => {
                let id = event.get("message")?.get("id")?.as_str()?;
                self.streamed.insert(id.to_string());
                None
            }
            "content_block_delta" => {
                let delta = event.get("delta")?;
                match delta.get("type")?.as_str()? {
                    "text_delta" => {
                        Some(chunk("agent_message_chunk", delta.get("text")?.as_str()?))
                    }
                    "thinking_delta" => Some(chunk(
                        "agent_thought_chunk",
                        delta.get("thinking")?.as_str()?,
                    )),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `usage_update` at a turn's end (its `result` line): the context the last message
    /// used, the model's window and the session's cost so far.
    pub fn usage_update(&self, result: &Value) -> Option<Value> {
        let usage = self.last_usage.as_ref()?;
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        let used = n("input_tokens")
            + n("cache_creation_input_tokens")
            + n("cache_read_input_tokens")
            + n("output_tokens");
        let size = result
            .get("modelUsage")
            .and_then(Value::as_object)?
            .values()
            .filter_map(|m| m.get("contextWindow").and_then(Value::as_u64))
            .max()?;
        let mut update = json!({"sessionUpdate": "usage_update", "used": used, "size": size});
        if let Some(cost) = result.get("total_cost_usd").and_then(Value::as_f64) {
            update["cost"] = json!({"amount": cost, "currency": "USD"});
        }
        Some(update)
    }

    fn assistant_block(&mut self, block: &Value, parent: Option<&str>) -> Option<Value> {
        match block.get("type").and_then(Value::as_str)? {
            // A subagent's prose stays inside its tool call; its tool calls are shown,
            // nested under the Task that started them.
            "text" if parent.is_none() => {
                Some(chunk("agent_message_chunk", block.get("text")?.as_str()?))
            }
            "thinking" if parent.is_none() => Some(chunk(
                "agent_thought_chunk",
                block.get("thinking")?.as_str()?,
            )),
            "tool_use" => self.tool_call(block, parent),
            _ => None,
        }
    }

    fn tool_call(&mut self, block: &Value, parent: Option<&str>) -> Option<Value> {
        let id = block.get("id")?.as_str()?.to_string();
        let name = block.get("name")?.as_str()?.to_string();
        let input = block.get("input").cloned().unwrap_or(json!({}));
        if name == "TodoWrite" {
            self.announced.insert(
                id,
                Announced {
                    name,
                    input: input.clone(),
                    old_text: None,
                },
            );
            return Some(plan(&input));
        }
        let path = self.file_path(&input);
        let old_text = match (name.as_str(), &path) {
            ("Write", Some(p)) => std::fs::read_to_string(p).ok(),
            _ => None,
        };
        let mut update = Map::new();
        update.insert("sessionUpdate".into(), json!("tool_call"));
        update.insert("toolCallId".into(), json!(id));
        update.insert("title".into(), json!(title(&name, &input, path.as_deref())));
        update.insert("kind".into(), json!(kind(&name)));
        update.insert("status".into(), json!("pending"));
        update.insert("rawInput".into(), input.clone());
        if let Some(p) = &path {
            let mut location = json!({"path": p});
            if let Some(line) = input.get("offset").and_then(Value::as_u64) {
                location["line"] = json!(line);
            }
            update.insert("locations".into(), json!([location]));
        }
        if let Some(diff) = diff(&name, &input, path.as_deref(), old_text.as_deref()) {
            update.insert("content".into(), json!([diff]));
        }
        if let Some(parent) = parent {
            update.insert("_meta".into(), json!({"dcl": {"parentToolCallId": parent}}));
        }
        self.announced.insert(
            id,
            Announced {
                name,
                input,
                old_text,
            },
        );
        Some(Value::Object(update))
    }

    fn tool_result(&mut self, block: &Value) -> Option<Value> {
        let id = block.get("tool_use_id")?.as_str()?;
        let announced = self.announced.remove(id)?;
        if announced.name == "TodoWrite" {
            return None;
        }
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let mut content = Vec::new();
        let text = result_text(block.get("content"));
        if !failed {
            let path = self.file_path(&announced.input);
            if let Some(d) = diff(
                &announced.name,
                &announced.input,
                path.as_deref(),
                announced.old_text.as_deref(),
            ) {
                content.push(d);
            }
        }
        if !text.is_empty() {
            let shown = if announced.name == "Bash" && !failed {
                format!("```\n{text}\n```")
            } else {
                text
            };
            content.push(json!({"type": "content", "content": {"type": "text", "text": shown}}));
        }
        Some(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": if failed { "failed" } else { "completed" },
            "content": content,
        }))
    }

    /// `file_path` (or `notebook_path`, `path`) made absolute against the session's cwd.
    fn file_path(&self, input: &Value) -> Option<String> {
        let raw = ["file_path", "notebook_path", "path"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))?;
        let p = Path::new(raw);
        Some(if p.is_absolute() {
            raw.to_string()
        } else {
            self.cwd.join(p).display().to_string()
        })
    }
}

fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

/// The ACP tool kind of a dcl (Claude Code) tool.
pub fn kind(name: &str) -> &'static str {
    match name {
        "Read" | "NotebookRead" => "read",
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => "edit",
        "Bash" | "BashOutput" | "KillShell" => "execute",
        "Glob" | "Grep" | "LS" => "search",
        "WebFetch" | "WebSearch" => "fetch",
        "Task" | "Agent" => "think",
        "ExitPlanMode" | "EnterPlanMode" => "switch_mode",
        _ => "other",
    }
}

/// A short human title for a tool call.
pub fn title(name: &str, input: &Value, path: Option<&str>) -> String {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    match (name, path) {
        ("Bash", _) => s("command").map_or("Run a command".into(), |c| format!("`{c}`")),
        ("Read", Some(p)) => format!("Read {p}"),
        ("Write", Some(p)) => format!("Write {p}"),
        ("Edit" | "MultiEdit", Some(p)) => format!("Edit {p}"),
        ("NotebookEdit", Some(p)) => format!("Edit notebook {p}"),
        ("Glob", _) => s("pattern").map_or("Find files".into(), |p| format!("Find `{p}`")),
        ("Grep", _) => s("pattern").map_or("Search".into(), |p| format!("grep `{p}`")),
        ("WebFetch", _) => s("url").map_or("Fetch".into(), |u| format!("Fetch {u}")),
        ("WebSearch", _) => s("query").map_or("Web search".into(), |q| format!("Search: {q}")),
        ("Task" | "Agent", _) => s("description").unwrap_or("Task").to_string(),
        ("ExitPlanMode", _) => "Ready to code?".into(),
        _ => name.to_string(),
    }
}

/// The diff an edit or a write makes, as ACP `diff` tool-call content.
fn diff(name: &str, input: &Value, path: Option<&str>, old_text: Option<&str>) -> Option<Value> {
    let path = path?;
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    match name {
        "Write" => Some(json!({
            "type": "diff", "path": path, "oldText": old_text, "newText": s("content")?,
        })),
        "Edit" => Some(json!({
            "type": "diff", "path": path, "oldText": s("old_string")?, "newText": s("new_string")?,
        })),
        _ => None,
    }
}

/// TodoWrite's list as an ACP plan.
fn plan(input: &Value) -> Value {
    let entries: Vec<Value> = input
        .get("todos")
        .and_then(Value::as_array)
        .map(|todos| {
            todos
                .iter()
                .map(|t| {
                    let status = match t.get("status").and_then(Value::as_str) {
                        Some("in_progress") => "in_progress",
                        Some("completed") => "completed",
                        _ => "pending",
                    };
                    json!({
                        "content": t.get("content").and_then(Value::as_str).unwrap_or(""),
                        "priority": "medium",
                        "status": status,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({"sessionUpdate": "plan", "entries": entries})
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

/// How a turn ended, from its `result` line: the ACP `stopReason`, or the error the
/// prompt is answered with.
pub fn stop_reason(result: &Value, cancelled: bool) -> Result<&'static str, String> {
    if cancelled {
        return Ok("cancelled");
    }
    match result.get("subtype").and_then(Value::as_str) {
        Some("success") => Ok(match result.get("stop_reason").and_then(Value::as_str) {
            Some("max_tokens") => "max_tokens",
            Some("refusal") => "refusal",
            _ => "end_turn",
        }),
        Some("error_max_turns") => Ok("max_turn_requests"),
        other => {
            let detail = result
                .get("errors")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
                .and_then(Value::as_str)
                .or_else(|| result.get("result").and_then(Value::as_str))
                .unwrap_or("the turn failed");
            Err(format!("{}: {detail}", other.unwrap_or("error")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Translator {
        Translator::new(PathBuf::from("/w"))
    }

    #[test]
    fn text_and_thinking_become_chunks() {
        let line = json!({"type": "assistant", "parent_tool_use_id": null, "message": {"content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hi"}]}});
        let u = t().updates(&line, false);
        assert_eq!(u[0]["sessionUpdate"], "agent_thought_chunk");
        assert_eq!(u[1]["content"]["text"], "hi");
    }

    #[test]
    fn streamed_text_is_not_sent_twice() {
        let mut tr = t();
        let start = json!({"type": "stream_event", "parent_tool_use_id": null, "event":
            {"type": "message_start", "message": {"id": "m1"}}});
        assert!(tr.updates(&start, false).is_empty());
        let delta = json!({"type": "stream_event", "parent_tool_use_id": null, "event":
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}});
        assert_eq!(tr.updates(&delta, false)[0]["content"]["text"], "Hel");
        let whole = json!({"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "text", "text": "Hello"},
            {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}]}});
        let u = tr.updates(&whole, false);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0]["sessionUpdate"], "tool_call");
        // A message that did not stream is sent whole.
        let other = json!({"type": "assistant", "message": {"id": "m2", "content": [
            {"type": "text", "text": "Hi"}]}});
        assert_eq!(tr.updates(&other, false)[0]["content"]["text"], "Hi");
    }

    #[test]
    fn edit_call_and_result_carry_the_diff() {
        let mut tr = t();
        let call = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
            "id": "tu1", "name": "Edit", "input": {"file_path": "a.txt", "old_string": "x", "new_string": "y"}}]}});
        let u = tr.updates(&call, false);
        assert_eq!(u[0]["kind"], "edit");
        assert_eq!(u[0]["locations"][0]["path"], "/w/a.txt");
        assert_eq!(u[0]["content"][0]["newText"], "y");
        let res = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "tu1", "content": "ok"}]}});
        let u = tr.updates(&res, false);
        assert_eq!(u[0]["status"], "completed");
        assert_eq!(u[0]["content"][0]["type"], "diff");
        // A result for a call never announced gives nothing.
        assert!(tr.updates(&res, false).is_empty());
    }

    #[test]
    fn failed_result_has_no_diff() {
        let mut tr = t();
        let call = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
            "id": "tu1", "name": "Write", "input": {"file_path": "/w/n", "content": "c"}}]}});
        tr.updates(&call, false);
        let res = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "tu1", "content": "denied", "is_error": true}]}});
        let u = tr.updates(&res, false);
        assert_eq!(u[0]["status"], "failed");
        assert_eq!(u[0]["content"][0]["type"], "content");
    }

    #[test]
    fn todowrite_is_a_plan() {
        let call = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
            "id": "tu1", "name": "TodoWrite", "input": {"todos": [
                {"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]}}]}});
        let u = t().updates(&call, false);
        assert_eq!(u[0]["sessionUpdate"], "plan");
        assert_eq!(u[0]["entries"][0]["status"], "in_progress");
    }

    #[test]
    fn user_text_only_when_replaying() {
        let line = json!({"type": "user", "message": {"content": "hello"}});
        assert!(t().updates(&line, false).is_empty());
        assert_eq!(
            t().updates(&line, true)[0]["sessionUpdate"],
            "user_message_chunk"
        );
    }

    #[test]
    fn usage_at_the_end_of_a_turn() {
        let mut tr = t();
        let msg = json!({"type": "assistant", "parent_tool_use_id": null, "message": {"content": [],
            "usage": {"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 5}}});
        tr.updates(&msg, false);
        let result = json!({"type": "result", "total_cost_usd": 0.5,
            "modelUsage": {"m": {"contextWindow": 200000}}});
        let u = tr.usage_update(&result).expect("usage");
        assert_eq!(u["used"], 125);
        assert_eq!(u["size"], 200000);
        assert_eq!(u["cost"]["currency"], "USD");
        assert!(t().usage_update(&result).is_none());
    }

    #[test]
    fn stop_reasons() {
        let ok = json!({"subtype": "success", "stop_reason": "end_turn"});
        assert_eq!(stop_reason(&ok, false), Ok("end_turn"));
        assert_eq!(stop_reason(&ok, true), Ok("cancelled"));
        let mt = json!({"subtype": "success", "stop_reason": "max_tokens"});
        assert_eq!(stop_reason(&mt, false), Ok("max_tokens"));
        let turns = json!({"subtype": "error_max_turns"});
        assert_eq!(stop_reason(&turns, false), Ok("max_turn_requests"));
        let err = json!({"subtype": "error_during_execution", "errors": ["boom"]});
        assert!(stop_reason(&err, false).is_err_and(|e| e.contains("boom")));
    }
}
