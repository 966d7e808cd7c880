//! The stream-json protocol end to end: the `dcl` binary on the mock model, driven the
//! way the SDKs drive it.

use crate::common;

use common::{Dcl, STREAM};
use serde_json::json;

fn init(d: &mut Dcl) -> serde_json::Value {
    d.control("init_1", json!({"subtype":"initialize","hooks":null}));
    d.response_to("init_1")
}

#[test]
fn initialize_then_a_plain_answer() {
    let mut d = Dcl::start(STREAM);
    let resp = init(&mut d);
    let payload = &resp["response"]["response"];
    for key in [
        "commands",
        "agents",
        "output_style",
        "available_output_styles",
        "models",
        "account",
        "pid",
    ] {
        assert!(
            payload.get(key).is_some(),
            "initialize response lacks {key}: {payload}"
        );
    }
    assert_eq!(payload["hook_on_failure_supported"], true);
    assert!(
        payload["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["value"] == "mock-model")
    );
    d.user("say hi");
    let sys = d.until_type("system");
    assert_eq!(sys["subtype"], "init");
    assert_eq!(sys["claude_code_version"], "2.1.332");
    assert_eq!(sys["model"], "mock-model");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Hello from the fake model.");
    assert_eq!(result["num_turns"], 1);
    assert!(result["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(d.finish(), 0);
    let sid = sys["session_id"].as_str().unwrap().to_string();
    for line in &d.seen {
        assert_eq!(
            line["session_id"],
            sid.as_str(),
            "line without the session id: {line}"
        );
        assert!(
            line["uuid"].as_str().is_some_and(|u| !u.is_empty()),
            "line without uuid: {line}"
        );
    }
    let assistant = d.of_type("assistant");
    assert_eq!(assistant.len(), 1);
    assert_eq!(assistant[0]["message"]["model"], "mock-model");
    assert_eq!(
        assistant[0].get("parent_tool_use_id"),
        Some(&serde_json::Value::Null)
    );
}

#[test]
fn can_use_tool_allow_makes_the_file_appear() {
    let mut d = Dcl::start(STREAM);
    init(&mut d);
    let target = d.cwd().join("hello.txt");
    d.user(&format!("please FAKE_WRITE {}", target.display()));
    let req = d.answer_permission(json!({"behavior":"allow","updatedInput":{"file_path": target.display().to_string(), "content":"hello\n"}}));
    assert_eq!(req["request"]["tool_name"], "Write");
    assert_eq!(req["request"]["input"]["content"], "hello\n");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["permission_denials"], json!([]));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "hello\n");
    assert_eq!(d.finish(), 0);
}

#[test]
fn can_use_tool_updated_input_is_what_runs() {
    let mut d = Dcl::start(STREAM);
    let target = d.cwd().join("hello.txt");
    d.user(&format!("please FAKE_WRITE {}", target.display()));
    d.answer_permission(json!({"behavior":"allow","updatedInput":{"file_path": target.display().to_string(), "content":"rewritten\n"}}));
    d.until_type("result");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "rewritten\n");
    d.finish();
}

#[test]
fn can_use_tool_deny_leaves_the_file_absent_and_is_listed() {
    let mut d = Dcl::start(STREAM);
    init(&mut d);
    let target = d.cwd().join("hello.txt");
    d.user(&format!("please FAKE_WRITE {}", target.display()));
    d.answer_permission(json!({"behavior":"deny","message":"The user denied this tool use."}));
    let tool_result =
        d.until(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result");
    assert_eq!(tool_result["message"]["content"][0]["is_error"], true);
    assert_eq!(
        tool_result["message"]["content"][0]["content"],
        "The user denied this tool use."
    );
    let result = d.until_type("result");
    let denials = result["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0]["tool_name"], "Write");
    assert!(!target.exists());
    assert_eq!(d.finish(), 0);
}

#[test]
fn read_only_bash_runs_unasked() {
    let mut d = Dcl::start(STREAM);
    d.user("please FAKE_BASH");
    let tool_result =
        d.until(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result");
    assert_eq!(tool_result["message"]["content"][0]["content"], "hi");
    assert_eq!(
        tool_result["tool_use_result"]["stdout"]
            .as_str()
            .map(str::trim_end),
        Some("hi")
    );
    let result = d.until_type("result");
    assert_eq!(result["result"], "Done. The tool result had 2 chars.");
    assert_eq!(result["num_turns"], 2);
    d.finish();
    assert!(
        d.seen
            .iter()
            .all(|v| v["request"]["subtype"] != "can_use_tool")
    );
}

#[test]
fn compound_bash_with_a_write_asks_and_denial_without_answer_on_eof() {
    let mut d = Dcl::start(STREAM);
    d.user("please FAKE_TOUCH");
    let req = d.until(|v| v["type"] == "control_request");
    assert_eq!(req["request"]["subtype"], "can_use_tool");
    assert_eq!(req["request"]["tool_name"], "Bash");
    // The host goes away without answering: the call is denied at once, nothing runs.
    d.close_stdin();
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    assert!(!d.cwd().join("made.txt").exists());
    assert_eq!(d.finish(), 0);
}

#[test]
fn a_host_that_never_answers_cannot_hang_the_turn() {
    let mut d = Dcl::start(&[STREAM, &["--host-timeout", "1"]].concat());
    d.user("please FAKE_TOUCH");
    d.until(|v| v["type"] == "control_request");
    let cancel = d.until_type("control_cancel_request");
    assert!(cancel["request_id"].is_string());
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    assert!(!d.cwd().join("made.txt").exists());
    d.finish();
}

#[test]
fn plan_mode_refuses_as_the_seed_shows() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "plan"]].concat());
    d.control("i1", json!({"subtype":"initialize"}));
    d.response_to("i1");
    d.user("what time is it");
    let init = d.until_type("system");
    assert_eq!(init["permissionMode"], "plan");
    let call = d.until_type("assistant");
    assert_eq!(
        call["message"]["content"][0]["name"],
        "mcp__app__server_time"
    );
    assert_eq!(call["message"]["content"][0]["id"], "time-1");
    let tr = d.until_type("user");
    assert_eq!(
        tr["message"]["content"][0]["content"],
        "Permission denied: Plan mode: write operations are not allowed"
    );
    let result = d.until_type("result");
    assert_eq!(
        result["result"],
        "Tool said: Permission denied: Plan mode: write operations are not allowed"
    );
    assert_eq!(result["num_turns"], 2);
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_input": {}, "tool_name": "mcp__app__server_time", "tool_use_id": "time-1"}])
    );
    d.finish();
}

#[test]
fn plan_mode_blocks_writes_even_with_a_willing_host() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "plan"]].concat());
    let target = d.cwd().join("hello.txt");
    d.user(&format!("please FAKE_WRITE {}", target.display()));
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Write");
    assert!(!target.exists());
    assert!(d.seen.iter().all(|v| v["type"] != "control_request"));
    d.finish();
}

#[test]
fn bypass_permissions_runs_everything() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    d.user("please FAKE_TOUCH");
    let result = d.until_type("result");
    assert_eq!(result["result"], "Done. The tool result had 4 chars.");
    assert!(d.cwd().join("made.txt").exists());
    d.finish();
}

#[test]
fn accept_edits_writes_inside_cwd_without_asking_but_not_outside() {
    let outside = tempfile::tempdir().unwrap();
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "acceptEdits"]].concat());
    let inside = d.cwd().join("in.txt");
    d.user(&format!("please FAKE_WRITE {}", inside.display()));
    d.until_type("result");
    assert!(inside.exists());
    let out = outside.path().join("out.txt");
    d.user(&format!("please FAKE_WRITE {}", out.display()));
    let req = d.answer_permission(json!({"behavior":"deny","message":"no"}));
    assert!(
        req["request"]["blocked_path"]
            .as_str()
            .unwrap()
            .ends_with("/out.txt")
    );
    d.until_type("result");
    assert!(!out.exists());
    d.finish();
}

#[test]
fn symlink_escape_is_not_an_inside_edit() {
    let outside = tempfile::tempdir().unwrap();
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "acceptEdits"]].concat());
    std::os::unix::fs::symlink(outside.path(), d.cwd().join("link")).unwrap();
    let via_link = d.cwd().join("link/escaped.txt");
    d.user(&format!("please FAKE_WRITE {}", via_link.display()));
    d.answer_permission(json!({"behavior":"deny","message":"no"}));
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    assert!(!outside.path().join("escaped.txt").exists());
    d.finish();
}

#[test]
fn disallowed_tools_refuse_and_allowed_tools_skip_the_prompt() {
    let mut d = Dcl::start(
        &[
            STREAM,
            &["--allowedTools", "Bash(touch made.txt:*),Bash(echo:*)"],
        ]
        .concat(),
    );
    d.user("please FAKE_TOUCH");
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"], json!([]));
    assert!(d.cwd().join("made.txt").exists());
    d.finish();

    let mut d = Dcl::start(&[STREAM, &["--disallowedTools", "Bash"]].concat());
    d.user("please FAKE_BASH");
    let result = d.until_type("result");
    let init = d.of_type("system")[0].clone();
    assert!(
        !init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "Bash")
    );
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    d.finish();
}

#[test]
fn interrupt_ends_the_turn_and_the_session_goes_on() {
    let mut d = Dcl::start(&[STREAM, &["--include-partial-messages"]].concat());
    d.user("FAKE_SLOW please");
    d.until(|v| v["type"] == "stream_event" && v["event"]["type"] == "content_block_delta");
    d.control("int1", json!({"subtype":"interrupt"}));
    let resp = d.response_to("int1");
    assert_eq!(resp["response"]["subtype"], "success");
    assert_eq!(resp["response"]["response"]["still_queued"], json!([]));
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert!(d.seen.iter().any(|v| v["type"] == "user"
        && v["message"]["content"][0]["text"] == "[Request interrupted by user]"));
    d.user("say hi");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(d.finish(), 0);
}

#[test]
fn interrupt_while_idle_is_a_plain_success() {
    let mut d = Dcl::start(STREAM);
    d.control("i", json!({"subtype":"interrupt"}));
    let resp = d.response_to("i");
    assert_eq!(resp["response"]["subtype"], "success");
    assert_eq!(d.finish(), 0);
    assert!(d.of_type("result").is_empty());
}

#[test]
fn bad_lines_get_clear_errors_and_the_session_keeps_serving() {
    let mut d = Dcl::start(STREAM);
    d.send_raw("this is not json {");
    d.send_raw(r#"{"type":"bogus","x":1}"#);
    d.send_raw(r#"{"type":"user"}"#);
    d.control("u1", json!({"subtype":"no_such_subtype"}));
    let r = d.response_to("u1");
    assert_eq!(r["response"]["subtype"], "error");
    assert_eq!(
        r["response"]["error"],
        "Unsupported control request subtype: no_such_subtype"
    );
    d.control("bad", json!({"subtype":"set_permission_mode","mode":42}));
    let r = d.response_to("bad");
    assert_eq!(r["response"]["subtype"], "error");
    d.send_raw(r#"{"type":"control_request","request_id":"nobody","request":"not an object"}"#);
    let r = d.response_to("nobody");
    assert_eq!(r["response"]["subtype"], "error");
    d.send(json!({"type":"control_response","response":{"subtype":"success","request_id":"unknown-id","response":{}}}));
    d.user("say hi");
    let result = d.until_type("result");
    assert_eq!(result["result"], "Hello from the fake model.");
    assert_eq!(d.finish(), 0);
    let err = d.stderr();
    assert!(err.contains("this is not json"), "stderr: {err}");
    assert!(err.contains("bogus"), "stderr: {err}");
}

#[test]
fn second_initialize_is_an_error_and_requests_before_initialize_are_served() {
    let mut d = Dcl::start(STREAM);
    d.control("s1", json!({"subtype":"mcp_status"}));
    let r = d.response_to("s1");
    assert_eq!(r["response"]["response"]["mcpServers"], json!([]));
    assert_eq!(r["response"]["response"]["servers"], json!([]));
    init(&mut d);
    d.control("i2", json!({"subtype":"initialize"}));
    let r = d.response_to("i2");
    assert_eq!(r["response"]["subtype"], "error");
    assert_eq!(r["response"]["error"], "Already initialized");
    assert_eq!(d.finish(), 0);
}

#[test]
fn set_permission_mode_validates_and_takes_effect() {
    let mut d = Dcl::start(STREAM);
    d.control(
        "m1",
        json!({"subtype":"set_permission_mode","mode":"bogusMode"}),
    );
    assert_eq!(d.response_to("m1")["response"]["subtype"], "error");
    d.control(
        "m2",
        json!({"subtype":"set_permission_mode","mode":"bypassPermissions"}),
    );
    assert_eq!(
        d.response_to("m2")["response"]["response"]["mode"],
        "bypassPermissions"
    );
    d.user("please FAKE_TOUCH");
    d.until_type("result");
    assert!(d.cwd().join("made.txt").exists());
    d.finish();
}

#[test]
fn set_model_applies_to_the_next_turn_and_stays_on_the_mock() {
    let mut d = Dcl::start(STREAM);
    d.control("sm", json!({"subtype":"set_model","model":"mock-other"}));
    assert_eq!(
        d.response_to("sm")["response"]["response"]["model"],
        "mock-other"
    );
    d.user("say hi");
    let init = d.until_type("system");
    assert_eq!(init["model"], "mock-other");
    let result = d.until_type("result");
    assert_eq!(result["result"], "Hello from the fake model.");
    d.finish();
}

#[test]
fn messages_sent_back_to_back_run_as_sequential_turns() {
    let mut d = Dcl::start(STREAM);
    d.user("first message");
    d.user("second message");
    d.close_stdin();
    assert_eq!(d.finish(), 0);
    assert_eq!(d.of_type("result").len(), 2);
    assert_eq!(d.seen.iter().filter(|v| v["subtype"] == "init").count(), 2);
}

#[test]
fn eof_right_after_the_prompt_still_finishes_the_turn() {
    let mut d = Dcl::start(STREAM);
    d.user("say hi");
    d.close_stdin();
    assert_eq!(d.finish(), 0);
    assert_eq!(
        d.of_type("result")[0]["result"],
        "Hello from the fake model."
    );
}

#[test]
fn max_turns_stops_with_an_error_and_exit_1() {
    let mut d = Dcl::start(&[STREAM, &["--max-turns", "1"]].concat());
    d.user("please FAKE_BASH");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["terminal_reason"], "max_turns");
    assert_eq!(d.finish(), 1);
}

#[test]
fn api_errors_become_a_synthetic_answer_and_an_error_result() {
    let mut d = Dcl::start(STREAM);
    d.user("FAKE_ERR400 please");
    let a = d.until_type("assistant");
    assert_eq!(a["message"]["model"], "<synthetic>");
    let result = d.until_type("result");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["api_error_status"], 400);
    assert!(result["result"].as_str().unwrap().contains("400"));
    assert_eq!(d.finish(), 1);
}

#[test]
fn overloaded_is_retried_with_api_retry_frames() {
    let mut d = Dcl::start_with_env(STREAM, &[("DCL_RETRY_BASE_MS", "5")]);
    d.user("FAKE_ERR529 please");
    let result = d.until_type("result");
    assert_eq!(result["is_error"], true);
    let retries: Vec<_> = d
        .seen
        .iter()
        .filter(|v| v["subtype"] == "api_retry")
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(retries[0]["error_status"], 529);
    assert_eq!(d.finish(), 1);
}

#[test]
fn replay_echoes_user_messages_with_their_uuid() {
    let mut d = Dcl::start(&[STREAM, &["--replay-user-messages"]].concat());
    d.send(json!({"type":"user","message":{"role":"user","content":"say hi"},"uuid":"6f0c0000-0000-4000-8000-000000000001"}));
    let echo = d.until(|v| v["type"] == "user" && v["isReplay"] == true);
    assert_eq!(echo["uuid"], "6f0c0000-0000-4000-8000-000000000001");
    assert_eq!(echo["message"]["content"], "say hi");
    d.finish();
}

#[test]
fn partial_messages_stream_the_raw_events() {
    let mut d = Dcl::start(&[STREAM, &["--include-partial-messages"]].concat());
    d.user("FAKE_THINK please");
    d.until_type("result");
    d.finish();
    let kinds: Vec<&str> = d
        .seen
        .iter()
        .filter(|v| v["type"] == "stream_event")
        .map(|v| v["event"]["type"].as_str().unwrap())
        .collect();
    for k in [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ] {
        assert!(kinds.contains(&k), "missing {k} in {kinds:?}");
    }
    let thinking = d
        .seen
        .iter()
        .find(|v| v["type"] == "assistant" && v["message"]["content"][0]["type"] == "thinking")
        .unwrap();
    assert_eq!(thinking["message"]["content"][0]["signature"], "fakesig");
}

#[test]
fn without_partial_messages_there_are_no_stream_events_and_legacy_lines_can_be_disabled() {
    let mut d = Dcl::start(STREAM);
    d.user("say hi");
    d.until_type("result");
    d.finish();
    assert!(d.of_type("stream_event").is_empty());
    assert_eq!(d.of_type("text").len(), 1);
    assert_eq!(d.of_type("usage").len(), 1);

    let mut d = Dcl::start(&[STREAM, &["--no-legacy-events"]].concat());
    d.user("please FAKE_BASH");
    d.until_type("result");
    d.finish();
    for t in ["text", "tool_start", "tool_result", "usage"] {
        assert!(d.of_type(t).is_empty(), "{t} lines present");
    }
}

#[test]
fn bash_keeps_its_cwd_between_calls() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    std::fs::create_dir(d.cwd().join("sub")).unwrap();
    d.user(r#"FAKE_TOOL Bash {"command":"cd sub"}"#);
    d.until_type("result");
    d.user(r#"FAKE_TOOL Bash {"command":"pwd"}"#);
    d.until_type("result");
    d.finish();
    let last_tool = d
        .seen
        .iter()
        .rfind(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap()
        .clone();
    let text = last_tool["message"]["content"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.trim_end().ends_with("/sub"), "{text}");
}

#[test]
fn sigterm_stops_the_turn_and_kills_tool_processes() {
    let marker = format!("dcl-sigterm-{}", std::process::id());
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    d.user(&format!(
        r#"FAKE_TOOL Bash {{"command":"sleep 300 & exec -a {marker} sleep 300"}}"#
    ));
    d.until_type("tool_start");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = nix::unistd::Pid::from_raw(d.child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let started = std::time::Instant::now();
    let status = d.child.wait().unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert!(!status.success());
    std::thread::sleep(std::time::Duration::from_millis(300));
    let left = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "processes left behind: {}",
        String::from_utf8_lossy(&left.stdout)
    );
}

#[test]
fn reads_outside_the_working_directory_ask() {
    let mut d = Dcl::start(STREAM);
    d.user(r#"FAKE_TOOL Glob {"pattern":"/etc/*"}"#);
    let req = d.answer_permission(json!({"behavior":"deny","message":"no"}));
    assert_eq!(req["request"]["tool_name"], "Glob");
    d.user(r#"FAKE_TOOL Read {"file_path":"../../../../../../etc/hostname"}"#);
    let req = d.answer_permission(json!({"behavior":"deny","message":"no"}));
    assert_eq!(req["request"]["tool_name"], "Read");
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    // A read-only command still asks when it names a path outside the working directory.
    d.user(r#"FAKE_TOOL Bash {"command":"cat /etc/hostname"}"#);
    let req = d.answer_permission(json!({"behavior":"deny","message":"no"}));
    assert_eq!(req["request"]["blocked_path"], "/etc/hostname");
    d.until_type("result");
    d.finish();
}

#[test]
fn dont_ask_mode_denies_with_a_permission_denied_line() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "dontAsk"]].concat());
    d.user("please FAKE_TOUCH");
    let line = d.until(|v| v["subtype"] == "permission_denied");
    assert_eq!(line["tool_name"], "Bash");
    assert!(line["message"].as_str().unwrap().contains("Bash"));
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    assert!(!d.cwd().join("made.txt").exists());
    assert!(d.seen.iter().all(|v| v["type"] != "control_request"));
    d.finish();
}

#[test]
fn session_end_hooks_run_at_the_end_of_input_and_on_sigterm() {
    let settings = json!({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": "cat > ended.json"}]}]}})
    .to_string();
    let read = |d: &Dcl| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.cwd().join("ended.json")).unwrap()).unwrap()
    };
    let mut d = Dcl::start(&[STREAM, &["--settings", &settings]].concat());
    d.user("hello");
    d.until_type("result");
    assert!(!d.cwd().join("ended.json").exists(), "fired before the end");
    assert_eq!(d.finish(), 0);
    let ended = read(&d);
    assert_eq!(ended["hook_event_name"], "SessionEnd");
    assert_eq!(ended["reason"], "prompt_input_exit");

    // SIGTERM: the session is closed, and its SessionEnd hooks get what is left of the
    // shutdown's time.
    let mut d = Dcl::start(&[STREAM, &["--settings", &settings]].concat());
    d.user("hello");
    d.until_type("result");
    let pid = nix::unistd::Pid::from_raw(d.child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    d.child.wait().unwrap();
    assert_eq!(read(&d)["reason"], "other");
}

#[test]
fn a_long_tool_call_reports_tool_progress() {
    let mut d = Dcl::start_with_env(
        &[STREAM, &["--permission-mode", "bypassPermissions"]].concat(),
        &[("DCL_TOOL_PROGRESS_MS", "300")],
    );
    d.user(r#"FAKE_TOOL Bash {"command": "sleep 1.2"}"#);
    let start = d.until_type("tool_start");
    d.until_type("result");
    let progress: Vec<serde_json::Value> =
        d.of_type("tool_progress").into_iter().cloned().collect();
    assert!(progress.len() >= 2, "{progress:?}");
    let first = &progress[0];
    assert_eq!(first["tool_name"], "Bash");
    assert_eq!(first["tool_use_id"], start["tool_use_id"]);
    assert!(first["parent_tool_use_id"].is_null());
    assert!(first["session_id"].as_str().is_some_and(|s| !s.is_empty()));
    let elapsed: Vec<f64> = progress
        .iter()
        .map(|p| p["elapsed_time_seconds"].as_f64().unwrap())
        .collect();
    assert!(elapsed.windows(2).all(|w| w[0] <= w[1]), "{elapsed:?}");
    // Twin: a quick call reports none.
    d.user(r#"FAKE_TOOL Bash {"command": "echo quick"}"#);
    d.until_type("result");
    assert_eq!(d.of_type("tool_progress").len(), progress.len());
    d.finish();
}

/// The `type`s a strict SDK of the reference protocol knows (the Java and Go SDKs stop
/// reading at the first line whose `type` is not one of these).
const STRICT_TYPES: &[&str] = &[
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "tool_progress",
    "auth_status",
    "keep_alive",
];

/// A strict client: reads lines until the first unknown `type`, as other-language SDKs do.
fn strict_client(entrypoint: Option<&str>) -> (Vec<String>, Option<String>) {
    let env: Vec<(&str, &str)> = entrypoint
        .map(|e| vec![("CLAUDE_CODE_ENTRYPOINT", e)])
        .unwrap_or_default();
    let mut d = Dcl::start_with_env(STREAM, &env);
    d.user("please FAKE_BASH");
    d.until_type("result");
    assert_eq!(d.finish(), 0);
    let mut known = Vec::new();
    for line in &d.seen {
        let t = line["type"].as_str().unwrap_or_default().to_string();
        if !STRICT_TYPES.contains(&t.as_str()) {
            return (known, Some(t));
        }
        known.push(t);
    }
    (known, None)
}

#[test]
fn a_strict_sdk_reads_to_the_result_when_it_announces_itself() {
    for entrypoint in ["sdk-java", "sdk-go", "sdk-rust"] {
        let (types, unknown) = strict_client(Some(entrypoint));
        assert_eq!(unknown, None, "{entrypoint}: stopped at an unknown type");
        assert_eq!(types.last().map(String::as_str), Some("result"));
    }
    // The twin: an old script (no entrypoint) still gets the legacy lines.
    let (_, unknown) = strict_client(None);
    assert!(
        matches!(
            unknown.as_deref(),
            Some("text" | "tool_start" | "tool_result" | "usage")
        ),
        "{unknown:?}"
    );
}

#[test]
fn a_prompt_piped_without_p_is_a_print_mode_run() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(["--model", "mock-model", "--output-format", "json"])
        .current_dir(cwd.path())
        .env("HOME", home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"say hi\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["result"], "Hello from the fake model.");
}
