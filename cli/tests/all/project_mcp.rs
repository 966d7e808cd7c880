//! A project's `.mcp.json` servers start only when approved: by settings, or by the host
//! (`mcp_server_approval`); never in print mode otherwise. Each planted server would
//! create a file when started, so "not started" is checked by its side effect.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::common::{Dcl, STREAM};

const FLAG: &str = "planted.flag";

/// A project whose `.mcp.json` has one server, `planted`, that creates `planted.flag`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({"mcpServers": {"planted": {"command": "sh", "args": ["-c", format!("touch {FLAG}")]}}});
    std::fs::write(dir.path().join(".mcp.json"), servers.to_string()).unwrap();
    dir
}

fn print(cwd: &Path, home: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(["-p", "hi", "--model", "mock-model"])
        .args(extra)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DCL_MODEL")
        .output()
        .unwrap()
}

fn started(cwd: &Path) -> bool {
    cwd.join(FLAG).exists()
}

#[test]
fn print_mode_does_not_start_an_unapproved_project_server_and_says_how() {
    let cwd = project();
    let home = tempfile::tempdir().unwrap();
    let out = print(cwd.path(), home.path(), &[]);
    assert!(out.status.success());
    assert!(!started(cwd.path()), "the planted server ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"planted\"") && stderr.contains("enabledMcpjsonServers"),
        "{stderr}"
    );
}

#[test]
fn settings_approve_by_name_or_all() {
    for settings in [
        json!({"enabledMcpjsonServers": ["planted"]}),
        json!({"enableAllProjectMcpServers": true}),
    ] {
        let cwd = project();
        let home = tempfile::tempdir().unwrap();
        let out = print(
            cwd.path(),
            home.path(),
            &["--settings", &settings.to_string()],
        );
        assert!(out.status.success());
        assert!(started(cwd.path()), "not started with {settings}");
    }
    // Another name approved does not approve this one.
    let cwd = project();
    let home = tempfile::tempdir().unwrap();
    let other = json!({"enabledMcpjsonServers": ["other"]}).to_string();
    print(cwd.path(), home.path(), &["--settings", &other]);
    assert!(!started(cwd.path()));
}

#[test]
fn disabled_wins_over_enable_all_in_any_layer() {
    let cwd = project();
    let home = tempfile::tempdir().unwrap();
    let both = json!({"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["planted"]});
    print(cwd.path(), home.path(), &["--settings", &both.to_string()]);
    assert!(!started(cwd.path()));

    // Disabled in the user's settings, enabled by name on the command line.
    let cwd = project();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        json!({"disabledMcpjsonServers": ["planted"]}).to_string(),
    )
    .unwrap();
    let enabled = json!({"enabledMcpjsonServers": ["planted"]}).to_string();
    print(cwd.path(), home.path(), &["--settings", &enabled]);
    assert!(!started(cwd.path()));
}

#[test]
fn the_projects_own_settings_cannot_approve_its_servers() {
    for folder in [".claude", ".dcl"] {
        let cwd = project();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(cwd.path().join(folder)).unwrap();
        std::fs::write(
            cwd.path().join(folder).join("settings.json"),
            json!({"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["planted"]})
                .to_string(),
        )
        .unwrap();
        let out = print(cwd.path(), home.path(), &[]);
        assert!(out.status.success());
        assert!(!started(cwd.path()), "{folder}/settings.json approved it");
    }
}

#[test]
fn servers_the_caller_passes_need_no_approval() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let given = json!({"mcpServers": {"given": {"command": "sh", "args": ["-c", format!("touch {FLAG}")]}}});
    let out = print(
        cwd.path(),
        home.path(),
        &["--mcp-config", &given.to_string()],
    );
    assert!(out.status.success());
    assert!(started(cwd.path()));
}

/// A stream-json session in a project with the planted server; `answer` answers the
/// approval request (`None`: no answer). Returns the request and whether the server ran.
fn host_session(answer: Option<Value>) -> (Value, bool) {
    let cwd = project();
    let path = cwd.path().to_path_buf();
    let mut dcl = Dcl::start_in(cwd, STREAM, &[("DCL_HOST_TIMEOUT_SECS", "2")]);
    let request = dcl.until(|v| {
        v["type"] == "control_request" && v["request"]["subtype"] == "mcp_server_approval"
    });
    let id = request["request_id"].as_str().unwrap().to_string();
    match answer {
        Some(Value::String(error)) => dcl.send(json!({"type": "control_response",
            "response": {"subtype": "error", "request_id": id, "error": error}})),
        Some(response) => dcl.send(json!({"type": "control_response",
            "response": {"subtype": "success", "request_id": id, "response": response}})),
        None => {}
    }
    // A turn waits for the start-up, so the answer has been acted on by its result.
    dcl.user("hi");
    dcl.until_type("result");
    dcl.control("status", json!({"subtype": "mcp_status"}));
    let status = dcl.response_to("status");
    let ran = started(&path);
    let listed = status["response"]["response"]["mcpServers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let planted = listed.iter().find(|s| s["name"] == "planted").cloned();
    if !ran {
        // Not started is said, not hidden: the server is listed as disabled.
        let planted = planted.expect("the held server is listed");
        assert_eq!(planted["status"], "disabled", "{planted}");
    }
    dcl.finish();
    (request["request"].clone(), ran)
}

#[test]
fn the_host_is_asked_and_its_yes_starts_the_server() {
    let (request, ran) = host_session(Some(json!({"approved": true})));
    assert!(ran);
    assert_eq!(request["server_name"], "planted");
    assert_eq!(request["scope"], "project");
    assert_eq!(request["config"]["command"], "sh");
}

#[test]
fn a_host_that_denies_or_does_not_know_the_request_starts_nothing() {
    assert!(!host_session(Some(json!({"approved": false}))).1);
    assert!(
        !host_session(Some(json!(
            "Unsupported control request subtype: mcp_server_approval"
        )))
        .1
    );
    assert!(!host_session(None).1);
}
