//! The OpenAI Chat Completions client and the provider table through a whole
//! `dcl_engine::Session`, against the raw tokio fake servers.

use crate::common;

use std::collections::BTreeMap;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::openai::{ChatStream, FakeOpenAiServer};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut e: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    e.insert("DCL_RETRY_BASE_MS".into(), "1".into());
    e
}

fn options(
    model: &str,
    format: Option<&str>,
    base_url: &str,
    cwd: &std::path::Path,
    env: BTreeMap<String, String>,
) -> SessionOptions {
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some(model.into()),
        api_format: format.map(Into::into),
        base_url: Some(base_url.into()),
        permission_mode: Some("bypassPermissions".into()),
        env,
        ..Default::default()
    }
}

async fn one_turn(opts: SessionOptions, text: &str) -> (Vec<Value>, Value) {
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt(text)).unwrap();
    let out = until_result(&session).await;
    session.close();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_priced_openai_model_streams_text_and_costs_what_the_table_says() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAiServer::start(vec![FakeResponse::sse(
        ChatStream::new()
            .model("gpt-4.1-2025-04-14")
            .text("Hello there.")
            .usage(1000, 100, 200)
            .build(),
    )])
    .await
    .unwrap();
    let (seen, result) = one_turn(
        options(
            "gpt-4.1",
            Some("openai"),
            &server.base_url(),
            dir.path(),
            env(&[("OPENAI_API_KEY", "sk-openai-secret")]),
        ),
        "hi",
    )
    .await;
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "Hello there.");
    assert_eq!(result["stop_reason"], "end_turn");
    // 800 uncached in × $2 + 200 cached × $0.50 + 100 out × $8, per million.
    let cost = result["total_cost_usd"].as_f64().unwrap();
    assert!((cost - 0.0025).abs() < 1e-9, "{result}");
    assert_eq!(result["usage"]["input_tokens"], 800);
    assert_eq!(result["usage"]["cache_read_input_tokens"], 200);
    assert_eq!(result["usage"]["output_tokens"], 100);
    let mu = &result["modelUsage"]["gpt-4.1"];
    assert_eq!(mu["contextWindow"], 1_047_576, "{result}");
    assert_eq!(mu["maxOutputTokens"], 32_768);
    assert!((mu["costUSD"].as_f64().unwrap() - 0.0025).abs() < 1e-9);
    let init = seen.iter().find(|v| v["subtype"] == "init").unwrap();
    assert_eq!(init["apiKeySource"], "OPENAI_API_KEY");

    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-openai-secret"));
    let body = &req.body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["model"], "gpt-4.1");
    assert!(body["max_completion_tokens"].as_u64().unwrap() <= 32_768);
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    assert_eq!(
        msgs.last().unwrap(),
        &json!({"role": "user", "content": "hi"})
    );
    let tools = body["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    for t in tools {
        assert_eq!(t["type"], "function");
        assert!(t["function"]["name"].is_string());
        assert!(t["function"]["parameters"].is_object());
    }
    assert!(
        !seen
            .iter()
            .any(|v| v.to_string().contains("sk-openai-secret"))
    );
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_text_and_parallel_tool_calls_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "line1\nline2\n").unwrap();
    let notes = dir.path().join("notes.txt").display().to_string();
    let server = FakeOpenAiServer::start(vec![
        FakeResponse::sse(
            ChatStream::new()
                .reasoning("I should read the file and echo.")
                .text("Doing both.")
                .tool_call("call_r1", "Read", json!({"file_path": notes}))
                .tool_call("call_b2", "Bash", json!({"command": "echo second"}))
                .build(),
        ),
        FakeResponse::sse(ChatStream::new().text("All done.").build()),
    ])
    .await
    .unwrap();
    let (seen, result) = one_turn(
        options(
            "deepseek-reasoner",
            Some("openai"),
            &server.base_url(),
            dir.path(),
            env(&[("DEEPSEEK_API_KEY", "sk-ds-secret")]),
        ),
        "read and echo",
    )
    .await;
    assert_eq!(result["result"], "All done.", "{result}");
    assert_eq!(result["num_turns"], 2);
    server.assert_no_violations();

    // Assistant lines: thinking (with a synthesised signature), text, two tool uses.
    let blocks: Vec<&Value> = seen
        .iter()
        .filter(|v| v["type"] == "assistant")
        .map(|v| &v["message"]["content"][0])
        .collect();
    assert_eq!(blocks[0]["type"], "thinking");
    assert_eq!(blocks[0]["thinking"], "I should read the file and echo.");
    assert!(
        blocks[0]["signature"]
            .as_str()
            .unwrap()
            .starts_with("dcl-synthetic:")
    );
    assert_eq!(blocks[1]["text"], "Doing both.");
    assert_eq!(blocks[2]["name"], "Read");
    assert_eq!(blocks[3]["name"], "Bash");
    assert_eq!(blocks[3]["id"], "call_b2");

    // The second request carries the calls and one tool message for each.
    let bodies = server.chat_bodies();
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-ds-secret")
    );
    let msgs = bodies[1]["messages"].as_array().unwrap();
    let asst = msgs.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(asst["content"], "Doing both.");
    assert!(asst.get("reasoning_content").is_none());
    let calls = asst["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        serde_json::from_str::<Value>(calls[1]["function"]["arguments"].as_str().unwrap()).unwrap(),
        json!({"command": "echo second"})
    );
    let tool_msgs: Vec<&Value> = msgs.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_msgs.len(), 2);
    assert_eq!(tool_msgs[0]["tool_call_id"], "call_r1");
    assert!(tool_msgs[0]["content"].as_str().unwrap().contains("line1"));
    assert_eq!(tool_msgs[1]["tool_call_id"], "call_b2");
    assert_eq!(tool_msgs[1]["content"].as_str().unwrap().trim(), "second");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_server_is_found_by_its_v1_url_and_needs_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAiServer::start(vec![FakeResponse::sse(
        ChatStream::new().text("Local hello.").build(),
    )])
    .await
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(
            "llama3.1:8b",
            None,
            &server.base_url(),
            dir.path(),
            env(&[]),
        ),
    )
    .unwrap();
    session.send(prompt("hi")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Local hello.", "{result}");
    assert_eq!(server.requests()[0].header("authorization"), None);
    // Not priced: costs 0.
    assert_eq!(result["total_cost_usd"], 0.0);
    let init = seen.iter().find(|v| v["subtype"] == "init").unwrap();
    assert_eq!(init["apiKeySource"], "none");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deepseek_by_name_over_the_anthropic_format_uses_only_its_own_key() {
    // The seed's Java example: `--model deepseek-flash --api-format anthropic`, here with
    // the base URL pointed at the fake.
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(
        SseMessage::new().text("DeepSeek says hi.").build(),
    )])
    .await
    .unwrap();
    let (seen, result) = one_turn(
        options(
            "deepseek-flash",
            Some("anthropic"),
            &server.base_url(),
            dir.path(),
            env(&[
                ("DEEPSEEK_API_KEY", "sk-ds-secret"),
                ("ANTHROPIC_API_KEY", "sk-ant-must-not-leak"),
            ]),
        ),
        "hi",
    )
    .await;
    assert_eq!(result["result"], "DeepSeek says hi.", "{result}");
    let req = &server.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-ds-secret"));
    assert_eq!(req.header("authorization"), Some("Bearer sk-ds-secret"));
    assert!(
        !req.headers
            .iter()
            .any(|(_, v)| v.contains("sk-ant-must-not-leak"))
    );
    assert_eq!(req.body["model"], "deepseek-flash");
    assert!(req.body["max_tokens"].as_u64().unwrap() <= 8_192);
    let init = seen.iter().find(|v| v["subtype"] == "init").unwrap();
    assert_eq!(init["apiKeySource"], "DEEPSEEK_API_KEY");
    let mu = &result["modelUsage"]["deepseek-flash"];
    assert_eq!(mu["contextWindow"], 128_000);
    assert_eq!(mu["costUSD"], 0.0);
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_is_a_clear_error_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let (_, result) = one_turn(
        SessionOptions {
            cwd: Some(dir.path().to_path_buf()),
            model: Some("qwen-plus".into()),
            env: env(&[("OPENAI_API_KEY", "sk-not-for-qwen")]),
            ..Default::default()
        },
        "hi",
    )
    .await;
    assert_eq!(result["is_error"], true);
    let text = result["result"].as_str().unwrap();
    assert!(text.contains("DASHSCOPE_API_KEY"), "{text}");
    assert!(!text.contains("sk-not-for-qwen"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_stream_true_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAiServer::start(vec![FakeResponse::json(
        200,
        &json!({"id": "chatcmpl-x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Whole answer."}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3}}),
    )])
    .await
    .unwrap();
    let (_, result) = one_turn(
        options(
            "local-model",
            Some("openai"),
            &server.base_url(),
            dir.path(),
            env(&[]),
        ),
        "hi",
    )
    .await;
    assert_eq!(result["result"], "Whole answer.", "{result}");
    assert_eq!(result["usage"]["input_tokens"], 7);
}
