//! Command hooks from settings files, run by a session next to the host's callback hooks:
//! exit 2 blocks with stderr as the reason, a JSON stdout rewrites the input, a timeout is
//! a non-blocking error, matchers pick the calls, committed project hooks run only in a
//! trusted project, and `includeHookEvents` streams their progress. Each refusal has a
//! positive twin, so the hooks do not simply stop everything.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{answer, control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use serde_json::{Value, json};

/// A hook script that refuses any Bash line mentioning `rm` (exit 2, reason on stderr).
const NO_RM: &str = r#"input=$(cat); case "$input" in *'"rm '*) echo "rm is not allowed here" >&2; exit 2;; esac; exit 0"#;

fn opts(dir: &Path, settings: Option<Value>) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), dir.join("home").display().to_string());
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    env.insert(
        "ANTHROPIC_API_KEY".to_string(),
        "sk-ant-hook-secret-4242".to_string(),
    );
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("bypassPermissions".into()),
        settings: settings.map(|s| s.to_string()),
        env,
        ..Default::default()
    }
}

fn pre_tool_use(matcher: &str, command: &str, timeout: Option<f64>) -> Value {
    let mut hook = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        hook["timeout"] = json!(t);
    }
    json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}})
}

async fn run_bash(options: SessionOptions, command: &str) -> Vec<Value> {
    let session = Session::spawn(&tokio::runtime::Handle::current(), options).unwrap();
    let line = json!({"command": command}).to_string();
    session
        .send(prompt(&format!("FAKE_TOOL Bash {line}")))
        .unwrap();
    let (lines, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    session.close();
    lines
}

/// The text of the first tool result on the stream.
fn tool_result(lines: &[Value]) -> String {
    lines
        .iter()
        .filter(|l| l["type"] == "user")
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .unwrap_or_default()
}

fn system(lines: &[Value], subtype: &str) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == subtype)
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_code_2_blocks_the_call_with_stderr_as_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("victim.txt"), "keep me").unwrap();
    let lines = run_bash(
        opts(dir.path(), Some(pre_tool_use("Bash", NO_RM, None))),
        "rm victim.txt",
    )
    .await;
    assert!(
        dir.path().join("victim.txt").exists(),
        "the hook did not stop rm"
    );
    let result = tool_result(&lines);
    assert!(result.contains("rm is not allowed here"), "{result}");

    // Twin: the same hook lets a line without `rm` run.
    let lines = run_bash(
        opts(dir.path(), Some(pre_tool_use("Bash", NO_RM, None))),
        "echo fine > ok.txt",
    )
    .await;
    assert!(
        dir.path().join("ok.txt").exists(),
        "{}",
        tool_result(&lines)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_answer_on_stdout_rewrites_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let rewrite = r#"cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'"#;
    run_bash(
        opts(dir.path(), Some(pre_tool_use("Bash", rewrite, None))),
        "echo original > out.txt",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "rewritten\n"
    );

    // Twin: a hook that prints nothing leaves the input as the model wrote it.
    run_bash(
        opts(
            dir.path(),
            Some(pre_tool_use("Bash", "cat >/dev/null", None)),
        ),
        "echo original > out.txt",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "original\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_times_out_is_a_non_blocking_error_shown_to_the_user() {
    let dir = tempfile::tempdir().unwrap();
    // Would block if it ever finished; the 1 s timeout kills it first.
    let slow = "sleep 30; exit 2";
    let lines = run_bash(
        opts(dir.path(), Some(pre_tool_use("Bash", slow, Some(1.0)))),
        "touch ran.txt",
    )
    .await;
    assert!(
        dir.path().join("ran.txt").exists(),
        "{}",
        tool_result(&lines)
    );
    let warnings = system(&lines, "informational");
    assert!(
        warnings
            .iter()
            .any(|w| w["content"].as_str().unwrap_or("").contains("timed out")),
        "{warnings:?}"
    );

    // Twin: a fast hook with the same timeout does block.
    std::fs::remove_file(dir.path().join("ran.txt")).unwrap();
    run_bash(
        opts(
            dir.path(),
            Some(pre_tool_use("Bash", "echo no >&2; exit 2", Some(1.0))),
        ),
        "touch ran.txt",
    )
    .await;
    assert!(!dir.path().join("ran.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matcher_that_does_not_match_does_not_run_the_hook() {
    let dir = tempfile::tempdir().unwrap();
    let block = "echo blocked >&2; exit 2";
    run_bash(
        opts(dir.path(), Some(pre_tool_use("Write|Edit", block, None))),
        "touch a.txt",
    )
    .await;
    assert!(dir.path().join("a.txt").exists());
    // Twins: the tool's name, a regex and `*` match.
    for matcher in ["Bash", "Ba.*", "*"] {
        run_bash(
            opts(dir.path(), Some(pre_tool_use(matcher, block, None))),
            "touch b.txt",
        )
        .await;
        assert!(!dir.path().join("b.txt").exists(), "{matcher}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn committed_project_hooks_run_only_in_a_trusted_project() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".dcl")).unwrap();
    // A repository's own settings try to run code on every tool call.
    let planted = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "touch pwned.txt"}]}]}});
    std::fs::write(dir.path().join(".dcl/settings.json"), planted.to_string()).unwrap();
    run_bash(opts(dir.path(), None), "echo hi").await;
    assert!(
        !dir.path().join("pwned.txt").exists(),
        "an untrusted project hook ran"
    );

    // Twin: trusted by the user (here through --settings), the same hook runs.
    run_bash(
        opts(dir.path(), Some(json!({"trustedProjects": ["."]}))),
        "echo hi",
    )
    .await;
    assert!(
        dir.path().join("pwned.txt").exists(),
        "a trusted project hook did not run"
    );

    // A project cannot trust itself.
    std::fs::remove_file(dir.path().join("pwned.txt")).unwrap();
    let mut self_trust = planted.clone();
    self_trust["trustedProjects"] = json!(["."]);
    std::fs::write(
        dir.path().join(".dcl/settings.json"),
        self_trust.to_string(),
    )
    .unwrap();
    run_bash(opts(dir.path(), None), "echo hi").await;
    assert!(!dir.path().join("pwned.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_never_see_or_show_the_api_key() {
    let dir = tempfile::tempdir().unwrap();
    let leak = r#"cat >/dev/null; env > hook-env.txt; echo "key=$ANTHROPIC_API_KEY sk-ant-hook-secret-4242" >&2; exit 2"#;
    let mut o = opts(dir.path(), Some(pre_tool_use("Bash", leak, None)));
    o.include_hook_events = true;
    let lines = run_bash(o, "echo hi").await;
    let env = std::fs::read_to_string(dir.path().join("hook-env.txt")).unwrap();
    assert!(!env.contains("sk-ant-hook-secret-4242"), "{env}");
    assert!(env.contains("CLAUDE_PROJECT_DIR="), "{env}");
    let all = serde_json::to_string(&lines).unwrap();
    assert!(!all.contains("sk-ant-hook-secret-4242"), "{all}");
    // Twin: the hook did run and its (scrubbed) reason reached the model.
    assert!(tool_result(&lines).contains("key="), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_hook_events_streams_started_progress_and_response() {
    let dir = tempfile::tempdir().unwrap();
    let chatty = "cat >/dev/null; echo working; sleep 3; echo done";
    let mut o = opts(dir.path(), Some(pre_tool_use("Bash", chatty, None)));
    o.include_hook_events = true;
    let lines = run_bash(o, "echo hi").await;
    let started = system(&lines, "hook_started");
    let progress = system(&lines, "hook_progress");
    let response = system(&lines, "hook_response");
    assert_eq!(started.len(), 1, "{lines:#?}");
    assert_eq!(response.len(), 1, "{lines:#?}");
    let id = &started[0]["hook_id"];
    assert!(id.is_string());
    assert_eq!(started[0]["hook_name"], "PreToolUse:Bash");
    assert_eq!(started[0]["hook_event"], "PreToolUse");
    assert!(!progress.is_empty(), "{lines:#?}");
    assert_eq!(&progress[0]["hook_id"], id);
    assert!(
        progress[0]["stdout"]
            .as_str()
            .unwrap()
            .starts_with("working")
    );
    assert_eq!(&response[0]["hook_id"], id);
    assert_eq!(response[0]["stdout"], "working\ndone\n");
    assert_eq!(response[0]["exit_code"], 0);
    assert_eq!(response[0]["outcome"], "success");
    for frame in started.iter().chain(&progress).chain(&response) {
        assert!(frame["uuid"].is_string() && frame["session_id"].is_string());
        let typed = dcl_protocol::parse_line(&frame.to_string()).unwrap();
        let dcl_protocol::Message::System(m) = typed else {
            panic!("not a system line: {frame}")
        };
        assert!(
            !matches!(m.typed(), dcl_protocol::system::SystemEvent::Other(_)),
            "{frame}"
        );
    }

    // Twin: without the option the hook runs silently.
    let o = opts(
        dir.path(),
        Some(pre_tool_use("Bash", "cat >/dev/null; echo x", None)),
    );
    let lines = run_bash(o, "echo hi").await;
    assert!(system(&lines, "hook_started").is_empty());
    assert!(system(&lines, "hook_response").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_hook_is_reported_and_the_call_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(
        dir.path(),
        Some(pre_tool_use("Bash", "echo broken >&2; exit 1", None)),
    );
    o.include_hook_events = true;
    let lines = run_bash(o, "touch ran.txt").await;
    assert!(dir.path().join("ran.txt").exists());
    let response = system(&lines, "hook_response");
    assert_eq!(response[0]["outcome"], "error");
    assert_eq!(response[0]["exit_code"], 1);
    let warnings = system(&lines, "informational");
    assert!(
        warnings.iter().any(|w| {
            let c = w["content"].as_str().unwrap_or("");
            c.contains("PreToolUse:Bash hook error") && c.contains("broken")
        }),
        "{warnings:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_hook_deny_wins_over_a_callback_allow() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(
        dir.path(),
        Some(pre_tool_use(
            "Bash",
            "echo settings say no >&2; exit 2",
            None,
        )),
    );
    o.permission_mode = Some("default".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {"PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["allow_all"]}]}}),
        ))
        .unwrap();
    session
        .send(prompt(r#"FAKE_TOOL Bash {"command": "touch denied.txt"}"#))
        .unwrap();
    let mut lines = Vec::new();
    let mut callbacks = 0;
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            callbacks += 1;
            session
                .send(answer(
                    &v["request_id"],
                    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                        "permissionDecision": "allow"}}),
                ))
                .unwrap();
        }
        assert!(
            !(v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"),
            "the denied call was put to the host"
        );
        let done = v["type"] == "result";
        lines.push(v);
        if done {
            break;
        }
    }
    session.close();
    assert_eq!(callbacks, 1, "the callback hook ran too");
    assert!(!dir.path().join("denied.txt").exists());
    assert!(tool_result(&lines).contains("settings say no"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_prompt_submit_and_stop_hooks_from_settings_fire() {
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command",
            "command": "cat > prompt.json; echo 'prompt refused' >&2; exit 2"}]}],
    }});
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(settings)),
    )
    .unwrap();
    session
        .send(prompt("FAKE_TOOL Bash {\"command\": \"touch x.txt\"}"))
        .unwrap();
    let (_, result) = until_result(&session).await;
    session.close();
    assert!(!dir.path().join("x.txt").exists(), "{result}");
    assert!(result.to_string().contains("prompt refused"), "{result}");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("prompt.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "UserPromptSubmit");
    assert!(input["prompt"].as_str().unwrap().contains("FAKE_TOOL"));

    // Twin: a Stop hook (no matcher field) runs once the turn ends, and lets it end.
    let settings = json!({"hooks": {"Stop": [{"matcher": "ignored", "hooks": [
        {"type": "command", "command": "cat > stop.json"}]}]}});
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(settings)),
    )
    .unwrap();
    session.send(prompt("hello")).unwrap();
    let (_, result) = until_result(&session).await;
    session.close();
    assert_eq!(result["subtype"], "success");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("stop.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "Stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_hook_exiting_2_denies_before_the_host_is_asked() {
    let run = |command: &'static str| async move {
        let dir = tempfile::tempdir().unwrap();
        let settings = json!({"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command}]}]}});
        let mut o = opts(dir.path(), Some(settings));
        o.permission_mode = Some("default".into());
        let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
        session
            .send(prompt(r#"FAKE_TOOL Bash {"command": "touch asked.txt"}"#))
            .unwrap();
        let mut asked = false;
        let mut lines = Vec::new();
        loop {
            let v = next(&session).await;
            if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
                asked = true;
                session
                    .send(answer(&v["request_id"], json!({"behavior": "allow"})))
                    .unwrap();
            }
            let done = v["type"] == "result";
            lines.push(v);
            if done {
                break;
            }
        }
        session.close();
        (
            asked,
            dir.path().join("asked.txt").exists(),
            tool_result(&lines),
        )
    };
    let (asked, made, result) = run("cat >/dev/null; echo 'policy says no' >&2; exit 2").await;
    assert!(!asked && !made, "{result}");
    assert!(result.contains("policy says no"), "{result}");
    // Twin: a hook that passes leaves the decision to the host.
    let (asked, made, _) = run("cat >/dev/null; exit 0").await;
    assert!(asked && made);
}
