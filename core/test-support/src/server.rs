//! The HTTP side the fake model servers share: axum routes every request to a function
//! that records it and picks a scripted [`FakeResponse`], whose body is streamed with the
//! faults worth testing (pieces, pauses, a stall, a connection cut mid-stream). hyper
//! serves each connection from a `JoinSet` owned by the server, so dropping the server
//! ends every connection at once, streams included.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::Stream;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

const MAX_BODY: usize = 64 * 1024 * 1024;
/// Before a cut, time for what was written to leave (hyper drops unsent bytes when a
/// body fails).
const FLUSH_BEFORE_CUT: Duration = Duration::from_millis(20);

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
        Self::raw(status, "application/json", body.to_string())
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

    /// A raw body with any status and content type, sent with a Content-Length.
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

    /// The body split into the pieces to write: fixed-size, or one per SSE event.
    fn pieces(&self) -> Vec<&[u8]> {
        if let Some(size) = self.chunk_size {
            return self.body.chunks(size).collect();
        }
        if !self.streaming {
            return vec![&self.body];
        }
        let mut out = Vec::new();
        let mut rest: &[u8] = &self.body;
        while let Some(i) = rest.windows(2).position(|w| w == b"\n\n") {
            out.push(&rest[..i + 2]);
            rest = &rest[i + 2..];
        }
        if !rest.is_empty() {
            out.push(rest);
        }
        out
    }

    /// What the body stream does, in order: the pieces, split where a stall or a cut
    /// falls inside one.
    fn steps(&self) -> VecDeque<Step> {
        let mut steps = VecDeque::new();
        let mut sent = 0usize;
        let mut stalled = false;
        for (n, piece) in self.pieces().into_iter().enumerate() {
            if n > 0 && !self.chunk_delay.is_zero() {
                steps.push_back(Step::Pause(self.chunk_delay));
            }
            let mut piece = piece;
            while !piece.is_empty() {
                let mut take = piece.len();
                if let Some(cut) = self.cut_at {
                    take = take.min(cut.saturating_sub(sent));
                }
                if let Some((at, _)) = self.stall_at.filter(|(at, _)| !stalled && *at > sent) {
                    take = take.min(at - sent);
                }
                if take > 0 {
                    steps.push_back(Step::Send(Bytes::copy_from_slice(&piece[..take])));
                    sent += take;
                    piece = &piece[take..];
                }
                if let Some((_, delay)) = self.stall_at.filter(|(at, _)| !stalled && sent >= *at) {
                    stalled = true;
                    steps.push_back(Step::Pause(delay));
                }
                if self.cut_at.is_some_and(|cut| sent >= cut) {
                    steps.push_back(Step::Cut);
                    return steps;
                }
            }
        }
        steps
    }

    async fn respond(self) -> Response {
        if !self.stall_before_headers.is_zero() {
            tokio::time::sleep(self.stall_before_headers).await;
        }
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = Response::new(Body::from_stream(body_stream(self.steps())));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        for (name, value) in &self.headers {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(n), Ok(v)) => {
                    headers.append(n, v);
                }
                _ => {
                    let text = format!("fake server: bad scripted header {name:?}");
                    return (StatusCode::INTERNAL_SERVER_ERROR, text).into_response();
                }
            }
        }
        if !self.streaming {
            // hyper honours it for a streamed body: a cut then leaves the body short.
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(self.body.len()));
        }
        response
    }
}

#[derive(Debug)]
enum Step {
    Send(Bytes),
    Pause(Duration),
    /// End the body with an error: hyper closes the connection without finishing it.
    Cut,
}

fn body_stream(steps: VecDeque<Step>) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
    futures::stream::unfold(steps, |mut steps| async move {
        loop {
            match steps.pop_front()? {
                Step::Send(bytes) => {
                    // Pending once, so hyper flushes each piece on its own.
                    if !steps.is_empty() {
                        steps.push_front(Step::Pause(Duration::ZERO));
                    }
                    return Some((Ok(bytes), steps));
                }
                Step::Pause(d) if d.is_zero() => tokio::task::yield_now().await,
                Step::Pause(d) => tokio::time::sleep(d).await,
                Step::Cut => {
                    tokio::time::sleep(FLUSH_BEFORE_CUT).await;
                    let cut = std::io::Error::other("cut mid-stream on purpose");
                    return Some((Err(cut), VecDeque::new()));
                }
            }
        }
    })
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

/// Answers a model request from its body when the script has run out (a fake model that
/// can serve a session of any length).
#[derive(Clone)]
pub(crate) struct Responder(pub Arc<dyn Fn(&Value) -> FakeResponse + Send + Sync>);

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Responder(..)")
    }
}

/// What a fake server remembers.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub script: VecDeque<FakeResponse>,
    pub requests: Vec<RecordedRequest>,
    pub violations: Vec<String>,
    /// Model requests answered so far (scripted or not).
    pub served: usize,
    /// The context window in tokens: a longer request is refused as the real API does.
    pub window: Option<u64>,
    /// Requests refused for passing `window`.
    pub too_long: usize,
    pub responder: Option<Responder>,
}

impl State {
    /// Answers model request number `served` (already counted): a 400 naming the
    /// `problems` if there are any, else the next scripted response with a request id
    /// header; a violation is recorded for the problems and for an empty script.
    pub(crate) fn answer(
        &mut self,
        problems: Vec<String>,
        request_id_header: &str,
        error: impl Fn(u16, &str) -> FakeResponse,
    ) -> FakeResponse {
        let n = self.served;
        if !problems.is_empty() {
            let text = problems.join("; ");
            self.violations.push(format!("request #{n}: {text}"));
            return error(400, &text);
        }
        match self.script.pop_front() {
            Some(r) => r.with_header(request_id_header, &format!("req_fake_{n:04}")),
            None if self.responder.is_some() => {
                let body = self
                    .requests
                    .last()
                    .map(|r| r.body.clone())
                    .unwrap_or_default();
                let responder = self.responder.clone();
                match responder {
                    Some(r) => {
                        (r.0)(&body).with_header(request_id_header, &format!("req_fake_{n:04}"))
                    }
                    None => error(500, "fake server: no responder"),
                }
            }
            None => {
                let text = format!("request #{n}: no scripted response left");
                self.violations.push(text.clone());
                error(500, &format!("fake server: {text}"))
            }
        }
    }
}

/// Decides the answer to one request; the request is already recorded.
pub(crate) type Route = fn(&RecordedRequest, &mut State) -> FakeResponse;

/// A running fake server: its address and its state. Stops when dropped.
#[derive(Debug)]
pub(crate) struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every connection.
        self.task.abort();
    }
}

impl ScriptedServer {
    /// Binds 127.0.0.1 on a free port and answers with `route`. Call inside a tokio
    /// runtime.
    pub(crate) async fn start(
        responses: impl IntoIterator<Item = FakeResponse>,
        route: Route,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            script: responses.into_iter().collect(),
            ..State::default()
        }));
        let shared = state.clone();
        let app = axum::Router::new().fallback(move |req: Request| {
            let state = shared.clone();
            async move {
                match record(req).await {
                    Ok(rec) => {
                        let response = {
                            let mut st = lock(&state);
                            st.requests.push(rec.clone());
                            route(&rec, &mut st)
                        };
                        response.respond().await
                    }
                    Err(response) => response,
                }
            }
        });
        let task = tokio::spawn(accept_loop(listener, app));
        Ok(ScriptedServer { addr, state, task })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Panics listing the violations, if any.
    pub(crate) fn assert_no_violations(&self, name: &str) {
        let v = self.state().violations.clone();
        assert!(
            v.is_empty(),
            "fake {name} server saw violations:\n{}",
            v.join("\n")
        );
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panicking test thread must not hide the recorded requests from the others.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The request as recorded; a body over the limit is refused with 413.
async fn record(req: Request) -> Result<RecordedRequest, Response> {
    let (parts, body) = req.into_parts();
    let raw = axum::body::to_bytes(body, MAX_BODY).await.map_err(|e| {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("fake server: cannot read the request body: {e}"),
        )
            .into_response()
    })?;
    Ok(RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
        raw_body: raw.to_vec(),
    })
}

/// Accepts connections until aborted; each is served by hyper from the set, so aborting
/// this task ends them all.
async fn accept_loop(listener: TcpListener, app: axum::Router) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((sock, _)) => {
                    let _ = sock.set_nodelay(true);
                    let service = TowerToHyperService::new(app.clone());
                    conns.spawn(async move {
                        // A connection the client dropped, or one we cut, ends here.
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(sock), service)
                            .await;
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            // Reap finished connections so the set does not grow in long tests.
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(steps: &VecDeque<Step>) -> Vec<u8> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Send(b) => Some(b.to_vec()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    #[test]
    fn steps_split_at_the_stall_and_stop_at_the_cut() {
        let body = "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n";
        let r = FakeResponse::sse(body).stall_after(5, Duration::from_secs(1));
        let steps = r.steps();
        assert_eq!(sent(&steps), body.as_bytes());
        assert!(matches!(&steps[0], Step::Send(b) if b.len() == 5));
        assert!(matches!(steps[1], Step::Pause(d) if d == Duration::from_secs(1)));
        let r = FakeResponse::sse(body).cut_after(20);
        let steps = r.steps();
        assert_eq!(sent(&steps), &body.as_bytes()[..20]);
        assert!(matches!(steps.back(), Some(Step::Cut)));
        let r = FakeResponse::sse(body)
            .chunked(4)
            .chunk_delay(Duration::from_millis(3));
        let steps = r.steps();
        assert_eq!(sent(&steps), body.as_bytes());
        assert!(
            steps
                .iter()
                .all(|s| !matches!(s, Step::Send(b) if b.len() > 4))
        );
    }

    #[test]
    fn cut_after_event_points_past_that_event() {
        let body = crate::sse::sse_text("hello there");
        let r = FakeResponse::sse(body.clone()).cut_after_event("content_block_delta");
        let cut = r.cut_at.unwrap_or_default();
        assert!(body[..cut].ends_with("\n\n"));
        assert!(body[..cut].contains("text_delta"));
        assert!(!body[..cut].contains("message_stop"));
    }

    /// One raw HTTP/1.1 exchange, read to the end of the connection.
    async fn exchange(addr: SocketAddr, body: &Value) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let body = body.to_string();
        let head = format!(
            "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        sock.write_all(head.as_bytes()).await.unwrap();
        sock.write_all(body.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let _ = sock.read_to_end(&mut out).await;
        String::from_utf8_lossy(&out).into_owned()
    }

    #[tokio::test]
    async fn a_window_refuses_long_prompts_and_a_responder_answers_the_rest() {
        let server = crate::FakeAnthropicServer::start(vec![]).await.unwrap();
        server.set_window(50);
        server.set_responder(|body| {
            let n = body["messages"].as_array().map_or(0, Vec::len);
            FakeResponse::sse(crate::sse::sse_text(&format!("saw {n} messages")))
        });
        let short =
            json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]});
        let ok = exchange(server.addr(), &short).await;
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(ok.contains(r#""text":"1 ""#), "{ok}");
        let long = json!({"model": "m", "max_tokens": 5,
            "messages": [{"role": "user", "content": "x".repeat(400)}]});
        let refused = exchange(server.addr(), &long).await;
        assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
        assert!(refused.contains("prompt is too long: "), "{refused}");
        assert!(refused.contains("> 50 maximum"), "{refused}");
        assert_eq!(server.refused_too_long(), 1);
        assert!(server.violations().is_empty());
    }

    #[tokio::test]
    async fn streams_cuts_statuses_and_refusals_on_the_wire() {
        let sse = crate::sse::sse_text("hello there");
        let server = crate::FakeAnthropicServer::start(vec![
            FakeResponse::sse(sse.clone()).cut_after(40),
            FakeResponse::overloaded().with_header("retry-after", "3"),
            FakeResponse::sse(sse.clone()),
        ])
        .await
        .unwrap();
        let ok =
            json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]});
        let cut = exchange(server.addr(), &ok).await;
        assert!(cut.starts_with("HTTP/1.1 200"), "{cut}");
        assert!(cut.contains("transfer-encoding: chunked"), "{cut}");
        assert!(cut.contains(&sse[..20]), "{cut}");
        assert!(!cut.contains(&sse[..60]), "cut after 40 bytes: {cut}");
        assert!(!cut.ends_with("0\r\n\r\n"), "no terminating chunk: {cut}");
        let busy = exchange(server.addr(), &ok).await;
        assert!(busy.starts_with("HTTP/1.1 529"), "{busy}");
        assert!(
            busy.contains("retry-after: 3") && busy.contains("content-length:"),
            "{busy}"
        );
        assert!(busy.contains("overloaded_error"), "{busy}");
        // A tool_use without its tool_result is refused, and the script is not consumed.
        let orphan = json!({"model": "m", "max_tokens": 5, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "X", "input": {}}]},
            {"role": "user", "content": "no result"}]});
        let refused = exchange(server.addr(), &orphan).await;
        assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
        assert!(refused.contains("tool_use id t1"), "{refused}");
        assert_eq!(server.remaining(), 1);
        assert_eq!(server.violations().len(), 1);
        let whole = exchange(server.addr(), &ok).await;
        assert!(
            whole.contains("message_stop") && whole.ends_with("0\r\n\r\n"),
            "{whole}"
        );
        assert_eq!(server.messages_served(), 4);
        assert_eq!(server.requests()[0].path, "/v1/messages");
        assert_eq!(server.requests()[0].header("Host"), Some("x"));
    }
}
