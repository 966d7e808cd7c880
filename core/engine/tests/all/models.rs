//! Models: the catalogue (`initialize.models`, Qoder `get_models`), the `auto` / `default`
//! spellings, the Qoder model policy asked before each call, and `MAX_THINKING_TOKENS`.

use crate::common;

use common::{answer, control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

/// Options from JSON (so environment defaults such as the Qoder dialect resolve) against
/// `server`, with a key.
fn opts(
    dir: &std::path::Path,
    server: Option<&FakeAnthropicServer>,
    extra: Value,
) -> SessionOptions {
    let mut v = json!({
        "cwd": dir,
        "outputFormat": "stream-json",
        "env": {"ANTHROPIC_API_KEY": "sk-test"},
    });
    if let Some(s) = server {
        v["baseUrl"] = json!(s.base_url());
    }
    for (k, val) in extra.as_object().unwrap() {
        if k == "env" {
            for (ek, ev) in val.as_object().unwrap() {
                v["env"][ek] = ev.clone();
            }
        } else {
            v[k] = val.clone();
        }
    }
    SessionOptions::from_value(v).unwrap()
}

fn qoder_env() -> Value {
    json!({"env": {"QODER_AGENT_SDK_ENTRYPOINT": "sdk-py"}})
}

fn spawn(o: SessionOptions) -> Session {
    Session::spawn(&tokio::runtime::Handle::current(), o).unwrap()
}

/// Sends a control request and returns its answer's payload (skipping other lines).
async fn ask(session: &Session, id: &str, request: Value) -> Value {
    session.send(control_request(id, request)).unwrap();
    loop {
        let v = next(session).await;
        if v["type"] == "control_response" && v["response"]["request_id"] == id {
            assert_eq!(v["response"]["subtype"], "success", "{v}");
            return v["response"]["response"].clone();
        }
    }
}

fn entry<'a>(models: &'a Value, value: &str) -> &'a Value {
    models
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["value"] == value)
        .unwrap_or_else(|| panic!("no {value} entry in {models}"))
}

fn one_reply(text: &str) -> FakeResponse {
    FakeResponse::sse(SseMessage::new().text(text).build())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_models_lists_the_catalogue_with_context_and_thinking_settings() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(
        dir.path(),
        None,
        json!({"model": "claude-sonnet-4-5", "effort": "high",
               "env": {"QODER_AGENT_SDK_ENTRYPOINT": "sdk-py"}}),
    ));
    let got = ask(&session, "m", json!({"subtype": "get_models"})).await;
    let models = &got["models"];
    let auto = entry(models, "auto");
    assert_eq!(auto["resolvedModel"], "claude-sonnet-4-5", "{auto}");
    assert_eq!(auto["isEnabled"], true);
    let sonnet = entry(models, "sonnet");
    assert_eq!(sonnet["context_config"]["200K"]["token_count"], 200_000);
    assert_eq!(sonnet["context_config"]["200K"]["is_default"], true);
    let on = &sonnet["thinking_config"]["enabled"];
    assert_eq!(
        on["is_default"], true,
        "the session's effort is high: {sonnet}"
    );
    assert_eq!(on["efforts"]["high"]["is_default"], true);
    assert_eq!(
        on["efforts"]["low"]["description"],
        "thinking budget of 4096 tokens"
    );
    assert!(sonnet["thinking_config"]["disabled"].is_object());
    assert_eq!(sonnet["supportsEffort"], true);
    assert_eq!(
        sonnet["supportedEffortLevels"],
        json!(["low", "medium", "high", "max"])
    );
    let mock = entry(models, "mock-model");
    assert_eq!(mock["supportsEffort"], false);
    assert!(mock["thinking_config"]["enabled"].is_null(), "{mock}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_without_a_key_is_listed_as_not_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(
        dir.path(),
        None,
        json!({"model": "gpt-4o", "env": {"QODER_AGENT_SDK_ENTRYPOINT": "sdk-py",
                                          "OPENAI_API_KEY": "sk-openai"}}),
    );
    o.env.remove("ANTHROPIC_API_KEY");
    let session = spawn(o);
    let got = ask(&session, "m", json!({"subtype": "get_models"})).await;
    assert_eq!(entry(&got["models"], "gpt-4o")["isEnabled"], true);
    assert_eq!(entry(&got["models"], "opus")["isEnabled"], false, "{got}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_lists_models_with_the_fields_the_claude_sdks_type() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(
        dir.path(),
        None,
        json!({"model": "claude-sonnet-4-5"}),
    ));
    let init = ask(&session, "i", json!({"subtype": "initialize"})).await;
    let models = &init["models"];
    let default = entry(models, "default");
    assert_eq!(default["resolvedModel"], "claude-sonnet-4-5");
    let haiku = entry(models, "haiku");
    assert_eq!(haiku["resolvedModel"], "claude-haiku-4-5");
    assert_eq!(haiku["supportsEffort"], true);
    assert_eq!(haiku["supportsAdaptiveThinking"], false);
    // The Qoder-only fields stay out of the Claude dialect.
    assert!(haiku.get("context_config").is_none() && haiku.get("isEnabled").is_none());
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_auto_is_the_configured_default() {
    let server = FakeAnthropicServer::start(vec![one_reply("hi")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), Some(&server), json!({"model": "auto"})));
    session.send(prompt("hello")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    let body = &server.message_bodies()[0];
    assert_eq!(
        body["model"],
        dcl_engine::session::models::DEFAULT_ANTHROPIC_MODEL
    );
    session.close();
}

/// Initializes with `modelPolicyProvider: true` and sends `text`; returns the policy
/// request dcl sent.
async fn policy_request(session: &Session, text: &str) -> Value {
    let init = ask(
        session,
        "init",
        json!({"subtype": "initialize", "modelPolicyProvider": true}),
    )
    .await;
    assert!(init["models"].is_array());
    session.send(prompt(text)).unwrap();
    loop {
        let v = next(session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "get_model_policy" {
            return v;
        }
        assert_ne!(
            v["type"], "result",
            "no policy request before the result: {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_model_policy_picks_the_model_of_each_call() {
    let server = FakeAnthropicServer::start(vec![one_reply("from haiku")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut extra = qoder_env();
    extra["model"] = json!("auto");
    let session = spawn(opts(dir.path(), Some(&server), extra));
    let req = policy_request(&session, "hello").await;
    let r = &req["request"];
    assert_eq!(r["purpose"], "main", "{req}");
    assert_eq!(r["turnIndex"], 0);
    assert_eq!(
        r["resolvedModel"],
        dcl_engine::session::models::DEFAULT_ANTHROPIC_MODEL
    );
    assert!(r["sessionId"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(
        r["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["value"] == "auto")
    );
    session
        .send(answer(
            &req["request_id"],
            json!({"type": "get_model_policy", "model": "haiku",
                   "parameters": {"reasoningEffort": "low"}}),
        ))
        .unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    let body = &server.message_bodies()[0];
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4096})
    );
    let assistant = seen.iter().find(|v| v["type"] == "assistant").unwrap();
    assert_eq!(assistant["message"]["model"], "claude-haiku-4-5");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_policy_answer_keeps_dcls_model_and_a_refusal_fails_the_turn() {
    let server = FakeAnthropicServer::start(vec![one_reply("kept")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut extra = qoder_env();
    extra["model"] = json!("claude-sonnet-4-5");
    let session = spawn(opts(dir.path(), Some(&server), extra));
    let req = policy_request(&session, "hello").await;
    session
        .send(answer(
            &req["request_id"],
            json!({"type": "get_model_policy"}),
        ))
        .unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(server.message_bodies()[0]["model"], "claude-sonnet-4-5");

    session.send(prompt("again")).unwrap();
    let req = loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "get_model_policy" {
            break v;
        }
    };
    assert_eq!(req["request"]["turnIndex"], 1);
    let line = json!({"type": "control_response", "response": {"subtype": "error",
        "request_id": req["request_id"], "error": "policy callback exploded"}});
    session
        .send(dcl_protocol::parse_line(&line.to_string()).unwrap())
        .unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["is_error"], true, "{result}");
    assert!(
        result.to_string().contains("policy callback exploded"),
        "the host's error reaches the caller: {result}"
    );
    assert_eq!(
        server.message_bodies().len(),
        1,
        "no model call after a refusal"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_model_policy_provider_no_policy_request_is_sent() {
    let server = FakeAnthropicServer::start(vec![one_reply("plain")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), Some(&server), qoder_env()));
    ask(
        &session,
        "init",
        json!({"subtype": "initialize", "modelPolicyProvider": false}),
    )
    .await;
    session.send(prompt("hello")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "{seen:?}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_thinking_tokens_in_the_environment_turns_thinking_on() {
    let server = FakeAnthropicServer::start(vec![one_reply("thought"), one_reply("plain")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(
        dir.path(),
        Some(&server),
        json!({"model": "claude-sonnet-4-5", "env": {"MAX_THINKING_TOKENS": "5000"}}),
    ));
    session.send(prompt("think")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(
        server.message_bodies()[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 5000})
    );

    // Its positive twin: without the variable, no thinking is asked for.
    let dir = tempfile::tempdir().unwrap();
    let session2 = spawn(opts(
        dir.path(),
        Some(&server),
        json!({"model": "claude-sonnet-4-5"}),
    ));
    session2.send(prompt("plain")).unwrap();
    until_result(&session2).await;
    assert!(server.message_bodies()[1].get("thinking").is_none());
    session.close();
    session2.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_model_and_effort_set_the_session_unless_flags_chose() {
    let server = FakeAnthropicServer::start(vec![one_reply("a"), one_reply("b")])
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), Some(&server), json!({})));
    let init = ask(
        &session,
        "init",
        json!({"subtype": "initialize", "model": "haiku", "reasoningEffort": "low",
               "context_window": 1000}),
    )
    .await;
    let warnings = init["warnings"].to_string();
    assert!(warnings.contains("context_window"), "{init}");
    assert!(!warnings.contains("initialize.model"), "{init}");
    session.send(prompt("hello")).unwrap();
    until_result(&session).await;
    let body = &server.message_bodies()[0];
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4096})
    );
    session.close();

    // The configured model and effort win, and the answer says so.
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(
        dir.path(),
        Some(&server),
        json!({"model": "claude-sonnet-4-5", "effort": "high"}),
    ));
    let init = ask(
        &session,
        "init",
        json!({"subtype": "initialize", "model": "haiku", "reasoningEffort": "low"}),
    )
    .await;
    let warnings = init["warnings"].to_string();
    assert!(warnings.contains("initialize.model"), "{init}");
    assert!(warnings.contains("initialize.reasoningEffort"), "{init}");
    session.send(prompt("hello")).unwrap();
    until_result(&session).await;
    let body = &server.message_bodies()[1];
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 32000 - 1})
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_initialize_effort_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), None, json!({"model": "mock-model"})));
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "reasoningEffort": "enormous"}),
        ))
        .unwrap();
    loop {
        let v = next(&session).await;
        if v["type"] == "control_response" {
            assert_eq!(v["response"]["subtype"], "error", "{v}");
            assert!(
                v["response"]["error"]
                    .to_string()
                    .contains("reasoningEffort"),
                "{v}"
            );
            break;
        }
    }
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagents_calls_ask_the_policy_as_subagent_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut extra = qoder_env();
    extra["model"] = json!("mock-model");
    extra["permissionMode"] = json!("bypassPermissions");
    let session = spawn(opts(dir.path(), None, extra));
    ask(
        &session,
        "init",
        json!({"subtype": "initialize", "modelPolicyProvider": true}),
    )
    .await;
    let call = json!({"description": "d", "prompt": "say hi", "subagent_type": "general-purpose"});
    session
        .send(prompt(&format!("FAKE_TOOL Agent {call}")))
        .unwrap();
    let mut asked = Vec::new();
    let result = loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "get_model_policy" {
            asked.push(v["request"].clone());
            session
                .send(answer(
                    &v["request_id"],
                    json!({"type": "get_model_policy"}),
                ))
                .unwrap();
        }
        if v["type"] == "result" {
            break v;
        }
    };
    assert_eq!(result["subtype"], "success", "{result}");
    let purposes: Vec<&str> = asked
        .iter()
        .map(|r| r["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(purposes, ["main", "subagent", "main"], "{asked:?}");
    assert_eq!(asked[1]["agentType"], "general-purpose");
    assert!(asked[1]["agentId"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(asked[0].get("agentId").is_none());
    session.close();
}
