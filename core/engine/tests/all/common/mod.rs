//! Helpers the engine's integration tests share: a user prompt, and reading a session's
//! output up to its result.

#![allow(dead_code)] // each test crate uses the helpers it needs

use std::time::Duration;

use dcl_engine::Session;
use dcl_protocol::{Message, MessageContent, UserMessage};
use serde_json::Value;

/// A host's user message with plain-text content.
pub fn prompt(text: &str) -> Message {
    Message::User(UserMessage::new(MessageContent::Text(text.into())))
}

/// Collects lines until a result; returns (every line as JSON, the result). Never waits
/// more than 20 s for a line.
pub async fn until_result(session: &Session) -> (Vec<Value>, Value) {
    let mut seen = Vec::new();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .expect("no output within 20s")
            .expect("session ended before a result");
        let v = serde_json::to_value(&m).expect("messages serialize");
        let is_result = v["type"] == "result";
        seen.push(v.clone());
        if is_result {
            return (seen, v);
        }
    }
}

/// The next line as JSON; never waits more than 20 s, and the session must not end.
pub async fn next(session: &Session) -> Value {
    let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
        .await
        .expect("no output within 20s")
        .expect("session ended");
    serde_json::to_value(&m).expect("messages serialize")
}

/// A host's control request.
pub fn control_request(id: &str, request: Value) -> Message {
    Message::ControlRequest(dcl_protocol::ControlRequestEnvelope {
        request_id: id.into(),
        request,
        extra: Default::default(),
    })
}

/// The host's success answer to the control request `request_id`.
pub fn answer(request_id: &Value, response: Value) -> Message {
    let line = serde_json::json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": request_id, "response": response}});
    dcl_protocol::parse_line(&line.to_string()).expect("a valid control response")
}
