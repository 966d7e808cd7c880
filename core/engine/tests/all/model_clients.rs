//! The model clients end to end: the Anthropic client against the scripted fake server
//! (including its faults), and the mock model's rules and script files, each through
//! the SSE decoder and the accumulator as the engine uses them.

use std::time::{Duration, Instant};

use dcl_model::accumulate::{Accumulator, AssistantTurn, CompletedBlock};
use dcl_model::anthropic::{AnthropicClient, AnthropicConfig};
use dcl_model::mock::MockClient;
use dcl_model::{
    ApiMessage, Delta, ModelClient, ModelError, ModelRequest, Role, StreamEvent, ThinkingConfig,
    ToolSpec,
};
use dcl_protocol::{ContentBlock, KnownBlock, ToolResultContent};
use dcl_test_support::{FakeAnthropicServer, FakeResponse, SseMessage, sse_text};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// What one model call produced.
struct Run {
    events: Vec<StreamEvent>,
    completed: Vec<CompletedBlock>,
    turn: AssistantTurn,
}

/// Drives a call like the engine: stream, accumulate, finish. The first error wins.
async fn run(client: &dyn ModelClient, req: ModelRequest) -> Result<Run, ModelError> {
    run_with(client, req, CancellationToken::new()).await
}

async fn run_with(
    client: &dyn ModelClient,
    req: ModelRequest,
    cancel: CancellationToken,
) -> Result<Run, ModelError> {
    let fut = async {
        let mut stream = client.stream(req, cancel).await?;
        let mut acc = Accumulator::new();
        let mut events = Vec::new();
        let mut completed = Vec::new();
        while let Some(item) = stream.next().await {
            let ev = item?;
            if let Some(c) = acc.push(&ev)? {
                completed.push(c);
            }
            events.push(ev);
        }
        Ok(Run {
            events,
            completed,
            turn: acc.finish()?,
        })
    };
    // No test may hang: a hang is a bug in itself.
    tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("model call hung")
}

fn user(text: &str) -> ApiMessage {
    ApiMessage {
        role: Role::User,
        content: vec![ContentBlock::text(text)],
    }
}

fn request(messages: Vec<ApiMessage>) -> ModelRequest {
    ModelRequest {
        model: "claude-test-1".into(),
        system: Some("You are terse.".into()),
        messages,
        tools: vec![ToolSpec::new(
            "Bash",
            "Run a command",
            json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        )],
        max_tokens: 4096,
        thinking: None,
    }
}

fn prompt(text: &str) -> ModelRequest {
    request(vec![user(text)])
}

fn client_for(server: &FakeAnthropicServer) -> AnthropicClient {
    AnthropicClient::new(AnthropicConfig::new(server.base_url()).with_api_key("sk-test-key"))
        .expect("client for the fake server")
}

async fn server(responses: Vec<FakeResponse>) -> FakeAnthropicServer {
    FakeAnthropicServer::start(responses)
        .await
        .expect("fake server starts")
}

fn tool_use(block: &ContentBlock) -> (&str, &str, &Value) {
    let t = block.as_tool_use().expect("a tool_use block");
    (&t.id, &t.name, &t.input)
}

fn thinking(block: &ContentBlock) -> (&str, &str) {
    match block {
        ContentBlock::Known(KnownBlock::Thinking(t)) => (&t.thinking, &t.signature),
        other => panic!("not thinking: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Anthropic client against the fake server
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_text_request_shape_and_usage() {
    let srv = server(vec![FakeResponse::sse(
        SseMessage::new()
            .id("msg_abc")
            .model("claude-test-1")
            .usage(321, 12)
            .text("Hello there, friend.")
            .build(),
    )])
    .await;
    let client = client_for(&srv);
    let mut req = prompt("say hi");
    req.thinking = Some(ThinkingConfig {
        budget_tokens: 1024,
    });
    let out = run(&client, req).await.unwrap();

    assert_eq!(out.turn.id, "msg_abc");
    assert_eq!(out.turn.model, "claude-test-1");
    assert_eq!(
        out.turn.content,
        vec![ContentBlock::text("Hello there, friend.")]
    );
    assert_eq!(out.turn.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(out.turn.usage.input_tokens, 321);
    assert_eq!(out.turn.usage.output_tokens, 12);
    assert_eq!(out.completed.len(), 1);
    let text_deltas = out
        .events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ContentBlockDelta { .. }))
        .count();
    assert!(text_deltas > 1, "text arrives in several deltas");

    let reqs = srv.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("sk-test-key"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.header("user-agent").unwrap().starts_with("dcl/"));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(
        r.body,
        json!({
            "model": "claude-test-1",
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "say hi"}]}],
            "stream": true,
            "system": "You are terse.",
            "tools": [{"name": "Bash", "description": "Run a command",
                       "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
        })
    );
    srv.assert_no_violations();
}

#[tokio::test]
async fn anthropic_auth_token_is_a_bearer_header() {
    let srv = server(vec![FakeResponse::sse(sse_text("ok"))]).await;
    let client =
        AnthropicClient::new(AnthropicConfig::new(srv.base_url()).with_auth_token("tok-123"))
            .unwrap();
    run(&client, prompt("hi")).await.unwrap();
    let r = &srv.requests()[0];
    assert_eq!(r.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(r.header("x-api-key"), None);
}

#[tokio::test]
async fn anthropic_tool_use_with_input_split_at_every_byte() {
    let input = json!({"command": "echo \"héllo\" && ls -la", "description": "Print 😀"});
    // One TCP write per byte: the decoder sees every possible boundary, UTF-8 included.
    let body = SseMessage::new()
        .text("Running it.")
        .tool_use("toolu_01", "Bash", input.clone())
        .build();
    let srv = server(vec![FakeResponse::sse(body).chunked(1)]).await;
    let out = run(&client_for(&srv), prompt("go")).await.unwrap();
    assert_eq!(out.turn.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(out.turn.content.len(), 2);
    assert_eq!(tool_use(&out.turn.content[1]), ("toolu_01", "Bash", &input));
    let json_deltas = out
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                StreamEvent::ContentBlockDelta {
                    delta: Delta::InputJsonDelta { .. },
                    ..
                }
            )
        })
        .count();
    assert!(json_deltas >= 3);
    // Blocks come out as each completes, in order.
    assert_eq!(out.completed[0].index, 0);
    assert_eq!(out.completed[1].index, 1);
}

#[tokio::test]
async fn anthropic_invalid_tool_json_is_marked_not_fatal() {
    let body = SseMessage::new()
        .tool_use_raw("toolu_bad", "Write", &["", "{\"file_path\": ", "\"x.txt\""])
        .build();
    let srv = server(vec![FakeResponse::sse(body)]).await;
    let out = run(&client_for(&srv), prompt("go")).await.unwrap();
    let bad = out.turn.invalid_input("toolu_bad").expect("marked invalid");
    assert_eq!(bad.raw_json, "{\"file_path\": \"x.txt\"");
    assert_eq!(tool_use(&out.turn.content[0]).2, &json!({}));
}

#[tokio::test]
async fn anthropic_thinking_with_signature() {
    let body = SseMessage::new()
        .thinking("First, consider the question.", "EqQBCkgIARAB")
        .text("Answer.")
        .build();
    let srv = server(vec![FakeResponse::sse(body)]).await;
    let out = run(&client_for(&srv), prompt("think")).await.unwrap();
    assert_eq!(
        thinking(&out.turn.content[0]),
        ("First, consider the question.", "EqQBCkgIARAB")
    );
    assert_eq!(out.turn.content[1], ContentBlock::text("Answer."));
}

#[tokio::test]
async fn anthropic_429_has_retry_after() {
    let srv = server(vec![FakeResponse::rate_limited(7)]).await;
    let err = run(&client_for(&srv), prompt("hi")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::Http {
            status: 429,
            message: "Number of requests has exceeded your rate limit".into(),
            retry_after: Some(7.0),
        }
    );
    assert!(err.is_retryable());
}

#[tokio::test]
async fn anthropic_500_529_and_400_errors() {
    let srv = server(vec![
        FakeResponse::server_error(),
        FakeResponse::overloaded(),
        FakeResponse::error(400, "invalid_request_error", "prompt is too long"),
        FakeResponse::raw(502, "text/html", "<html>bad gateway</html>"),
        FakeResponse::raw(503, "text/plain", ""),
    ])
    .await;
    let client = client_for(&srv);
    let e1 = run(&client, prompt("a")).await.err().unwrap();
    assert_eq!(
        e1,
        ModelError::Http {
            status: 500,
            message: "Internal server error".into(),
            retry_after: None
        }
    );
    let e2 = run(&client, prompt("a")).await.err().unwrap();
    assert_eq!(e2.status(), Some(529));
    assert!(e2.to_string().contains("Overloaded"), "{e2}");
    assert!(e2.is_retryable());
    let e3 = run(&client, prompt("a")).await.err().unwrap();
    assert_eq!(e3.to_string(), "API Error: 400 prompt is too long");
    assert!(!e3.is_retryable());
    let e4 = run(&client, prompt("a")).await.err().unwrap();
    assert!(
        matches!(&e4, ModelError::Http { status: 502, message, .. } if message.contains("bad gateway")),
        "{e4:?}"
    );
    let e5 = run(&client, prompt("a")).await.err().unwrap();
    assert!(
        matches!(&e5, ModelError::Http { status: 503, message, .. } if message == "Service Unavailable"),
        "{e5:?}"
    );
}

#[tokio::test]
async fn anthropic_connection_closed_mid_stream_is_an_error_not_a_hang() {
    let body = SseMessage::new().text("one two three four five").build();
    let srv = server(vec![
        FakeResponse::sse(body.clone()).cut_after_event("content_block_delta"),
        FakeResponse::sse(body).cut_after(37),
    ])
    .await;
    let client = client_for(&srv);
    for _ in 0..2 {
        let err = run(&client, prompt("hi")).await.err().unwrap();
        assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
        assert!(err.is_retryable());
    }
}

#[tokio::test]
async fn anthropic_stream_without_message_stop() {
    let body = SseMessage::new().text("hi").without_message_stop().build();
    let srv = server(vec![FakeResponse::sse(body)]).await;
    let err = run(&client_for(&srv), prompt("hi")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::Connection("stream ended before message_stop".into())
    );
}

#[tokio::test]
async fn anthropic_malformed_sse_is_a_stream_error() {
    let mut body = SseMessage::new().text("hi").build();
    body = body.replacen(
        "data: {\"type\":\"content_block_delta\"",
        "data: {\"type\":\"content_block_delta\",,,",
        1,
    );
    let srv = server(vec![FakeResponse::sse(body)]).await;
    let err = run(&client_for(&srv), prompt("hi")).await.err().unwrap();
    match err {
        ModelError::Stream(m) => assert!(m.contains("malformed JSON"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn anthropic_overloaded_error_event_mid_stream() {
    let body = SseMessage::new()
        .text("partial")
        .error_at_end("overloaded_error", "Overloaded")
        .build();
    let srv = server(vec![FakeResponse::sse(body)]).await;
    let err = run(&client_for(&srv), prompt("hi")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::api_stream_error("overloaded_error", "Overloaded")
    );
    assert!(err.is_retryable());
}

#[tokio::test]
async fn anthropic_stalled_stream_hits_the_idle_timeout() {
    let body = SseMessage::new().text("slow answer").build();
    let srv = server(vec![
        FakeResponse::sse(body).stall_after(60, Duration::from_secs(30)),
    ])
    .await;
    let mut cfg = AnthropicConfig::new(srv.base_url()).with_api_key("k");
    cfg.idle_timeout = Duration::from_millis(300);
    let client = AnthropicClient::new(cfg).unwrap();
    let t0 = Instant::now();
    let err = run(&client, prompt("hi")).await.err().unwrap();
    assert!(
        matches!(&err, ModelError::Connection(m) if m.contains("no data")),
        "{err:?}"
    );
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn anthropic_slow_headers_hit_the_request_timeout() {
    let srv = server(vec![
        FakeResponse::sse(sse_text("late")).stall_before(Duration::from_secs(30)),
    ])
    .await;
    let mut cfg = AnthropicConfig::new(srv.base_url()).with_api_key("k");
    cfg.request_timeout = Duration::from_millis(300);
    let client = AnthropicClient::new(cfg).unwrap();
    let err = run(&client, prompt("hi")).await.err().unwrap();
    assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
}

#[tokio::test]
async fn anthropic_cancel_mid_stream_is_prompt() {
    let body = SseMessage::new().text("a b c d e f g").build();
    let srv = server(vec![
        FakeResponse::sse(body).stall_after(200, Duration::from_secs(30)),
    ])
    .await;
    let client = client_for(&srv);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let t0 = Instant::now();
    let err = run_with(&client, prompt("hi"), cancel).await.err().unwrap();
    assert_eq!(err, ModelError::Cancelled);
    assert!(t0.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn anthropic_cancel_before_headers() {
    let srv = server(vec![
        FakeResponse::sse(sse_text("late")).stall_before(Duration::from_secs(30)),
    ])
    .await;
    let client = client_for(&srv);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let err = run_with(&client, prompt("hi"), cancel).await.err().unwrap();
    assert_eq!(err, ModelError::Cancelled);
}

#[tokio::test]
async fn anthropic_connect_refused_is_a_connection_error() {
    // A port that was free a moment ago: nothing listens there now.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = AnthropicClient::new(
        AnthropicConfig::new(format!("http://127.0.0.1:{port}")).with_api_key("sk-secret-xyz"),
    )
    .unwrap();
    let err = run(&client, prompt("hi")).await.err().unwrap();
    assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
    assert!(!err.to_string().contains("sk-secret-xyz"));
}

#[tokio::test]
async fn anthropic_json_body_instead_of_sse_is_explained() {
    let srv = server(vec![FakeResponse::json(
        200,
        &json!({"id": "msg_1", "type": "message", "content": []}),
    )])
    .await;
    let err = run(&client_for(&srv), prompt("hi")).await.err().unwrap();
    assert!(
        matches!(&err, ModelError::Stream(m) if m.contains("text/event-stream")),
        "{err:?}"
    );
}

#[tokio::test]
async fn fake_server_refuses_unpaired_tool_use() {
    let srv = server(vec![FakeResponse::sse(sse_text("never sent"))]).await;
    let messages = vec![
        user("run two tools"),
        ApiMessage {
            role: Role::Assistant,
            content: vec![
                ContentBlock::tool_use("toolu_a", "Bash", json!({"command": "ls"})),
                ContentBlock::tool_use("toolu_b", "Bash", json!({"command": "pwd"})),
            ],
        },
        ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::tool_result(
                "toolu_a",
                ToolResultContent::Text("ok".into()),
                None,
            )],
        },
    ];
    let err = run(&client_for(&srv), request(messages))
        .await
        .err()
        .unwrap();
    assert_eq!(err.status(), Some(400));
    let v = srv.violations();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].contains("toolu_b"), "{v:?}");
    assert_eq!(
        srv.remaining(),
        1,
        "a refused request does not use up the script"
    );
}

#[tokio::test]
async fn fake_server_reuses_a_kept_alive_connection() {
    let srv = server(vec![
        FakeResponse::sse(sse_text("one")),
        FakeResponse::sse(sse_text("two")),
    ])
    .await;
    let client = client_for(&srv);
    assert_eq!(run(&client, prompt("1")).await.unwrap().turn.text(), "one");
    assert_eq!(run(&client, prompt("2")).await.unwrap().turn.text(), "two");
    assert_eq!(srv.message_bodies().len(), 2);
    srv.assert_no_violations();
}

// ---------------------------------------------------------------------------------------
// Mock model: built-in rules
// ---------------------------------------------------------------------------------------

fn mock() -> MockClient {
    MockClient::new().with_slow_delay(Duration::from_millis(5))
}

#[tokio::test]
async fn mock_plain_answer() {
    let m = mock();
    let out = run(&m, prompt("say hi")).await.unwrap();
    assert_eq!(
        out.turn.content,
        vec![ContentBlock::text("Hello from the fake model.")]
    );
    assert_eq!(out.turn.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(out.turn.model, "claude-test-1");
    assert!(out.turn.id.starts_with("msg_mock_"), "{}", out.turn.id);
    assert!(matches!(out.events[0], StreamEvent::MessageStart { .. }));
    assert!(matches!(out.events.last(), Some(StreamEvent::MessageStop)));
    let text_deltas = out
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                StreamEvent::ContentBlockDelta {
                    delta: Delta::TextDelta { .. },
                    ..
                }
            )
        })
        .count();
    assert!(text_deltas > 1, "text is streamed in several deltas");
    // Per-call message ids differ.
    let again = run(&m, prompt("say hi")).await.unwrap();
    assert_ne!(again.turn.id, out.turn.id);
}

#[tokio::test]
async fn mock_fake_write() {
    let out = run(&mock(), prompt("please FAKE_WRITE /tmp/x/hello.txt"))
        .await
        .unwrap();
    assert_eq!(out.turn.stop_reason.as_deref(), Some("tool_use"));
    let (id, name, input) = tool_use(&out.turn.content[0]);
    assert!(id.starts_with("toolu_mock_"));
    assert_eq!(name, "Write");
    assert_eq!(
        input,
        &json!({"file_path": "/tmp/x/hello.txt", "content": "hello\n"})
    );
    let json_deltas = out
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                StreamEvent::ContentBlockDelta {
                    delta: Delta::InputJsonDelta { .. },
                    ..
                }
            )
        })
        .count();
    assert!(json_deltas >= 3, "tool input is streamed in several deltas");
}

#[tokio::test]
async fn mock_fake_touch_bash_read_exitplan() {
    let m = mock();
    let out = run(&m, prompt("please FAKE_TOUCH")).await.unwrap();
    let (_, name, input) = tool_use(&out.turn.content[0]);
    assert_eq!(name, "Bash");
    assert_eq!(
        input,
        &json!({"command": "touch made.txt && echo made", "description": "Create made.txt"})
    );

    let out = run(&m, prompt("please FAKE_BASH")).await.unwrap();
    assert_eq!(out.turn.content[0], ContentBlock::text("I'll run it."));
    let (_, name, input) = tool_use(&out.turn.content[1]);
    assert_eq!(name, "Bash");
    assert_eq!(
        input,
        &json!({"command": "echo hi", "description": "Print hi"})
    );
    assert_eq!(out.completed.len(), 2);

    let out = run(&m, prompt("please FAKE_READ /w/notes.txt"))
        .await
        .unwrap();
    let (_, name, input) = tool_use(&out.turn.content[0]);
    assert_eq!(name, "Read");
    assert_eq!(input, &json!({"file_path": "/w/notes.txt"}));

    let out = run(&m, prompt("please FAKE_EXITPLAN")).await.unwrap();
    let (_, name, input) = tool_use(&out.turn.content[0]);
    assert_eq!(name, "ExitPlanMode");
    assert_eq!(input, &json!({"plan": "1. Create hello.txt\n2. Done"}));
}

#[tokio::test]
async fn mock_fake_par_is_one_message_with_two_tools() {
    let out = run(&mock(), prompt("FAKE_PAR /w/notes.txt")).await.unwrap();
    assert_eq!(out.turn.content.len(), 3);
    assert_eq!(
        out.turn.content[0],
        ContentBlock::text("Reading two files.")
    );
    let (id1, n1, i1) = tool_use(&out.turn.content[1]);
    let (id2, n2, i2) = tool_use(&out.turn.content[2]);
    assert_eq!((n1, i1), ("Read", &json!({"file_path": "/w/notes.txt"})));
    assert_eq!(
        (n2, i2),
        (
            "Bash",
            &json!({"command": "echo second", "description": "Echo"})
        )
    );
    assert_ne!(id1, id2);
    assert_eq!(out.turn.tool_uses().count(), 2);
}

#[tokio::test]
async fn mock_fake_think_sends_a_signature_delta() {
    let out = run(&mock(), prompt("FAKE_THINK please")).await.unwrap();
    assert_eq!(
        thinking(&out.turn.content[0]),
        ("Let me think briefly.", "fakesig")
    );
    assert_eq!(out.turn.content[1], ContentBlock::text("Thought about it."));
    assert!(out.events.iter().any(|e| matches!(
        e,
        StreamEvent::ContentBlockDelta {
            delta: Delta::SignatureDelta { signature },
            ..
        } if signature == "fakesig"
    )));
}

#[tokio::test]
async fn mock_fake_slow_streams_word_by_word_and_cancels_promptly() {
    let out = run(&mock(), prompt("FAKE_SLOW please")).await.unwrap();
    let expected: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    assert_eq!(out.turn.text(), expected.join(" "));
    let deltas = out
        .events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ContentBlockDelta { .. }))
        .count();
    assert_eq!(deltas, 40);

    // With the default 100 ms pace, an interrupt after a few words ends the stream at once
    // and the partial text is still there.
    let m = MockClient::new();
    let cancel = CancellationToken::new();
    let mut stream = m
        .stream(prompt("FAKE_SLOW please"), cancel.clone())
        .await
        .unwrap();
    let mut acc = Accumulator::new();
    let mut words = 0;
    while let Some(item) = stream.next().await {
        let ev = item.unwrap();
        if matches!(ev, StreamEvent::ContentBlockDelta { .. }) {
            words += 1;
        }
        acc.push(&ev).unwrap();
        if words == 2 {
            break;
        }
    }
    cancel.cancel();
    let t0 = Instant::now();
    assert_eq!(stream.next().await, Some(Err(ModelError::Cancelled)));
    // Far less than the ~3.8 s the remaining 38 words would take.
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert_eq!(stream.next().await, None);
    assert_eq!(acc.partial_content(), vec![ContentBlock::text("w0 w1 ")]);
}

#[tokio::test]
async fn mock_errors_400_and_529() {
    let m = mock();
    let err = run(&m, prompt("FAKE_ERR400 please")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::Http {
            status: 400,
            message: "fake: prompt is invalid".into(),
            retry_after: None
        }
    );
    assert_eq!(err.to_string(), "API Error: 400 fake: prompt is invalid");
    for _ in 0..3 {
        let err = run(&m, prompt("FAKE_ERR529 please")).await.err().unwrap();
        assert_eq!(
            err,
            ModelError::Http {
                status: 529,
                message: "Overloaded".into(),
                retry_after: None
            }
        );
        assert!(err.is_retryable());
    }
}

#[tokio::test]
async fn mock_fake_tool_any_tool_and_invalid_json() {
    let m = mock();
    let out = run(
        &m,
        prompt("FAKE_TOOL Edit {\"file_path\": \"a.txt\", \"old_string\": \"x\", \"new_string\": \"y\"}\nignored line"),
    )
    .await
    .unwrap();
    let (_, name, input) = tool_use(&out.turn.content[0]);
    assert_eq!(name, "Edit");
    assert_eq!(
        input,
        &json!({"file_path": "a.txt", "old_string": "x", "new_string": "y"})
    );

    let out = run(&m, prompt("FAKE_TOOL Glob")).await.unwrap();
    assert_eq!(tool_use(&out.turn.content[0]).2, &json!({}));

    let out = run(&m, prompt("FAKE_TOOL Write {\"file_path\": "))
        .await
        .unwrap();
    let id = tool_use(&out.turn.content[0]).0.to_string();
    let bad = out.turn.invalid_input(&id).expect("invalid input marked");
    assert_eq!(bad.raw_json, "{\"file_path\":");
}

#[tokio::test]
async fn mock_seed_time_example_and_its_continuation() {
    let m = mock();
    let out = run(&m, prompt("what time is it")).await.unwrap();
    assert_eq!(
        out.turn.content,
        vec![ContentBlock::tool_use(
            "time-1",
            "mcp__app__server_time",
            json!({})
        )]
    );
    let msgs = vec![
        user("what time is it"),
        ApiMessage {
            role: Role::Assistant,
            content: out.turn.content.clone(),
        },
        ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::tool_result(
                "time-1",
                ToolResultContent::Text(
                    "Permission denied: Plan mode: write operations are not allowed".into(),
                ),
                Some(true),
            )],
        },
    ];
    let out = run(&m, request(msgs)).await.unwrap();
    assert_eq!(
        out.turn.text(),
        "Tool said: Permission denied: Plan mode: write operations are not allowed"
    );
    assert_eq!(out.turn.stop_reason.as_deref(), Some("end_turn"));
}

#[tokio::test]
async fn mock_continuation_counts_chars_of_the_last_tool_result() {
    let m = mock();
    let first = run(&m, prompt("FAKE_PAR /w/notes.txt")).await.unwrap();
    let ids: Vec<String> = first.turn.tool_uses().map(|t| t.id.clone()).collect();
    let msgs = vec![
        user("FAKE_PAR /w/notes.txt"),
        ApiMessage {
            role: Role::Assistant,
            content: first.turn.content.clone(),
        },
        ApiMessage {
            role: Role::User,
            content: vec![
                ContentBlock::tool_result(
                    ids[0].clone(),
                    ToolResultContent::Text("1\tline1\n2\tline2\n3\t".into()),
                    None,
                ),
                ContentBlock::tool_result(
                    ids[1].clone(),
                    ToolResultContent::Text("sécond".into()),
                    Some(false),
                ),
            ],
        },
    ];
    let out = run(&m, request(msgs)).await.unwrap();
    // Unicode scalar values, not bytes: "sécond" is 6 chars (7 bytes).
    assert_eq!(out.turn.text(), "Done. The tool result had 6 chars.");

    // Block-list content counts its text.
    let msgs = vec![
        user("FAKE_READ a"),
        ApiMessage {
            role: Role::Assistant,
            content: vec![ContentBlock::tool_use(
                "t9",
                "Read",
                json!({"file_path": "a"}),
            )],
        },
        ApiMessage {
            role: Role::User,
            content: vec![ContentBlock::tool_result(
                "t9",
                ToolResultContent::Blocks(vec![
                    ContentBlock::text("abc"),
                    ContentBlock::text("de"),
                ]),
                None,
            )],
        },
    ];
    let out = run(&m, request(msgs)).await.unwrap();
    assert_eq!(out.turn.text(), "Done. The tool result had 6 chars.");
}

#[tokio::test]
async fn mock_prompt_is_the_latest_user_text() {
    let m = mock();
    let msgs = vec![
        user("FAKE_BASH"),
        ApiMessage {
            role: Role::Assistant,
            content: vec![ContentBlock::text("I'll run it.")],
        },
        ApiMessage {
            role: Role::User,
            content: vec![
                ContentBlock::text("part one"),
                ContentBlock::text("FAKE_THINK"),
            ],
        },
    ];
    let out = run(&m, request(msgs)).await.unwrap();
    assert_eq!(thinking(&out.turn.content[0]).1, "fakesig");
}

#[tokio::test]
async fn mock_tool_ids_are_unique_per_client() {
    let m = mock();
    let mut ids = std::collections::HashSet::new();
    for _ in 0..5 {
        let out = run(&m, prompt("FAKE_PAR x")).await.unwrap();
        for t in out.turn.tool_uses() {
            assert!(ids.insert(t.id.clone()), "duplicate id {}", t.id);
        }
    }
    assert_eq!(ids.len(), 10);
}

#[tokio::test]
async fn mock_token_counts_are_real_and_grow_with_input() {
    let m = mock();
    let small = run(&m, prompt("say hi")).await.unwrap();
    let big = run(&m, prompt(&"say hi ".repeat(500))).await.unwrap();
    assert!(small.turn.usage.input_tokens > 0);
    assert!(small.turn.usage.output_tokens > 0);
    assert!(
        big.turn.usage.input_tokens > small.turn.usage.input_tokens + 500,
        "{} vs {}",
        big.turn.usage.input_tokens,
        small.turn.usage.input_tokens
    );
    // ⌈26 / 4⌉ for "Hello from the fake model."
    assert_eq!(small.turn.usage.output_tokens, 7);
    // message_start says output 1, as the API does; the delta has the total.
    match &small.events[0] {
        StreamEvent::MessageStart { message } => {
            assert_eq!(message.usage.output_tokens, 1);
            assert_eq!(message.usage.input_tokens, small.turn.usage.input_tokens);
        }
        other => panic!("{other:?}"),
    }
    // Tools count too.
    let mut no_tools = prompt("say hi");
    no_tools.tools.clear();
    let bare = run(&m, no_tools).await.unwrap();
    assert!(bare.turn.usage.input_tokens < small.turn.usage.input_tokens);
    // Longer output, more output tokens.
    let slow = run(&m, prompt("FAKE_SLOW")).await.unwrap();
    assert!(slow.turn.usage.output_tokens > small.turn.usage.output_tokens);
}

// ---------------------------------------------------------------------------------------
// Mock model: script files
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn mock_script_plays_turns_in_order_then_is_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    std::fs::write(
        &path,
        r#"{"turns": [
            {"content": [{"type": "text", "text": "Scripted hello."}]},
            {"content": [{"type": "thinking", "thinking": "Hmm.", "signature": "s1"},
                         {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
                         {"type": "tool_use", "id": "my-id", "name": "Read", "input": {"file_path": "a"}}]},
            {"error": {"status": 529, "message": "Overloaded", "retry_after": 1.5}},
            {"delay_ms": 150, "content": [{"type": "text", "text": "late"}], "stop_reason": "max_tokens"},
            {"content": [{"type": "text", "text": "partial"}],
             "stream_error": {"type": "overloaded_error", "message": "Overloaded"}},
            {"content": [{"type": "tool_use", "name": "Write", "input": "{\"broken"}]}
        ]}"#,
    )
    .unwrap();
    let m = MockClient::from_script(&path).unwrap();

    let out = run(&m, prompt("anything")).await.unwrap();
    assert_eq!(out.turn.text(), "Scripted hello.");
    assert_eq!(out.turn.stop_reason.as_deref(), Some("end_turn"));

    let out = run(&m, prompt("FAKE_WRITE ignored: scripts win"))
        .await
        .unwrap();
    assert_eq!(thinking(&out.turn.content[0]), ("Hmm.", "s1"));
    let (id, name, input) = tool_use(&out.turn.content[1]);
    assert!(id.starts_with("toolu_mock_"));
    assert_eq!((name, input), ("Bash", &json!({"command": "ls"})));
    assert_eq!(tool_use(&out.turn.content[2]).0, "my-id");
    assert_eq!(out.turn.stop_reason.as_deref(), Some("tool_use"));

    let err = run(&m, prompt("x")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::Http {
            status: 529,
            message: "Overloaded".into(),
            retry_after: Some(1.5)
        }
    );

    let t0 = Instant::now();
    let out = run(&m, prompt("x")).await.unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(150));
    assert_eq!(out.turn.text(), "late");
    assert_eq!(out.turn.stop_reason.as_deref(), Some("max_tokens"));

    let err = run(&m, prompt("x")).await.err().unwrap();
    assert_eq!(
        err,
        ModelError::api_stream_error("overloaded_error", "Overloaded")
    );

    let out = run(&m, prompt("x")).await.unwrap();
    assert_eq!(out.turn.invalid_tool_inputs.len(), 1);
    assert_eq!(out.turn.invalid_tool_inputs[0].raw_json, "{\"broken");

    for _ in 0..2 {
        let err = run(&m, prompt("x")).await.err().unwrap();
        assert_eq!(
            err,
            ModelError::Config("mock script exhausted after 6 turns".into())
        );
    }
}

#[tokio::test]
async fn mock_script_delay_is_cancellable() {
    let m = MockClient::from_script_str(
        r#"{"turns": [{"delay_ms": 30000, "content": [{"type": "text", "text": "never"}]},
                      {"delay_ms": 30000, "error": {"status": 500, "message": "x"}}]}"#,
    )
    .unwrap();
    for _ in 0..2 {
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            c2.cancel();
        });
        let t0 = Instant::now();
        let err = run_with(&m, prompt("x"), cancel).await.err().unwrap();
        assert_eq!(err, ModelError::Cancelled);
        assert!(t0.elapsed() < Duration::from_secs(2));
    }
}

#[test]
fn mock_script_errors_are_clear() {
    let err = MockClient::from_script("/nonexistent/dcl/script.json").unwrap_err();
    assert!(
        matches!(&err, ModelError::Config(m) if m.contains("/nonexistent/dcl/script.json")),
        "{err:?}"
    );
    let err = MockClient::from_script_str("{\"turns\": [{\"content\": 3}]}").unwrap_err();
    assert!(matches!(err, ModelError::Config(_)));
    let err = MockClient::from_script_str("{\"turns\": [{\"text\": \"typo\"}]}").unwrap_err();
    assert!(
        matches!(&err, ModelError::Config(m) if m.contains("text")),
        "{err:?}"
    );
}
