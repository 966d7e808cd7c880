//! MCP elicitation end to end: the `dcl-mcp-fixture` stdio server's `ask` tool sends
//! `elicitation/create`; dcl forwards it to the host as `control_request{subtype:"elicitation"}`
//! and returns the host's answer to the server.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{Dcl, STREAM};
use serde_json::{Value, json};

/// The `dcl-mcp-fixture` binary. Cargo builds only this package's binaries for its tests, so
/// the fixture (a `dcl-mcp` binary) is built here, into the target directory that holds `dcl`
/// (a no-op when it is up to date). Any failure panics with the reason: never skipped.
fn fixture() -> &'static Path {
    static FIXTURE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match FIXTURE.get_or_init(build_fixture) {
        Ok(path) => path,
        Err(e) => panic!("cannot build the dcl-mcp-fixture binary: {e}"),
    }
}

fn build_fixture() -> Result<PathBuf, String> {
    let dcl = Path::new(env!("CARGO_BIN_EXE_dcl"));
    let profile_dir = dcl.parent().ok_or("the dcl binary has no directory")?;
    let target_dir = profile_dir
        .parent()
        .ok_or("the dcl binary's directory has no parent")?;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("dcl-cli has no parent directory")?;
    let mut cmd = Command::new(env!("CARGO"));
    // Without the variables cargo sets for this test (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`,
    // …): build scripts that watch them (ring's) would rerun, and the next ordinary build
    // would rebuild everything above them again.
    for (key, _) in std::env::vars_os() {
        if let Some(key) = key.to_str()
            && (key == "OUT_DIR"
                || key.starts_with("CARGO_PKG_")
                || key.starts_with("CARGO_BIN_")
                || key.starts_with("CARGO_MANIFEST_")
                || matches!(
                    key,
                    "CARGO_CRATE_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "CARGO_RUSTC_CURRENT_DIR"
                ))
        {
            cmd.env_remove(key);
        }
    }
    cmd.current_dir(workspace)
        .args(["build", "--quiet", "--message-format=json"])
        .args(["-p", "dcl-mcp", "--bin", "dcl-mcp-fixture"])
        .arg("--target-dir")
        .arg(target_dir);
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => {}
        Some("release") => {
            cmd.arg("--release");
        }
        Some(other) => {
            cmd.args(["--profile", other]);
        }
        None => return Err(format!("unexpected binary path {}", dcl.display())),
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", env!("CARGO")))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo build -p dcl-mcp --bin dcl-mcp-fixture` failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // The path cargo reports is right whatever the layout (`--target`, custom profiles).
    let built = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "dcl-mcp-fixture")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or("cargo reported no dcl-mcp-fixture executable")?;
    if !built.is_file() {
        return Err(format!(
            "{} does not exist after the build",
            built.display()
        ));
    }
    Ok(built)
}

fn start() -> Dcl {
    let config = json!({"mcpServers": {"fx": {"command": fixture()}}}).to_string();
    Dcl::start(
        &[
            STREAM,
            &[
                "--permission-mode",
                "bypassPermissions",
                "--mcp-config",
                &config,
            ],
        ]
        .concat(),
    )
}

/// Runs `ask`, answers the `elicitation` request with `answer` (a `control_response`'s
/// `response` object, without `request_id`), and returns the elicitation request and the
/// tool result's text.
fn ask_and_answer(answer: Value) -> (Value, String) {
    let mut d = start();
    d.user(r#"FAKE_TOOL mcp__fx__ask {"question":"colour?"}"#);
    let req =
        d.until(|v| v["type"] == "control_request" && v["request"]["subtype"] == "elicitation");
    let id = req["request_id"].as_str().expect("request_id").to_string();
    let mut response = answer;
    response["request_id"] = json!(id);
    d.send(json!({"type": "control_response", "response": response}));
    let tr = d.until(|v| {
        v["type"] == "user"
            && v["message"]["content"]
                .as_array()
                .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
    });
    let block = tr["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap()
        .clone();
    assert_ne!(block["is_error"], json!(true), "{block}");
    let text = match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => panic!("unexpected tool_result content: {other}"),
    };
    d.until_type("result");
    d.finish();
    (req, text)
}

#[test]
fn an_accepted_elicitation_reaches_the_server() {
    let (req, text) = ask_and_answer(json!({
        "subtype": "success",
        "response": {"action": "accept", "content": {"answer": "blue"}},
    }));
    let r = &req["request"];
    assert_eq!(r["mcp_server_name"], "fx");
    assert_eq!(r["message"], "colour?");
    assert_eq!(r["mode"], "form");
    assert_eq!(
        r["requested_schema"]["properties"]["answer"]["type"],
        "string"
    );
    assert!(text.contains("blue"), "{text}");
}

#[test]
fn a_declined_elicitation_is_declined() {
    let (_, text) = ask_and_answer(json!({
        "subtype": "success",
        "response": {"action": "decline"},
    }));
    assert!(text.contains("declined"), "{text}");
}

#[test]
fn an_error_response_cancels_the_elicitation() {
    let (_, text) = ask_and_answer(json!({
        "subtype": "error",
        "error": "no elicitation handler",
    }));
    assert!(text.contains("cancelled"), "{text}");
}

#[test]
fn an_elicitation_hook_answers_before_the_host_is_asked() {
    let mut d = start();
    d.control(
        "init",
        json!({"subtype": "initialize", "hooks": {
            "Elicitation": [{"matcher": "fx", "hookCallbackIds": ["el"]}],
            "ElicitationResult": [{"hookCallbackIds": ["res"]}]}}),
    );
    d.user(r#"FAKE_TOOL mcp__fx__ask {"question":"colour?"}"#);
    let mut inputs = Vec::new();
    let tr = loop {
        let v = d.next(20).expect("stdout closed");
        assert!(
            !(v["type"] == "control_request" && v["request"]["subtype"] == "elicitation"),
            "the host was asked: {v}"
        );
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            let input = v["request"]["input"].clone();
            let out = if input["hook_event_name"] == "Elicitation" {
                json!({"hookSpecificOutput": {"hookEventName": "Elicitation",
                    "action": "accept", "content": {"answer": "green"}}})
            } else {
                json!({})
            };
            let id = v["request_id"].as_str().unwrap().to_string();
            d.send(json!({"type": "control_response", "response":
                {"subtype": "success", "request_id": id, "response": out}}));
            inputs.push(input);
        }
        if v["type"] == "user" && v.to_string().contains("tool_result") {
            break v;
        }
    };
    assert!(tr.to_string().contains("green"), "{tr}");
    let el = &inputs[0];
    assert_eq!(el["hook_event_name"], "Elicitation");
    assert_eq!(el["mcp_server_name"], "fx");
    assert_eq!(el["message"], "colour?");
    assert_eq!(
        el["requested_schema"]["properties"]["answer"]["type"],
        "string"
    );
    let res = &inputs[1];
    assert_eq!(res["hook_event_name"], "ElicitationResult");
    assert_eq!(res["action"], "accept");
    assert_eq!(res["content"]["answer"], "green");
    d.until_type("result");
    d.finish();
}

#[test]
fn an_elicitation_result_command_hook_sees_the_hosts_answer() {
    let settings = json!({"hooks": {"ElicitationResult": [{"hooks": [
        {"type": "command", "command": "cat > result.json"}]}]}})
    .to_string();
    let config = json!({"mcpServers": {"fx": {"command": fixture()}}}).to_string();
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--permission-mode",
                "bypassPermissions",
                "--mcp-config",
                &config,
                "--settings",
                &settings,
            ],
        ]
        .concat(),
    );
    d.user(r#"FAKE_TOOL mcp__fx__ask {"question":"colour?"}"#);
    let req =
        d.until(|v| v["type"] == "control_request" && v["request"]["subtype"] == "elicitation");
    let id = req["request_id"].as_str().unwrap().to_string();
    d.send(
        json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": id, "response": {"action": "decline"}}}),
    );
    d.until_type("result");
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(d.cwd().join("result.json")).unwrap())
            .unwrap();
    assert_eq!(seen["hook_event_name"], "ElicitationResult");
    assert_eq!(seen["mcp_server_name"], "fx");
    assert_eq!(seen["action"], "decline");
    d.finish();
}
