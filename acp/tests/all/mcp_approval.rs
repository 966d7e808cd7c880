//! A project's `.mcp.json` server that the settings neither approve nor disable: `dcl acp`
//! asks the editor (`session/request_permission`) before starting it. Rejected, its tool
//! is absent; allowed, the model calls it; "always" is remembered in the project's local
//! settings, so the next session starts it unasked.

use crate::common::{Cx, Seen, js, typed, with_client};
use agent_client_protocol::v1::schema::{
    InitializeRequest, InitializeResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse,
};
use serde_json::{Value, json};

/// The project's `.mcp.json`: one server, `demo`, with an `echo` tool.
fn plant(cwd: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/echo_mcp.py");
    let config = json!({"mcpServers": {"demo": {"command": "python3", "args": [script]}}});
    std::fs::write(
        std::path::Path::new(cwd).join(".mcp.json"),
        config.to_string(),
    )
    .expect("write .mcp.json");
}

/// A session in `cwd` runs the echo tool; the final update of the call.
async fn call_echo(cx: &Cx, cwd: &str, seen: &Seen) -> agent_client_protocol::Result<Value> {
    let _: InitializeResponse = cx
        .send_request(typed::<InitializeRequest>(
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        ))
        .block_task()
        .await?;
    let r: NewSessionResponse = cx
        .send_request(typed::<NewSessionRequest>(
            json!({"cwd": cwd, "mcpServers": []}),
        ))
        .block_task()
        .await?;
    let id = js(&r)["sessionId"].as_str().unwrap_or("").to_string();
    let r: PromptResponse = cx
        .send_request(typed::<PromptRequest>(json!({"sessionId": id, "prompt": [
            {"type": "text", "text": r#"FAKE_TOOL mcp__demo__echo {"text": "ping"}"#}]})))
        .block_task()
        .await?;
    assert_eq!(js(&r)["stopReason"], "end_turn");
    Ok(seen
        .updates_of(&id)
        .into_iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap_or(Value::Null))
}

fn asked_about_demo(seen: &Seen) -> usize {
    seen.permissions
        .lock()
        .expect("lock")
        .iter()
        .filter(|p| {
            p["toolCall"]["rawInput"]["server_name"] == "demo"
                && p["toolCall"]["title"]
                    .as_str()
                    .is_some_and(|t| t.contains("demo"))
        })
        .count()
}

const BYPASS: &[&str] = &["--permission-mode", "bypassPermissions"];

#[tokio::test]
async fn rejected_server_is_not_started() {
    let seen = Seen::choosing(Some("reject_once"));
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        plant(&cwd);
        let done = call_echo(&cx, &cwd, &s).await?;
        assert_eq!(asked_about_demo(&s), 1, "asked once");
        assert_eq!(done["status"], "failed", "{done}");
        assert!(!done.to_string().contains("echo: ping"), "{done}");
        Ok(())
    })
    .await;
    assert!(
        !dcl.cwd.path().join(".dcl/settings.local.json").exists()
            && !dcl.cwd.path().join(".claude/settings.local.json").exists(),
        "a rejection is not recorded"
    );
}

#[tokio::test]
async fn cancelled_question_is_a_no() {
    let seen = Seen::choosing(None);
    let s = seen.clone();
    with_client(BYPASS, seen, async move |cx, cwd| {
        plant(&cwd);
        let done = call_echo(&cx, &cwd, &s).await?;
        assert_eq!(asked_about_demo(&s), 1);
        assert_eq!(done["status"], "failed", "{done}");
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn allowed_once_the_model_calls_its_tool() {
    let seen = Seen::choosing(Some("allow_once"));
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        plant(&cwd);
        let done = call_echo(&cx, &cwd, &s).await?;
        assert_eq!(asked_about_demo(&s), 1);
        assert_eq!(done["status"], "completed", "{done}");
        assert!(done.to_string().contains("echo: ping"), "{done}");
        Ok(())
    })
    .await;
    assert!(!dcl.cwd.path().join(".dcl/settings.local.json").exists());
}

/// "Always" writes `enabledMcpjsonServers` in the project's local settings: a second
/// session in the same project starts the server without asking.
#[tokio::test]
async fn allowed_always_is_remembered_for_the_project() {
    let seen = Seen::choosing(Some("allow_always"));
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        plant(&cwd);
        let first = call_echo(&cx, &cwd, &s).await?;
        assert_eq!(first["status"], "completed", "{first}");
        assert_eq!(asked_about_demo(&s), 1);
        let second = call_echo(&cx, &cwd, &s).await?;
        assert_eq!(second["status"], "completed", "{second}");
        assert_eq!(asked_about_demo(&s), 1, "not asked again");
        Ok(())
    })
    .await;
    let local = std::fs::read_to_string(dcl.cwd.path().join(".claude/settings.local.json"))
        .or_else(|_| std::fs::read_to_string(dcl.cwd.path().join(".dcl/settings.local.json")))
        .expect("local settings written");
    let v: Value = serde_json::from_str(&local).expect("json");
    assert_eq!(v["enabledMcpjsonServers"], json!(["demo"]), "{local}");
}
