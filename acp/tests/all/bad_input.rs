//! What a client should never send, line by line: each gets a JSON-RPC error or a clean
//! end, never a hang.

use crate::common::{LONG, Raw};
use serde_json::json;

#[tokio::test]
async fn malformed_json_is_a_parse_error_and_the_agent_goes_on() {
    let mut raw = Raw::spawn(&[]);
    raw.send("{not json").await;
    let err = raw.next().await.expect("an answer");
    assert_eq!(err["error"]["code"], -32700, "{err}");
    raw.initialize().await;
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let mut raw = Raw::spawn(&[]);
    raw.initialize().await;
    raw.request(7, "session/teleport", json!({})).await;
    let (r, _) = raw.response(7).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
}

#[tokio::test]
async fn unknown_session_is_an_error() {
    let mut raw = Raw::spawn(&[]);
    raw.initialize().await;
    raw.request(
        3,
        "session/prompt",
        json!({"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}),
    )
    .await;
    let (r, _) = raw.response(3).await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    raw.request(
        4,
        "session/set_mode",
        json!({"sessionId": "nope", "modeId": "plan"}),
    )
    .await;
    let (r, _) = raw.response(4).await;
    assert!(r.get("error").is_some(), "{r}");
}

#[tokio::test]
async fn relative_cwd_is_invalid_params() {
    let mut raw = Raw::spawn(&[]);
    raw.initialize().await;
    raw.request(
        2,
        "session/new",
        json!({"cwd": "rel/dir", "mcpServers": []}),
    )
    .await;
    let (r, _) = raw.response(2).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[tokio::test]
async fn prompt_while_a_turn_runs_is_refused() {
    let mut raw = Raw::spawn(&["--permission-mode", "bypassPermissions"]);
    raw.initialize().await;
    let id = raw.new_session(1).await;
    let slow = json!({"sessionId": id, "prompt": [{"type": "text",
        "text": r#"FAKE_TOOL Bash {"command": "sleep 3"}"#}]});
    raw.request(2, "session/prompt", slow).await;
    raw.request(
        3,
        "session/prompt",
        json!({"sessionId": id,
        "prompt": [{"type": "text", "text": "hi"}]}),
    )
    .await;
    let (r, _) = raw.response(3).await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let (r, _) = raw.response(2).await;
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
}

/// The processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(marker) && !stat.contains(") Z ")
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The client goes away mid-turn: dcl ends, and the tool's process with it.
#[tokio::test]
async fn disconnect_mid_turn_ends_everything() {
    let mut raw = Raw::spawn(&["--permission-mode", "bypassPermissions"]);
    raw.initialize().await;
    let id = raw.new_session(1).await;
    // A sleep no other process runs: its length names it.
    let secs = format!("{}.{}", 600 + std::process::id() % 1000, std::process::id());
    let text = format!(
        "FAKE_TOOL Bash {}",
        json!({"command": format!("sleep {secs}")})
    );
    raw.request(
        2,
        "session/prompt",
        json!({"sessionId": id,
        "prompt": [{"type": "text", "text": text}]}),
    )
    .await;
    for _ in 0..600 {
        if !processes_with(&secs).is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(!processes_with(&secs).is_empty(), "the command started");
    raw.close_stdin();
    let status = tokio::time::timeout(LONG, raw.dcl.child.wait())
        .await
        .expect("dcl exits once the client is gone")
        .expect("status");
    assert!(status.success(), "{status}");
    let left = processes_with(&secs);
    assert!(
        left.is_empty(),
        "the tool's processes {left:?} outlived dcl acp"
    );
    // The transcript holds the turn's prompt.
    let projects = raw.dcl.home.path().join(".dcl/projects");
    let transcript = std::fs::read_dir(&projects)
        .expect("projects")
        .flatten()
        .map(|d| d.path().join(format!("{id}.jsonl")))
        .find(|p| p.exists())
        .expect("the session's transcript");
    let text = std::fs::read_to_string(transcript).expect("read");
    assert!(text.contains(&secs), "the prompt is in the transcript");
}

/// A client that never answers a permission request: dcl's host timeout denies the call
/// and the turn ends.
#[tokio::test]
async fn unanswered_permission_times_out_as_a_denial() {
    let mut raw = Raw::spawn(&["--host-timeout", "1"]);
    raw.initialize().await;
    let id = raw.new_session(1).await;
    raw.request(
        2,
        "session/prompt",
        json!({"sessionId": id,
        "prompt": [{"type": "text", "text": "FAKE_TOUCH"}]}),
    )
    .await;
    let (r, seen) = raw.response(2).await;
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert!(
        seen.iter()
            .any(|m| m["method"] == "session/request_permission"),
        "{seen:?}"
    );
    let failed = seen
        .iter()
        .find(|m| m["params"]["update"]["sessionUpdate"] == "tool_call_update")
        .expect("the call's end");
    assert_eq!(failed["params"]["update"]["status"], "failed");
    assert!(!raw.dcl.cwd.path().join("made.txt").exists());
}

/// `session/close` during a turn: the turn stops and its prompt answers `cancelled`;
/// the session is gone after.
#[tokio::test]
async fn close_during_a_turn_cancels_it() {
    let mut raw = Raw::spawn(&["--permission-mode", "bypassPermissions"]);
    raw.initialize().await;
    let id = raw.new_session(1).await;
    raw.request(
        2,
        "session/prompt",
        json!({"sessionId": id, "prompt": [{"type": "text",
        "text": r#"FAKE_TOOL Bash {"command": "sleep 30"}"#}]}),
    )
    .await;
    while let Some(m) = raw.next().await {
        if m["params"]["update"]["sessionUpdate"] == "tool_call" {
            break;
        }
    }
    raw.request(3, "session/close", json!({"sessionId": id}))
        .await;
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 2 {
        let m = raw.next().await.expect("answers");
        if let Some(n) = m["id"].as_u64().filter(|_| m.get("method").is_none()) {
            answers.insert(n, m);
        }
    }
    assert_eq!(
        answers[&2]["result"]["stopReason"], "cancelled",
        "{:?}",
        answers[&2]
    );
    assert!(answers[&3].get("result").is_some(), "{:?}", answers[&3]);
    raw.request(
        4,
        "session/prompt",
        json!({"sessionId": id,
        "prompt": [{"type": "text", "text": "hi"}]}),
    )
    .await;
    let (r, _) = raw.response(4).await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
}
