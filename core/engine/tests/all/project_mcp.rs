//! In process, as the bindings open sessions: a project's `.mcp.json` server starts only
//! when the settings or the host approve it (`mcp_server_approval`). The planted server
//! creates a file when it runs, so "not started" is checked by that side effect.

use crate::common;

use std::collections::BTreeMap;

use common::{answer, next, prompt};
use dcl_engine::{Session, SessionOptions};
use serde_json::{Value, json};

const FLAG: &str = "planted.flag";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({"mcpServers": {"planted": {"command": "sh", "args": ["-c", format!("touch {FLAG}")]}}});
    std::fs::write(dir.path().join(".mcp.json"), servers.to_string()).unwrap();
    dir
}

fn opts(dir: &std::path::Path, settings: Option<Value>) -> SessionOptions {
    let env = BTreeMap::from([
        ("HOME".to_string(), dir.display().to_string()),
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
    ]);
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        settings: settings.map(|s| s.to_string()),
        host_timeout_secs: Some(2.0),
        env,
        ..Default::default()
    }
}

/// Runs one turn, answering the approval request with `answer_with` (`None`: never
/// answered; `Some(Err(text))`: an error answer). Returns whether the host was asked.
async fn one_turn(
    dir: &std::path::Path,
    settings: Option<Value>,
    answer_with: Option<Result<Value, &str>>,
) -> bool {
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts(dir, settings)).unwrap();
    session.send(prompt("hi")).unwrap();
    let mut asked = false;
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "mcp_server_approval" {
            asked = true;
            assert_eq!(v["request"]["server_name"], "planted");
            match &answer_with {
                Some(Ok(response)) => session
                    .send(answer(&v["request_id"], response.clone()))
                    .unwrap(),
                Some(Err(error)) => {
                    let line = json!({"type": "control_response", "response": {
                        "subtype": "error", "request_id": v["request_id"], "error": error}});
                    session
                        .send(dcl_protocol::parse_line(&line.to_string()).unwrap())
                        .unwrap();
                }
                None => {}
            }
        }
        if v["type"] == "result" {
            break;
        }
    }
    session.close();
    asked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_yes_starts_a_project_server_and_anything_else_does_not() {
    let dir = project();
    assert!(one_turn(dir.path(), None, Some(Ok(json!({"approved": true})))).await);
    assert!(dir.path().join(FLAG).exists());

    for no in [
        Some(Ok(json!({"approved": false}))),
        Some(Err(
            "Unsupported control request subtype: mcp_server_approval",
        )),
        None,
    ] {
        let dir = project();
        assert!(one_turn(dir.path(), None, no.clone()).await);
        assert!(!dir.path().join(FLAG).exists(), "started after {no:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_decide_without_asking_and_disabled_wins() {
    let dir = project();
    let approve = json!({"enabledMcpjsonServers": ["planted"]});
    assert!(!one_turn(dir.path(), Some(approve), None).await);
    assert!(dir.path().join(FLAG).exists());

    let dir = project();
    let both = json!({"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["planted"]});
    assert!(!one_turn(dir.path(), Some(both), Some(Ok(json!({"approved": true})))).await);
    assert!(!dir.path().join(FLAG).exists());
}
