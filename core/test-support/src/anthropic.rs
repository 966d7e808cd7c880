//! A scripted fake Anthropic Messages server on 127.0.0.1.
//!
//! axum serves it ([`crate::server`]), streaming each body so the faults worth testing
//! stay possible: a body cut mid-stream, a stall between two chunks, a slow first byte.
//! Each `POST /v1/messages` takes the next scripted [`FakeResponse`]. Every request body
//! is recorded and checked the way the real API would reject it (each `tool_use` answered
//! by exactly one `tool_result` in the next user message, no orphan results, no empty
//! text blocks); a violation is recorded in [`FakeAnthropicServer::violations`] and
//! answered with HTTP 400, so a test fails loudly instead of passing against a lenient
//! fake.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
//! use dcl_test_support::sse::sse_text;
//! let server = FakeAnthropicServer::start(vec![
//!     FakeResponse::rate_limited(2),
//!     FakeResponse::sse(sse_text("hi")),
//! ])
//! .await?;
//! let base_url = server.base_url(); // point the client here
//! // … run the client …
//! assert!(server.violations().is_empty());
//! # Ok(()) }
//! ```

use std::collections::HashSet;
use std::net::SocketAddr;

use serde_json::{Value, json};

pub use crate::server::{FakeResponse, RecordedRequest};
use crate::server::{ScriptedServer, State};

/// The server; stops when dropped.
#[derive(Debug)]
pub struct FakeAnthropicServer {
    inner: ScriptedServer,
}

impl FakeAnthropicServer {
    /// Binds 127.0.0.1 on a free port and serves `responses` in order. Call inside a tokio
    /// runtime.
    pub async fn start(responses: impl IntoIterator<Item = FakeResponse>) -> std::io::Result<Self> {
        let inner = ScriptedServer::start(responses, route).await?;
        Ok(FakeAnthropicServer { inner })
    }

    /// Queues another response.
    pub fn push(&self, response: FakeResponse) {
        self.inner.state().script.push_back(response);
    }

    /// `http://127.0.0.1:<port>`: use as `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.inner.addr())
    }

    pub fn addr(&self) -> SocketAddr {
        self.inner.addr()
    }

    /// Every request received, in order (all paths).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.inner.state().requests.clone()
    }

    /// Bodies of the `POST /v1/messages` requests, in order.
    pub fn message_bodies(&self) -> Vec<Value> {
        self.inner
            .state()
            .requests
            .iter()
            .filter(|r| r.method == "POST" && r.path == "/v1/messages")
            .map(|r| r.body.clone())
            .collect()
    }

    /// Protocol violations found in requests (each was answered with 400), and requests
    /// that arrived after the script ran out.
    pub fn violations(&self) -> Vec<String> {
        self.inner.state().violations.clone()
    }

    /// Panics listing the violations, if any.
    pub fn assert_no_violations(&self) {
        self.inner.assert_no_violations("Anthropic");
    }

    /// Scripted responses not yet used.
    pub fn remaining(&self) -> usize {
        self.inner.state().script.len()
    }

    /// `POST /v1/messages` requests answered so far (scripted or not).
    pub fn messages_served(&self) -> usize {
        self.inner.state().served
    }

    /// Gives the fake model a context window of `tokens` (as [`request_tokens`] counts
    /// them): a longer request is answered as the real API answers it, HTTP 400
    /// `invalid_request_error` `prompt is too long: N tokens > M maximum`. Such a refusal
    /// is not a violation; [`Self::refused_too_long`] counts them.
    pub fn set_window(&self, tokens: u64) {
        self.inner.state().window = Some(tokens);
    }

    /// Requests refused for passing the window.
    pub fn refused_too_long(&self) -> usize {
        self.inner.state().too_long
    }

    /// Answers each request the script does not cover with `f(body)`, so a session of any
    /// length can run.
    pub fn set_responder(&self, f: impl Fn(&Value) -> FakeResponse + Send + Sync + 'static) {
        self.inner.state().responder = Some(crate::server::Responder(std::sync::Arc::new(f)));
    }
}

/// The tokens of a Messages request as the fakes count them: a quarter of the characters
/// of its system prompt, messages and tools (the reference's own fake counts the same way).
pub fn request_tokens(body: &Value) -> u64 {
    let chars: usize = ["system", "messages", "tools"]
        .iter()
        .filter_map(|k| body.get(*k))
        .map(|v| match v {
            Value::String(s) => s.len(),
            other => other.to_string().len(),
        })
        .sum();
    chars.div_ceil(4) as u64
}

/// Decides the answer to each request.
fn route(req: &RecordedRequest, st: &mut State) -> FakeResponse {
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/messages") => {
            st.served += 1;
            let problems = check_request(&req.body);
            if let Some(limit) = st.window.filter(|_| problems.is_empty()) {
                let tokens = request_tokens(&req.body);
                if tokens > limit {
                    st.too_long += 1;
                    return FakeResponse::error(
                        400,
                        "invalid_request_error",
                        &format!("prompt is too long: {tokens} tokens > {limit} maximum"),
                    );
                }
            }
            st.answer(problems, "request-id", |status, text| {
                let kind = if status == 400 {
                    "invalid_request_error"
                } else {
                    "api_error"
                };
                FakeResponse::error(status, kind, text)
            })
        }
        ("POST", "/v1/messages/count_tokens") => {
            let chars = req.body.get("messages").map_or(0, |m| m.to_string().len());
            FakeResponse::json(200, &json!({"input_tokens": chars.div_ceil(4)}))
        }
        ("HEAD", _) | ("GET", "/") => FakeResponse::raw(200, "text/plain", Vec::new()),
        _ => FakeResponse::error(404, "not_found_error", "Not found"),
    }
}

/// Checks a Messages request the way the real API would refuse it. Public so other
/// fakes and tests can reuse it.
pub fn check_request(body: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if body
        .get("model")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        problems.push("model: field required".to_string());
    }
    if body.get("max_tokens").and_then(Value::as_u64).is_none() {
        problems.push("max_tokens: field required".to_string());
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        problems.push("messages: field required".to_string());
        return problems;
    };
    if messages.is_empty() {
        problems.push("messages: at least one message is required".to_string());
    }
    let mut seen_tool_ids = HashSet::new();
    for (i, msg) in messages.iter().enumerate() {
        let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
        if !matches!(role, "user" | "assistant") {
            problems.push(format!("messages.{i}.role: unexpected role {role:?}"));
        }
        let blocks = content_blocks(msg);
        let is_last = i + 1 == messages.len();
        if blocks.is_empty() && !(is_last && role == "assistant") {
            problems.push(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            ));
        }
        for (j, b) in blocks.iter().enumerate() {
            if b.get("type").and_then(Value::as_str) == Some("text")
                && b.get("text")
                    .and_then(Value::as_str)
                    .is_none_or(|t| t.trim().is_empty())
            {
                problems.push(format!(
                    "messages.{i}.content.{j}: text content blocks must contain non-whitespace text"
                ));
            }
        }
        // Which tool_use ids this message answers: those of the assistant message before.
        let expected: Vec<String> =
            if i > 0 && messages[i - 1].get("role").and_then(Value::as_str) == Some("assistant") {
                tool_use_ids(&messages[i - 1])
            } else {
                Vec::new()
            };
        if role == "user" {
            let results = tool_result_ids(msg);
            for id in &expected {
                match results.iter().filter(|r| *r == id).count() {
                    1 => {}
                    0 => problems.push(format!(
                        "messages.{i}: tool_use id {id} (messages.{}) has no tool_result in the next message",
                        i - 1
                    )),
                    n => problems.push(format!(
                        "messages.{i}: tool_use id {id} has {n} tool_results"
                    )),
                }
            }
            for id in &results {
                if !expected.contains(id) {
                    problems.push(format!(
                        "messages.{i}: tool_result for {id}, which is not a tool_use of the previous assistant message"
                    ));
                }
            }
        }
        if role == "assistant" {
            let ids = tool_use_ids(msg);
            for id in &ids {
                if !seen_tool_ids.insert(id.clone()) {
                    problems.push(format!("messages.{i}: tool_use id {id} is used twice"));
                }
            }
            if !ids.is_empty() {
                match messages.get(i + 1) {
                    None => problems.push(format!(
                        "messages.{i}: tool_use blocks must be followed by a user message with tool_results"
                    )),
                    Some(next) if next.get("role").and_then(Value::as_str) != Some("user") => {
                        problems.push(format!(
                            "messages.{}: must be a user message with the tool_results for messages.{i}",
                            i + 1
                        ))
                    }
                    Some(_) => {} // checked when that user message is visited
                }
            }
        }
    }
    problems
}

/// A message's content as blocks (a string content is one text block).
fn content_blocks(msg: &Value) -> Vec<Value> {
    match msg.get("content") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

fn ids_of(msg: &Value, kind: &str, field: &str) -> Vec<String> {
    content_blocks(msg)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
        .map(|b| {
            b.get(field)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

fn tool_use_ids(msg: &Value) -> Vec<String> {
    ids_of(msg, "tool_use", "id")
}

fn tool_result_ids(msg: &Value) -> Vec<String> {
    ids_of(msg, "tool_result", "tool_use_id")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_check_accepts_a_good_conversation() {
        let body = json!({"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "two tools"},
                {"type": "tool_use", "id": "a", "name": "X", "input": {}},
                {"type": "tool_use", "id": "b", "name": "Y", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "b", "content": "1"},
                {"type": "tool_result", "tool_use_id": "a", "content": "2"}]},
        ]});
        assert_eq!(check_request(&body), Vec::<String>::new());
    }

    #[test]
    fn pairing_check_finds_missing_duplicate_and_orphan_results() {
        let body = json!({"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "a", "name": "X", "input": {}},
                {"type": "tool_use", "id": "b", "name": "Y", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "1"},
                {"type": "tool_result", "tool_use_id": "a", "content": "1"},
                {"type": "tool_result", "tool_use_id": "zzz", "content": "2"}]},
        ]});
        let p = check_request(&body).join("\n");
        assert!(p.contains("tool_use id b"), "{p}");
        assert!(p.contains("tool_use id a has 2"), "{p}");
        assert!(p.contains("tool_result for zzz"), "{p}");
    }

    #[test]
    fn tool_use_at_the_end_and_empty_text_are_refused() {
        let body = json!({"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": [{"type": "text", "text": " "}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "X", "input": {}}]},
        ]});
        let p = check_request(&body).join("\n");
        assert!(p.contains("non-whitespace"), "{p}");
        assert!(p.contains("must be followed"), "{p}");
    }
}
