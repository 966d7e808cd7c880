//! Command hooks from settings files, run by a session next to the host's callback hooks:
//! exit 2 blocks with stderr as the reason, a JSON stdout rewrites the input, a timeout is
//! a non-blocking error, matchers pick the calls, committed project hooks run only in a
//! trusted project, and `includeHookEvents` streams their progress. Each refusal has a
//! positive twin, so the hooks do not simply stop everything.

use crate::common;

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

// --- The SDK's newer events (TS SDK 0.3.335's HOOK_EVENTS), fired through settings
// command hooks and through the host's callback hooks alike. ---

/// Settings that record every listed event's input, one JSON line each, in `events.jsonl`.
fn recording(events: &[&str]) -> Value {
    let hooks: serde_json::Map<String, Value> = events
        .iter()
        .map(|e| {
            (
                e.to_string(),
                // One append per hook (a single write of the whole line): hooks of
                // concurrent events run side by side, and a `cat >> f; echo >> f` of
                // each could interleave two inputs on one line, which then reads as
                // neither.
                json!([{"hooks": [{"type": "command",
                    "command": "f=$(mktemp) && { cat; echo; } > \"$f\" && cat \"$f\" >> events.jsonl; rm -f \"$f\""}]}]),
            )
        })
        .collect();
    json!({ "hooks": hooks })
}

/// The inputs `recording` hooks saw for `event`.
fn recorded(dir: &Path, event: &str) -> Vec<Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["hook_event_name"] == event)
        .collect()
}

/// Sends each prompt and waits for its result; returns every line.
async fn run_prompts(session: &Session, prompts: &[&str]) -> Vec<Value> {
    let mut all = Vec::new();
    for p in prompts {
        session.send(prompt(p)).unwrap();
        let (lines, _) = until_result(session).await;
        all.extend(lines);
    }
    all
}

/// A session whose host registers a callback hook (`cb_<event>`) for each of `events`;
/// runs `text`, answers each `hook_callback` with `reply(input)` and each `can_use_tool`
/// with `allow`. Returns the callbacks' inputs and every line.
async fn with_callbacks(
    o: SessionOptions,
    events: &[&str],
    text: &str,
    reply: impl Fn(&Value) -> Value,
) -> (Vec<Value>, Vec<Value>) {
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    let hooks: serde_json::Map<String, Value> = events
        .iter()
        .map(|e| {
            (
                e.to_string(),
                json!([{"hookCallbackIds": [format!("cb_{e}")]}]),
            )
        })
        .collect();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": hooks}),
        ))
        .unwrap();
    session.send(prompt(text)).unwrap();
    let (mut inputs, mut lines) = (Vec::new(), Vec::new());
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            let input = v["request"]["input"].clone();
            session
                .send(answer(&v["request_id"], reply(&input)))
                .unwrap();
            inputs.push(input);
        }
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
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
    (inputs, lines)
}

fn of_event<'a>(inputs: &'a [Value], event: &str) -> Vec<&'a Value> {
    inputs
        .iter()
        .filter(|i| i["hook_event_name"] == event)
        .collect()
}

/// Every input carries the SDK's base fields.
fn assert_base(input: &Value, dir: &Path) {
    assert!(
        input["session_id"].as_str().is_some_and(|s| !s.is_empty()),
        "{input}"
    );
    assert!(input["transcript_path"].is_string(), "{input}");
    assert_eq!(input["cwd"], json!(dir.display().to_string()), "{input}");
    assert!(input["permission_mode"].is_string(), "{input}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_batch_file_changed_and_cwd_changed_fire_from_settings() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(
            dir.path(),
            Some(recording(&["PostToolBatch", "FileChanged", "CwdChanged"])),
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "n\n").unwrap();
    run_prompts(
        &session,
        &[
            "FAKE_PAR notes.txt",
            "FAKE_WRITE new.txt",
            r#"FAKE_TOOL Bash {"command": "mkdir -p sub && cd sub"}"#,
        ],
    )
    .await;
    session.close();
    let batches = recorded(dir.path(), "PostToolBatch");
    // One per model response that called tools: the Read+Bash pair, the Write, the cd.
    assert_eq!(batches.len(), 3, "{batches:?}");
    let calls = batches[0]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tool_name"], "Read");
    assert_eq!(calls[1]["tool_name"], "Bash");
    assert!(calls[1]["tool_response"].to_string().contains("second"));
    assert_base(&batches[0], dir.path());
    let changed = recorded(dir.path(), "FileChanged");
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["event"], "add");
    assert!(
        changed[0]["file_path"]
            .as_str()
            .unwrap()
            .ends_with("new.txt")
    );
    let cwd = recorded(dir.path(), "CwdChanged");
    assert_eq!(cwd.len(), 1, "{cwd:?}");
    assert!(cwd[0]["new_cwd"].as_str().unwrap().ends_with("sub"));
    assert!(!cwd[0]["old_cwd"].as_str().unwrap().ends_with("sub"));
}

/// The hook input's fields in the order a hook reads them: the event's own, then the base
/// fields, then the event's name. The typed inputs keep the order the map-built inputs had.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_inputs_keep_their_field_order() {
    let dir = tempfile::tempdir().unwrap();
    let events = [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "FileChanged",
        "Stop",
    ];
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&events))),
    )
    .unwrap();
    run_prompts(&session, &["FAKE_WRITE new.txt"]).await;
    session.close();
    let base = [
        "session_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "hook_event_name",
    ];
    let own: [&[&str]; 5] = [
        &["prompt"],
        &["tool_name", "tool_input", "tool_use_id"],
        &[
            "tool_name",
            "tool_input",
            "tool_use_id",
            "duration_ms",
            "tool_response",
        ],
        &["file_path", "event"],
        &["stop_hook_active", "last_assistant_message"],
    ];
    for (event, own) in events.iter().zip(own) {
        let inputs = recorded(dir.path(), event);
        let input = inputs.first().unwrap_or_else(|| panic!("no {event} input"));
        let keys: Vec<&str> = input
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let expected: Vec<&str> = own.iter().chain(&base).copied().collect();
        assert_eq!(keys, expected, "{event}: {input}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_batch_file_changed_and_cwd_changed_reach_callback_hooks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "x\n").unwrap();
    let (inputs, lines) = with_callbacks(
        opts(dir.path(), None),
        &["PostToolBatch", "FileChanged", "CwdChanged"],
        "FAKE_WRITE old.txt",
        |input| {
            if input["hook_event_name"] == "PostToolBatch" {
                json!({"hookSpecificOutput": {"hookEventName": "PostToolBatch",
                    "additionalContext": "batch looked fine"}})
            } else {
                json!({})
            }
        },
    )
    .await;
    let changed = of_event(&inputs, "FileChanged");
    assert_eq!(changed.len(), 1, "{inputs:?}");
    assert_eq!(changed[0]["event"], "change");
    assert_base(changed[0], dir.path());
    assert_eq!(of_event(&inputs, "PostToolBatch").len(), 1);
    // No `cd`: no CwdChanged.
    assert!(of_event(&inputs, "CwdChanged").is_empty());
    assert_eq!(lines.last().unwrap()["subtype"], "success");

    let (inputs, _) = with_callbacks(
        opts(dir.path(), None),
        &["CwdChanged"],
        r#"FAKE_TOOL Bash {"command": "mkdir -p deeper && cd deeper"}"#,
        |_| json!({}),
    )
    .await;
    let cwd = of_event(&inputs, "CwdChanged");
    assert_eq!(cwd.len(), 1, "{inputs:?}");
    assert!(cwd[0]["new_cwd"].as_str().unwrap().ends_with("deeper"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_tool_batch_hook_can_stop_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (_, lines) = with_callbacks(
        opts(dir.path(), None),
        &["PostToolBatch"],
        "FAKE_TOUCH",
        |_| json!({"continue": false, "stopReason": "batch says stop"}),
    )
    .await;
    let result = lines.last().unwrap();
    assert!(result.to_string().contains("batch says stop"), "{result}");
    // The call itself ran: the hook comes after the batch.
    assert!(dir.path().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_failure_fires_when_the_api_fails_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&["StopFailure", "Stop"]))),
    )
    .unwrap();
    run_prompts(&session, &["FAKE_ERR400", "hello"]).await;
    session.close();
    let failed = recorded(dir.path(), "StopFailure");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["error"], "invalid_request");
    assert!(failed[0]["error_details"].as_str().unwrap().contains("400"));
    // Twin: the turn that succeeded fired Stop, not StopFailure.
    assert_eq!(recorded(dir.path(), "Stop").len(), 1);

    let (inputs, _) = with_callbacks(
        opts(dir.path(), None),
        &["StopFailure"],
        "FAKE_ERR529",
        |_| json!({}),
    )
    .await;
    let failed = of_event(&inputs, "StopFailure");
    assert_eq!(failed.len(), 1, "{inputs:?}");
    // The SDK's `SDKAssistantMessageError` category, as the synthetic assistant line has it.
    assert!(failed[0]["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(failed[0]["error_details"].as_str().unwrap().contains("529"));
}

/// A Bash call that runs until something stops the turn.
const LONG_CALL: &str = r#"FAKE_TOOL Bash {"command": "sleep 30"}"#;

/// A session recording `events`, its turn inside [`LONG_CALL`]: once the model's tool call
/// is on the stream, the turn is surely running.
async fn session_in_a_long_call(dir: &std::path::Path, events: &[&str]) -> Session {
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir, Some(recording(events))),
    )
    .unwrap();
    session.send(prompt(LONG_CALL)).unwrap();
    loop {
        let v = next(&session).await;
        if v["type"] == "assistant" && v.to_string().contains("\"tool_use\"") {
            return session;
        }
    }
}

/// `fired` is one Interrupt input with this `source`, `reason` and `via` (`None`: absent).
fn assert_one_interrupt(fired: &[Value], source: &str, reason: &str, via: Option<&str>) {
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0]["source"], source, "{}", fired[0]);
    assert_eq!(fired[0]["reason"], reason, "{}", fired[0]);
    assert_eq!(
        fired[0].get("via").and_then(Value::as_str),
        via,
        "{}",
        fired[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_fires_once_when_an_interrupt_request_ends_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let session = session_in_a_long_call(dir.path(), &["Interrupt"]).await;
    session
        .send(control_request("stop", json!({"subtype": "interrupt"})))
        .unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    let fired = recorded(dir.path(), "Interrupt");
    assert_one_interrupt(&fired, "user", "stop", Some("client"));
    assert_base(&fired[0], dir.path());
    // Twin: a turn that completes fires none.
    run_prompts(&session, &["hello"]).await;
    session.close();
    assert_eq!(recorded(dir.path(), "Interrupt").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_that_replaces_the_turn_fires_interrupt_as_other() {
    let dir = tempfile::tempdir().unwrap();
    let session = session_in_a_long_call(dir.path(), &["Interrupt"]).await;
    let now = json!({"type": "user", "priority": "now",
        "message": {"role": "user", "content": "hello"}});
    session
        .send(dcl_protocol::parse_line(&now.to_string()).unwrap())
        .unwrap();
    let (_, replaced) = until_result(&session).await;
    assert_eq!(replaced["subtype"], "error_during_execution", "{replaced}");
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    session.close();
    let fired = recorded(dir.path(), "Interrupt");
    // Once: the replacing prompt's own turn completed and fired none.
    assert_one_interrupt(&fired, "user", "other", Some("client"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_session_mid_turn_fires_no_interrupt() {
    let dir = tempfile::tempdir().unwrap();
    let session = session_in_a_long_call(dir.path(), &["Interrupt", "SessionEnd"]).await;
    session.close();
    // Until the session has ended: its turn, and any hook of it, are over.
    while tokio::time::timeout(std::time::Duration::from_secs(20), session.recv())
        .await
        .expect("the session ends")
        .is_some()
    {}
    assert!(recorded(dir.path(), "Interrupt").is_empty());
    // The recording hooks did run at the end: the session's own end was heard.
    assert_eq!(recorded(dir.path(), "SessionEnd").len(), 1);
}

/// `FAKE_WRITE` under `default` mode with `recording(["Interrupt"])` plus `extra` hooks;
/// the host answers `can_use_tool` with `answer`. Returns whether the host was asked,
/// the result, and the Interrupt inputs.
async fn write_denied(extra: Value, answer_with: Value) -> (bool, Value, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = recording(&["Interrupt"]);
    if let (Some(hooks), Some(more)) = (settings["hooks"].as_object_mut(), extra.as_object()) {
        hooks.extend(more.clone());
    }
    let mut o = opts(dir.path(), Some(settings));
    o.permission_mode = Some("default".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let mut asked = false;
    let result = loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            asked = true;
            session
                .send(answer(&v["request_id"], answer_with.clone()))
                .unwrap();
        }
        if v["type"] == "result" {
            break v;
        }
    };
    session.close();
    assert!(!dir.path().join("out.txt").exists(), "{result}");
    (asked, result, recorded(dir.path(), "Interrupt"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_denial_with_interrupt_fires_interrupt_as_a_denied_permission() {
    let (asked, result, fired) = write_denied(
        json!({}),
        json!({"behavior": "deny", "message": "stop everything", "interrupt": true}),
    )
    .await;
    assert!(asked);
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert_one_interrupt(&fired, "user", "permission_denied", Some("client"));

    // Twin: a plain denial lets the model go on, and nothing was interrupted.
    let (asked, result, fired) =
        write_denied(json!({}), json!({"behavior": "deny", "message": "no"})).await;
    assert!(asked);
    assert_eq!(result["subtype"], "success", "{result}");
    assert!(fired.is_empty(), "{fired:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_hook_denial_with_interrupt_ends_the_turn() {
    let hook = |decision: Value| {
        let out = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": decision}});
        json!({"PermissionRequest": [{"hooks": [{"type": "command",
            "command": format!("cat >/dev/null; echo '{out}'")}]}]})
    };
    let allow = json!({"behavior": "allow"});
    let (asked, result, fired) = write_denied(
        hook(json!({"behavior": "deny", "message": "policy", "interrupt": true})),
        allow.clone(),
    )
    .await;
    assert!(!asked, "the hook decided before the host");
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert_eq!(result["errors"][0], "Interrupted by user", "{result}");
    assert_one_interrupt(&fired, "system", "permission_denied", None);

    // Twin: the same denial without `interrupt` denies only the call.
    let (asked, result, fired) = write_denied(
        hook(json!({"behavior": "deny", "message": "policy"})),
        allow,
    )
    .await;
    assert!(!asked);
    assert_eq!(result["subtype"], "success", "{result}");
    assert!(fired.is_empty(), "{fired:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_prompt_expansion_fires_for_a_custom_command_and_can_block_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".dcl/commands")).unwrap();
    std::fs::write(
        dir.path().join(".dcl/commands/greet.md"),
        "Say hello to $ARGUMENTS",
    )
    .unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&["UserPromptExpansion"]))),
    )
    .unwrap();
    run_prompts(&session, &["/greet world", "no command here"]).await;
    session.close();
    let seen = recorded(dir.path(), "UserPromptExpansion");
    // Only the prompt naming a command expands.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["expansion_type"], "slash_command");
    assert_eq!(seen[0]["command_name"], "greet");
    assert_eq!(seen[0]["command_args"], "world");
    assert_eq!(seen[0]["command_source"], "command");
    assert_eq!(seen[0]["prompt"], "/greet world");

    let (inputs, lines) = with_callbacks(
        opts(dir.path(), None),
        &["UserPromptExpansion"],
        "/greet you",
        |_| json!({"decision": "block", "reason": "no greetings today"}),
    )
    .await;
    assert_eq!(of_event(&inputs, "UserPromptExpansion").len(), 1);
    let result = lines.last().unwrap();
    assert!(
        result.to_string().contains("no greetings today"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_loaded_fires_once_per_memory_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("CLAUDE.md"), "Be brief.\n").unwrap();
    std::fs::write(dir.path().join("CLAUDE.local.md"), "Mine.\n").unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&["InstructionsLoaded"]))),
    )
    .unwrap();
    run_prompts(&session, &["hello", "again"]).await;
    session.close();
    let seen = recorded(dir.path(), "InstructionsLoaded");
    // At the session's start only, not on every prompt.
    assert_eq!(seen.len(), 2, "{seen:?}");
    let of = |name: &str| {
        seen.iter()
            .find(|s| s["file_path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {seen:?}"))
    };
    assert_eq!(of("/CLAUDE.md")["memory_type"], "Project");
    assert_eq!(of("CLAUDE.local.md")["memory_type"], "Local");
    assert_eq!(of("/CLAUDE.md")["load_reason"], "session_start");

    let (inputs, _) = with_callbacks(
        opts(dir.path(), None),
        &["InstructionsLoaded"],
        "hello",
        |_| json!({}),
    )
    .await;
    assert_eq!(
        of_event(&inputs, "InstructionsLoaded").len(),
        2,
        "{inputs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notification_fires_when_dcl_asks_the_host_for_permission() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), None);
    o.permission_mode = Some("default".into());
    let (inputs, _) = with_callbacks(o, &["Notification"], "FAKE_TOUCH", |_| json!({})).await;
    let n = of_event(&inputs, "Notification");
    assert_eq!(n.len(), 1, "{inputs:?}");
    assert_eq!(n[0]["notification_type"], "permission_prompt");
    assert!(n[0]["message"].as_str().unwrap().contains("Bash"));

    // Twin: a call the mode allows asks nobody, so nothing is notified.
    let (inputs, _) = with_callbacks(
        opts(dir.path(), None),
        &["Notification"],
        "FAKE_TOUCH",
        |_| json!({}),
    )
    .await;
    assert!(of_event(&inputs, "Notification").is_empty(), "{inputs:?}");

    let mut o = opts(dir.path(), Some(recording(&["Notification"])));
    o.permission_mode = Some("default".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    session.send(prompt("FAKE_TOUCH")).unwrap();
    loop {
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
            break;
        }
    }
    session.close();
    assert_eq!(recorded(dir.path(), "Notification").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_change_and_directory_added_follow_a_hosts_updated_permissions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("extra")).unwrap();
    let mut o = opts(
        dir.path(),
        Some(recording(&["ConfigChange", "DirectoryAdded"])),
    );
    o.permission_mode = Some("default".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    session.send(prompt("FAKE_TOUCH")).unwrap();
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
            session
                .send(answer(
                    &v["request_id"],
                    json!({"behavior": "allow", "updatedPermissions": [
                        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch made.txt && echo made"}],
                         "behavior": "allow", "destination": "localSettings"},
                        {"type": "addDirectories", "directories": ["extra"], "destination": "session"}]}),
                ))
                .unwrap();
        }
        if v["type"] == "result" {
            break;
        }
    }
    session.close();
    let changes = recorded(dir.path(), "ConfigChange");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0]["source"], "local_settings");
    assert!(
        changes[0]["file_path"]
            .as_str()
            .unwrap()
            .ends_with("settings.local.json"),
        "{}",
        changes[0]
    );
    let added = recorded(dir.path(), "DirectoryAdded");
    assert_eq!(added.len(), 1, "{added:?}");
    assert_eq!(
        added[0]["directory"],
        json!(dir.path().join("extra").display().to_string())
    );
    assert_eq!(added[0]["source"], "register_repo_root");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_end_fires_when_the_input_ends() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&["SessionEnd"]))),
    )
    .unwrap();
    run_prompts(&session, &["hello"]).await;
    assert!(
        recorded(dir.path(), "SessionEnd").is_empty(),
        "fired before the end"
    );
    session.end_input();
    // The stream ends after the SessionEnd hooks.
    while tokio::time::timeout(std::time::Duration::from_secs(20), session.recv())
        .await
        .expect("the session did not end")
        .is_some()
    {}
    let ended = recorded(dir.path(), "SessionEnd");
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0]["reason"], "prompt_input_exit");
    assert_base(&ended[0], dir.path());
    // The transcript existed by then.
    assert!(
        ended[0]["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl"),
        "{}",
        ended[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_switch_hooks_fire_and_a_deny_keeps_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(
            dir.path(),
            Some(recording(&["PreModelSwitch", "PostModelSwitch"])),
        ),
    )
    .unwrap();
    session
        .send(control_request(
            "m1",
            json!({"subtype": "set_model", "model": "opus"}),
        ))
        .unwrap();
    let v = next(&session).await;
    assert_eq!(v["response"]["subtype"], "success", "{v}");
    session.close();
    let pre = recorded(dir.path(), "PreModelSwitch");
    let post = recorded(dir.path(), "PostModelSwitch");
    assert_eq!((pre.len(), post.len()), (1, 1), "{pre:?} {post:?}");
    assert_eq!(pre[0]["from_model"], "mock-model");
    assert_eq!(pre[0]["requested_model"], "opus");
    assert_eq!(pre[0]["source"], "sdk");
    assert_eq!(pre[0]["to_model"], v["response"]["response"]["model"]);
    assert!(pre[0]["context_tokens"].is_u64());

    // A callback's deny refuses the switch: the answer is an error, the model stays.
    let session =
        Session::spawn(&tokio::runtime::Handle::current(), opts(dir.path(), None)).unwrap();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {"PreModelSwitch": [{"hookCallbackIds": ["no"]}]}}),
        ))
        .unwrap();
    session
        .send(control_request(
            "m2",
            json!({"subtype": "set_model", "model": "opus"}),
        ))
        .unwrap();
    let mut refused = None;
    while refused.is_none() {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            assert_eq!(v["request"]["input"]["hook_event_name"], "PreModelSwitch");
            session
                .send(answer(
                    &v["request_id"],
                    json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
                        "permissionDecision": "deny", "permissionDecisionReason": "too costly"}}),
                ))
                .unwrap();
        }
        if v["type"] == "control_response" && v["response"]["request_id"] == "m2" {
            refused = Some(v);
        }
    }
    let refused = refused.unwrap();
    assert_eq!(refused["response"]["subtype"], "error", "{refused}");
    assert!(refused.to_string().contains("too costly"));
    session.send(prompt("hello")).unwrap();
    let (lines, _) = until_result(&session).await;
    session.close();
    let init = lines
        .iter()
        .find(|l| l["type"] == "system" && l["subtype"] == "init")
        .unwrap();
    assert_eq!(init["model"], "mock-model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_created_and_completed_fire_for_a_background_agent() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(
            dir.path(),
            Some(recording(&["TaskCreated", "TaskCompleted"])),
        ),
    )
    .unwrap();
    session
        .send(prompt(
            r#"FAKE_TOOL Agent {"description": "say hi", "prompt": "hello", "subagent_type": "general-purpose", "run_in_background": true}"#,
        ))
        .unwrap();
    loop {
        let v = next(&session).await;
        if v["type"] == "system" && v["subtype"] == "task_notification" {
            assert_eq!(v["status"], "completed", "{v}");
            break;
        }
    }
    session.close();
    let created = recorded(dir.path(), "TaskCreated");
    let completed = recorded(dir.path(), "TaskCompleted");
    assert_eq!((created.len(), completed.len()), (1, 1));
    assert_eq!(created[0]["task_subject"], "say hi");
    assert_eq!(created[0]["task_description"], "hello");
    assert_eq!(created[0]["task_id"], completed[0]["task_id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_and_subagent_stop_carry_the_fields_the_newest_sdks_read() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(dir.path(), Some(recording(&["Stop", "SubagentStop"]))),
    )
    .unwrap();
    run_prompts(
        &session,
        &[r#"FAKE_TOOL Agent {"description": "say hi", "prompt": "hello", "subagent_type": "general-purpose"}"#],
    )
    .await;
    session.close();
    let sub = recorded(dir.path(), "SubagentStop");
    assert_eq!(sub.len(), 1, "{sub:?}");
    let agent_id = sub[0]["agent_id"].as_str().unwrap();
    assert_eq!(sub[0]["agent_type"], "general-purpose");
    assert_eq!(sub[0]["stop_hook_active"], false);
    assert_eq!(
        sub[0]["last_assistant_message"],
        "Hello from the fake model."
    );
    let path = sub[0]["agent_transcript_path"].as_str().unwrap();
    assert!(
        path.ends_with(&format!("agent-{agent_id}.jsonl")) && Path::new(path).is_file(),
        "{path}"
    );
    let stop = recorded(dir.path(), "Stop");
    assert_eq!(stop.len(), 1, "{stop:?}");
    assert_eq!(stop[0]["stop_hook_active"], false);
    assert!(stop[0]["last_assistant_message"].is_string());
    // The main thread's Stop names no agent.
    assert!(stop[0].get("agent_id").is_none(), "{}", stop[0]);
    assert!(
        stop[0]["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_prompt_notification_follows_a_quiet_host_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), Some(recording(&["Notification"])));
    o.env
        .insert("DCL_IDLE_NOTIFICATION_MS".into(), "300".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), o).unwrap();
    run_prompts(&session, &["hello"]).await;
    // Not at once: only after the host stayed quiet.
    assert!(recorded(dir.path(), "Notification").is_empty());
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let idle = recorded(dir.path(), "Notification");
    // Once per quiet spell, not every 300 ms.
    assert_eq!(idle.len(), 1, "{idle:?}");
    assert_eq!(idle[0]["notification_type"], "idle_prompt");
    assert_eq!(idle[0]["message"], "Claude is waiting for your input");
    // A prompt ends the spell; the next quiet one notifies again.
    run_prompts(&session, &["again"]).await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    session.close();
    assert_eq!(recorded(dir.path(), "Notification").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_shells_fire_task_created_and_completed_only_on_success() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        opts(
            dir.path(),
            Some(recording(&["TaskCreated", "TaskCompleted"])),
        ),
    )
    .unwrap();
    run_prompts(
        &session,
        &[
            r#"FAKE_TOOL Bash {"command": "echo bg", "run_in_background": true}"#,
            r#"FAKE_TOOL Bash {"command": "exit 3", "run_in_background": true}"#,
        ],
    )
    .await;
    // The shells end on their own a moment later.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while recorded(dir.path(), "TaskCreated").len() < 2
        || recorded(dir.path(), "TaskCompleted").is_empty()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no task hooks: created {:?}, completed {:?}",
            recorded(dir.path(), "TaskCreated"),
            recorded(dir.path(), "TaskCompleted")
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    session.close();
    let created = recorded(dir.path(), "TaskCreated");
    let subjects: Vec<&str> = created
        .iter()
        .map(|c| c["task_subject"].as_str().unwrap())
        .collect();
    assert!(
        subjects.contains(&"echo bg") && subjects.contains(&"exit 3"),
        "{subjects:?}"
    );
    // Only the one that succeeded completed.
    let completed = recorded(dir.path(), "TaskCompleted");
    assert_eq!(completed.len(), 1, "{completed:?}");
    assert_eq!(completed[0]["task_subject"], "echo bg");
    assert!(
        completed[0]["task_id"]
            .as_str()
            .unwrap()
            .starts_with("bash_")
    );
}
