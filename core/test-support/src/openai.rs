//! A scripted fake OpenAI Chat Completions server on 127.0.0.1, in the style of
//! [`crate::anthropic::FakeAnthropicServer`] (axum with streamed bodies, the same
//! [`FakeResponse`] faults: cut, stall, chunking, raw bodies), and builders for
//! `chat.completion.chunk` SSE bodies ([`ChatStream`]).
//!
//! Each `POST /v1/chat/completions` takes the next scripted response. Every request body
//! is checked the way the real API would refuse it ([`check_chat_request`]): each
//! assistant `tool_calls[].id` answered by exactly one `role: "tool"` message right after
//! it, no orphan tool messages, no duplicate ids, `stream: true`; a violation is recorded
//! in [`FakeOpenAiServer::violations`] and answered with HTTP 400.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use dcl_test_support::openai::{ChatStream, FakeOpenAiServer, openai_error};
//! use dcl_test_support::anthropic::FakeResponse;
//! let server = FakeOpenAiServer::start(vec![
//!     openai_error(429, "rate_limit_exceeded", "slow down").with_header("retry-after", "1"),
//!     FakeResponse::sse(ChatStream::new().text("hi").build()),
//! ])
//! .await?;
//! let base_url = server.base_url(); // `http://127.0.0.1:<port>/v1`
//! # Ok(()) }
//! ```

use std::collections::HashSet;
use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::server::{FakeResponse, RecordedRequest, ScriptedServer, State};

/// An OpenAI-style error response: `{"error": {"message", "type", "param", "code"}}`.
pub fn openai_error(status: u16, kind: &str, message: &str) -> FakeResponse {
    FakeResponse::json(
        status,
        &json!({"error": {"message": message, "type": kind, "param": null, "code": kind}}),
    )
}

/// A whole streamed answer with one text.
pub fn chat_text(text: &str) -> String {
    ChatStream::new().text(text).build()
}

/// A whole streamed answer with one tool call (finish_reason `tool_calls`).
pub fn chat_tool_call(id: &str, name: &str, arguments: Value) -> String {
    ChatStream::new().tool_call(id, name, arguments).build()
}

/// `data: <json>\n\n`.
pub fn chat_data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

#[derive(Debug, Clone)]
enum Piece {
    Delta(Value),
    Raw(String),
}

/// A streamed Chat Completions answer, chunk by chunk.
#[derive(Debug, Clone)]
pub struct ChatStream {
    id: String,
    model: String,
    pieces: Vec<Piece>,
    tool_calls: usize,
    finish_reason: Option<String>,
    usage: Option<Value>,
    done: bool,
}

impl Default for ChatStream {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatStream {
    pub fn new() -> Self {
        ChatStream {
            id: "chatcmpl-fake-1".into(),
            model: "gpt-fake".into(),
            pieces: Vec::new(),
            tool_calls: 0,
            finish_reason: None,
            usage: Some(
                json!({"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}),
            ),
            done: true,
        }
    }

    pub fn id(mut self, id: &str) -> Self {
        self.id = id.into();
        self
    }

    pub fn model(mut self, model: &str) -> Self {
        self.model = model.into();
        self
    }

    /// The usage chunk's counts (`cached` goes in `prompt_tokens_details.cached_tokens`).
    pub fn usage(mut self, prompt: u64, completion: u64, cached: u64) -> Self {
        self.usage = Some(
            json!({"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}}),
        );
        self
    }

    /// No usage chunk (a server that ignores `stream_options`).
    pub fn without_usage(mut self) -> Self {
        self.usage = None;
        self
    }

    /// No `data: [DONE]` at the end.
    pub fn without_done(mut self) -> Self {
        self.done = false;
        self
    }

    /// Default: `tool_calls` when there is a tool call, else `stop`.
    pub fn finish_reason(mut self, reason: &str) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }

    /// One chunk with this `delta`.
    pub fn delta(mut self, delta: Value) -> Self {
        self.pieces.push(Piece::Delta(delta));
        self
    }

    /// Raw SSE text (for malformed events).
    pub fn raw(mut self, text: &str) -> Self {
        self.pieces.push(Piece::Raw(text.into()));
        self
    }

    /// Text in word-sized `content` deltas (the first one carries `role`).
    pub fn text(mut self, text: &str) -> Self {
        for w in text.split_inclusive(char::is_whitespace) {
            self = self.delta(json!({"content": w}));
        }
        self
    }

    /// Reasoning in word-sized `reasoning_content` deltas (DeepSeek, Qwen, vLLM).
    pub fn reasoning(mut self, text: &str) -> Self {
        for w in text.split_inclusive(char::is_whitespace) {
            self = self.delta(json!({"reasoning_content": w}));
        }
        self
    }

    /// A tool call, its arguments JSON streamed in four pieces.
    pub fn tool_call(self, id: &str, name: &str, arguments: Value) -> Self {
        let json = arguments.to_string();
        let chars: Vec<char> = json.chars().collect();
        let size = chars.len().div_ceil(4).max(1);
        let pieces: Vec<String> = chars.chunks(size).map(|c| c.iter().collect()).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        self.tool_call_raw(id, name, &refs)
    }

    /// A tool call whose arguments are streamed as exactly these pieces (may be invalid).
    pub fn tool_call_raw(mut self, id: &str, name: &str, pieces: &[&str]) -> Self {
        let index = self.tool_calls;
        self.tool_calls += 1;
        self = self.delta(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
            "function": {"name": name, "arguments": ""}}]}),
        );
        for p in pieces {
            self = self.delta(json!({"tool_calls": [{"index": index,
                "function": {"arguments": p}}]}));
        }
        self
    }

    fn chunk(&self, choices: Value) -> Value {
        json!({"id": self.id, "object": "chat.completion.chunk", "created": 1_700_000_000,
               "model": self.model, "system_fingerprint": "fp_fake", "choices": choices})
    }

    pub fn build(&self) -> String {
        let mut out = chat_data(&self.chunk(json!([{"index": 0,
            "delta": {"role": "assistant", "content": ""}, "logprobs": null, "finish_reason": null}])));
        for p in &self.pieces {
            match p {
                Piece::Delta(d) => {
                    out += &chat_data(&self.chunk(json!([{"index": 0, "delta": d,
                        "logprobs": null, "finish_reason": null}])));
                }
                Piece::Raw(r) => out += r,
            }
        }
        let reason = self.finish_reason.clone().unwrap_or_else(|| {
            if self.tool_calls > 0 {
                "tool_calls"
            } else {
                "stop"
            }
            .to_string()
        });
        out += &chat_data(
            &self.chunk(json!([{"index": 0, "delta": {}, "logprobs": null,
            "finish_reason": reason}])),
        );
        if let Some(u) = &self.usage {
            let mut c = self.chunk(json!([]));
            c["usage"] = u.clone();
            out += &chat_data(&c);
        }
        if self.done {
            out += "data: [DONE]\n\n";
        }
        out
    }
}

/// The server; stops when dropped.
#[derive(Debug)]
pub struct FakeOpenAiServer {
    inner: ScriptedServer,
}

impl FakeOpenAiServer {
    /// Binds 127.0.0.1 on a free port and serves `responses` in order.
    pub async fn start(responses: impl IntoIterator<Item = FakeResponse>) -> std::io::Result<Self> {
        let inner = ScriptedServer::start(responses, route).await?;
        Ok(FakeOpenAiServer { inner })
    }

    pub fn push(&self, response: FakeResponse) {
        self.inner.state().script.push_back(response);
    }

    /// `http://127.0.0.1:<port>/v1`: use as `OPENAI_BASE_URL` or `--base-url`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.inner.addr())
    }

    pub fn addr(&self) -> SocketAddr {
        self.inner.addr()
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.inner.state().requests.clone()
    }

    /// Bodies of the `POST /v1/chat/completions` requests, in order.
    pub fn chat_bodies(&self) -> Vec<Value> {
        self.inner
            .state()
            .requests
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
            .map(|r| r.body.clone())
            .collect()
    }

    pub fn violations(&self) -> Vec<String> {
        self.inner.state().violations.clone()
    }

    pub fn assert_no_violations(&self) {
        self.inner.assert_no_violations("OpenAI");
    }

    pub fn remaining(&self) -> usize {
        self.inner.state().script.len()
    }

    /// Chat requests answered so far (scripted or not).
    pub fn served(&self) -> usize {
        self.inner.state().served
    }
}

fn route(req: &RecordedRequest, st: &mut State) -> FakeResponse {
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/chat/completions") => {
            st.served += 1;
            st.answer(
                check_chat_request(&req.body),
                "x-request-id",
                |status, text| {
                    let kind = if status == 400 {
                        "invalid_request_error"
                    } else {
                        "server_error"
                    };
                    openai_error(status, kind, text)
                },
            )
        }
        ("GET", "/v1/models") => FakeResponse::json(
            200,
            &json!({"object": "list", "data": [{"id": "gpt-fake", "object": "model"}]}),
        ),
        _ => openai_error(404, "not_found", "Not found"),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Whether `content` is present and non-empty (a string, or a list of parts).
fn has_content(msg: &Value) -> bool {
    match msg.get("content") {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    }
}

/// Checks a Chat Completions request the way the real API refuses it. Public so tests
/// can check bodies they built themselves.
pub fn check_chat_request(body: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if str_of(body, "model").is_empty() {
        problems.push("model: field required".to_string());
    }
    if body.get("stream") != Some(&Value::Bool(true)) {
        problems.push("stream: this fake only streams; send \"stream\": true".to_string());
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        problems.push("messages: field required".to_string());
        return problems;
    };
    if messages.is_empty() {
        problems.push("messages: at least one message is required".to_string());
    }
    if let Some(tools) = body.get("tools") {
        match tools.as_array() {
            Some(list) => {
                for (i, t) in list.iter().enumerate() {
                    if str_of(t, "type") != "function" {
                        problems.push(format!("tools.{i}.type: must be \"function\""));
                    }
                    if t.pointer("/function/name")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    {
                        problems.push(format!("tools.{i}.function.name: field required"));
                    }
                }
            }
            None => problems.push("tools: must be an array".to_string()),
        }
    }
    let mut seen_ids = HashSet::new();
    // The tool_call ids of the last assistant message still waiting for answers.
    let mut expected: Vec<String> = Vec::new();
    let mut answered: Vec<String> = Vec::new();
    let mut open_at: Option<usize> = None;
    let close = |open_at: Option<usize>,
                 expected: &[String],
                 answered: &[String],
                 problems: &mut Vec<String>| {
        if let Some(at) = open_at {
            for id in expected {
                if !answered.contains(id) {
                    problems.push(format!(
                        "messages.{at}: tool_call id {id} has no tool message answering it"
                    ));
                }
            }
        }
    };
    for (i, msg) in messages.iter().enumerate() {
        let role = str_of(msg, "role");
        if role != "tool" {
            close(open_at, &expected, &answered, &mut problems);
            open_at = None;
            expected.clear();
            answered.clear();
        }
        match role {
            "system" | "developer" | "user" => {
                if !has_content(msg) {
                    problems.push(format!("messages.{i}: content must not be empty"));
                }
            }
            "assistant" => {
                let calls = msg.get("tool_calls").and_then(Value::as_array);
                if !has_content(msg) && calls.is_none_or(|c| c.is_empty()) {
                    problems.push(format!(
                        "messages.{i}: an assistant message needs content or tool_calls"
                    ));
                }
                for (j, call) in calls.into_iter().flatten().enumerate() {
                    let id = str_of(call, "id").to_string();
                    if id.is_empty() {
                        problems.push(format!("messages.{i}.tool_calls.{j}.id: field required"));
                    } else if !seen_ids.insert(id.clone()) {
                        problems.push(format!("messages.{i}: tool_call id {id} is used twice"));
                    }
                    if str_of(call, "type") != "function" {
                        problems.push(format!(
                            "messages.{i}.tool_calls.{j}.type: must be \"function\""
                        ));
                    }
                    if call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    {
                        problems.push(format!(
                            "messages.{i}.tool_calls.{j}.function.name: field required"
                        ));
                    }
                    if !call
                        .pointer("/function/arguments")
                        .is_some_and(Value::is_string)
                    {
                        problems.push(format!(
                            "messages.{i}.tool_calls.{j}.function.arguments: must be a string"
                        ));
                    }
                    expected.push(id);
                }
                if !expected.is_empty() {
                    open_at = Some(i);
                }
            }
            "tool" => {
                let id = str_of(msg, "tool_call_id").to_string();
                if open_at.is_none() {
                    problems.push(format!(
                        "messages.{i}: a tool message must follow an assistant message with tool_calls"
                    ));
                } else if !expected.contains(&id) {
                    problems.push(format!(
                        "messages.{i}: tool message for {id}, which is not a tool_call of the preceding assistant message"
                    ));
                } else if answered.contains(&id) {
                    problems.push(format!("messages.{i}: tool_call id {id} is answered twice"));
                } else {
                    answered.push(id);
                }
                if !msg
                    .get("content")
                    .is_some_and(|c| c.is_string() || c.is_array())
                {
                    problems.push(format!(
                        "messages.{i}.content: a tool message needs content"
                    ));
                }
            }
            other => problems.push(format!("messages.{i}.role: unexpected role {other:?}")),
        }
    }
    close(open_at, &expected, &answered, &mut problems);
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_check_accepts_a_good_conversation() {
        let body = json!({"model": "m", "stream": true, "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "X", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "Y", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "b", "content": "1"},
            {"role": "tool", "tool_call_id": "a", "content": "2"},
            {"role": "user", "content": "more"},
        ]});
        assert_eq!(check_chat_request(&body), Vec::<String>::new());
    }

    #[test]
    fn pairing_check_finds_missing_duplicate_and_orphan_answers() {
        let body = json!({"model": "m", "stream": true, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "X", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "Y", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "zzz", "content": "2"},
            {"role": "user", "content": "next"},
            {"role": "tool", "tool_call_id": "a", "content": "late"},
        ]});
        let p = check_chat_request(&body).join("\n");
        assert!(p.contains("tool_call id b has no tool message"), "{p}");
        assert!(p.contains("a is answered twice"), "{p}");
        assert!(p.contains("tool message for zzz"), "{p}");
        assert!(p.contains("must follow an assistant"), "{p}");
    }

    #[test]
    fn unanswered_calls_at_the_end_and_non_streaming_are_refused() {
        let body = json!({"model": "m", "messages": [
            {"role": "user", "content": ""},
            {"role": "assistant", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "X", "arguments": {}}}]},
        ]});
        let p = check_chat_request(&body).join("\n");
        assert!(p.contains("stream"), "{p}");
        assert!(p.contains("content must not be empty"), "{p}");
        assert!(p.contains("arguments: must be a string"), "{p}");
        assert!(p.contains("tool_call id a has no tool message"), "{p}");
    }

    #[test]
    fn stream_builder_output() {
        let body = ChatStream::new()
            .reasoning("hm ok")
            .text("hello world")
            .tool_call("c1", "Bash", json!({"command": "ls"}))
            .build();
        let datas: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect();
        assert_eq!(datas.last(), Some(&"[DONE]"));
        for d in &datas[..datas.len() - 1] {
            serde_json::from_str::<Value>(d).unwrap();
        }
        assert!(body.contains(r#""finish_reason":"tool_calls""#));
        assert!(body.contains(r#""usage":{"#));
        let plain = ChatStream::new()
            .text("x")
            .without_usage()
            .without_done()
            .build();
        assert!(!plain.contains("[DONE]") && !plain.contains("usage"));
        assert!(plain.contains(r#""finish_reason":"stop""#));
    }
}
