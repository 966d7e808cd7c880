//! What the host and the settings decide reaches the session: `interrupt: true` on a
//! denial ends the turn, `get_settings` never shows secret values, the settings'
//! `toolEnvironment` shapes what tools inherit.

use crate::common;

use std::collections::BTreeMap;

use common::{answer, control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use serde_json::{Value, json};

fn opts(dir: &std::path::Path, mode: &str, settings: Option<Value>) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), dir.display().to_string());
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some(mode.into()),
        settings: settings.map(|s| s.to_string()),
        env,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_with_interrupt_ends_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), "default", None),
    )
    .unwrap();
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let result = loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            session
                .send(answer(
                    &v["request_id"],
                    json!({"behavior": "deny", "message": "stop everything", "interrupt": true}),
                ))
                .unwrap();
        }
        if v["type"] == "result" {
            break v;
        }
    };
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert!(!dir.path().join("out.txt").exists());
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_without_interrupt_lets_the_model_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), "default", None),
    )
    .unwrap();
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let result = loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            session
                .send(answer(
                    &v["request_id"],
                    json!({"behavior": "deny", "message": "no"}),
                ))
                .unwrap();
        }
        if v["type"] == "result" {
            break v;
        }
    };
    assert_eq!(result["subtype"], "success", "{result}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_settings_never_shows_secret_values() {
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"env": {"MY_API_KEY": "sk-do-not-show", "PLAIN": "visible"}});
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), "default", Some(settings)),
    )
    .unwrap();
    session
        .send(control_request("s", json!({"subtype": "get_settings"})))
        .unwrap();
    let answer = loop {
        let v = next(&session).await;
        if v["type"] == "control_response" {
            break v;
        }
    };
    let text = answer.to_string();
    assert!(!text.contains("sk-do-not-show"), "{text}");
    assert!(text.contains("visible"), "{text}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_environment_of_the_settings_reaches_bash() {
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"toolEnvironment": {"set": {"DCL_TEST_GREETING": "hello-tools"}}});
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), "bypassPermissions", Some(settings)),
    )
    .unwrap();
    session
        .send(prompt(
            r#"FAKE_TOOL Bash {"command": "echo greeting=$DCL_TEST_GREETING"}"#,
        ))
        .unwrap();
    let (seen, _) = until_result(&session).await;
    assert!(
        seen.iter()
            .any(|v| v.to_string().contains("greeting=hello-tools")),
        "{seen:#?}"
    );
    session.close();
}

#[test]
fn a_bad_tool_environment_block_is_refused_at_open() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"toolEnvironment": {"inheritt": false}});
    let err = Session::spawn(rt.handle(), opts(dir.path(), "default", Some(settings)))
        .err()
        .unwrap();
    assert!(err.message.contains("toolEnvironment"), "{err:?}");
}
