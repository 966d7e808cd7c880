#![allow(clippy::unwrap_used)]

use super::*;

fn session(dir: &tempfile::TempDir, extra: &str) -> Arc<DclSession> {
    let options = format!(
        r#"{{"cwd": {:?}, "model": "mock-model", "persistSession": false{extra}}}"#,
        dir.path().display().to_string()
    );
    DclSession::open(options, None).unwrap()
}

fn prompt(s: &DclSession, text: &str) {
    let line = serde_json::json!({"type": "user", "message": {"role": "user", "content": text}});
    s.send(line.to_string()).unwrap();
}

/// Events until the turn's result, answering permission requests with `answer`.
fn turn(s: &DclSession, answer: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        match s.next_events(16, Some(30_000)).unwrap() {
            Pulled::Events { events } => {
                for e in events {
                    match e.kind.as_str() {
                        "message" => {
                            let m: Value = serde_json::from_str(&e.payload).unwrap();
                            let done = m["type"] == "result";
                            messages.push(m);
                            if done {
                                return messages;
                            }
                        }
                        "can_use_tool" => s.respond(e.id, answer.to_string()).unwrap(),
                        other => panic!("unexpected event {other}"),
                    }
                }
            }
            other => panic!("no result: {other:?}"),
        }
    }
}

#[test]
fn a_permission_answer_decides_the_write() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(&dir, r#", "permissionPromptTool": "stdio""#);
    prompt(&s, "FAKE_WRITE denied.txt");
    turn(&s, r#"{"behavior": "deny", "message": "no"}"#);
    assert!(!dir.path().join("denied.txt").exists());
    prompt(&s, "FAKE_WRITE allowed.txt");
    let messages = turn(
        &s,
        r#"{"behavior": "allow", "updatedInput": {"file_path": "allowed.txt", "content": "hello\n"}}"#,
    );
    assert_eq!(messages.last().unwrap()["session_id"], s.session_id());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("allowed.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn refusals_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let bad = format!(
        r#"{{"cwd": {:?}, "maxTurns": -1}}"#,
        dir.path().display().to_string()
    );
    match DclSession::open(bad, None) {
        Err(DclError::InvalidOptions { option, .. }) => {
            assert_eq!(option.as_deref(), Some("maxTurns"))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let s = session(&dir, "");
    assert!(matches!(
        s.respond("req_9".into(), "{}".into()),
        Err(DclError::NotPending { .. })
    ));
    assert!(matches!(
        s.respond("req_9".into(), "{".into()),
        Err(DclError::BadInput { .. })
    ));
    s.shutdown();
    assert!(matches!(
        s.request(r#"{"subtype": "interrupt"}"#.into(), None),
        Err(DclError::Closed { .. })
    ));
    let mut pulls = 0;
    while s.next_events(64, Some(10_000)).unwrap() != Pulled::Ended {
        pulls += 1;
        assert!(pulls < 1000, "the events never end after close");
    }
}

#[test]
fn a_waker_names_the_session_with_events() {
    let dir = tempfile::tempdir().unwrap();
    let waker = DclWaker::new().unwrap();
    let s = session(&dir, "");
    prompt(&s, "hello");
    let mut got_result = false;
    while !got_result {
        s.arm(Arc::clone(&waker), 7);
        assert_eq!(waker.wait_ready(Some(30_000)), vec![7]);
        if let Pulled::Events { events } = s.try_events(64).unwrap() {
            got_result = events
                .iter()
                .any(|e| e.payload.contains(r#""type":"result""#));
        }
    }
}
