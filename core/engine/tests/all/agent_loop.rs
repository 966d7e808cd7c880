//! The agent loop against a scripted fake Anthropic server that checks, on every request,
//! that each tool_use is answered by exactly one tool_result.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_protocol::Message;
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

fn options(server: &FakeAnthropicServer, cwd: &std::path::Path, mode: &str) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert(
        "ANTHROPIC_API_KEY".to_string(),
        "sk-test-secret-key".to_string(),
    );
    env.insert("DCL_RETRY_BASE_MS".to_string(), "1".to_string());
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("claude-test".into()),
        base_url: Some(server.base_url()),
        permission_mode: Some(mode.into()),
        env,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_tool_calls_are_each_answered_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "line1\nline2\n").unwrap();
    let notes = dir.path().join("notes.txt").display().to_string();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .text("Reading two files.")
                .tool_use("toolu_1", "Read", json!({"file_path": notes}))
                .tool_use("toolu_2", "Bash", json!({"command": "echo second"}))
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("All done.").build()),
    ])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "default"),
    )
    .unwrap();
    session.send(prompt("read things")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["result"], "All done.");
    assert_eq!(result["num_turns"], 2);
    assert_eq!(result["usage"]["input_tokens"], 200);
    server.assert_no_violations();
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 2);
    let second = &bodies[1]["messages"];
    let results = second[2]["content"].as_array().unwrap();
    assert_eq!(
        results.len(),
        2,
        "both tool results in one user message: {second}"
    );
    assert!(results[0]["content"].as_str().unwrap().contains("line1"));
    assert_eq!(results[1]["content"].as_str().unwrap().trim(), "second");
    // One assistant line per block, sharing the message id.
    let assistant: Vec<&Value> = seen.iter().filter(|v| v["type"] == "assistant").collect();
    assert_eq!(assistant.len(), 4);
    assert_eq!(assistant[0]["message"]["id"], assistant[2]["message"]["id"]);
    // The key never reaches the output.
    assert!(
        !seen
            .iter()
            .any(|v| v.to_string().contains("sk-test-secret-key"))
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_during_a_tool_keeps_the_history_valid() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .tool_use("toolu_1", "Bash", json!({"command": "sleep 30"}))
                .tool_use("toolu_2", "Bash", json!({"command": "echo never"}))
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("Fresh start.").build()),
    ])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "bypassPermissions"),
    )
    .unwrap();
    session.send(prompt("run it")).unwrap();
    loop {
        let m = session.recv().await.unwrap();
        if matches!(m, Message::ToolStart(_)) {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    session.interrupt();
    let (_, result) = until_result(&session).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_tools");
    session.send(prompt("again")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["result"], "Fresh start.");
    // The second request carried a tool_result for both calls, so the API accepted it.
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried_after_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::rate_limited(0),
        FakeResponse::overloaded(),
        FakeResponse::sse(SseMessage::new().text("Finally.").build()),
    ])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "default"),
    )
    .unwrap();
    session.send(prompt("hello")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Finally.");
    let retries: Vec<&Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "api_retry")
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(retries[0]["error_status"], 429);
    assert_eq!(retries[1]["error_status"], 529);
    let req = &server.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-test-secret-key"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_halfway_is_a_clear_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .text("This answer will be cut off in the middle")
                .build(),
        )
        .cut_after_event("content_block_delta"),
    ])
    .await
    .unwrap();
    let mut opts = options(&server, dir.path(), "default");
    opts.env.insert("DCL_MAX_RETRIES".into(), "0".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("hello")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["is_error"], true);
    assert!(
        result["result"].as_str().unwrap().contains("connection"),
        "{result}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_tool_json_from_the_model_is_answered_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .tool_use_raw("toolu_1", "Read", &["{\"file_path\": ", "oops"])
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("Understood.").build()),
    ])
    .await
    .unwrap();
    // Non-interactive: the Write is denied at once instead of waiting for a host.
    let mut opts = options(&server, dir.path(), "default");
    opts.non_interactive = true;
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("read")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Understood.");
    let tr = seen
        .iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert_eq!(tr["message"]["content"][0]["is_error"], true);
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_the_model_invented_is_an_error_result() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .tool_use("toolu_1", "Teleport", json!({"to": "mars"}))
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("Oh well.").build()),
    ])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "default"),
    )
    .unwrap();
    session.send(prompt("go")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Oh well.");
    let tr = seen
        .iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert!(
        tr["message"]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("No such tool")
    );
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn should_query_false_adds_context_without_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(
        SseMessage::new().text("Noted both.").build(),
    )])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "default"),
    )
    .unwrap();
    let mut quiet = prompt("background fact: the sky is green");
    if let Message::User(u) = &mut quiet {
        u.extra.insert("shouldQuery".into(), json!(false));
    }
    session.send(quiet).unwrap();
    session.send(prompt("what colour is the sky?")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["result"], "Noted both.");
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 1, "one model call for two messages");
    let first = bodies[0]["messages"][0].to_string();
    assert!(
        first.contains("the sky is green") && first.contains("what colour"),
        "{first}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_calls_run_as_a_batch_and_keep_their_order() {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in [("a.txt", "alpha\n"), ("b.txt", "beta\n")] {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let a = dir.path().join("a.txt").display().to_string();
    let b = dir.path().join("b.txt").display().to_string();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .tool_use("toolu_1", "Read", json!({"file_path": a}))
                .tool_use(
                    "toolu_2",
                    "Grep",
                    json!({"pattern": "beta", "output_mode": "content"}),
                )
                .tool_use("toolu_3", "Read", json!({"file_path": b}))
                .tool_use(
                    "toolu_4",
                    "Write",
                    json!({"file_path": "c.txt", "content": "x"}),
                )
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("Read them.").build()),
    ])
    .await
    .unwrap();
    // Non-interactive: the Write is denied at once instead of waiting for a host.
    let mut opts = options(&server, dir.path(), "default");
    opts.non_interactive = true;
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("read")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Read them.");
    let ids: Vec<&str> = seen
        .iter()
        .filter(|v| v["type"] == "user")
        .filter_map(|v| v["message"]["content"][0]["tool_use_id"].as_str())
        .collect();
    assert_eq!(ids, vec!["toolu_1", "toolu_2", "toolu_3", "toolu_4"]);
    let bodies = server.message_bodies();
    let results = bodies[1]["messages"][2]["content"].as_array().unwrap();
    assert!(results[0]["content"].as_str().unwrap().contains("alpha"));
    assert!(results[1]["content"].as_str().unwrap().contains("beta"));
    assert!(results[2]["content"].as_str().unwrap().contains("beta"));
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_files_are_in_the_system_prompt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "Use tabs, never spaces.").unwrap();
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(
        SseMessage::new().text("ok").build(),
    )])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server, dir.path(), "default"),
    )
    .unwrap();
    session.send(prompt("hi")).unwrap();
    until_result(&session).await;
    let system = server.message_bodies()[0]["system"].to_string();
    assert!(system.contains("Use tabs, never spaces."), "{system}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overloaded_model_falls_back_to_the_fallback_model() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::overloaded(),
        FakeResponse::sse(SseMessage::new().text("From the fallback.").build()),
    ])
    .await
    .unwrap();
    let mut opts = options(&server, dir.path(), "default");
    opts.env.insert("DCL_MAX_RETRIES".into(), "0".into());
    opts.fallback_model = Some("claude-fallback".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("hi")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "From the fallback.");
    let bodies = server.message_bodies();
    assert_eq!(bodies[0]["model"], "claude-test");
    assert_eq!(bodies[1]["model"], "claude-fallback");
    assert!(seen.iter().any(|v| v["subtype"] == "informational"
        && v["content"].as_str().unwrap().contains("claude-fallback")));
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn falling_back_fires_post_model_switch_whose_context_reaches_the_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::overloaded(),
        FakeResponse::sse(SseMessage::new().text("From the fallback.").build()),
    ])
    .await
    .unwrap();
    let mut opts = options(&server, dir.path(), "default");
    opts.env.insert("DCL_MAX_RETRIES".into(), "0".into());
    opts.fallback_model = Some("claude-fallback".into());
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"now on the fallback"}}"#;
    opts.settings = Some(
        serde_json::json!({"hooks": {"PostModelSwitch": [{"matcher": "claude-fallback", "hooks": [
            {"type": "command", "command": format!("cat > switch.json; echo '{answer}'")}]}]}})
        .to_string(),
    );
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("hi")).unwrap();
    let (_, result) = until_result(&session).await;
    session.close();
    assert_eq!(result["result"], "From the fallback.");
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("switch.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PostModelSwitch");
    assert_eq!(input["source"], "auto");
    assert_eq!(input["from_model"], "claude-test");
    assert_eq!(input["to_model"], "claude-fallback");
    let bodies = server.message_bodies();
    assert!(
        !bodies[0]["messages"]
            .to_string()
            .contains("now on the fallback")
            && bodies[1]["messages"]
                .to_string()
                .contains("now on the fallback"),
        "{}",
        bodies[1]["messages"]
    );
}
