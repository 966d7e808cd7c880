//! A front end on typed events only (as ACP and the terminal UI are): it opens a session
//! with events, sends commands and reads events, importing nothing but the bridge.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dcl_bridge::events::{AgentEvent, ItemBody, SessionCommand, StopReason};
use dcl_bridge::{SessionOptions, Streams};

#[test]
fn a_prompt_command_gives_a_turn_of_events() {
    let dir = tempfile::tempdir().unwrap();
    let options = SessionOptions::from_json(
        &serde_json::json!({"cwd": dir.path(), "model": "mock-model"}).to_string(),
    )
    .unwrap();
    let bridge = dcl_bridge::open_streams(options, Streams::EVENTS).unwrap();
    bridge.command(SessionCommand::prompt("hi")).unwrap();
    bridge.command(SessionCommand::EndInput).unwrap();
    let mut events = Vec::new();
    while let Some(e) = bridge.recv_event_blocking().unwrap() {
        events.push(e);
    }
    let answer: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ItemCompleted { item } => match &item.body {
                ItemBody::AgentText { text } => Some(text.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(answer, ["Hello from the fake model."]);
    let end = events.iter().find_map(|e| match e {
        AgentEvent::TurnEnded(end) => Some(end),
        _ => None,
    });
    assert_eq!(end.map(|e| e.stop_reason), Some(StopReason::EndTurn));
    assert_eq!(events.last(), Some(&AgentEvent::SessionEnded));
    // An events session writes no lines for `recv` to read.
    assert_eq!(bridge.try_recv_batch(8), Some(Vec::new()));
}

/// `describe`: what a front end shows before the first turn — the mode after the
/// settings, the models `set_model` takes, the slash commands.
#[test]
fn describe_shows_the_session_before_any_turn() {
    let dir = tempfile::tempdir().unwrap();
    let options = SessionOptions::from_json(
        &serde_json::json!({"cwd": dir.path(), "model": "mock-model",
            "permissionMode": "acceptEdits"})
        .to_string(),
    )
    .unwrap();
    let bridge = dcl_bridge::open_streams(options, Streams::EVENTS).unwrap();
    let d = bridge.describe();
    assert_eq!(d.model, "mock-model");
    assert_eq!(d.permission_mode, "acceptEdits");
    assert!(d.models.iter().any(|m| m.value == "mock-model"), "{d:?}");
    assert!(d.models.iter().any(|m| m.value == "default"), "{d:?}");
    assert!(d.commands.iter().any(|c| c.name == "compact"), "{d:?}");
    assert!(!d.session_id.is_empty());
    bridge.close();
}
