//! Two projections of one turn at once: a session producing wire lines and typed events
//! (in one order) describes the same items in both — the prompt, the model's text, the
//! tool call, its permission request and result, the usage and the end of the turn.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{answer, prompt};
use dcl_engine::{Output, Session, SessionOptions, Streams};
use dcl_events::{
    AgentEvent, ContentBlock, HostRequest, ItemBody, ItemDelta, PermissionDecision, SessionCommand,
    StopReason, ToolKind, ToolStatus,
};
use serde_json::{Value, json};

fn opts(dir: &std::path::Path) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), dir.display().to_string());
    SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("default".into()),
        env,
        ..Default::default()
    }
}

async fn next_output(session: &Session) -> Output {
    tokio::time::timeout(Duration::from_secs(20), session.recv_output())
        .await
        .expect("no output within 20s")
        .expect("the session ended early")
}

fn text_of(blocks: &[ContentBlock]) -> String {
    ContentBlock::joined_text(blocks)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_json_and_events_describe_the_same_turn() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn_with(
        &tokio::runtime::Handle::current(),
        opts(dir.path()),
        Streams::BOTH,
    )
    .unwrap();
    session.send(prompt("FAKE_WRITE out.txt")).unwrap();
    let (mut lines, mut events) = (Vec::<Value>::new(), Vec::<AgentEvent>::new());
    while !(lines.iter().any(|l| l["type"] == "result")
        && events.iter().any(|e| matches!(e, AgentEvent::TurnEnded(_))))
    {
        match next_output(&session).await {
            Output::Line(m) => {
                let v = serde_json::to_value(&m).unwrap();
                if v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool" {
                    session
                        .send(answer(
                            &v["request_id"],
                            json!({"behavior": "allow", "updatedInput": v["request"]["input"]}),
                        ))
                        .unwrap();
                }
                lines.push(v);
            }
            Output::Event(e) => events.push(*e),
        }
    }
    assert!(dir.path().join("out.txt").exists(), "the write ran");

    // The session: system/init and session_started.
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let started = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::SessionStarted(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(init["session_id"], started.session_id);
    assert_eq!(init["model"], started.model);
    assert_eq!(init["tools"], json!(started.tools));

    // The model's text: each assistant text block is one completed agent_text item, and
    // its deltas add up to it.
    let wire_text: Vec<String> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .flat_map(|l| l["message"]["content"].as_array().unwrap().clone())
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect();
    let completed_text: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ItemCompleted { item } => match &item.body {
                ItemBody::AgentText { text } => Some((item.id.clone(), text.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(!wire_text.is_empty());
    assert_eq!(
        wire_text,
        completed_text
            .iter()
            .map(|(_, t)| t.clone())
            .collect::<Vec<_>>()
    );
    for (id, text) in &completed_text {
        let streamed: String = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ItemDelta {
                    item_id,
                    delta: ItemDelta::Text { text },
                } if item_id == id => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(&streamed, text, "deltas of {id}");
    }

    // The tool call: the assistant tool_use block, the item started, the permission asked
    // for it, the user line's tool_result and the item completed agree.
    let tool_use = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .flat_map(|l| l["message"]["content"].as_array().unwrap().clone())
        .find(|b| b["type"] == "tool_use")
        .unwrap();
    let call_started = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ItemStarted { item } => {
                item.as_tool_call().map(|c| (item.id.clone(), c.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(tool_use["id"], call_started.0);
    assert_eq!(tool_use["name"], call_started.1.name);
    assert_eq!(tool_use["input"], call_started.1.raw_input);
    assert_eq!(call_started.1.kind, ToolKind::Edit);
    assert_eq!(call_started.1.diff[0].new_text, "hello\n");

    let asked = lines
        .iter()
        .find(|l| l["type"] == "control_request")
        .unwrap();
    let permission = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Request(HostRequest::Permission(p)) => Some(p),
            _ => None,
        })
        .unwrap();
    assert_eq!(asked["request_id"], permission.request_id);
    assert_eq!(asked["request"]["tool_use_id"], permission.tool_call_id);
    assert_eq!(permission.tool_call.name, "Write");

    let wire_result = lines
        .iter()
        .filter(|l| l["type"] == "user")
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    let call_done = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ItemCompleted { item } => {
                item.as_tool_call().map(|c| (item.id.clone(), c.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(wire_result["tool_use_id"], call_done.0);
    assert_eq!(call_done.1.status, ToolStatus::Completed);
    assert_eq!(wire_result["is_error"], false);
    let wire_content = match &wire_result["content"] {
        Value::String(s) => s.clone(),
        other => other[0]["text"].as_str().unwrap().to_string(),
    };
    assert_eq!(wire_content, text_of(&call_done.1.content));
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::ItemDelta { item_id, delta: ItemDelta::ToolStatus { status: ToolStatus::InProgress } }
            if *item_id == call_done.0)));

    // The end: the result line and turn_ended.
    let result = lines.iter().find(|l| l["type"] == "result").unwrap();
    let end = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::TurnEnded(end) => Some(end),
            _ => None,
        })
        .unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(result["num_turns"], end.num_turns);
    assert_eq!(
        result["total_cost_usd"].as_f64().unwrap(),
        end.total_cost_usd
    );
    assert_eq!(result["usage"]["input_tokens"], end.usage.input_tokens);
    assert_eq!(result["usage"]["output_tokens"], end.usage.output_tokens);
    assert_eq!(result["result"].as_str(), end.result.as_deref());

    // And the lifecycle's order: started, the prompt, items, the end.
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            AgentEvent::SessionStarted(_) => "session",
            AgentEvent::TurnStarted { .. } => "turn",
            AgentEvent::ContextUsage { .. } => "context",
            AgentEvent::TurnEnded(_) => "end",
            _ => "other",
        })
        .filter(|k| *k != "other")
        .collect();
    // How full the context is comes before the end, so a front end answering the turn on
    // its end has shown it already.
    assert_eq!(kinds, ["session", "turn", "context", "end"]);
    let (used, window) = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ContextUsage {
                used_tokens,
                context_window,
            } => Some((*used_tokens, *context_window)),
            _ => None,
        })
        .unwrap();
    assert!(used > 0 && used < window, "{used} of {window}");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_events_session_is_driven_by_commands_alone() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::spawn_with(
        &tokio::runtime::Handle::current(),
        opts(dir.path()),
        Streams::EVENTS,
    )
    .unwrap();
    session
        .command(SessionCommand::prompt("FAKE_WRITE denied.txt"))
        .unwrap();
    let end = loop {
        // Nothing but events: no wire line is produced.
        let Output::Event(event) = next_output(&session).await else {
            panic!("a line from an events-only session");
        };
        match *event {
            AgentEvent::Request(HostRequest::Permission(p)) => session
                .command(SessionCommand::AnswerPermission {
                    request_id: p.request_id,
                    decision: PermissionDecision::Deny {
                        message: "not here".into(),
                        interrupt: false,
                        updated_permissions: None,
                    },
                })
                .unwrap(),
            AgentEvent::ItemCompleted { item } => {
                if let Some(call) = item.as_tool_call() {
                    assert_eq!(call.status, ToolStatus::Failed);
                    assert!(text_of(&call.content).contains("not here"), "{call:?}");
                }
            }
            AgentEvent::TurnEnded(end) => break end,
            _ => {}
        }
    };
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert!(!dir.path().join("denied.txt").exists());
    session.command(SessionCommand::EndInput).unwrap();
    let last = tokio::time::timeout(Duration::from_secs(20), async {
        let mut last = None;
        while let Some(e) = session.recv_event().await {
            last = Some(e);
        }
        last
    })
    .await
    .unwrap();
    assert_eq!(last, Some(AgentEvent::SessionEnded));
}

/// The next completed answer text of an events session (after answering nothing).
async fn next_answer(session: &Session) -> String {
    loop {
        let Output::Event(event) = next_output(session).await else {
            panic!("a line from an events-only session");
        };
        if let AgentEvent::ItemCompleted { item } = *event
            && let ItemBody::AgentText { text } = item.body
        {
            return text;
        }
    }
}

/// The next notice of an events session.
async fn next_notice(session: &Session) -> (dcl_events::NoticeLevel, String) {
    loop {
        let Output::Event(event) = next_output(session).await else {
            panic!("a line from an events-only session");
        };
        if let AgentEvent::Notice { level, message } = *event {
            return (level, message);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_command_cuts_the_conversation_before_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(git.success());
    let mut options = opts(dir.path());
    options.enable_file_checkpointing = true;
    let session =
        Session::spawn_with(&tokio::runtime::Handle::current(), options, Streams::EVENTS).unwrap();
    let prompt = |text: &str, id: &str| SessionCommand::Prompt {
        content: vec![ContentBlock::text(text)],
        id: Some(id.into()),
    };
    session.command(prompt("hello there", "p1")).unwrap();
    next_answer(&session).await;
    session.command(prompt("second one", "p2")).unwrap();
    next_answer(&session).await;
    let rewind = |id: &str| SessionCommand::Rewind {
        user_message_id: id.into(),
        files_only: false,
        dry_run: false,
    };
    // A prompt this conversation does not hold is an error notice, and nothing changes.
    session.command(rewind("nope")).unwrap();
    let (level, message) = next_notice(&session).await;
    assert_eq!(level, dcl_events::NoticeLevel::Error);
    assert!(message.contains("no prompt nope"), "{message}");
    session.command(rewind("p2")).unwrap();
    let (level, message) = next_notice(&session).await;
    assert_eq!(level, dcl_events::NoticeLevel::Info);
    assert!(message.contains("the conversation"), "{message}");
    session.command(prompt("FAKE_HISTORY", "p3")).unwrap();
    assert_eq!(
        next_answer(&session).await,
        "Prompts seen: hello there | FAKE_HISTORY"
    );
    session.close();
}
