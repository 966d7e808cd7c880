//! A scripted fake Anthropic Messages server on 127.0.0.1.
//!
//! Raw HTTP/1.1 over a tokio `TcpListener`, because the faults worth testing live below
//! what mock-HTTP libraries allow: a body cut mid-stream, a stall between two chunks.
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

use std::collections::{HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// One scripted answer. Build with the constructors, adjust with the `with_*`/fault methods.
#[derive(Debug, Clone)]
pub struct FakeResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Streamed with chunked transfer encoding (SSE) rather than a Content-Length.
    streaming: bool,
    /// Write the body in pieces of this many bytes; `None`: one piece per SSE event.
    chunk_size: Option<usize>,
    chunk_delay: Duration,
    stall_before_headers: Duration,
    /// After this many body bytes, pause.
    stall_at: Option<(usize, Duration)>,
    /// After this many body bytes, drop the connection (no terminating chunk).
    pub(crate) cut_at: Option<usize>,
}

impl FakeResponse {
    /// 200 `text/event-stream` with this SSE body (see [`crate::sse`] to build one).
    pub fn sse(body: impl Into<String>) -> Self {
        FakeResponse {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: body.into().into_bytes(),
            streaming: true,
            chunk_size: None,
            chunk_delay: Duration::ZERO,
            stall_before_headers: Duration::ZERO,
            stall_at: None,
            cut_at: None,
        }
    }

    /// Any status with a JSON body.
    pub fn json(status: u16, body: &Value) -> Self {
        FakeResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            streaming: false,
            ..Self::sse("")
        }
    }

    /// An API error: `{"type":"error","error":{"type":kind,"message":message}}`.
    pub fn error(status: u16, kind: &str, message: &str) -> Self {
        Self::json(
            status,
            &json!({"type": "error", "error": {"type": kind, "message": message}}),
        )
    }

    /// 429 `rate_limit_error` with `retry-after: <secs>`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::error(
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
        )
        .with_header("retry-after", &retry_after_secs.to_string())
    }

    /// 529 `overloaded_error` "Overloaded".
    pub fn overloaded() -> Self {
        Self::error(529, "overloaded_error", "Overloaded")
    }

    /// 500 `api_error` "Internal server error".
    pub fn server_error() -> Self {
        Self::error(500, "api_error", "Internal server error")
    }

    /// A raw body with any status and content type.
    pub fn raw(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        FakeResponse {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            streaming: false,
            ..Self::sse("")
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Write the body in `size`-byte pieces, each flushed on its own.
    pub fn chunked(mut self, size: usize) -> Self {
        self.chunk_size = Some(size.max(1));
        self
    }

    /// Pause between body pieces.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Wait before sending the status line (a slow time-to-first-byte).
    pub fn stall_before(mut self, delay: Duration) -> Self {
        self.stall_before_headers = delay;
        self
    }

    /// Pause for `delay` after `bytes` body bytes (a stream that stops talking).
    pub fn stall_after(mut self, bytes: usize, delay: Duration) -> Self {
        self.stall_at = Some((bytes, delay));
        self
    }

    /// Close the connection after `bytes` body bytes, mid-stream.
    pub fn cut_after(mut self, bytes: usize) -> Self {
        self.cut_at = Some(bytes);
        self
    }

    /// Close the connection right after the first SSE event whose text contains `needle`
    /// (e.g. `"content_block_delta"`), mid-stream.
    pub fn cut_after_event(self, needle: &str) -> Self {
        let text = String::from_utf8_lossy(&self.body).into_owned();
        let cut = text
            .find(needle)
            .and_then(|i| text[i..].find("\n\n").map(|j| i + j + 2))
            .unwrap_or(text.len() / 2);
        self.cut_after(cut)
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// Without the query string.
    pub path: String,
    pub query: Option<String>,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
    pub raw_body: Vec<u8>,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Default)]
struct State {
    script: VecDeque<FakeResponse>,
    requests: Vec<RecordedRequest>,
    violations: Vec<String>,
    messages_served: usize,
}

/// The server; stops when dropped.
#[derive(Debug)]
pub struct FakeAnthropicServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for FakeAnthropicServer {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every connection.
        self.task.abort();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panicking test thread must not hide the recorded requests from the others.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl FakeAnthropicServer {
    /// Binds 127.0.0.1 on a free port and serves `responses` in order. Call inside a tokio
    /// runtime.
    pub async fn start(responses: impl IntoIterator<Item = FakeResponse>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            script: responses.into_iter().collect(),
            ..State::default()
        }));
        let router_state = state.clone();
        let router: Router = Arc::new(move |req: &RecordedRequest| route(req, &router_state));
        let task = tokio::spawn(accept_loop(listener, router));
        Ok(FakeAnthropicServer { addr, state, task })
    }

    /// Queues another response.
    pub fn push(&self, response: FakeResponse) {
        lock(&self.state).script.push_back(response);
    }

    /// `http://127.0.0.1:<port>`: use as `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received, in order (all paths).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Bodies of the `POST /v1/messages` requests, in order.
    pub fn message_bodies(&self) -> Vec<Value> {
        lock(&self.state)
            .requests
            .iter()
            .filter(|r| r.method == "POST" && r.path == "/v1/messages")
            .map(|r| r.body.clone())
            .collect()
    }

    /// Protocol violations found in requests (each was answered with 400), and requests
    /// that arrived after the script ran out.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.state).violations.clone()
    }

    /// Panics listing the violations, if any.
    pub fn assert_no_violations(&self) {
        let v = self.violations();
        assert!(
            v.is_empty(),
            "fake Anthropic server saw violations:\n{}",
            v.join("\n")
        );
    }

    /// Scripted responses not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.state).script.len()
    }

    /// `POST /v1/messages` requests answered so far (scripted or not).
    pub fn messages_served(&self) -> usize {
        lock(&self.state).messages_served
    }
}

/// Decides the answer to each request (and records it).
pub(crate) type Router = Arc<dyn Fn(&RecordedRequest) -> FakeResponse + Send + Sync>;

/// Accepts connections until aborted, answering each request with `route`.
pub(crate) async fn accept_loop(listener: TcpListener, route: Router) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((sock, _)) => {
                    conns.spawn(serve_connection(sock, route.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            // Reap finished connections so the set does not grow in long tests.
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

/// Serves requests on one connection until the client closes it or a response ends it.
async fn serve_connection(mut sock: TcpStream, route: Router) {
    let mut buf = Vec::new();
    loop {
        let req = match tokio::time::timeout(READ_TIMEOUT, read_request(&mut sock, &mut buf)).await
        {
            Ok(Ok(Some(r))) => r,
            _ => return,
        };
        let response = route(&req);
        let keep_alive = response.cut_at.is_none()
            && !req
                .header("connection")
                .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        if write_response(&mut sock, &response, keep_alive)
            .await
            .is_err()
            || !keep_alive
        {
            let _ = sock.shutdown().await;
            return;
        }
    }
}

/// Decides the answer to one request and records it.
fn route(req: &RecordedRequest, state: &Mutex<State>) -> FakeResponse {
    let mut st = lock(state);
    st.requests.push(req.clone());
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/messages") => {
            st.messages_served += 1;
            let n = st.messages_served;
            let problems = check_request(&req.body);
            if !problems.is_empty() {
                let text = problems.join("; ");
                st.violations.push(format!("request #{n}: {text}"));
                return FakeResponse::error(400, "invalid_request_error", &text);
            }
            match st.script.pop_front() {
                Some(r) => r.with_header("request-id", &format!("req_fake_{n:04}")),
                None => {
                    let text = format!("request #{n}: no scripted response left");
                    st.violations.push(text.clone());
                    FakeResponse::error(500, "api_error", &format!("fake server: {text}"))
                }
            }
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

/// Reads one request (head + Content-Length or chunked body). `Ok(None)` on a clean close.
pub(crate) async fn read_request(
    sock: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<RecordedRequest>> {
    let head_end = loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(invalid("request head too large"));
        }
        if !read_more(sock, buf).await? {
            return Ok(None);
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    buf.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let target = first.next().unwrap_or("/").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let raw_body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunked(sock, buf).await?
    } else {
        let len: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if len > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        while buf.len() < len {
            if !read_more(sock, buf).await? {
                return Err(invalid("connection closed inside the body"));
            }
        }
        buf.drain(..len).collect()
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), Some(q.to_string())),
        None => (target, None),
    };
    let body = serde_json::from_slice(&raw_body).unwrap_or(Value::Null);
    Ok(Some(RecordedRequest {
        method,
        path,
        query,
        headers,
        body,
        raw_body,
    }))
}

async fn read_chunked(sock: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = find(buf, b"\r\n") {
                break i;
            }
            if !read_more(sock, buf).await? {
                return Err(invalid("connection closed inside a chunk"));
            }
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| invalid("bad chunk size"))?;
        buf.drain(..line_end + 2);
        if body.len() + size > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        while buf.len() < size + 2 {
            if !read_more(sock, buf).await? {
                return Err(invalid("connection closed inside a chunk"));
            }
        }
        body.extend(buf.drain(..size));
        buf.drain(..2);
        if size == 0 {
            return Ok(body); // trailers are not used by any client we test
        }
    }
}

async fn read_more(sock: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut tmp = [0u8; 16 * 1024];
    let n = sock.read(&mut tmp).await?;
    buf.extend_from_slice(&tmp[..n]);
    Ok(n > 0)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn invalid(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.to_string())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// The body split into the pieces to write: fixed-size, or one per SSE event.
fn pieces(r: &FakeResponse) -> Vec<&[u8]> {
    if let Some(size) = r.chunk_size {
        return r.body.chunks(size).collect();
    }
    if !r.streaming {
        return vec![&r.body];
    }
    let mut out = Vec::new();
    let mut rest: &[u8] = &r.body;
    while let Some(i) = find(rest, b"\n\n") {
        out.push(&rest[..i + 2]);
        rest = &rest[i + 2..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

pub(crate) async fn write_response(
    sock: &mut TcpStream,
    r: &FakeResponse,
    keep_alive: bool,
) -> std::io::Result<()> {
    if !r.stall_before_headers.is_zero() {
        tokio::time::sleep(r.stall_before_headers).await;
    }
    let mut head = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (k, v) in &r.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if r.streaming {
        head.push_str("transfer-encoding: chunked\r\n");
    } else {
        head.push_str(&format!("content-length: {}\r\n", r.body.len()));
    }
    head.push_str(if keep_alive {
        "connection: keep-alive\r\n\r\n"
    } else {
        "connection: close\r\n\r\n"
    });
    sock.write_all(head.as_bytes()).await?;
    sock.flush().await?;

    let mut sent = 0usize;
    let mut stalled = false;
    for (n, piece) in pieces(r).into_iter().enumerate() {
        if n > 0 && !r.chunk_delay.is_zero() {
            tokio::time::sleep(r.chunk_delay).await;
        }
        // Split the piece where a stall or a cut falls inside it.
        let mut piece = piece;
        while !piece.is_empty() {
            let mut take = piece.len();
            if let Some(cut) = r.cut_at {
                take = take.min(cut.saturating_sub(sent));
            }
            if let Some((at, _)) = r.stall_at.filter(|(at, _)| !stalled && *at > sent) {
                take = take.min(at - sent);
            }
            if take > 0 {
                write_piece(sock, &piece[..take], r.streaming).await?;
                sent += take;
                piece = &piece[take..];
            }
            if let Some((_, delay)) = r.stall_at.filter(|(at, _)| !stalled && sent >= *at) {
                stalled = true;
                tokio::time::sleep(delay).await;
            }
            if r.cut_at.is_some_and(|cut| sent >= cut) {
                // Abrupt end: no terminating chunk, the client must see a broken body.
                return Err(std::io::Error::other("cut mid-stream on purpose"));
            }
        }
    }
    if r.streaming {
        sock.write_all(b"0\r\n\r\n").await?;
    }
    sock.flush().await
}

async fn write_piece(sock: &mut TcpStream, data: &[u8], chunked: bool) -> std::io::Result<()> {
    if chunked {
        sock.write_all(format!("{:x}\r\n", data.len()).as_bytes())
            .await?;
        sock.write_all(data).await?;
        sock.write_all(b"\r\n").await?;
    } else {
        sock.write_all(data).await?;
    }
    sock.flush().await
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

    #[test]
    fn cut_after_event_points_past_that_event() {
        let body = crate::sse::sse_text("hello there");
        let r = FakeResponse::sse(body.clone()).cut_after_event("content_block_delta");
        let cut = r.cut_at.unwrap();
        assert!(body[..cut].ends_with("\n\n"));
        assert!(body[..cut].contains("text_delta"));
        assert!(!body[..cut].contains("message_stop"));
    }
}
