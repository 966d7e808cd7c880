//! Settings-file command hooks through the `dcl` binary, and `--include-hook-events`.
//! Each refusal has a positive twin.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

struct Run {
    lines: Vec<Value>,
    stderr: String,
}

/// `dcl -p <prompt>` in stream-json, bypassPermissions (only the hooks can stop a call),
/// with `home` as `$HOME`.
fn dcl(cwd: &Path, home: &Path, prompt: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        "mock-model",
        "--permission-mode",
        "bypassPermissions",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(&args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("DCL_CONFIG_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.last().unwrap()["type"], "result", "{text}");
    Run {
        lines,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn bash(command: &str) -> String {
    format!("FAKE_TOOL Bash {}", json!({"command": command}))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// User settings (`~/.claude/settings.json`) with one PreToolUse hook.
fn user_hook(home: &Path, matcher: &str, command: &str, timeout: Option<u64>) {
    let mut hook = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        hook["timeout"] = json!(t);
    }
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}});
    write(&home.join(".claude/settings.json"), &settings.to_string());
}

fn tool_result(run: &Run) -> String {
    run.lines
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

fn subtypes(run: &Run, subtype: &str) -> Vec<Value> {
    run.lines
        .iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == subtype)
        .cloned()
        .collect()
}

/// A script that refuses `rm` with a reason on stderr (exit 2).
fn block_rm_script(home: &Path) -> String {
    let script = home.join("block-rm.sh");
    write(
        &script,
        r#"#!/bin/sh
input=$(cat)
case "$input" in
  *'"command":"rm '*) echo "hook: rm is refused in this project" >&2; exit 2 ;;
esac
exit 0
"#,
    );
    format!("sh {}", script.display())
}

#[test]
fn a_settings_hook_script_refuses_rm_with_its_reason() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(&cwd.path().join("precious.txt"), "data");
    let script = block_rm_script(home.path());
    user_hook(home.path(), "Bash", &script, None);
    let run = dcl(cwd.path(), home.path(), &bash("rm precious.txt"), &[]);
    assert!(cwd.path().join("precious.txt").exists());
    assert!(
        tool_result(&run).contains("hook: rm is refused in this project"),
        "{:?}",
        run.lines
    );
    // Twin: the same hook lets other commands run.
    let run = dcl(cwd.path(), home.path(), &bash("touch made.txt"), &[]);
    assert!(
        cwd.path().join("made.txt").exists(),
        "{}",
        tool_result(&run)
    );
}

#[test]
fn a_settings_hook_rewrites_the_input() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rewrite = r#"cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch rewritten.txt"}}}'"#;
    user_hook(home.path(), "Bash", rewrite, None);
    dcl(cwd.path(), home.path(), &bash("touch original.txt"), &[]);
    assert!(cwd.path().join("rewritten.txt").exists());
    assert!(!cwd.path().join("original.txt").exists());
    // Twin: a hook for another tool leaves the input alone.
    user_hook(home.path(), "Write", rewrite, None);
    dcl(cwd.path(), home.path(), &bash("touch original.txt"), &[]);
    assert!(cwd.path().join("original.txt").exists());
}

#[test]
fn a_hook_past_its_timeout_is_killed_and_the_call_goes_on() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_hook(
        home.path(),
        "Bash",
        "sleep 30; touch hook-finished.txt; exit 2",
        Some(1),
    );
    let run = dcl(cwd.path(), home.path(), &bash("touch ran.txt"), &[]);
    assert!(cwd.path().join("ran.txt").exists(), "{:?}", run.lines);
    assert!(!cwd.path().join("hook-finished.txt").exists());
    assert!(
        subtypes(&run, "informational")
            .iter()
            .any(|w| w["content"].as_str().unwrap_or("").contains("timed out")),
        "{:?}",
        run.lines
    );
    // Twin: within its timeout the same kind of hook blocks.
    user_hook(home.path(), "Bash", "echo quick no >&2; exit 2", Some(5));
    std::fs::remove_file(cwd.path().join("ran.txt")).unwrap();
    dcl(cwd.path(), home.path(), &bash("touch ran.txt"), &[]);
    assert!(!cwd.path().join("ran.txt").exists());
}

#[test]
fn a_matcher_that_does_not_match_runs_nothing() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_hook(
        home.path(),
        "Edit|Write",
        "touch hook-ran.txt; exit 2",
        None,
    );
    dcl(cwd.path(), home.path(), &bash("touch a.txt"), &[]);
    assert!(cwd.path().join("a.txt").exists());
    assert!(!cwd.path().join("hook-ran.txt").exists());
    // Twin: a matching one runs.
    user_hook(
        home.path(),
        "Edit|Write|Bash",
        "touch hook-ran.txt; exit 2",
        None,
    );
    dcl(cwd.path(), home.path(), &bash("touch b.txt"), &[]);
    assert!(!cwd.path().join("b.txt").exists());
    assert!(cwd.path().join("hook-ran.txt").exists());
}

#[test]
fn an_untrusted_projects_hooks_do_not_run_until_the_user_trusts_it() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let planted = json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "touch pwned.txt"}]}]}});
    write(
        &cwd.path().join(".claude/settings.json"),
        &planted.to_string(),
    );
    let run = dcl(cwd.path(), home.path(), "hello", &[]);
    assert!(!cwd.path().join("pwned.txt").exists());
    assert!(run.stderr.contains("not trusted"), "{}", run.stderr);
    // Twin: the user's own settings trust the project.
    let trust = json!({"trustedProjects": [cwd.path()]});
    write(
        &home.path().join(".claude/settings.json"),
        &trust.to_string(),
    );
    dcl(cwd.path(), home.path(), "hello", &[]);
    assert!(cwd.path().join("pwned.txt").exists());
}

#[test]
fn the_clients_own_trust_record_or_an_explicit_project_source_trusts_the_project() {
    let planted = json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "touch ran.txt"}]}]}});
    let project = |cwd: &std::path::Path| {
        write(&cwd.join(".claude/settings.json"), &planted.to_string());
    };
    // The reference CLI's record of an accepted trust dialog, for a parent folder.
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sub = cwd.path().join("sub");
    project(&sub);
    let record = |accepted: bool| json!({"projects": {cwd.path().display().to_string(): {"hasTrustDialogAccepted": accepted}}});
    write(
        &home.path().join(".claude.json"),
        &record(false).to_string(),
    );
    dcl(&sub, home.path(), "hello", &[]);
    assert!(
        !sub.join("ran.txt").exists(),
        "a declined dialog trusted the project"
    );
    write(&home.path().join(".claude.json"), &record(true).to_string());
    let run = dcl(&sub, home.path(), "hello", &[]);
    assert!(sub.join("ran.txt").exists(), "{}", run.stderr);
    // A record for another folder trusts nothing here.
    let (other, home2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    project(other.path());
    write(
        &home2.path().join(".claude.json"),
        &record(true).to_string(),
    );
    dcl(other.path(), home2.path(), "hello", &[]);
    assert!(!other.path().join("ran.txt").exists());
    // An SDK host that names the project layer has chosen to load it.
    dcl(
        other.path(),
        home2.path(),
        "hello",
        &["--setting-sources", "user,project"],
    );
    assert!(other.path().join("ran.txt").exists());
}

#[test]
fn include_hook_events_streams_each_hooks_frames() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let script = block_rm_script(home.path());
    user_hook(home.path(), "Bash", &script, None);
    let run = dcl(
        cwd.path(),
        home.path(),
        &bash("rm x"),
        &["--include-hook-events"],
    );
    let started = subtypes(&run, "hook_started");
    let response = subtypes(&run, "hook_response");
    assert_eq!(started.len(), 1, "{:?}", run.lines);
    assert_eq!(response.len(), 1, "{:?}", run.lines);
    assert_eq!(started[0]["hook_name"], "PreToolUse:Bash");
    assert_eq!(started[0]["hook_id"], response[0]["hook_id"]);
    assert_eq!(response[0]["exit_code"], 2);
    assert_eq!(response[0]["outcome"], "error");
    assert_eq!(
        response[0]["stderr"],
        "hook: rm is refused in this project\n"
    );
    // The flag is acted on, so it is not reported as ignored.
    assert!(
        !run.stderr.contains("--include-hook-events"),
        "{}",
        run.stderr
    );
    // Twin: without the flag, no hook frames.
    let run = dcl(cwd.path(), home.path(), &bash("rm x"), &[]);
    assert!(subtypes(&run, "hook_started").is_empty());
    assert!(subtypes(&run, "hook_response").is_empty());
}

#[test]
fn a_plugin_hook_refuses_rm_and_untrusted_project_plugin_dirs_are_not_loaded() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(&cwd.path().join("precious.txt"), "data");
    let kit = home.path().join("kit");
    write(
        &kit.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.0.0"}"#,
    );
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": block_rm_script(home.path())}
    ]}]}});
    write(&kit.join("hooks/hooks.json"), &hooks.to_string());
    let flag = ["--plugin-dir", kit.to_str().unwrap()];
    let run = dcl(cwd.path(), home.path(), &bash("rm precious.txt"), &flag);
    assert!(cwd.path().join("precious.txt").exists(), "{:?}", run.lines);
    assert!(
        tool_result(&run).contains("hook: rm is refused"),
        "{:?}",
        run.lines
    );
    // Twin: the plugin's hook lets other commands through.
    dcl(cwd.path(), home.path(), &bash("touch made.txt"), &flag);
    assert!(cwd.path().join("made.txt").exists());
    // A committed project layer naming the plugin folder: an untrusted project cannot
    // bring in a plugin's hooks (or MCP servers), so rm is not refused by the hook.
    write(
        &cwd.path().join(".claude/settings.json"),
        &json!({"pluginDirs": [kit]}).to_string(),
    );
    let run = dcl(cwd.path(), home.path(), &bash("rm precious.txt"), &[]);
    assert!(!cwd.path().join("precious.txt").exists(), "{:?}", run.lines);
    assert!(run.stderr.contains("pluginDirs"), "{}", run.stderr);
}
