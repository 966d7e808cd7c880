//! The `dcl` binary over stream-json against a fake Anthropic server with a 20k-token
//! window: automatic and `/compact` compaction, every line checked against the exported
//! schema, and the output style of the project's `.claude/` folder.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use dcl_protocol::validate::SchemaValidator;
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::sse_text;
use serde_json::{Value, json};

const WINDOW: u64 = 20_000;
const SUMMARY_ASK: &str = "create a detailed summary of the conversation so far";

fn last_text(body: &Value) -> String {
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b
            .iter()
            .filter_map(|x| x["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn user(text: &str) -> String {
    json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""}).to_string()
}

/// Runs dcl with `lines` on stdin (then EOF); returns every stdout line and the exit code.
fn run(
    cwd: &Path,
    home: &Path,
    data: &Path,
    base_url: &str,
    lines: &[String],
) -> (Vec<Value>, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--model",
            "claude-test",
            "--data-dir",
        ])
        .arg(data)
        .current_dir(cwd)
        .env("HOME", home)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ANTHROPIC_BASE_URL", base_url)
        .env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", WINDOW.to_string())
        .env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "70")
        .env("DCL_RETRY_BASE_MS", "1")
        .env_remove("DCL_MODEL")
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = lines.join("\n") + "\n";
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    writer.join().unwrap();
    let code = child.wait().unwrap().code().unwrap_or(-1);
    let seen = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (seen, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_stream_json_session_compacts_with_valid_frames_and_the_project_output_style() {
    let server = FakeAnthropicServer::start(vec![]).await.unwrap();
    server.set_window(WINDOW);
    server.set_responder(|body| {
        if last_text(body).contains(SUMMARY_ASK) {
            return FakeResponse::sse(sse_text(
                "<analysis>notes</analysis><summary>The user sent numbered turns.</summary>",
            ));
        }
        FakeResponse::sse(sse_text(&format!("fine. {}", "reply words ".repeat(30))))
    });
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    write(
        &cwd.path().join(".claude/settings.json"),
        r#"{"outputStyle": "Concise"}"#,
    );
    write(
        &cwd.path().join(".claude/output-styles/Concise.md"),
        "---\ndescription: one line\n---\nAnswer in one line.",
    );
    let mut lines = vec![
        json!({"type":"control_request","request_id":"init","request":{"subtype":"initialize"}})
            .to_string(),
    ];
    for i in 0..100 {
        lines.push(user(&format!(
            "turn {i}: {}",
            "some padding to fill the window ".repeat(8)
        )));
    }
    lines.push(user("/compact focus on the numbers"));
    lines.push(user("and after that"));
    let (base, c, h, d) = (
        server.base_url(),
        cwd.path().to_path_buf(),
        home.path().to_path_buf(),
        data.path().to_path_buf(),
    );
    let (seen, code) = tokio::task::spawn_blocking(move || run(&c, &h, &d, &base, &lines))
        .await
        .unwrap();
    assert_eq!(code, 0);

    let validator = SchemaValidator::new().unwrap();
    for v in &seen {
        if let Err(e) = validator.check_line(v) {
            panic!("{e}\n{v}");
        }
    }
    let results: Vec<&Value> = seen.iter().filter(|v| v["type"] == "result").collect();
    assert_eq!(results.len(), 102);
    assert!(
        results.iter().all(|r| r["is_error"] == false),
        "{results:#?}"
    );
    let boundaries: Vec<&Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "compact_boundary")
        .collect();
    let triggers: Vec<&str> = boundaries
        .iter()
        .filter_map(|b| b["compact_metadata"]["trigger"].as_str())
        .collect();
    assert!(triggers.contains(&"auto"), "{triggers:?}");
    assert_eq!(triggers.last(), Some(&"manual"), "{triggers:?}");
    assert!(
        seen.iter()
            .any(|v| v["subtype"] == "status" && v["status"] == "compacting")
    );
    server.assert_no_violations();
    assert_eq!(server.refused_too_long(), 0);

    let answer = seen
        .iter()
        .find(|v| v["type"] == "control_response")
        .unwrap();
    assert_eq!(answer["response"]["response"]["output_style"], "Concise");
    let inits: Vec<&Value> = seen.iter().filter(|v| v["subtype"] == "init").collect();
    assert!(inits.iter().all(|i| i["output_style"] == "Concise"));
    assert!(
        inits[0]["slash_commands"]
            .as_array()
            .unwrap()
            .contains(&json!("compact"))
    );
    let bodies = server.message_bodies();
    assert!(
        bodies[0]["system"]
            .to_string()
            .contains("Answer in one line.")
    );
    // The manual summary was asked with the host's instructions, and the last request
    // starts from it.
    let asks: Vec<&Value> = bodies
        .iter()
        .filter(|b| last_text(b).contains(SUMMARY_ASK))
        .collect();
    assert!(last_text(asks.last().unwrap()).contains("focus on the numbers"));
    let last = bodies.last().unwrap();
    let first_text = last["messages"][0]["content"].to_string();
    assert!(
        first_text.contains("This session is being continued"),
        "{first_text}"
    );
    assert!(first_text.contains("numbered turns"), "{first_text}");
    assert_eq!(last["messages"].as_array().unwrap().len(), 1);
    assert!(last_text(last).ends_with("and after that"));
}
