//! The bridge as a binding sees it: typed errors, bounded waits, a session that ends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dcl_bridge::{ErrorKind, Received};

fn options(dir: &std::path::Path) -> String {
    serde_json::json!({"cwd": dir, "model": "mock-model"}).to_string()
}

#[test]
fn invalid_options_name_the_option() {
    let err = dcl_bridge::open(r#"{"maxTurns": "many"}"#).err().unwrap();
    assert_eq!(err.kind(), ErrorKind::InvalidOptions);
    assert_eq!(err.option(), Some("maxTurns"));
    let err = dcl_bridge::open(r#"{"cwd": "/definitely/not/here"}"#)
        .err()
        .unwrap();
    assert_eq!(err.kind(), ErrorKind::InvalidOptions);
    assert_eq!(err.option(), Some("cwd"));
    let err = dcl_bridge::open(r#"{"permissionMode": "sometimes"}"#)
        .err()
        .unwrap();
    assert_eq!(err.option(), Some("permissionMode"));
}

#[test]
fn recv_waits_at_most_its_timeout_and_then_reads_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let bridge = dcl_bridge::open(&options(dir.path())).unwrap();
    assert_eq!(
        bridge
            .recv_blocking_timeout(Some(Duration::from_millis(50)))
            .unwrap(),
        Received::TimedOut
    );
    bridge
        .send(r#"{"type":"user","message":{"role":"user","content":"hi"}}"#)
        .unwrap();
    let mut saw_result = false;
    while !saw_result {
        match bridge
            .recv_blocking_timeout(Some(Duration::from_secs(20)))
            .unwrap()
        {
            Received::Line(l) => saw_result = l.contains(r#""type":"result""#),
            other => panic!("{other:?}"),
        }
    }
    bridge.end_input();
    let batch = bridge
        .recv_batch_blocking(64, Some(Duration::from_secs(20)))
        .unwrap();
    assert!(batch.ended, "{batch:?}");
    assert_eq!(
        bridge
            .send(r#"{"type":"user","message":{"role":"user","content":"x"}}"#)
            .err()
            .map(|e| e.kind()),
        Some(ErrorKind::Closed)
    );
}

#[test]
fn a_bad_line_is_bad_input_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let bridge = dcl_bridge::open(&options(dir.path())).unwrap();
    let err = bridge.send("{not json").err().unwrap();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    bridge
        .send(r#"{"type":"user","message":{"role":"user","content":"hi"}}"#)
        .unwrap();
    loop {
        match bridge
            .recv_blocking_timeout(Some(Duration::from_secs(20)))
            .unwrap()
        {
            Received::Line(l) if l.contains(r#""type":"result""#) => break,
            Received::Line(_) => {}
            other => panic!("{other:?}"),
        }
    }
}
