//! The session as every host sees it, under the conditions that used to leak, block or
//! poison it: a host that never answers, a host that stops reading, a closed session with
//! work in flight, a request the API refuses, a tool_result that answers nothing.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{answer, control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_protocol::Message;
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

fn mock(cwd: &std::path::Path, mode: &str) -> SessionOptions {
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some(mode.into()),
        ..Default::default()
    }
}

fn rt() -> tokio::runtime::Handle {
    tokio::runtime::Handle::current()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_the_host_never_answers_is_cancelled_when_it_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&rt(), mock(dir.path(), "bypassPermissions")).unwrap();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {"PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["never"], "timeout": 1}
            ]}}),
        ))
        .unwrap();
    session.send(prompt("please FAKE_BASH")).unwrap();
    let (seen, result) = until_result(&session).await;
    let asked: Vec<&Value> = seen
        .iter()
        .filter(|v| v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback")
        .collect();
    assert_eq!(asked.len(), 1, "{seen:#?}");
    let id = asked[0]["request_id"].as_str().unwrap();
    let cancelled = seen
        .iter()
        .any(|v| v["type"] == "control_cancel_request" && v["request_id"] == id);
    assert!(cancelled, "no control_cancel_request for {id}: {seen:#?}");
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(session.pending_host_requests(), 0);
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answered_hook_is_not_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&rt(), mock(dir.path(), "bypassPermissions")).unwrap();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {"PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["quick"], "timeout": 5}
            ]}}),
        ))
        .unwrap();
    session.send(prompt("please FAKE_BASH")).unwrap();
    let mut seen = Vec::new();
    loop {
        let v = next(&session).await;
        seen.push(v.clone());
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            session.send(answer(&v["request_id"], json!({}))).unwrap();
        }
        if v["type"] == "result" {
            break;
        }
    }
    assert!(
        !seen.iter().any(|v| v["type"] == "control_cancel_request"),
        "{seen:#?}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_session_leaves_no_running_turn() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&rt(), mock(dir.path(), "bypassPermissions")).unwrap();
    session
        .send(prompt(
            r#"FAKE_TOOL Bash {"command": "sleep 2 && touch late.txt"}"#,
        ))
        .unwrap();
    loop {
        let v = next(&session).await;
        if v["type"] == "assistant" && v["message"]["content"][0]["type"] == "tool_use" {
            break;
        }
    }
    // Give the tool a moment to start, then close with it running.
    tokio::time::sleep(Duration::from_millis(200)).await;
    session.close();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while session.recv().await.is_some() {}
    })
    .await;
    assert!(ended.is_ok(), "the session did not end after close");
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        !dir.path().join("late.txt").exists(),
        "the closed turn's command went on running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_stops_reading_keeps_the_outbox_bounded_and_loses_nothing() {
    let chunks: Vec<String> = (0..5_000).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(
        SseMessage::new().text_chunks(&refs).build(),
    )])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut env = BTreeMap::new();
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-test".to_string());
    env.insert("DCL_OUTBOX_LINES".to_string(), "64".to_string());
    let opts = SessionOptions {
        cwd: Some(dir.path().to_path_buf()),
        model: Some("claude-test".into()),
        base_url: Some(server.base_url()),
        include_partial_messages: true,
        env,
        ..Default::default()
    };
    let session = Session::spawn(&rt(), opts).unwrap();
    session.send(prompt("talk a lot")).unwrap();
    // The host reads nothing for a while; the stream would give 5,000+ lines.
    let mut peak = 0;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        peak = peak.max(session.queued());
    }
    assert!(
        peak <= 64 + 8,
        "the outbox grew to {peak} lines while the host was not reading"
    );
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success");
    let deltas = seen
        .iter()
        .filter(|v| v["type"] == "stream_event" && v["event"]["type"] == "content_block_delta")
        .count();
    assert_eq!(deltas, 5_000, "every partial-message delta arrives");
    assert_eq!(result["result"].as_str().unwrap(), chunks.concat());
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_the_api_refused_does_not_poison_the_next_turn() {
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::error(400, "invalid_request_error", "prompt is not acceptable"),
        FakeResponse::sse(SseMessage::new().text("Fine now.").build()),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut env = BTreeMap::new();
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-test".to_string());
    let opts = SessionOptions {
        cwd: Some(dir.path().to_path_buf()),
        model: Some("claude-test".into()),
        base_url: Some(server.base_url()),
        env,
        ..Default::default()
    };
    let session = Session::spawn(&rt(), opts).unwrap();
    session.send(prompt("POISON_MARKER please")).unwrap();
    let (_, first) = until_result(&session).await;
    assert_eq!(first["is_error"], true, "{first}");
    assert_eq!(first["api_error_status"], 400);
    session.send(prompt("hello again")).unwrap();
    let (_, second) = until_result(&session).await;
    assert_eq!(second["is_error"], false, "{second}");
    assert_eq!(second["result"], "Fine now.");
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 2);
    let resent = bodies[1]["messages"].to_string();
    assert!(
        !resent.contains("POISON_MARKER"),
        "the refused prompt was sent again: {resent}"
    );
    assert!(resent.contains("hello again"));
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_result_answering_no_call_is_refused_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&rt(), mock(dir.path(), "default")).unwrap();
    let stray = json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_nobody", "content": "x"}
    ]}});
    session
        .send(dcl_protocol::parse_line(&stray.to_string()).unwrap())
        .unwrap();
    let (seen, refused) = until_result(&session).await;
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(
        refused["errors"][0]
            .as_str()
            .unwrap()
            .contains("toolu_nobody"),
        "{refused}"
    );
    assert!(
        !seen.iter().any(|v| v["type"] == "assistant"),
        "nothing reached the model: {seen:#?}"
    );
    session.send(prompt("hi")).unwrap();
    let (_, ok) = until_result(&session).await;
    assert_eq!(ok["subtype"], "success");
    assert_eq!(ok["result"], "Hello from the fake model.");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_taken_before_the_end_of_input_are_all_answered() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&rt(), mock(dir.path(), "default")).unwrap();
    for i in 0..200 {
        session
            .send(control_request(
                &format!("status-{i}"),
                json!({"subtype": "mcp_status"}),
            ))
            .unwrap();
    }
    session.end_input();
    let mut answered = 0;
    while let Some(m) = tokio::time::timeout(Duration::from_secs(30), session.recv())
        .await
        .expect("the session ends")
    {
        if matches!(m, Message::ControlResponse(_)) {
            answered += 1;
        }
    }
    assert_eq!(answered, 200);
}
