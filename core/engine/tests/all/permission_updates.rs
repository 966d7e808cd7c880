//! A host's `updatedPermissions` (the SDK's `PermissionUpdate`s in a `can_use_tool`
//! allow): each entry changes the session at once, and a settings destination is written
//! to the file the session's homes and dialect name, atomically and keeping its other
//! keys. Only the host can cause such a write; the model writing the same file asks.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{answer, next, prompt};
use dcl_engine::{Session, SessionOptions};
use serde_json::{Value, json};

fn opts(dir: &Path, mode: &str) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), dir.join("home").display().to_string());
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some(mode.into()),
        env,
        ..Default::default()
    }
}

/// Runs one prompt; every `can_use_tool` is allowed with `updates`. Returns how many
/// asks there were and every line.
async fn turn(session: &Session, text: &str, updates: &Value) -> (usize, Vec<Value>) {
    session.send(prompt(text)).unwrap();
    let mut asks = 0;
    let mut lines = Vec::new();
    loop {
        let v = next(session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            asks += 1;
            session
                .send(answer(
                    &v["request_id"],
                    json!({"behavior": "allow", "updatedInput": {}, "updatedPermissions": updates}),
                ))
                .unwrap();
        }
        let done = v["type"] == "result";
        lines.push(v);
        if done {
            return (asks, lines);
        }
    }
}

fn bash(command: &str) -> String {
    format!("FAKE_TOOL Bash {}", json!({"command": command}))
}

fn rule(command: &str, behavior: &str, destination: &str) -> Value {
    json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": command}],
            "behavior": behavior, "destination": destination}])
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn spawn(o: SessionOptions) -> Session {
    Session::spawn(&tokio::runtime::Handle::current(), o).unwrap()
}

fn warnings(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "informational")
        .filter_map(|l| l["content"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_settings_are_written_to_the_clients_folder_and_apply_at_once_and_later() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join(".claude/settings.local.json");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(
        &local,
        r#"{"includeCoAuthoredBy": false, "permissions": {"allow": ["Read"]}}"#,
    )
    .unwrap();
    let session = spawn(opts(dir.path(), "default"));
    let grant = rule("touch a.txt", "allow", "localSettings");
    let (asks, _) = turn(&session, &bash("touch a.txt"), &grant).await;
    assert_eq!(asks, 1);
    assert!(dir.path().join("a.txt").exists());
    assert_eq!(
        read_json(&local),
        json!({"includeCoAuthoredBy": false, "permissions": {"allow": ["Read", "Bash(touch a.txt)"]}})
    );
    // No temporary file is left beside it.
    assert_eq!(
        std::fs::read_dir(local.parent().unwrap()).unwrap().count(),
        1
    );
    // This session: the same call is no longer asked.
    std::fs::remove_file(dir.path().join("a.txt")).unwrap();
    let (asks, _) = turn(&session, &bash("touch a.txt"), &json!([])).await;
    assert_eq!(asks, 0);
    session.close();
    // A later session reads the rule from the file.
    let session = spawn(opts(dir.path(), "default"));
    let (asks, _) = turn(&session, &bash("touch a.txt"), &json!([])).await;
    assert_eq!(asks, 0);
    // Twin: another command still asks.
    let (asks, _) = turn(&session, &bash("touch b.txt"), &json!([])).await;
    assert_eq!(asks, 1);
    session.close();
    assert!(!dir.path().join(".dcl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_dcl_file_is_the_one_written() {
    let dir = tempfile::tempdir().unwrap();
    let dcl_local = dir.path().join(".dcl/settings.local.json");
    std::fs::create_dir_all(dcl_local.parent().unwrap()).unwrap();
    std::fs::write(&dcl_local, "{}").unwrap();
    let session = spawn(opts(dir.path(), "default"));
    let (asks, _) = turn(
        &session,
        &bash("touch c.txt"),
        &rule("touch c.txt", "allow", "localSettings"),
    )
    .await;
    session.close();
    assert_eq!(asks, 1);
    assert_eq!(
        read_json(&dcl_local)["permissions"]["allow"],
        json!(["Bash(touch c.txt)"])
    );
    assert!(!dir.path().join(".claude/settings.local.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_and_project_settings_go_to_their_homes() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), "default"));
    let updates = json!([
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch d.txt"}],
         "behavior": "allow", "destination": "userSettings"},
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}],
         "behavior": "deny", "destination": "projectSettings"},
        {"type": "addDirectories", "directories": ["/data/shared"], "destination": "projectSettings"}
    ]);
    turn(&session, &bash("touch d.txt"), &updates).await;
    session.close();
    let user = read_json(&dir.path().join("home/.claude/settings.json"));
    assert_eq!(user["permissions"]["allow"], json!(["Bash(touch d.txt)"]));
    let project = read_json(&dir.path().join(".claude/settings.json"));
    assert_eq!(project["permissions"]["deny"], json!(["Bash(rm:*)"]));
    assert_eq!(
        project["permissions"]["additionalDirectories"],
        json!(["/data/shared"])
    );

    // An explicit dcl home (--data-dir) takes the user settings.
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "default");
    o.data_dir = Some(dir.path().join("dcl-home"));
    let session = spawn(o);
    turn(
        &session,
        &bash("touch e.txt"),
        &rule("touch e.txt", "allow", "userSettings"),
    )
    .await;
    session.close();
    let user = read_json(&dir.path().join("dcl-home/settings.json"));
    assert_eq!(user["permissions"]["allow"], json!(["Bash(touch e.txt)"]));
    assert!(!dir.path().join("home/.claude/settings.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qoder_sessions_write_the_qoder_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), "default");
    o.env
        .insert("QODER_AGENT_SDK_ENTRYPOINT".into(), "sdk-py".into());
    let session = spawn(o);
    turn(
        &session,
        &bash("touch q.txt"),
        &rule("touch q.txt", "allow", "localSettings"),
    )
    .await;
    session.close();
    let local = read_json(&dir.path().join(".qoder/settings.local.json"));
    assert_eq!(local["permissions"]["allow"], json!(["Bash(touch q.txt)"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_rules_deny_and_remove_and_modes_change_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), "default"));
    // Allowing one call while denying `touch f.txt` for the session and allowing `touch g.txt`.
    let updates = json!([
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch f.txt"}],
         "behavior": "deny", "destination": "session"},
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch g.txt"}],
         "behavior": "allow", "destination": "session"}
    ]);
    turn(&session, &bash("echo one > one.txt"), &updates).await;
    let (asks, _) = turn(&session, &bash("touch f.txt"), &json!([])).await;
    assert_eq!(asks, 0);
    assert!(
        !dir.path().join("f.txt").exists(),
        "a session deny rule did not hold"
    );
    let (asks, _) = turn(&session, &bash("touch g.txt"), &json!([])).await;
    assert_eq!(asks, 0);
    assert!(dir.path().join("g.txt").exists());
    // removeRules takes the allow away again; setMode switches the mode.
    let updates = json!([
        {"type": "removeRules", "rules": [{"toolName": "Bash", "ruleContent": "touch g.txt"}],
         "behavior": "allow", "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
    ]);
    turn(&session, &bash("echo two > two.txt"), &updates).await;
    std::fs::remove_file(dir.path().join("g.txt")).unwrap();
    let (asks, _) = turn(&session, &bash("touch g.txt"), &json!([])).await;
    assert_eq!(asks, 1);
    let (asks, _) = turn(&session, "FAKE_WRITE w.txt", &json!([])).await;
    assert_eq!(asks, 0, "acceptEdits did not take effect");
    session.close();
    assert!(!dir.path().join(".claude").exists() && !dir.path().join(".dcl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn added_directories_allow_reads_there() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes.txt"), "outside").unwrap();
    let read = format!("FAKE_READ {}", outside.path().join("notes.txt").display());
    let session = spawn(opts(dir.path(), "default"));
    let updates = json!([{"type": "addDirectories",
        "directories": [outside.path()], "destination": "session"}]);
    let (asks, _) = turn(&session, &read, &updates).await;
    assert_eq!(asks, 1);
    let (asks, _) = turn(&session, &read, &json!([])).await;
    assert_eq!(asks, 0);
    let updates = json!([{"type": "removeDirectories",
        "directories": [outside.path()], "destination": "session"}]);
    turn(&session, &bash("echo x > x.txt"), &updates).await;
    let (asks, _) = turn(&session, &read, &json!([])).await;
    assert_eq!(asks, 1);
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_cannot_be_written_is_said_and_nothing_else_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    // A committed project file cannot hold bypassPermissions: not written, said so.
    let session = spawn(opts(dir.path(), "default"));
    let updates = json!([{"type": "setMode", "mode": "bypassPermissions",
        "destination": "projectSettings"}]);
    let (_, lines) = turn(&session, &bash("touch h.txt"), &updates).await;
    session.close();
    assert!(!dir.path().join(".claude/settings.json").exists());
    assert!(
        warnings(&lines)
            .iter()
            .any(|w| w.contains("bypassPermissions")),
        "{lines:#?}"
    );

    // A planted symlinked folder is not written through.
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".claude")).unwrap();
    let session = spawn(opts(dir.path(), "default"));
    let (_, lines) = turn(
        &session,
        &bash("touch i.txt"),
        &rule("touch i.txt", "allow", "localSettings"),
    )
    .await;
    session.close();
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert!(
        warnings(&lines).iter().any(|w| w.contains("symbolic link")),
        "{lines:#?}"
    );

    // A broken settings file is left as it is.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(dir.path().join(".claude/settings.local.json"), "{broken").unwrap();
    let mut o = opts(dir.path(), "default");
    o.setting_sources = Some(vec!["user".into()]);
    let session = spawn(o);
    let (_, lines) = turn(
        &session,
        &bash("touch j.txt"),
        &rule("touch j.txt", "allow", "localSettings"),
    )
    .await;
    session.close();
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".claude/settings.local.json")).unwrap(),
        "{broken"
    );
    assert!(!warnings(&lines).is_empty());
    // Twin: the call itself was still allowed.
    assert!(dir.path().join("j.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_writing_a_settings_file_asks_even_under_accept_edits() {
    let dir = tempfile::tempdir().unwrap();
    let session = spawn(opts(dir.path(), "acceptEdits"));
    let write = format!(
        "FAKE_TOOL Write {}",
        json!({"file_path": ".claude/settings.local.json",
               "content": "{\"permissions\":{\"defaultMode\":\"bypassPermissions\"}}"})
    );
    session.send(prompt(&write)).unwrap();
    let mut asked = false;
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            asked = true;
            session
                .send(answer(
                    &v["request_id"],
                    json!({"behavior": "deny", "message": "no"}),
                ))
                .unwrap();
        }
        if v["type"] == "result" {
            break;
        }
    }
    session.close();
    assert!(asked, "a protected settings file was written unasked");
    assert!(!dir.path().join(".claude/settings.local.json").exists());
    // Twin: an ordinary file under acceptEdits is written unasked.
    let session = spawn(opts(dir.path(), "acceptEdits"));
    let (asks, _) = turn(&session, "FAKE_WRITE plain.txt", &json!([])).await;
    session.close();
    assert_eq!(asks, 0);
    assert!(dir.path().join("plain.txt").exists());
}
