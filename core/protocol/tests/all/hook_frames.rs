//! `system/hook_started|hook_progress|hook_response` in the reference's shape: every field
//! the SDKs' types require is there, `hook_event` and `outcome` are closed vocabularies.

use dcl_protocol::system::{SystemEvent, SystemSubtype};
use dcl_protocol::*;
use serde_json::json;

#[test]
fn hook_frames_carry_the_reference_fields_and_decode_typed() {
    let started = SystemHookStarted::new("h1", "PreToolUse:Bash", HookEventName::PreToolUse);
    let progress = SystemHookProgress::new(
        "h1",
        "PreToolUse:Bash",
        HookEventName::PreToolUse,
        "out\n",
        "err\n",
    );
    let response = SystemHookResponse::new(
        "h1",
        "PreToolUse:Bash",
        HookEventName::PreToolUse,
        "out\n",
        "no\n",
        Some(2),
        HookOutcome::Error,
    );
    let s = serde_json::to_value(started.to_system_message()).unwrap();
    assert_eq!(s["hook_id"], "h1");
    assert_eq!(s["hook_name"], "PreToolUse:Bash");
    assert_eq!(s["hook_event"], "PreToolUse");
    let p = serde_json::to_value(progress.to_system_message()).unwrap();
    assert_eq!(p["output"], "out\nerr\n");
    let r = serde_json::to_value(response.to_system_message()).unwrap();
    assert_eq!(
        (
            r["exit_code"].clone(),
            r["outcome"].clone(),
            r["stderr"].clone()
        ),
        (json!(2), json!("error"), json!("no\n"))
    );
    // A line from the wire decodes to the typed frame; one missing a required field (the
    // SDKs' types need `outcome`) stays untyped.
    let line = json!({"type": "system", "subtype": "hook_response", "hook_id": "h", "hook_name": "Stop",
        "hook_event": "Stop", "output": "", "stdout": "", "stderr": "", "outcome": "success",
        "uuid": "u", "session_id": "s"});
    let Message::System(m) = parse_value(line.clone()).unwrap() else {
        panic!("not a system line")
    };
    assert!(matches!(m.typed(), SystemEvent::HookResponse(_)), "{line}");
    let mut partial = line;
    partial.as_object_mut().unwrap().remove("outcome");
    let Message::System(m) = parse_value(partial).unwrap() else {
        panic!("not a system line")
    };
    assert!(matches!(m.typed(), SystemEvent::Other(_)));
    // Every event name dcl fires is in the vocabulary.
    for e in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "SessionStart",
        "PreCompact",
    ] {
        assert!(HookEventName::parse(e).is_some(), "{e}");
    }
    assert!(HookEventName::parse("NotAnEvent").is_none());
}
