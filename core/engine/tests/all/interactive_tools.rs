//! AskUserQuestion and ExitPlanMode: the question reaches the host as can_use_tool and
//! the answers come back in updatedInput; approving a plan leaves plan mode.

use crate::common;

use std::time::Duration;

use common::{prompt, until_result};
use dcl_engine::options::OutputFormat;
use dcl_engine::{Session, SessionOptions};
use serde_json::{Value, json};

fn opts(dir: &std::path::Path, mode: &str) -> SessionOptions {
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some(mode.into()),
        ..Default::default()
    }
}

/// Reads to the result, answering every can_use_tool with `answer(request)`.
async fn run(session: &Session, answer: impl Fn(&Value) -> Value) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .unwrap()
            .unwrap();
        let v = serde_json::to_value(&m).unwrap();
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            let reply = json!({"type": "control_response", "response": {
                "subtype": "success", "request_id": v["request_id"], "response": answer(&v["request"])}});
            session
                .send(dcl_protocol::parse_line(&reply.to_string()).unwrap())
                .unwrap();
        }
        let done = v["type"] == "result";
        seen.push(v);
        if done {
            return seen;
        }
    }
}

const QUESTION: &str = r#"FAKE_TOOL AskUserQuestion {"questions": [{"question": "Which colour?", "header": "Colour", "multiSelect": false, "options": [{"label": "Blue", "description": "b"}, {"label": "Red", "description": "r"}]}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_answers_a_question_even_in_bypass_mode() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), "bypassPermissions"),
    )
    .unwrap();
    session.send(prompt(QUESTION)).unwrap();
    let seen = run(&session, |req| {
        let mut input = req["input"].clone();
        input["answers"] = json!({"Which colour?": "Blue"});
        json!({"behavior": "allow", "updatedInput": input})
    })
    .await;
    let asked = seen
        .iter()
        .filter(|v| v["request"]["tool_name"] == "AskUserQuestion")
        .count();
    assert_eq!(asked, 1, "{seen:#?}");
    let result = seen
        .iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert!(
        result.to_string().contains(r#"\"Which colour?\"=\"Blue\""#),
        "{result}"
    );
    let init = seen.iter().find(|v| v["subtype"] == "init").unwrap();
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("AskUserQuestion"))
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_nobody_to_ask_the_question_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "default");
    o.output_format = Some(OutputFormat::Json);
    o.non_interactive = true;
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    session.send(prompt(QUESTION)).unwrap();
    let (seen, _) = until_result(&session).await;
    assert!(
        seen.iter()
            .any(|v| v.to_string().contains("no interactive host")),
        "{seen:#?}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approving_the_plan_leaves_plan_mode() {
    let dir = tempfile::tempdir().unwrap();
    let session =
        Session::spawn(&tokio::runtime::Handle::current(), opts(dir.path(), "plan")).unwrap();
    session.send(prompt("please FAKE_EXITPLAN")).unwrap();
    let seen = run(
        &session,
        |req| json!({"behavior": "allow", "updatedInput": req["input"]}),
    )
    .await;
    assert!(
        seen.iter()
            .any(|v| v["request"]["tool_name"] == "ExitPlanMode"),
        "the plan is put to the host: {seen:#?}"
    );
    assert!(
        seen.iter()
            .any(|v| v["subtype"] == "status" && v["permissionMode"] == "default"),
        "{seen:#?}"
    );
    assert!(
        seen.iter()
            .any(|v| v.to_string().contains("User has approved your plan"))
    );
    // Out of plan mode now: a write is no longer refused as a plan-mode write.
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let seen = run(&session, |_| json!({"behavior": "allow"})).await;
    assert!(dir.path().join("out.txt").exists(), "{seen:#?}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_plan_stays_in_plan_mode() {
    let dir = tempfile::tempdir().unwrap();
    let session =
        Session::spawn(&tokio::runtime::Handle::current(), opts(dir.path(), "plan")).unwrap();
    session.send(prompt("please FAKE_EXITPLAN")).unwrap();
    run(
        &session,
        |_| json!({"behavior": "deny", "message": "keep planning"}),
    )
    .await;
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let seen = run(&session, |_| json!({"behavior": "allow"})).await;
    assert!(!dir.path().join("out.txt").exists());
    assert!(
        seen.iter().any(|v| v.to_string().contains("Plan mode")),
        "{seen:#?}"
    );
    session.close();
}
