//! What a session reads from dcl home (`--data-dir`) and the settings: the output style,
//! memory files and MCP servers; and the session id after `/clear`.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::sse_text;
use serde_json::{Value, json};

fn options(base_url: &str, cwd: &Path, home: &Path, data_dir: &Path) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-ant-test".to_string());
    env.insert("HOME".to_string(), home.display().to_string());
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("claude-test".into()),
        api_format: Some("anthropic".into()),
        base_url: Some(base_url.to_string()),
        permission_mode: Some("bypassPermissions".into()),
        data_dir: Some(data_dir.to_path_buf()),
        env,
        ..Default::default()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn initialize(session: &Session) -> Value {
    session
        .send(control_request("init", json!({"subtype": "initialize"})))
        .unwrap();
    let v = next(session).await;
    assert_eq!(v["type"], "control_response", "{v}");
    v["response"]["response"].clone()
}

struct Place {
    cwd: tempfile::TempDir,
    home: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        Place {
            cwd: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
        }
    }

    fn options(&self, server: &FakeAnthropicServer) -> SessionOptions {
        options(
            &server.base_url(),
            self.cwd.path(),
            self.home.path(),
            self.data.path(),
        )
    }

    /// A session on the mock model in this place (HOME, cwd and data dir its own).
    fn mock_session(&self) -> Session {
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), self.home.path().display().to_string());
        Session::spawn(
            &tokio::runtime::Handle::current(),
            SessionOptions {
                cwd: Some(self.cwd.path().to_path_buf()),
                model: Some("mock-model".into()),
                data_dir: Some(self.data.path().to_path_buf()),
                env,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// The text of session `id`'s transcript, wherever under the data dir or HOME it is.
    fn transcript(&self, id: &str) -> String {
        let path = files_under(self.data.path())
            .into_iter()
            .chain(files_under(self.home.path()))
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy() == format!("{id}.jsonl"))
            })
            .expect("the session's transcript");
        std::fs::read_to_string(&path).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_output_style_from_dcl_home_is_reported_and_applied() {
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(sse_text("arr"))])
        .await
        .unwrap();
    let place = Place::new();
    write(
        &place.data.path().join("settings.json"),
        r#"{"outputStyle": "Pirate"}"#,
    );
    write(
        &place.data.path().join("output-styles/Pirate.md"),
        "---\nname: Pirate\ndescription: arr\n---\nSpeak like a pirate.",
    );
    let session =
        Session::spawn(&tokio::runtime::Handle::current(), place.options(&server)).unwrap();
    let answer = initialize(&session).await;
    assert_eq!(answer["output_style"], "Pirate", "{answer}");
    let styles: Vec<&str> = answer["available_output_styles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(styles, ["default", "Explanatory", "Learning", "Pirate"]);
    session.send(prompt("hello")).unwrap();
    let (seen, _) = until_result(&session).await;
    let init = seen.iter().find(|v| v["subtype"] == "init").unwrap();
    assert_eq!(init["output_style"], "Pirate");
    let system = server.message_bodies()[0]["system"].to_string();
    assert!(system.contains("Speak like a pirate."), "{system}");
    assert!(
        !system.contains("name: Pirate"),
        "front matter is left out: {system}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_and_unknown_output_styles() {
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(sse_text("one")),
        FakeResponse::sse(sse_text("two")),
    ])
    .await
    .unwrap();
    let place = Place::new();
    let explanatory = SessionOptions {
        settings: Some(r#"{"outputStyle": "Explanatory"}"#.into()),
        ..place.options(&server)
    };
    let session = Session::spawn(&tokio::runtime::Handle::current(), explanatory).unwrap();
    assert_eq!(initialize(&session).await["output_style"], "Explanatory");
    session.send(prompt("hello")).unwrap();
    until_result(&session).await;
    let system = server.message_bodies()[0]["system"].to_string();
    assert!(system.contains("Explanatory output style"), "{system}");
    session.close();

    let unknown = SessionOptions {
        settings: Some(r#"{"outputStyle": "Nope"}"#.into()),
        ..place.options(&server)
    };
    let session = Session::spawn(&tokio::runtime::Handle::current(), unknown).unwrap();
    let answer = initialize(&session).await;
    // Reported under the configured name, as the reference does, with the warning.
    assert_eq!(answer["output_style"], "Nope");
    assert!(
        answer["warnings"].to_string().contains("no such style"),
        "{answer}"
    );
    session.send(prompt("hello")).unwrap();
    until_result(&session).await;
    let system = server.message_bodies()[1]["system"].to_string();
    assert!(!system.contains("Output style"), "{system}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_files_and_mcp_servers_are_read_from_the_data_dir() {
    let server = FakeAnthropicServer::start(vec![FakeResponse::sse(sse_text("ok"))])
        .await
        .unwrap();
    let place = Place::new();
    write(&place.data.path().join("DCL.md"), "Rule from the data dir.");
    write(
        &place.data.path().join("mcp.json"),
        r#"{"mcpServers": {"from-data-dir": {"command": "/nonexistent/dcl-test-server"}}}"#,
    );
    // The default home's own files are not read when --data-dir moves dcl home.
    write(
        &place.home.path().join(".dcl/DCL.md"),
        "Rule from the default home.",
    );
    let session =
        Session::spawn(&tokio::runtime::Handle::current(), place.options(&server)).unwrap();
    initialize(&session).await;
    session
        .send(control_request("mcp", json!({"subtype": "mcp_status"})))
        .unwrap();
    let status = loop {
        let v = next(&session).await;
        if v["type"] == "control_response" {
            break v;
        }
    };
    let names: Vec<&str> = status["response"]["response"]["mcpServers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["from-data-dir"], "{status}");
    session.send(prompt("hello")).unwrap();
    until_result(&session).await;
    let system = server.message_bodies()[0]["system"].to_string();
    assert!(system.contains("Rule from the data dir."), "{system}");
    assert!(!system.contains("Rule from the default home."), "{system}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_id_is_the_new_one_after_clear() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        SessionOptions {
            cwd: Some(dir.path().to_path_buf()),
            model: Some("mock-model".into()),
            persist_session: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    let first = session.session_id();
    session.send(prompt("/clear")).unwrap();
    let (seen, result) = until_result(&session).await;
    let reset = seen
        .iter()
        .find(|v| v["type"] == "conversation_reset")
        .unwrap();
    let new = reset["new_conversation_id"].as_str().unwrap();
    assert_ne!(new, first);
    assert_eq!(session.session_id(), new);
    assert_eq!(result["session_id"], new);
    session.close();
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_session_writes_a_custom_title_to_the_transcript() {
    let place = Place::new();
    let session = place.mock_session();
    session.send(prompt("hello")).unwrap();
    let (_, result) = until_result(&session).await;
    let id = result["session_id"].as_str().unwrap().to_string();
    // Refused for another session, so a stale host cannot rename the wrong one.
    session
        .send(control_request(
            "other",
            json!({"subtype": "rename_session", "title": "x", "session_id": "someone-else"}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["subtype"], "error", "{v}");
    session
        .send(control_request(
            "r",
            json!({"subtype": "rename_session", "title": "Fix the parser", "source": "host", "session_id": id}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["subtype"], "success", "{v}");
    session.close();
    let text = place.transcript(&id);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "custom-title", "{text}");
    assert_eq!(last["customTitle"], "Fix the parser");
    assert_eq!(last["sessionId"], json!(id));
}

/// `generate_session_title` (the ACP adapters ask it): `{title}` from the description;
/// with `persist`, the title is the session's custom title in its transcript.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_session_title_answers_and_persists_when_asked() {
    let place = Place::new();
    let session = place.mock_session();
    session.send(prompt("hello")).unwrap();
    let (_, result) = until_result(&session).await;
    let id = result["session_id"].as_str().unwrap().to_string();
    session
        .send(control_request(
            "t1",
            json!({"subtype": "generate_session_title", "description": "Fix the parser crash\non empty input"}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["subtype"], "success", "{v}");
    assert_eq!(
        v["response"]["response"]["title"], "Fix the parser crash",
        "{v}"
    );
    session
        .send(control_request(
            "t2",
            json!({"subtype": "generate_session_title", "description": "  "}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["response"]["title"], Value::Null, "{v}");
    session
        .send(control_request(
            "t3",
            json!({"subtype": "generate_session_title", "description": "Add a cache", "persist": true}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["response"]["title"], "Add a cache", "{v}");
    session.close();
    let text = place.transcript(&id);
    let titles: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "custom-title")
        .collect();
    assert_eq!(titles.len(), 1, "only the persisted one: {text}");
    assert_eq!(titles[0]["customTitle"], "Add a cache");
}
