//! What a client should never send, line by line: each gets a JSON-RPC error or a clean
//! end, never a hang.

mod common;

use common::{LONG, Raw};
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
    raw.request(4, "session/set_mode", json!({"sessionId": "nope", "modeId": "plan"}))
        .await;
    let (r, _) = raw.response(4).await;
    assert!(r.get("error").is_some(), "{r}");
}

#[tokio::test]
async fn relative_cwd_is_invalid_params() {
    let mut raw = Raw::spawn(&[]);
    raw.initialize().await;
    raw.request(2, "session/new", json!({"cwd": "rel/dir", "mcpServers": []}))
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
    raw.request(3, "session/prompt", json!({"sessionId": id,
        "prompt": [{"type": "text", "text": "hi"}]}))
        .await;
    let (r, _) = raw.response(3).await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let (r, _) = raw.response(2).await;
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
}

/// The client goes away mid-turn: dcl ends, and the tool's process with it.
#[tokio::test]
async fn disconnect_mid_turn_ends_everything() {
    let mut raw = Raw::spawn(&["--permission-mode", "bypassPermissions"]);
    raw.initialize().await;
    let id = raw.new_session(1).await;
    let marker = raw.dcl.cwd.path().join("pid");
    let cmd = format!("echo $$ > {} && sleep 60", marker.display());
    let text = format!("FAKE_TOOL Bash {}", json!({"command": cmd}));
    raw.request(2, "session/prompt", json!({"sessionId": id,
        "prompt": [{"type": "text", "text": text}]}))
        .await;
    for _ in 0..600 {
        if std::fs::read_to_string(&marker).is_ok_and(|s| !s.trim().is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let pid: i32 = std::fs::read_to_string(&marker)
        .expect("the command started")
        .trim()
        .parse()
        .expect("a pid");
    raw.close_stdin();
    let status = tokio::time::timeout(LONG, raw.dcl.child.wait())
        .await
        .expect("dcl exits once the client is gone")
        .expect("status");
    assert!(status.success(), "{status}");
    // The command's shell is gone (not left running as an orphan).
    let alive = std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(!alive, "the tool's process {pid} outlived dcl acp");
}
