//! The CLI and an in-process session, given the same options and environment, say the
//! same thing: the CLI only turns argv into options JSON, and environment defaults
//! (dialect, legacy lines, model, thinking, host timeout) are resolved by the engine.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// What the host sends, both ways.
fn input() -> Vec<String> {
    [
        json!({"type":"control_request","request_id":"init-1","request":{"subtype":"initialize"}}),
        json!({"type":"user","message":{"role":"user","content":"please FAKE_BASH"},"parent_tool_use_id":null,"session_id":""}),
        json!({"type":"control_request","request_id":"set-1","request":{"subtype":"get_settings"}}),
        json!({"type":"user","message":{"role":"user","content":"FAKE_THINK"},"parent_tool_use_id":null,"session_id":""}),
    ]
    .iter()
    .map(Value::to_string)
    .collect()
}

/// The only environment either side sees.
fn environment(home: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
    env.insert("HOME".into(), home.display().to_string());
    env.insert("QODER_AGENT_SDK_ENTRYPOINT".into(), "sdk-py".into());
    env.insert("DCL_MODEL".into(), "mock-model".into());
    env.insert("DCL_NO_LEGACY_EVENTS".into(), "1".into());
    env.insert("MAX_THINKING_TOKENS".into(), "2048".into());
    env.insert("DCL_HOST_TIMEOUT_SECS".into(), "30".into());
    env
}

const CLI_ARGS: &[&str] = &[
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--permission-mode",
    "bypassPermissions",
    "--replay-user-messages",
];

fn via_cli(cwd: &Path, env: &BTreeMap<String, String>) -> Vec<String> {
    run_cli(CLI_ARGS, cwd, env, &input())
}

fn run_cli(
    args: &[&str],
    cwd: &Path,
    env: &BTreeMap<String, String>,
    lines: &[String],
) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn dcl");
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success());
    out.lines().map(str::to_string).collect()
}

fn in_process(cwd: &Path, env: &BTreeMap<String, String>) -> Vec<String> {
    // The CLI's flags in the options' vocabulary; nothing from the environment.
    let options = json!({
        "cwd": cwd,
        "outputFormat": "stream-json",
        "permissionMode": "bypassPermissions",
        "replayUserMessages": true,
        "env": env,
    });
    run_in_process(&options, &input())
}

fn run_in_process(options: &Value, lines: &[String]) -> Vec<String> {
    let bridge = dcl_bridge::open(&options.to_string()).unwrap();
    for line in lines {
        bridge.send(line).unwrap();
    }
    bridge.end_input();
    let mut out = Vec::new();
    loop {
        match bridge
            .recv_blocking_timeout(Some(Duration::from_secs(20)))
            .unwrap()
        {
            dcl_bridge::Received::Line(line) => out.push(line),
            dcl_bridge::Received::Ended => return out,
            dcl_bridge::Received::TimedOut => panic!("no line within 20 s: {out:#?}"),
        }
    }
}

/// Blanks what differs between any two runs (ids, times, the process, the directory).
fn normalise(lines: &[String], cwd: &Path) -> Vec<Value> {
    let cwd = cwd.display().to_string();
    lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(&l.replace(&cwd, "<cwd>")).unwrap();
            scrub(&mut v);
            v
        })
        .collect()
}

fn scrub(v: &mut Value) {
    const VARYING: &[&str] = &[
        "session_id",
        "uuid",
        "duration_ms",
        "duration_api_ms",
        "pid",
        "id",
        "timestamp",
    ];
    match v {
        Value::Object(map) => {
            for (k, item) in map.iter_mut() {
                if VARYING.contains(&k.as_str()) && !item.is_null() {
                    *item = json!("<varies>");
                } else {
                    scrub(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub),
        _ => {}
    }
}

/// (control responses by request id, every other line in order)
fn split_answers(lines: Vec<Value>) -> (BTreeMap<String, Value>, Vec<Value>) {
    let mut answers = BTreeMap::new();
    let mut rest = Vec::new();
    for v in lines {
        if v["type"] == "control_response" {
            let id = v["response"]["request_id"]
                .as_str()
                .unwrap_or("")
                .to_string();
            answers.insert(id, v);
        } else {
            rest.push(v);
        }
    }
    (answers, rest)
}

#[test]
fn the_same_options_give_the_same_lines_from_the_cli_and_in_process() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path());
    let cli_dir = tempfile::tempdir().unwrap();
    let lib_dir = tempfile::tempdir().unwrap();
    let cli_cwd = cli_dir.path().canonicalize().unwrap();
    let lib_cwd = lib_dir.path().canonicalize().unwrap();

    let cli = normalise(&via_cli(&cli_cwd, &env), &cli_cwd);
    let lib = normalise(&in_process(&lib_cwd, &env), &lib_cwd);
    assert!(!cli.is_empty());
    // Control requests are answered at once, so where an answer falls among a turn's
    // lines depends on timing: answers are compared by request id, the rest in order.
    let (cli_answers, cli) = split_answers(cli);
    let (lib_answers, lib) = split_answers(lib);
    assert_eq!(cli_answers, lib_answers);
    assert_eq!(cli_answers.len(), 2, "{cli_answers:#?}");
    for (i, (a, b)) in cli.iter().zip(&lib).enumerate() {
        assert_eq!(a, b, "line {i} differs:\n cli: {a}\n lib: {b}");
    }
    assert_eq!(cli.len(), lib.len(), "cli: {cli:#?}\nlib: {lib:#?}");

    // The environment took effect on both sides, not just the same way.
    let init = cli
        .iter()
        .find(|v| v["type"] == "system" && v["subtype"] == "init")
        .expect("system/init");
    assert_eq!(init["model"], "mock-model", "DCL_MODEL: {init}");
    assert!(
        init.get("qodercli_version").is_some(),
        "Qoder dialect: {init}"
    );
    let legacy = ["text", "tool_start", "tool_result", "usage"];
    assert!(
        !cli.iter()
            .any(|v| legacy.contains(&v["type"].as_str().unwrap_or(""))),
        "DCL_NO_LEGACY_EVENTS: {cli:#?}"
    );
    let results: Vec<&Value> = cli.iter().filter(|v| v["type"] == "result").collect();
    assert_eq!(results.len(), 2, "{cli:#?}");
}

/// `MAX_THINKING_TOKENS` turns thinking on like `--max-thinking-tokens`, in the CLI and
/// in process alike (it reaches the model request), and the flag wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_thinking_tokens_from_the_environment_reaches_the_request_both_ways() {
    use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
    use dcl_test_support::sse::SseMessage;
    let reply = || FakeResponse::sse(SseMessage::new().text("ok").build());
    let server = FakeAnthropicServer::start(vec![reply(), reply(), reply()])
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), home.path().display().to_string());
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-test".to_string());
    env.insert("ANTHROPIC_BASE_URL".to_string(), server.base_url());
    env.insert("DCL_MODEL".to_string(), "claude-sonnet-4-5".to_string());
    env.insert("MAX_THINKING_TOKENS".to_string(), "2048".to_string());
    let prompt = vec![json!({"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":""}).to_string()];
    let dir = cwd.path().to_path_buf();

    let (e, d, p) = (env.clone(), dir.clone(), prompt.clone());
    tokio::task::spawn_blocking(move || run_cli(&CLI_ARGS[..4], &d, &e, &p))
        .await
        .unwrap();
    let options = json!({"cwd": dir, "outputFormat": "stream-json", "env": env});
    let p = prompt.clone();
    tokio::task::spawn_blocking(move || run_in_process(&options, &p))
        .await
        .unwrap();
    let (e, d) = (env.clone(), dir.clone());
    tokio::task::spawn_blocking(move || {
        let mut args = CLI_ARGS[..4].to_vec();
        args.extend(["--max-thinking-tokens", "4096"]);
        run_cli(&args, &d, &e, &prompt)
    })
    .await
    .unwrap();

    let budgets: Vec<Value> = server
        .message_bodies()
        .iter()
        .map(|b| b["thinking"]["budget_tokens"].clone())
        .collect();
    assert_eq!(budgets, vec![json!(2048), json!(2048), json!(4096)]);
}
