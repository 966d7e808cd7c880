//! Faults of the model API, for both API formats, driven through a whole
//! `dcl_engine::Session` against the raw tokio fake servers: each ends in a retry or a
//! clear error result — never a hang, never a panic — and the session keeps serving.
//!
//! Backoff and timeouts are shortened through the session's env map.

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::openai::{ChatStream, FakeOpenAiServer, chat_data, openai_error};
use dcl_test_support::sse::{SseMessage, sse_error, sse_event};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Api {
    Anthropic,
    OpenAi,
}

enum Server {
    A(FakeAnthropicServer),
    O(FakeOpenAiServer),
}

impl Server {
    async fn start(api: Api, responses: Vec<FakeResponse>) -> Server {
        match api {
            Api::Anthropic => Server::A(FakeAnthropicServer::start(responses).await.unwrap()),
            Api::OpenAi => Server::O(FakeOpenAiServer::start(responses).await.unwrap()),
        }
    }

    fn base_url(&self) -> String {
        match self {
            Server::A(s) => s.base_url(),
            Server::O(s) => s.base_url(),
        }
    }

    fn served(&self) -> usize {
        match self {
            Server::A(s) => s.messages_served(),
            Server::O(s) => s.served(),
        }
    }

    fn assert_no_violations(&self) {
        match self {
            Server::A(s) => s.assert_no_violations(),
            Server::O(s) => s.assert_no_violations(),
        }
    }

    fn bodies(&self) -> Vec<Value> {
        match self {
            Server::A(s) => s.message_bodies(),
            Server::O(s) => s.chat_bodies(),
        }
    }
}

// --- Response builders per format -------------------------------------------------

/// The SSE body of a plain text answer.
fn text_body(api: Api, text: &str) -> String {
    match api {
        Api::Anthropic => SseMessage::new().text(text).build(),
        Api::OpenAi => ChatStream::new().text(text).build(),
    }
}

fn text(api: Api, t: &str) -> FakeResponse {
    FakeResponse::sse(text_body(api, t))
}

fn tool_call(api: Api, id: &str, name: &str, input: Value) -> FakeResponse {
    FakeResponse::sse(match api {
        Api::Anthropic => SseMessage::new()
            .tool_use(id, name, input)
            .stop_reason("tool_use")
            .build(),
        Api::OpenAi => ChatStream::new().tool_call(id, name, input).build(),
    })
}

fn tool_call_raw(api: Api, id: &str, name: &str, pieces: &[&str]) -> FakeResponse {
    FakeResponse::sse(match api {
        Api::Anthropic => SseMessage::new()
            .tool_use_raw(id, name, pieces)
            .stop_reason("tool_use")
            .build(),
        Api::OpenAi => ChatStream::new().tool_call_raw(id, name, pieces).build(),
    })
}

fn api_error(api: Api, status: u16, kind: &str, message: &str) -> FakeResponse {
    match api {
        Api::Anthropic => FakeResponse::error(status, kind, message),
        Api::OpenAi => openai_error(status, kind, message),
    }
}

fn rate_limited(api: Api, retry_after: &str) -> FakeResponse {
    api_error(api, 429, "rate_limit_error", "Rate limit reached")
        .with_header("retry-after", retry_after)
}

/// Bytes up to the end of the first SSE event of `body`.
fn first_event_len(body: &str) -> usize {
    body.find("\n\n").unwrap() + 2
}

/// Bytes up to the end of the first event containing `needle`.
fn through_event(body: &str, needle: &str) -> usize {
    let i = body.find(needle).unwrap();
    i + body[i..].find("\n\n").unwrap() + 2
}

/// The first text delta's marker in each format's body.
fn text_delta_marker(api: Api) -> &'static str {
    match api {
        Api::Anthropic => "text_delta",
        Api::OpenAi => "\"content\":\"It ",
    }
}

// --- Session plumbing -------------------------------------------------------------

fn options(
    api: Api,
    base_url: &str,
    cwd: &std::path::Path,
    extra: &[(&str, &str)],
) -> SessionOptions {
    let mut env = BTreeMap::new();
    for (k, v) in [
        ("ANTHROPIC_API_KEY", "sk-ant-test-secret"),
        ("OPENAI_API_KEY", "sk-openai-test-secret"),
        ("DCL_RETRY_BASE_MS", "1"),
        ("DCL_RETRY_AFTER_MAX_MS", "50"),
        ("DCL_IDLE_TIMEOUT_MS", "600"),
        ("DCL_REQUEST_TIMEOUT_MS", "3000"),
    ] {
        env.insert(k.to_string(), v.to_string());
    }
    for (k, v) in extra {
        env.insert(k.to_string(), v.to_string());
    }
    let (model, format) = match api {
        Api::Anthropic => ("claude-test", "anthropic"),
        Api::OpenAi => ("gpt-test", "openai"),
    };
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some(model.into()),
        api_format: Some(format.into()),
        base_url: Some(base_url.to_string()),
        permission_mode: Some("bypassPermissions".into()),
        env,
        ..Default::default()
    }
}

fn retries(seen: &[Value]) -> Vec<&Value> {
    seen.iter()
        .filter(|v| v["subtype"] == "api_retry")
        .collect()
}

struct Run {
    seen: Vec<Value>,
    result: Value,
    elapsed: Duration,
}

/// Opens a session on `base_url`, sends each prompt and collects each turn.
async fn run(api: Api, base_url: &str, extra_env: &[(&str, &str)], prompts: &[&str]) -> Vec<Run> {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(api, base_url, dir.path(), extra_env),
    )
    .unwrap();
    let mut out = Vec::new();
    for p in prompts {
        let t0 = Instant::now();
        session.send(prompt(p)).unwrap();
        let (seen, result) = until_result(&session).await;
        out.push(Run {
            seen,
            result,
            elapsed: t0.elapsed(),
        });
    }
    session.close();
    out
}

fn result_text(r: &Value) -> String {
    r["result"].as_str().unwrap_or_default().to_string()
}

fn assert_clear_error(r: &Value, needle: &str) {
    assert_eq!(r["type"], "result");
    assert_eq!(r["is_error"], true, "{r}");
    let text = result_text(r);
    assert!(
        text.to_lowercase().contains(&needle.to_lowercase()),
        "result should mention {needle:?}: {r}"
    );
}

/// Each scenario runs once per API format.
macro_rules! both_formats {
    ($($name:ident),* $(,)?) => {
        mod anthropic_format {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Api::Anthropic).await;
                }
            )*
        }
        mod openai_format {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Api::OpenAi).await;
                }
            )*
        }
    };
}

both_formats!(
    rate_limits_respect_retry_after_capped,
    overloaded_and_unavailable_are_retried,
    server_errors_run_out_into_a_clear_error_and_the_session_recovers,
    bad_requests_are_not_retried,
    connection_refused_is_retried_then_a_clear_error,
    reset_before_content_is_retried,
    reset_after_content_is_a_clear_error,
    malformed_sse_is_a_clear_error,
    overloaded_stream_error_before_content_is_retried,
    stall_before_content_hits_the_idle_timeout_and_is_retried,
    stall_after_content_is_a_clear_error,
    slow_headers_hit_the_request_timeout,
    invalid_tool_json_is_answered_with_an_error_result,
    unknown_tool_is_answered_with_an_error_result,
);

// --- Scenarios ----------------------------------------------------------------------

async fn rate_limits_respect_retry_after_capped(api: Api) {
    let server = Server::start(
        api,
        vec![
            // 1 s asked, capped at DCL_RETRY_AFTER_MAX_MS = 50.
            rate_limited(api, "1"),
            // An HTTP date in the past means "now".
            rate_limited(api, "Wed, 21 Oct 2015 07:28:00 GMT"),
            text(api, "Finally."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_eq!(r.result["is_error"], false, "{}", r.result);
    assert_eq!(r.result["result"], "Finally.");
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 2, "{frames:?}");
    assert_eq!(frames[0]["retry_delay_ms"], 50);
    assert_eq!(frames[1]["retry_delay_ms"], 0);
    for (n, f) in frames.iter().enumerate() {
        assert_eq!(f["attempt"], n as u64 + 1);
        assert_eq!(f["max_retries"], 2);
        assert_eq!(f["error_status"], 429);
        assert_eq!(f["error"], "rate_limit");
    }
    assert_eq!(server.served(), 3);
    server.assert_no_violations();
}

async fn overloaded_and_unavailable_are_retried(api: Api) {
    let server = Server::start(
        api,
        vec![
            api_error(api, 529, "overloaded_error", "Overloaded"),
            api_error(api, 503, "service_unavailable", "Service Unavailable"),
            text(api, "Up again."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Up again.", "{}", r.result);
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0]["error_status"], 529);
    assert_eq!(frames[0]["error"], "overloaded");
    assert_eq!(frames[1]["error_status"], 503);
    // The backoff grew (base 1 ms: 1 then 2 ms, with jitter).
    assert!(frames[1]["retry_delay_ms"].as_u64().unwrap() >= 2);
}

async fn server_errors_run_out_into_a_clear_error_and_the_session_recovers(api: Api) {
    let server = Server::start(
        api,
        vec![
            api_error(api, 500, "api_error", "Internal server error"),
            api_error(api, 500, "api_error", "Internal server error"),
            api_error(api, 500, "api_error", "Internal server error"),
            text(api, "Recovered."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["first", "second"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "500");
    assert!(result_text(&r.result).contains("Internal server error"));
    assert_eq!(r.result["api_error_status"], 500);
    assert_eq!(retries(&r.seen).len(), 2);
    // The next turn is served normally.
    assert_eq!(runs[1].result["result"], "Recovered.");
    assert_eq!(server.served(), 4);
    server.assert_no_violations();
}

async fn bad_requests_are_not_retried(api: Api) {
    // Not "prompt is too long": that refusal makes dcl compact and try again (see
    // all/compaction.rs).
    let server = Server::start(
        api,
        vec![api_error(
            api,
            400,
            "invalid_request_error",
            "max_tokens: field required",
        )],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "max_tokens: field required");
    assert_eq!(r.result["api_error_status"], 400);
    assert!(retries(&r.seen).is_empty());
    assert_eq!(server.served(), 1);
}

async fn connection_refused_is_retried_then_a_clear_error(api: Api) {
    // A port that was just free: nothing listens there.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let base = match api {
        Api::Anthropic => format!("http://127.0.0.1:{port}"),
        Api::OpenAi => format!("http://127.0.0.1:{port}/v1"),
    };
    let runs = run(api, &base, &[("DCL_MAX_RETRIES", "1")], &["hello"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "connect");
    assert!(result_text(&r.result).contains(&format!("127.0.0.1:{port}")));
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["error"], "connection_error");
    assert_eq!(frames[0]["error_status"], Value::Null);
    assert!(r.elapsed < Duration::from_secs(10));
}

async fn reset_before_content_is_retried(api: Api) {
    let body = text_body(api, "It will not be seen");
    let cut = first_event_len(&body);
    let server = Server::start(
        api,
        vec![
            FakeResponse::sse(body).cut_after(cut),
            text(api, "Second try."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Second try.", "{}", r.result);
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["error"], "connection_error");
    // Nothing of the broken attempt was shown.
    let assistant: Vec<&Value> = r.seen.iter().filter(|v| v["type"] == "assistant").collect();
    assert_eq!(assistant.len(), 1);
    assert_eq!(server.served(), 2);
}

async fn reset_after_content_is_a_clear_error(api: Api) {
    let body = text_body(api, "It was cut off in the middle of a sentence");
    let cut = through_event(&body, text_delta_marker(api));
    let server = Server::start(
        api,
        vec![
            FakeResponse::sse(body).cut_after(cut),
            text(api, "never used"),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "connection");
    assert!(retries(&r.seen).is_empty(), "content was shown: no retry");
    assert_eq!(server.served(), 1);
}

async fn malformed_sse_is_a_clear_error(api: Api) {
    let body = match api {
        Api::Anthropic => {
            let full = SseMessage::new().text("x").build();
            let start = first_event_len(&full);
            format!(
                "{}event: content_block_start\ndata: {{\"type\": \"content_block_start\", \"index\": 0, \"content_bl\n\n",
                &full[..start]
            )
        }
        Api::OpenAi => {
            let full = ChatStream::new().text("x").build();
            let start = first_event_len(&full);
            format!("{}data: {{\"choices\": [{{\"delta\": \n\n", &full[..start])
        }
    };
    let server = Server::start(api, vec![FakeResponse::sse(body)]).await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "malformed JSON");
    assert!(retries(&r.seen).is_empty());
    assert_eq!(server.served(), 1);
}

async fn overloaded_stream_error_before_content_is_retried(api: Api) {
    let body = match api {
        Api::Anthropic => {
            let full = SseMessage::new().text("x").build();
            let start = first_event_len(&full);
            format!(
                "{}{}",
                &full[..start],
                sse_error("overloaded_error", "Overloaded")
            )
        }
        Api::OpenAi => {
            let full = ChatStream::new().text("x").build();
            let start = first_event_len(&full);
            format!(
                "{}{}",
                &full[..start],
                chat_data(&json!({"error": {"type": "overloaded_error", "message": "Overloaded"}}))
            )
        }
    };
    let server = Server::start(api, vec![FakeResponse::sse(body), text(api, "Fine now.")]).await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Fine now.", "{}", r.result);
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["error"], "overloaded");
}

async fn stall_before_content_hits_the_idle_timeout_and_is_retried(api: Api) {
    let body = text_body(api, "never shown");
    let at = first_event_len(&body);
    let server = Server::start(
        api,
        vec![
            FakeResponse::sse(body).stall_after(at, Duration::from_secs(30)),
            text(api, "Awake."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Awake.", "{}", r.result);
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["error"], "connection_error");
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}

async fn stall_after_content_is_a_clear_error(api: Api) {
    let body = text_body(api, "It stops talking here");
    let at = through_event(&body, text_delta_marker(api));
    let server = Server::start(
        api,
        vec![FakeResponse::sse(body).stall_after(at, Duration::from_secs(30))],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["hello"]).await;
    let r = &runs[0];
    assert_clear_error(&r.result, "no data from the API");
    assert!(retries(&r.seen).is_empty());
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}

async fn slow_headers_hit_the_request_timeout(api: Api) {
    let server = Server::start(
        api,
        vec![
            text(api, "too late").stall_before(Duration::from_secs(30)),
            text(api, "In time."),
        ],
    )
    .await;
    let runs = run(
        api,
        &server.base_url(),
        &[("DCL_REQUEST_TIMEOUT_MS", "400")],
        &["hello"],
    )
    .await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "In time.", "{}", r.result);
    let frames = retries(&r.seen);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["error"], "connection_error");
    assert!(r.elapsed < Duration::from_secs(10));
}

/// The tool_result (user line) the engine produced for the first tool call.
fn first_tool_result(seen: &[Value]) -> Value {
    seen.iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .map(|v| v["message"]["content"][0].clone())
        .expect("a tool_result line")
}

/// What the model was told about the call in the next request.
fn answer_in_next_request(api: Api, bodies: &[Value], id: &str) -> String {
    let msgs = bodies[1]["messages"].as_array().unwrap();
    match api {
        Api::Anthropic => msgs
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
            .map(|b| b["content"].to_string())
            .unwrap(),
        Api::OpenAi => msgs
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| m["content"].as_str().unwrap().to_string())
            .unwrap(),
    }
}

async fn invalid_tool_json_is_answered_with_an_error_result(api: Api) {
    let server = Server::start(
        api,
        vec![
            tool_call_raw(api, "call_bad1", "Read", &["{\"file_path\": ", "oops"]),
            text(api, "Understood."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["read"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Understood.", "{}", r.result);
    let tr = first_tool_result(&r.seen);
    assert_eq!(tr["is_error"], true);
    assert_eq!(tr["tool_use_id"], "call_bad1");
    let told = answer_in_next_request(api, &server.bodies(), "call_bad1");
    assert!(told.contains("not a valid JSON object"), "{told}");
    // Every call was answered exactly once (the fake refuses anything else).
    server.assert_no_violations();
}

async fn unknown_tool_is_answered_with_an_error_result(api: Api) {
    let server = Server::start(
        api,
        vec![
            tool_call(api, "call_tp1", "Teleport", json!({"to": "mars"})),
            text(api, "Oh well."),
        ],
    )
    .await;
    let runs = run(api, &server.base_url(), &[], &["go"]).await;
    let r = &runs[0];
    assert_eq!(r.result["result"], "Oh well.", "{}", r.result);
    let tr = first_tool_result(&r.seen);
    assert_eq!(tr["is_error"], true);
    let told = answer_in_next_request(api, &server.bodies(), "call_tp1");
    assert!(told.contains("No such tool"), "{told}");
    server.assert_no_violations();
}

#[test]
fn the_markers_used_above_exist_in_the_bodies() {
    // Guards the cut/stall offsets against builder changes.
    for api in [Api::Anthropic, Api::OpenAi] {
        let body = text_body(api, "It was cut off");
        let at = through_event(&body, text_delta_marker(api));
        assert!(at < body.len());
        assert!(first_event_len(&body) < at);
    }
    assert!(sse_event(&json!({"type": "ping"})).starts_with("event: ping"));
}
