//! `dcl acp` driven by the ACP crate's own client side, on the mock model.

use crate::common::{Cx, Seen, js, typed, with_client};
use agent_client_protocol::v1::schema::{
    CancelNotification, InitializeRequest, InitializeResponse, NewSessionRequest,
    NewSessionResponse, PromptRequest, PromptResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use serde_json::{Value, json};

async fn init(cx: &Cx) -> agent_client_protocol::Result<Value> {
    let r: InitializeResponse = cx
        .send_request(typed::<InitializeRequest>(
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        ))
        .block_task()
        .await?;
    Ok(js(&r))
}

async fn new_session(cx: &Cx, cwd: &str) -> agent_client_protocol::Result<Value> {
    let r: NewSessionResponse = cx
        .send_request(typed::<NewSessionRequest>(
            json!({"cwd": cwd, "mcpServers": []}),
        ))
        .block_task()
        .await?;
    Ok(js(&r))
}

async fn prompt(cx: &Cx, session: &str, text: &str) -> agent_client_protocol::Result<String> {
    let r: PromptResponse = cx
        .send_request(typed::<PromptRequest>(json!({"sessionId": session,
            "prompt": [{"type": "text", "text": text}]})))
        .block_task()
        .await?;
    Ok(js(&r)["stopReason"].as_str().unwrap_or("").to_string())
}

#[tokio::test]
async fn initialize_advertises_dcl() {
    with_client(&[], Seen::default(), async |cx, _cwd| {
        let r = init(&cx).await?;
        assert_eq!(r["protocolVersion"], 1);
        assert_eq!(r["agentInfo"]["name"], "dcl");
        assert_eq!(r["agentInfo"]["version"], env!("CARGO_PKG_VERSION"));
        let caps = &r["agentCapabilities"];
        assert_eq!(caps["promptCapabilities"]["image"], true);
        assert_eq!(caps["promptCapabilities"]["embeddedContext"], true);
        assert_eq!(caps["mcpCapabilities"]["http"], true);
        assert_eq!(caps["mcpCapabilities"]["sse"], true);
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn plain_prompt_streams_the_answer() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let session = new_session(&cx, &cwd).await?;
        assert_eq!(session["modes"]["currentModeId"], "default");
        let id = session["sessionId"].as_str().unwrap_or("").to_string();
        assert_eq!(prompt(&cx, &id, "hello").await?, "end_turn");
        let text: String = s
            .updates_of(&id)
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
            .collect();
        assert_eq!(text, "Hello from the fake model.");
        assert!(
            s.kinds(&id)
                .contains(&"available_commands_update".to_string())
        );
        // How full the context is, sent before the prompt's answer.
        let usage = s
            .updates_of(&id)
            .into_iter()
            .rfind(|u| u["sessionUpdate"] == "usage_update")
            .expect("a usage_update");
        let (used, size) = (usage["used"].as_u64(), usage["size"].as_u64());
        assert!(
            matches!((used, size), (Some(u), Some(n)) if u > 0 && u < n),
            "{usage}"
        );
        assert!(usage["cost"]["currency"] == "USD", "{usage}");
        Ok(())
    })
    .await;
}

/// FAKE_TOUCH runs `touch made.txt`: asked for, allowed once, done.
#[tokio::test]
async fn tool_call_allowed_runs() {
    let seen = Seen::choosing(Some("allow_once"));
    let s = seen.clone();
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        let updates = s.updates_of(&id);
        let call = updates
            .iter()
            .find(|u| u["sessionUpdate"] == "tool_call")
            .expect("a tool_call");
        assert_eq!(call["kind"], "execute");
        assert_eq!(call["rawInput"]["command"], "touch made.txt && echo made");
        let done = updates
            .iter()
            .rfind(|u| u["sessionUpdate"] == "tool_call_update")
            .expect("a tool_call_update");
        assert_eq!(done["toolCallId"], call["toolCallId"]);
        assert_eq!(done["status"], "completed");
        let asked = s.permissions.lock().expect("lock").clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0]["toolCall"]["toolCallId"], call["toolCallId"]);
        Ok(())
    })
    .await;
    assert!(dcl.cwd.path().join("made.txt").exists());
}

#[tokio::test]
async fn tool_call_rejected_does_nothing() {
    let seen = Seen::choosing(Some("reject_once"));
    let s = seen.clone();
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        let failed = s
            .updates_of(&id)
            .into_iter()
            .rfind(|u| u["sessionUpdate"] == "tool_call_update")
            .expect("a tool_call_update");
        assert_eq!(failed["status"], "failed");
        Ok(())
    })
    .await;
    assert!(!dcl.cwd.path().join("made.txt").exists());
}

/// "Always allow" writes the rule where the reference's "don't ask again" does (the
/// project's local settings), so the second run is not asked.
#[tokio::test]
async fn allow_always_persists_the_rule() {
    let seen = Seen::choosing(Some("allow_always"));
    let s = seen.clone();
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        assert_eq!(s.permissions.lock().expect("lock").len(), 1, "asked once");
        Ok(())
    })
    .await;
    let local = std::fs::read_to_string(dcl.cwd.path().join(".claude/settings.local.json"))
        .or_else(|_| std::fs::read_to_string(dcl.cwd.path().join(".dcl/settings.local.json")))
        .expect("local settings written");
    assert!(local.contains("touch made.txt"), "{local}");
}

#[tokio::test]
async fn reject_always_persists_a_deny_rule() {
    let seen = Seen::choosing(Some("reject_always"));
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        Ok(())
    })
    .await;
    assert!(!dcl.cwd.path().join("made.txt").exists());
    let local = std::fs::read_to_string(dcl.cwd.path().join(".claude/settings.local.json"))
        .or_else(|_| std::fs::read_to_string(dcl.cwd.path().join(".dcl/settings.local.json")))
        .expect("local settings written");
    assert!(local.contains("deny"), "{local}");
}

/// A long command is running when the client cancels: the prompt answers `cancelled`
/// and the command never finishes.
#[tokio::test]
async fn cancel_mid_tool() {
    let seen = Seen::default();
    let s = seen.clone();
    let dcl = with_client(
        &["--permission-mode", "bypassPermissions"],
        seen,
        async move |cx, cwd| {
            init(&cx).await?;
            let id = new_session(&cx, &cwd).await?["sessionId"]
                .as_str()
                .unwrap_or("")
                .to_string();
            let turn = {
                let cx = cx.clone();
                let id = id.clone();
                tokio::spawn(async move {
                    prompt(
                        &cx,
                        &id,
                        r#"FAKE_TOOL Bash {"command": "sleep 30 && touch late.txt"}"#,
                    )
                    .await
                })
            };
            // Cancel once the call is announced (the command starts right after).
            for _ in 0..600 {
                if s.kinds(&id).iter().any(|k| k == "tool_call") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            cx.send_notification(typed::<CancelNotification>(json!({"sessionId": id})))?;
            let reason = turn.await.expect("join")?;
            assert_eq!(reason, "cancelled");
            Ok(())
        },
    )
    .await;
    assert!(!dcl.cwd.path().join("late.txt").exists());
}

#[tokio::test]
async fn two_sessions_at_once() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let a = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let b = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_ne!(a, b);
        let (ra, rb) = tokio::join!(prompt(&cx, &a, "FAKE_THINK"), prompt(&cx, &b, "hello"));
        assert_eq!(ra?, "end_turn");
        assert_eq!(rb?, "end_turn");
        assert!(s.kinds(&a).contains(&"agent_thought_chunk".to_string()));
        assert!(!s.kinds(&b).contains(&"agent_thought_chunk".to_string()));
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn set_mode_changes_the_permission_mode() {
    let seen = Seen::choosing(None);
    let s = seen.clone();
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        init(&cx).await?;
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let _: SetSessionModeResponse = cx
            .send_request(typed::<SetSessionModeRequest>(
                json!({"sessionId": id, "modeId": "bypassPermissions"}),
            ))
            .block_task()
            .await?;
        assert_eq!(prompt(&cx, &id, "FAKE_TOUCH").await?, "end_turn");
        assert!(s.permissions.lock().expect("lock").is_empty(), "not asked");
        assert!(s.kinds(&id).contains(&"current_mode_update".to_string()));
        let bad = cx
            .send_request(typed::<SetSessionModeRequest>(
                json!({"sessionId": id, "modeId": "yolo"}),
            ))
            .block_task()
            .await;
        assert!(bad.is_err());
        Ok(())
    })
    .await;
    assert!(dcl.cwd.path().join("made.txt").exists());
}

/// A session closed, then loaded again: its history comes back as updates before the
/// answer, and it goes on where it was.
#[tokio::test]
async fn load_replays_history() {
    use agent_client_protocol::v1::schema::{
        CloseSessionRequest, CloseSessionResponse, LoadSessionRequest, LoadSessionResponse,
    };
    let seen = Seen::default();
    let s = seen.clone();
    with_client(&[], seen, async move |cx, cwd| {
        let caps = init(&cx).await?;
        assert_eq!(caps["agentCapabilities"]["loadSession"], true);
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(
            prompt(&cx, &id, "remember the word quince").await?,
            "end_turn"
        );
        let _: CloseSessionResponse = cx
            .send_request(typed::<CloseSessionRequest>(json!({"sessionId": id})))
            .block_task()
            .await?;
        // Closed: it is unknown now.
        assert!(prompt(&cx, &id, "hello").await.is_err());
        let before = s.updates_of(&id).len();
        let _: LoadSessionResponse = cx
            .send_request(typed::<LoadSessionRequest>(
                json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
            ))
            .block_task()
            .await?;
        let replayed: Vec<Value> = s.updates_of(&id).split_off(before);
        let user: String = replayed
            .iter()
            .filter(|u| u["sessionUpdate"] == "user_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
            .collect();
        assert!(user.contains("quince"), "{replayed:?}");
        assert!(
            replayed
                .iter()
                .any(|u| u["sessionUpdate"] == "agent_message_chunk")
        );
        assert_eq!(prompt(&cx, &id, "hello").await?, "end_turn");
        let listed: agent_client_protocol::v1::schema::ListSessionsResponse = cx
            .send_request(typed::<
                agent_client_protocol::v1::schema::ListSessionsRequest,
            >(json!({"cwd": cwd})))
            .block_task()
            .await?;
        let listed = js(&listed);
        let mine = listed["sessions"]
            .as_array()
            .and_then(|l| l.iter().find(|s| s["sessionId"] == id.as_str()).cloned())
            .expect("the saved session is listed");
        assert_eq!(mine["cwd"], cwd.as_str());
        assert_eq!(mine["title"], "hello");
        let unknown = cx
            .send_request(typed::<LoadSessionRequest>(json!({"sessionId":
                "00000000-0000-4000-8000-000000000000", "cwd": cwd, "mcpServers": []})))
            .block_task()
            .await;
        assert!(unknown.is_err());
        Ok(())
    })
    .await;
}

/// An MCP server the client names in session/new starts with the session, and the model
/// calls its tool.
#[tokio::test]
async fn mcp_server_from_session_new() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(
        &["--permission-mode", "bypassPermissions"],
        seen,
        async move |cx, cwd| {
            init(&cx).await?;
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/echo_mcp.py");
            let r: NewSessionResponse = cx
                .send_request(typed::<NewSessionRequest>(
                    json!({"cwd": cwd, "mcpServers": [
                {"name": "demo", "command": "python3", "args": [script], "env": []}]}),
                ))
                .block_task()
                .await?;
            let id = js(&r)["sessionId"].as_str().unwrap_or("").to_string();
            let text = r#"FAKE_TOOL mcp__demo__echo {"text": "ping"}"#;
            assert_eq!(prompt(&cx, &id, text).await?, "end_turn");
            let done = s
                .updates_of(&id)
                .into_iter()
                .rfind(|u| u["sessionUpdate"] == "tool_call_update")
                .expect("a tool_call_update");
            assert_eq!(done["status"], "completed", "{done}");
            assert!(done.to_string().contains("echo: ping"), "{done}");
            Ok(())
        },
    )
    .await;
}

/// dcl's models are the `model` config option; choosing one changes the session's model.
#[tokio::test]
async fn model_is_a_config_option() {
    use agent_client_protocol::v1::schema::{
        SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    };
    with_client(&[], Seen::default(), async move |cx, cwd| {
        init(&cx).await?;
        let session = new_session(&cx, &cwd).await?;
        let id = session["sessionId"].as_str().unwrap_or("").to_string();
        let option = &session["configOptions"][0];
        assert_eq!(option["id"], "model");
        assert_eq!(option["currentValue"], "mock-model");
        let r: SetSessionConfigOptionResponse = cx
            .send_request(typed::<SetSessionConfigOptionRequest>(
                json!({"sessionId": id, "configId": "model", "value": "default"}),
            ))
            .block_task()
            .await?;
        assert_eq!(js(&r)["configOptions"][0]["currentValue"], "default");
        assert_eq!(prompt(&cx, &id, "hello").await?, "end_turn");
        let bad = cx
            .send_request(typed::<SetSessionConfigOptionRequest>(
                json!({"sessionId": id, "configId": "model", "value": "no-such-model"}),
            ))
            .block_task()
            .await;
        assert!(bad.is_err());
        Ok(())
    })
    .await;
}

/// A settings `permissions.defaultMode` is the session's starting mode.
#[tokio::test]
async fn settings_default_mode_is_the_starting_mode() {
    let settings = tempfile::tempdir().expect("dir");
    let file = settings.path().join("settings.json");
    std::fs::write(&file, r#"{"permissions": {"defaultMode": "acceptEdits"}}"#).expect("write");
    let path = file.display().to_string();
    with_client(
        &["--settings", &path],
        Seen::default(),
        async move |cx, cwd| {
            init(&cx).await?;
            let session = new_session(&cx, &cwd).await?;
            assert_eq!(session["modes"]["currentModeId"], "acceptEdits");
            Ok(())
        },
    )
    .await;
}

/// `session/resume`: a closed session goes on in the same transcript, without its history
/// replayed; an unknown id is an error, and so is resuming a session that is open.
#[tokio::test]
async fn resume_goes_on_without_replay() {
    use agent_client_protocol::v1::schema::{
        CloseSessionRequest, CloseSessionResponse, LoadSessionRequest, LoadSessionResponse,
        ResumeSessionRequest, ResumeSessionResponse,
    };
    let seen = Seen::default();
    let s = seen.clone();
    with_client(&[], seen, async move |cx, cwd| {
        let caps = init(&cx).await?;
        assert!(
            caps["agentCapabilities"]["sessionCapabilities"]
                .get("resume")
                .is_some(),
            "{caps}"
        );
        let id = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_eq!(prompt(&cx, &id, "remember quince").await?, "end_turn");
        let open_again = cx
            .send_request(typed::<ResumeSessionRequest>(
                json!({"sessionId": id, "cwd": cwd}),
            ))
            .block_task()
            .await;
        assert!(open_again.is_err(), "resumed while open");
        let close = |id: &str| {
            cx.send_request(typed::<CloseSessionRequest>(json!({"sessionId": id})))
                .block_task()
        };
        let _: CloseSessionResponse = close(&id).await?;
        let before = s.updates_of(&id).len();
        let r: ResumeSessionResponse = cx
            .send_request(typed::<ResumeSessionRequest>(
                json!({"sessionId": id, "cwd": cwd}),
            ))
            .block_task()
            .await?;
        assert_eq!(js(&r)["modes"]["currentModeId"], "default");
        assert_eq!(prompt(&cx, &id, "and plum").await?, "end_turn");
        let after: Vec<Value> = s.updates_of(&id).split_off(before);
        assert!(
            !after
                .iter()
                .any(|u| u["sessionUpdate"] == "user_message_chunk"),
            "history replayed on resume: {after:?}"
        );
        // Both prompts are in the one transcript: a load replays them.
        let _: CloseSessionResponse = close(&id).await?;
        let before = s.updates_of(&id).len();
        let _: LoadSessionResponse = cx
            .send_request(typed::<LoadSessionRequest>(
                json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
            ))
            .block_task()
            .await?;
        let user: String = s
            .updates_of(&id)
            .split_off(before)
            .iter()
            .filter(|u| u["sessionUpdate"] == "user_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
            .collect();
        assert!(user.contains("quince") && user.contains("plum"), "{user}");
        let unknown = cx
            .send_request(typed::<ResumeSessionRequest>(json!({"sessionId":
                "00000000-0000-4000-8000-000000000000", "cwd": cwd})))
            .block_task()
            .await;
        assert!(unknown.is_err());
        Ok(())
    })
    .await;
}

/// A saved session's transcript under the test's HOME.
fn transcript(home: &std::path::Path, id: &str) -> String {
    let projects = home.join(".dcl/projects");
    std::fs::read_dir(&projects)
        .expect("projects dir")
        .flatten()
        .map(|d| d.path().join(format!("{id}.jsonl")))
        .find(|p| p.exists())
        .map(|p| std::fs::read_to_string(p).expect("read transcript"))
        .unwrap_or_else(|| panic!("no transcript for {id} under {}", projects.display()))
}

/// The text of the agent's message in `updates` (one turn's).
fn said(updates: &[Value]) -> String {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect()
}

/// `session/fork`: a new session whose conversation starts as a copy of an open one's;
/// the source goes on without the fork's prompts (in the model's history and on disk), a
/// source with nothing saved yet forks into an empty session, and an unknown id is the
/// error `session/resume` gives.
#[tokio::test]
async fn fork_copies_the_conversation_into_a_new_session() {
    use agent_client_protocol::v1::schema::{
        ForkSessionRequest, ForkSessionResponse, ResumeSessionRequest, ResumeSessionResponse,
    };
    let seen = Seen::default();
    let s = seen.clone();
    let ids = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let out = ids.clone();
    let dcl = with_client(&[], seen, async move |cx, cwd| {
        let caps = init(&cx).await?;
        assert!(
            caps["agentCapabilities"]["sessionCapabilities"]
                .get("fork")
                .is_some(),
            "{caps}"
        );
        let fork = |id: &str| {
            cx.send_request(typed::<ForkSessionRequest>(
                json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
            ))
            .block_task()
        };
        let source = new_session(&cx, &cwd).await?["sessionId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        // Nothing said yet: the fork starts empty.
        let empty: ForkSessionResponse = fork(&source).await?;
        let empty = js(&empty)["sessionId"].as_str().unwrap_or("").to_string();
        assert!(!empty.is_empty() && empty != source);
        assert_eq!(prompt(&cx, &empty, "FAKE_HISTORY alone").await?, "end_turn");
        assert_eq!(
            said(&s.updates_of(&empty)),
            "Prompts seen: FAKE_HISTORY alone"
        );

        let remember = "remember: the word is PELICAN";
        assert_eq!(prompt(&cx, &source, remember).await?, "end_turn");
        let r: ForkSessionResponse = fork(&source).await?;
        let r = js(&r);
        let forked = r["sessionId"].as_str().unwrap_or("").to_string();
        assert!(
            !forked.is_empty() && forked != source && forked != empty,
            "{r}"
        );
        assert_eq!(r["modes"]["currentModeId"], "default", "{r}");
        assert_eq!(r["configOptions"][0]["id"], "model", "{r}");
        assert_eq!(
            prompt(&cx, &forked, "FAKE_HISTORY in the fork").await?,
            "end_turn"
        );
        assert_eq!(
            said(&s.updates_of(&forked)),
            format!("Prompts seen: {remember} | FAKE_HISTORY in the fork")
        );
        // The source goes on as it was: the fork's prompt is not in its conversation.
        let before = s.updates_of(&source).len();
        assert_eq!(
            prompt(&cx, &source, "FAKE_HISTORY in the source").await?,
            "end_turn"
        );
        assert_eq!(
            said(&s.updates_of(&source).split_off(before)),
            format!("Prompts seen: {remember} | FAKE_HISTORY in the source")
        );

        let missing = "00000000-0000-4000-8000-000000000000";
        let unknown = fork(missing).await.expect_err("forked an unknown session");
        let resumed: Result<ResumeSessionResponse, _> = cx
            .send_request(typed::<ResumeSessionRequest>(
                json!({"sessionId": missing, "cwd": cwd}),
            ))
            .block_task()
            .await;
        let resumed = resumed.expect_err("resumed an unknown session");
        assert_eq!(
            unknown.code,
            agent_client_protocol::ErrorCode::RESOURCE_NOT_FOUND
        );
        assert_eq!(
            (&unknown.code, &unknown.message, &unknown.data),
            (&resumed.code, &resumed.message, &resumed.data)
        );
        out.lock().expect("lock").extend([source, forked, empty]);
        Ok(())
    })
    .await;
    let ids = ids.lock().expect("lock").clone();
    let home = dcl.home.path();
    let (source, forked) = (transcript(home, &ids[0]), transcript(home, &ids[1]));
    assert!(source.contains("PELICAN") && source.contains("in the source"));
    assert!(
        !source.contains("in the fork"),
        "the fork wrote to the source"
    );
    assert!(forked.contains("PELICAN") && forked.contains("in the fork"));
    assert!(!forked.contains("in the source"));
    // The copied entries name where they came from.
    let copied = forked
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["forkedFrom"]["sessionId"] == ids[0].as_str())
        .count();
    assert!(copied >= 2, "{forked}");
    assert!(!transcript(home, &ids[2]).contains("PELICAN"));
}
