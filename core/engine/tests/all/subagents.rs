//! Subagents: the Agent tool runs a child turn whose lines carry the call's id, whose
//! final text is the tool result, with the agent's own tools; background agents report
//! through task frames; agents from every source are listed.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_protocol::{ControlRequestEnvelope, Message};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

fn mock(cwd: &std::path::Path) -> SessionOptions {
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("bypassPermissions".into()),
        ..Default::default()
    }
}

fn agent_call(input: Value) -> Message {
    prompt(&format!("FAKE_TOOL Agent {input}"))
}

fn initialize(session: &Session, request: Value) {
    session
        .send(Message::ControlRequest(ControlRequestEnvelope {
            request_id: "init".into(),
            request,
            extra: Default::default(),
        }))
        .unwrap();
}

fn agent_tool_use_id(seen: &[Value]) -> String {
    seen.iter()
        .find(|v| {
            v["type"] == "assistant"
                && v["message"]["content"][0]["name"] == "Agent"
                && v["parent_tool_use_id"].is_null()
        })
        .expect("the main thread called Agent")["message"]["content"][0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn tool_result_for<'a>(seen: &'a [Value], id: &str) -> &'a Value {
    seen.iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["tool_use_id"] == id)
        .expect("a tool_result for the call")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_runs_as_a_child_turn_and_its_final_text_is_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&tokio::runtime::Handle::current(), mock(dir.path())).unwrap();
    session
        .send(agent_call(
            json!({"description": "run it", "prompt": "please FAKE_BASH",
            "subagent_type": "general-purpose"}),
        ))
        .unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    let id = agent_tool_use_id(&seen);
    let child: Vec<&Value> = seen
        .iter()
        .filter(|v| v["parent_tool_use_id"] == id.as_str())
        .collect();
    assert!(
        child
            .iter()
            .any(|v| v["type"] == "assistant" && v["message"]["content"][0]["name"] == "Bash"),
        "the child's Bash call is on the stream: {child:#?}"
    );
    assert!(
        child
            .iter()
            .any(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result"),
        "{child:#?}"
    );
    assert!(
        !child
            .iter()
            .any(|v| v["type"] == "assistant" && v["message"]["content"][0]["type"] == "text"),
        "without forwardSubagentText the child's text stays off the stream: {child:#?}"
    );
    assert!(
        !child
            .iter()
            .any(|v| v["type"] == "user" && v["message"]["content"].is_string()),
        "without forwardSubagentText the child's prompt stays off the stream: {child:#?}"
    );
    assert!(
        !seen
            .iter()
            .any(|v| v["type"] == "result" && v["parent_tool_use_id"].is_string()),
        "a child turn emits no result of its own"
    );
    let answer = tool_result_for(&seen, &id);
    let text = answer["message"]["content"][0]["content"].to_string();
    assert!(
        text.contains("Done. The tool result had"),
        "the child's final text is the tool result: {answer}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_text_carries_the_parent_and_hooks_fire() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&tokio::runtime::Handle::current(), mock(dir.path())).unwrap();
    initialize(
        &session,
        json!({"subtype": "initialize", "forwardSubagentText": true, "hooks": {
            "SubagentStart": [{"hookCallbackIds": ["start"]}],
            "SubagentStop": [{"hookCallbackIds": ["stop"]}]
        }}),
    );
    session
        .send(agent_call(
            json!({"description": "say", "prompt": "please FAKE_BASH"}),
        ))
        .unwrap();
    let mut seen = Vec::new();
    let mut events = Vec::new();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .unwrap()
            .unwrap();
        let v = serde_json::to_value(&m).unwrap();
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            events.push(v["request"]["input"]["hook_event_name"].clone());
            assert!(v["request"]["input"]["agent_id"].is_string(), "{v}");
            let answer = json!({"type": "control_response", "response": {
                "subtype": "success", "request_id": v["request_id"], "response": {}}});
            session
                .send(dcl_protocol::parse_line(&answer.to_string()).unwrap())
                .unwrap();
        }
        let done = v["type"] == "result";
        seen.push(v);
        if done {
            break;
        }
    }
    assert_eq!(events, vec![json!("SubagentStart"), json!("SubagentStop")]);
    let id = agent_tool_use_id(&seen);
    assert!(
        seen.iter().any(|v| v["type"] == "assistant"
            && v["parent_tool_use_id"] == id.as_str()
            && v["message"]["content"][0]["text"] == "I'll run it."),
        "{seen:#?}"
    );
    // The nested transcript starts with the subagent's prompt, under its parent.
    assert!(
        seen.iter().any(|v| v["type"] == "user"
            && v["parent_tool_use_id"] == id.as_str()
            && v["message"]["content"] == "please FAKE_BASH"),
        "{seen:#?}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_gets_only_its_own_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = mock(dir.path());
    opts.agents = Some(
        json!({"reader": {"description": "reads", "prompt": "You only read.", "tools": ["Read"]}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session
        .send(agent_call(
            json!({"description": "try", "subagent_type": "reader",
            "prompt": "FAKE_TOOL Bash {\"command\": \"touch escaped.txt\"}"}),
        ))
        .unwrap();
    let (seen, _) = until_result(&session).await;
    assert!(
        !dir.path().join("escaped.txt").exists(),
        "a Read-only agent ran Bash"
    );
    let id = agent_tool_use_id(&seen);
    let refused = seen.iter().any(|v| {
        v["type"] == "user"
            && v["parent_tool_use_id"] == id.as_str()
            && v["message"]["content"][0]["content"]
                .to_string()
                .contains("No such tool available: Bash")
    });
    assert!(refused, "{seen:#?}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_agent_type_is_an_error_naming_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&tokio::runtime::Handle::current(), mock(dir.path())).unwrap();
    session
        .send(agent_call(json!({"description": "x", "prompt": "hi",
            "subagent_type": "nobody"})))
        .unwrap();
    let (seen, _) = until_result(&session).await;
    let id = agent_tool_use_id(&seen);
    let r = tool_result_for(&seen, &id);
    assert_eq!(r["message"]["content"][0]["is_error"], true);
    assert!(
        r.to_string().contains("general-purpose"),
        "lists the known agents: {r}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_agent_reports_through_task_frames() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(&tokio::runtime::Handle::current(), mock(dir.path())).unwrap();
    session
        .send(agent_call(
            json!({"description": "bg work", "prompt": "please FAKE_BASH",
            "run_in_background": true}),
        ))
        .unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success");
    let started = seen
        .iter()
        .find(|v| v["type"] == "system" && v["subtype"] == "task_started")
        .expect("task_started");
    assert_eq!(started["task_type"], "local_agent");
    let task_id = started["task_id"].as_str().unwrap().to_string();
    let notification = loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .unwrap()
            .unwrap();
        let v = serde_json::to_value(&m).unwrap();
        if v["type"] == "system" && v["subtype"] == "task_notification" {
            break v;
        }
    };
    assert_eq!(notification["task_id"], task_id.as_str());
    assert_eq!(notification["status"], "completed", "{notification}");
    assert!(
        notification["summary"]
            .as_str()
            .unwrap()
            .contains("Done. The tool result had")
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_from_every_source_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let agents_dir = dir.path().join(".claude/agents");
    std::fs::create_dir_all(&agents_dir).unwrap();
    std::fs::write(
        agents_dir.join("filed.md"),
        "---\ndescription: from a file\n---\nYou were filed.",
    )
    .unwrap();
    let mut opts = mock(dir.path());
    opts.agents = Some(
        json!({"flagged": {"description": "from --agents", "prompt": "p"}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    let mut big = serde_json::Map::new();
    for i in 0..20 {
        big.insert(
            format!("big{i}"),
            json!({"description": format!("agent {i}"), "prompt": "x".repeat(13_000)}),
        );
    }
    initialize(&session, json!({"subtype": "initialize", "agents": big}));
    let answer = loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .unwrap()
            .unwrap();
        let v = serde_json::to_value(&m).unwrap();
        if v["type"] == "control_response" {
            break v;
        }
    };
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    let listed: Vec<String> = answer["response"]["response"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect();
    for name in [
        "general-purpose",
        "Explore",
        "filed",
        "flagged",
        "big0",
        "big19",
    ] {
        assert!(listed.iter().any(|n| n == name), "{name} not in {listed:?}");
    }
    session.send(prompt("hi")).unwrap();
    let (seen, _) = until_result(&session).await;
    let init = seen
        .iter()
        .find(|v| v["type"] == "system" && v["subtype"] == "init")
        .unwrap();
    assert!(init["tools"].as_array().unwrap().contains(&json!("Task")));
    let names = init["agents"].as_array().unwrap();
    assert!(names.contains(&json!("filed")) && names.contains(&json!("big7")));
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_subagents_run_side_by_side() {
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(
            SseMessage::new()
                .tool_use(
                    "toolu_a",
                    "Agent",
                    json!({"description": "a", "prompt": "first"}),
                )
                .tool_use(
                    "toolu_b",
                    "Agent",
                    json!({"description": "b", "prompt": "second"}),
                )
                .stop_reason("tool_use")
                .build(),
        ),
        FakeResponse::sse(SseMessage::new().text("child report").build()),
        FakeResponse::sse(SseMessage::new().text("child report").build()),
        FakeResponse::sse(SseMessage::new().text("Both reported.").build()),
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
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    session.send(prompt("delegate twice")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["result"], "Both reported.", "{result}");
    for id in ["toolu_a", "toolu_b"] {
        let r = tool_result_for(&seen, id);
        assert!(r.to_string().contains("child report"), "{r}");
    }
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 4);
    // Each child starts with a fresh conversation: its own prompt only.
    let child_prompts: Vec<String> = bodies[1..3]
        .iter()
        .map(|b| b["messages"][0]["content"].to_string())
        .collect();
    assert!(child_prompts.iter().any(|p| p.contains("first")));
    assert!(child_prompts.iter().any(|p| p.contains("second")));
    assert!(
        bodies[1]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "Agent"),
        "a subagent is never offered the Agent tool"
    );
    server.assert_no_violations();
    session.close();
}
