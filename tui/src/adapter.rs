//! The one place that knows the session's wire format: it turns the bridge's stream-json
//! lines into [`UiEvent`]s and the UI's requests into lines. When the engine's typed event
//! stream lands in the bridge, this module is what gets replaced.

use std::collections::HashMap;

use dcl_bridge::{Bridge, SessionOptions};
use serde_json::{Value, json};

use crate::error::TuiError;
use crate::view::{
    AskKind, FileChange, Notice, NoticeLevel, PermissionAnswer, PermissionAsk, Question,
    SessionInfo, ToolCall, TurnEnd, UiEvent,
};

/// What an open permission question needs to be answered on the wire.
#[derive(Debug, Clone)]
struct AskWire {
    input: Value,
    /// The `addRules` suggestion "don't ask again" sends back.
    always: Value,
}

/// A control request the UI made itself, waiting for its answer.
#[derive(Debug, Clone)]
enum OwnRequest {
    SetMode(String),
    SetModel,
    /// Files rewound to before this prompt.
    Rewind(String),
}

/// Turns outbound lines into UI events. Pure: no I/O, so it is tested on lines alone.
#[derive(Debug, Default)]
pub struct Decoder {
    asks: HashMap<String, AskWire>,
    own: HashMap<String, OwnRequest>,
    /// Whether the current message's text arrived as deltas (then the full message
    /// repeats it and is not shown again).
    streamed: bool,
    /// Answers owed to requests this terminal cannot serve: refused at once, so the
    /// session never waits for its host timeout (a project MCP server then stays off).
    refusals: Vec<String>,
}

impl Decoder {
    /// The error answers owed to requests this terminal cannot serve, to send now.
    pub fn take_refusals(&mut self) -> Vec<String> {
        std::mem::take(&mut self.refusals)
    }

    pub fn decode(&mut self, line: &str) -> Vec<UiEvent> {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return vec![UiEvent::Notice(Notice::warning(format!(
                "unreadable session line: {}",
                truncate(line, 80)
            )))];
        };
        let subagent = v
            .get("parent_tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_string);
        match str_at(&v, "type") {
            "system" => self.system(&v),
            "stream_event" if subagent.is_none() => self.stream_event(&v["event"]),
            "assistant" => self.assistant(&v["message"], subagent),
            "user" => tool_results(&v["message"]),
            "result" => vec![UiEvent::TurnEnded(turn_end(&v))],
            "control_request" => self.control_request(&v),
            "control_response" => self.control_response(&v["response"]),
            "control_cancel_request" => {
                let id = str_at(&v, "request_id").to_string();
                self.asks.remove(&id);
                vec![UiEvent::PermissionWithdrawn(id)]
            }
            _ => Vec::new(),
        }
    }

    fn system(&mut self, v: &Value) -> Vec<UiEvent> {
        match str_at(v, "subtype") {
            "init" => vec![UiEvent::SessionInfo(SessionInfo {
                session_id: str_at(v, "session_id").to_string(),
                model: str_at(v, "model").to_string(),
                permission_mode: str_at(v, "permissionMode").to_string(),
                slash_commands: v["slash_commands"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default(),
            })],
            "status" if str_at(v, "status") == "requesting" => vec![UiEvent::Requesting],
            "status" => match v.get("permissionMode").and_then(Value::as_str) {
                Some(mode) => vec![UiEvent::ModeChanged(mode.to_string())],
                None => Vec::new(),
            },
            "informational" => {
                let level = match str_at(v, "level") {
                    "warning" => NoticeLevel::Warning,
                    "error" => NoticeLevel::Error,
                    _ => NoticeLevel::Info,
                };
                vec![UiEvent::Notice(Notice {
                    level,
                    text: str_at(v, "content").to_string(),
                })]
            }
            "permission_denied" => vec![UiEvent::Notice(Notice::warning(format!(
                "{} denied: {}",
                str_at(v, "tool_name"),
                str_at(v, "message")
            )))],
            _ => Vec::new(),
        }
    }

    fn stream_event(&mut self, e: &Value) -> Vec<UiEvent> {
        match str_at(e, "type") {
            "message_start" => {
                self.streamed = false;
                Vec::new()
            }
            "content_block_delta" => {
                let d = &e["delta"];
                match str_at(d, "type") {
                    "text_delta" => {
                        self.streamed = true;
                        vec![UiEvent::TextDelta(str_at(d, "text").to_string())]
                    }
                    "thinking_delta" => {
                        self.streamed = true;
                        vec![UiEvent::ThinkingDelta(str_at(d, "thinking").to_string())]
                    }
                    _ => Vec::new(),
                }
            }
            "content_block_stop" => vec![UiEvent::BlockEnded],
            _ => Vec::new(),
        }
    }

    fn assistant(&mut self, m: &Value, parent: Option<String>) -> Vec<UiEvent> {
        let mut out = Vec::new();
        for block in m["content"].as_array().into_iter().flatten() {
            match str_at(block, "type") {
                "text" if !self.streamed && parent.is_none() => {
                    out.push(UiEvent::AssistantText(str_at(block, "text").to_string()))
                }
                "tool_use" => out.push(UiEvent::ToolStarted(tool_call(block, parent.clone()))),
                _ => {}
            }
        }
        out
    }

    fn control_request(&mut self, v: &Value) -> Vec<UiEvent> {
        let id = str_at(v, "request_id").to_string();
        let r = &v["request"];
        if str_at(r, "subtype") != "can_use_tool" {
            let subtype = str_at(r, "subtype");
            self.refusals.push(
                json!({"type": "control_response", "response": {
                    "subtype": "error", "request_id": id,
                    "error": format!("the terminal does not serve {subtype} requests")}})
                .to_string(),
            );
            let what = if subtype == "mcp_server_approval" {
                format!(
                    "the project's MCP server `{}` was not started: approve it with \
                     `enabledMcpjsonServers` in your settings",
                    str_at(r, "server_name")
                )
            } else {
                format!("the session asked `{subtype}`, which this terminal does not answer")
            };
            return vec![UiEvent::Notice(Notice::warning(what))];
        }
        let tool = str_at(r, "tool_name").to_string();
        let input = r["input"].clone();
        let suggested = r["permission_suggestions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| str_at(s, "type") == "addRules")
            .cloned();
        // Without a suggestion, "don't ask again" allows the tool as a whole in this
        // project (the reference's local settings).
        let always = suggested.unwrap_or_else(|| {
            json!({"type": "addRules", "rules": [{"toolName": tool}],
                   "behavior": "allow", "destination": "localSettings"})
        });
        let rule = always["rules"].get(0).map(|r| {
            let name = str_at(r, "toolName");
            match r.get("ruleContent").and_then(Value::as_str) {
                Some(c) => format!("{name}({c})"),
                None => name.to_string(),
            }
        });
        let call = tool_call(
            &json!({"id": r["tool_use_id"], "name": tool, "input": input}),
            None,
        );
        let kind = ask_kind(&tool, &input);
        self.asks.insert(id.clone(), AskWire { input, always });
        vec![UiEvent::Permission(PermissionAsk {
            id,
            tool,
            summary: call.summary,
            rule,
            diff: call.diff,
            kind,
        })]
    }

    fn control_response(&mut self, r: &Value) -> Vec<UiEvent> {
        let id = str_at(r, "request_id");
        let Some(own) = self.own.remove(id) else {
            return Vec::new();
        };
        if str_at(r, "subtype") == "error" {
            return vec![UiEvent::Notice(Notice::error(
                str_at(r, "error").to_string(),
            ))];
        }
        match own {
            OwnRequest::SetMode(mode) => vec![UiEvent::ModeChanged(mode)],
            OwnRequest::SetModel => Vec::new(),
            OwnRequest::Rewind(prompt) => vec![UiEvent::Notice(Notice::info(format!(
                "Files rewound to before “{prompt}” (the conversation itself is not rewound in this terminal yet)"
            )))],
        }
    }

    /// A transcript line (a resumed session's history): the same message shapes, no
    /// streaming, prompts shown as prompts.
    pub fn history(&mut self, line: &str) -> Vec<UiEvent> {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return Vec::new();
        };
        if v["isSidechain"].as_bool() == Some(true) || v["isMeta"].as_bool() == Some(true) {
            return Vec::new();
        }
        match str_at(&v, "type") {
            "assistant" => {
                self.streamed = false;
                self.assistant(&v["message"], None)
            }
            "user" => match &v["message"]["content"] {
                Value::String(text) => vec![UiEvent::UserPrompt(text.clone())],
                Value::Array(blocks) if blocks.iter().all(|b| str_at(b, "type") == "text") => {
                    vec![UiEvent::UserPrompt(content_text(&v["message"]["content"]))]
                }
                _ => tool_results(&v["message"]),
            },
            _ => Vec::new(),
        }
    }

    /// The line answering permission question `id`; `None` when no such question is open.
    pub fn answer_line(&mut self, id: &str, answer: &PermissionAnswer) -> Option<String> {
        let ask = self.asks.remove(id)?;
        let response = match answer {
            PermissionAnswer::Answers(pairs) => {
                let mut input = ask.input;
                let answers: serde_json::Map<String, Value> = pairs
                    .iter()
                    .map(|(q, a)| (q.clone(), Value::String(a.clone())))
                    .collect();
                if let Some(o) = input.as_object_mut() {
                    o.insert("answers".into(), Value::Object(answers));
                }
                json!({"behavior": "allow", "updatedInput": input})
            }
            PermissionAnswer::Allow => json!({"behavior": "allow", "updatedInput": ask.input}),
            PermissionAnswer::AllowAlways => json!({
                "behavior": "allow",
                "updatedInput": ask.input,
                "updatedPermissions": [ask.always],
            }),
            // A plain "no" stops the turn so the user can say what to do instead; with
            // instructions the model reads them and goes on.
            PermissionAnswer::Deny(text) if text.trim().is_empty() => json!({
                "behavior": "deny",
                "message": "The user doesn't want to proceed with this tool use. The tool use was rejected.",
                "interrupt": true,
            }),
            PermissionAnswer::Deny(text) => json!({
                "behavior": "deny",
                "message": format!("The user doesn't want to proceed with this tool use. The user said: {text}"),
            }),
        };
        Some(
            json!({"type": "control_response", "response": {
                "subtype": "success", "request_id": id, "response": response}})
            .to_string(),
        )
    }

    /// The line asking the session to put files back as they were before prompt `uuid`.
    pub fn rewind_line(&mut self, request_id: String, uuid: &str, prompt: &str) -> String {
        self.own
            .insert(request_id.clone(), OwnRequest::Rewind(truncate(prompt, 40)));
        json!({"type": "control_request", "request_id": request_id,
               "request": {"subtype": "rewind_files", "user_message_id": uuid}})
        .to_string()
    }

    /// The line asking the session to use another model.
    pub fn set_model_line(&mut self, request_id: String, model: &str) -> String {
        self.own.insert(request_id.clone(), OwnRequest::SetModel);
        json!({"type": "control_request", "request_id": request_id,
               "request": {"subtype": "set_model", "model": model}})
        .to_string()
    }

    /// The line asking the session to change its permission mode.
    pub fn set_mode_line(&mut self, request_id: String, mode: &str) -> String {
        self.own
            .insert(request_id.clone(), OwnRequest::SetMode(mode.to_string()));
        json!({"type": "control_request", "request_id": request_id,
               "request": {"subtype": "set_permission_mode", "mode": mode}})
        .to_string()
    }
}

/// A user message line; `uuid` names the prompt (file checkpoints are taken per prompt).
pub fn prompt_line(text: &str, uuid: &str) -> String {
    json!({"type": "user", "message": {"role": "user", "content": text},
           "parent_tool_use_id": null, "session_id": "", "uuid": uuid})
    .to_string()
}

/// A plan to approve and the model's questions get dialogs of their own.
fn ask_kind(tool: &str, input: &Value) -> AskKind {
    match tool {
        "ExitPlanMode" => AskKind::Plan(str_at(input, "plan").to_string()),
        "AskUserQuestion" => AskKind::Questions(
            input["questions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|q| Question {
                    header: str_at(q, "header").to_string(),
                    question: str_at(q, "question").to_string(),
                    options: q["options"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|o| {
                            (
                                str_at(o, "label").to_string(),
                                str_at(o, "description").to_string(),
                            )
                        })
                        .collect(),
                })
                .collect(),
        ),
        _ => AskKind::Tool,
    }
}

fn tool_results(m: &Value) -> Vec<UiEvent> {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| str_at(b, "type") == "tool_result")
        .map(|b| UiEvent::ToolFinished {
            id: str_at(b, "tool_use_id").to_string(),
            is_error: b["is_error"].as_bool().unwrap_or(false),
            output: content_text(&b["content"]),
        })
        .collect()
}

fn turn_end(v: &Value) -> TurnEnd {
    let usage = &v["usage"];
    let error = v["is_error"].as_bool().unwrap_or(false).then(|| {
        let errors: Vec<&str> = v["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if errors.is_empty() {
            v["result"]
                .as_str()
                .unwrap_or("the turn failed")
                .to_string()
        } else {
            errors.join("; ")
        }
    });
    TurnEnd {
        input_tokens: usage["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
        cost_usd: v["total_cost_usd"].as_f64().unwrap_or(0.0),
        duration_ms: v["duration_ms"].as_u64().unwrap_or(0),
        interrupted: str_at(v, "stop_reason") == "interrupted"
            || error.as_deref().is_some_and(|e| e.contains("nterrupt")),
        error,
    }
}

/// One line describing a call: the argument a person recognises it by.
fn tool_call(block: &Value, parent: Option<String>) -> ToolCall {
    let name = str_at(block, "name").to_string();
    let input = &block["input"];
    let pick = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    };
    let summary = match name.as_str() {
        "Bash" => pick(&["command"]),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            pick(&["file_path", "notebook_path"])
        }
        "Glob" | "Grep" => pick(&["pattern"]),
        "WebFetch" => pick(&["url"]),
        "WebSearch" => pick(&["query"]),
        "Task" => pick(&["description"]),
        _ => None,
    }
    .unwrap_or_else(|| match input {
        Value::Object(o) if o.is_empty() => String::new(),
        other => other.to_string(),
    });
    let diff = file_change(&name, input);
    ToolCall {
        id: str_at(block, "id").to_string(),
        name,
        summary: first_line(&summary, 200),
        diff,
        parent,
    }
}

/// The change an edit or write makes. A write's "before" is the file as it is now: the
/// call is shown before it runs.
fn file_change(name: &str, input: &Value) -> Option<FileChange> {
    let path = input.get("file_path").and_then(Value::as_str)?;
    match name {
        "Edit" => Some(FileChange {
            path: path.to_string(),
            before: str_at(input, "old_string").to_string(),
            after: str_at(input, "new_string").to_string(),
        }),
        "Write" => Some(FileChange {
            path: path.to_string(),
            before: read_small_text(path),
            after: str_at(input, "content").to_string(),
        }),
        _ => None,
    }
}

/// A file's text when it is small and text; empty otherwise (a new file, a binary).
fn read_small_text(path: &str) -> String {
    const LIMIT: u64 = 256 * 1024;
    match std::fs::metadata(path) {
        Ok(m) if m.len() <= LIMIT => std::fs::read_to_string(path).unwrap_or_default(),
        _ => String::new(),
    }
}

fn content_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    let more = s.lines().nth(1).is_some();
    let t = truncate(line, max);
    if more && t.len() == line.len() {
        format!("{t} …")
    } else {
        t
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The session, seen through the view-model.
pub struct Link {
    bridge: Bridge,
    decoder: Decoder,
    next_request: u64,
}

impl Link {
    /// Opens the session the terminal talks to: stream-json both ways, partial messages
    /// on (the answer streams), questions asked of this terminal.
    pub fn open(mut opts: SessionOptions) -> Result<Link, TuiError> {
        opts.output_format = Some(dcl_bridge::options::OutputFormat::StreamJson);
        opts.non_interactive = false;
        opts.include_partial_messages = true;
        opts.legacy_events = Some(false);
        // Esc Esc puts files back as they were before an earlier prompt.
        opts.enable_file_checkpointing = true;
        let bridge = dcl_bridge::open_with(opts)?;
        Ok(Link {
            bridge,
            decoder: Decoder::default(),
            next_request: 0,
        })
    }

    pub fn session_id(&self) -> String {
        self.bridge.session_id()
    }

    /// The earlier conversation of a resumed session, from its transcript.
    pub fn history(&mut self) -> Vec<UiEvent> {
        let Some(path) = self.bridge.transcript_path() else {
            return Vec::new();
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => text.lines().flat_map(|l| self.decoder.history(l)).collect(),
            Err(e) => vec![UiEvent::Notice(Notice::warning(format!(
                "cannot show the earlier conversation ({}): {e}",
                path.display()
            )))],
        }
    }

    pub fn prompt(&self, text: &str, uuid: &str) -> Result<(), TuiError> {
        Ok(self.bridge.send(&prompt_line(text, uuid))?)
    }

    pub fn rewind(&mut self, uuid: &str, prompt: &str) -> Result<(), TuiError> {
        self.next_request += 1;
        let line = self
            .decoder
            .rewind_line(format!("tui-{}", self.next_request), uuid, prompt);
        Ok(self.bridge.send(&line)?)
    }

    pub fn interrupt(&self) {
        self.bridge.interrupt();
    }

    pub fn set_mode(&mut self, mode: &str) -> Result<(), TuiError> {
        self.next_request += 1;
        let line = self
            .decoder
            .set_mode_line(format!("tui-{}", self.next_request), mode);
        Ok(self.bridge.send(&line)?)
    }

    pub fn set_model(&mut self, model: &str) -> Result<(), TuiError> {
        self.next_request += 1;
        let line = self
            .decoder
            .set_model_line(format!("tui-{}", self.next_request), model);
        Ok(self.bridge.send(&line)?)
    }

    pub fn answer(&mut self, id: &str, answer: &PermissionAnswer) -> Result<(), TuiError> {
        match self.decoder.answer_line(id, answer) {
            Some(line) => Ok(self.bridge.send(&line)?),
            None => Ok(()),
        }
    }

    /// The next events; `[UiEvent::Ended]` once the session is over. Cancel-safe.
    pub async fn next(&mut self) -> Vec<UiEvent> {
        let lines = self.bridge.recv_batch(256).await;
        if lines.is_empty() {
            return vec![UiEvent::Ended];
        }
        let events: Vec<UiEvent> = lines.iter().flat_map(|l| self.decoder.decode(l)).collect();
        for refusal in self.decoder.take_refusals() {
            // A send fails only once the session is gone, and then nobody waits for it.
            let _ = self.bridge.send(&refusal);
        }
        events
    }

    pub fn close(&self) {
        self.bridge.close();
    }
}
