//! Structured output against the full JSON Schema: output that does not match goes back to
//! the model to fix, a bounded number of times; a broken schema is refused at open.

use crate::common;

use std::collections::BTreeMap;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::{Value, json};

fn schema() -> Value {
    json!({"type": "object", "$defs": {"Code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "properties": {"code": {"$ref": "#/$defs/Code"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["code", "n"], "additionalProperties": false})
}

fn answer(input: Value) -> FakeResponse {
    FakeResponse::sse(
        SseMessage::new()
            .tool_use(&format!("toolu_{}", rand_id()), "StructuredOutput", input)
            .stop_reason("tool_use")
            .build(),
    )
}

fn rand_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

async fn session_with(server: &FakeAnthropicServer, dir: &std::path::Path) -> Session {
    let mut env = BTreeMap::new();
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-test".to_string());
    let opts = SessionOptions {
        cwd: Some(dir.to_path_buf()),
        model: Some("claude-test".into()),
        base_url: Some(server.base_url()),
        json_schema: Some(schema()),
        env,
        ..Default::default()
    };
    Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_output_goes_back_to_the_model_until_it_fits() {
    let server = FakeAnthropicServer::start(vec![
        answer(json!({"code": "abc", "n": 0})),
        answer(json!({"code": "ABC", "n": 2})),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = session_with(&server, dir.path()).await;
    session.send(prompt("give me a code")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["structured_output"], json!({"code": "ABC", "n": 2}));
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 2);
    let feedback = bodies[1]["messages"].to_string();
    assert!(
        feedback.contains("/code") && feedback.contains("/n"),
        "the model is told what to fix: {feedback}"
    );
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_that_never_fits_ends_the_turn_after_the_retries() {
    let server = FakeAnthropicServer::start(vec![
        answer(json!({"code": 1})),
        answer(json!({"code": "ab", "n": 1})),
        answer(json!({"code": "ABC", "n": 1, "extra": true})),
        answer(json!({"code": "ABC", "n": 1})),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = session_with(&server, dir.path()).await;
    session.send(prompt("give me a code")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(
        result["subtype"], "error_max_structured_output_retries",
        "{result}"
    );
    assert_eq!(server.message_bodies().len(), 3, "no fourth attempt");
    session.close();
}

#[test]
fn a_broken_schema_is_refused_when_the_session_opens() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let opts = SessionOptions {
        model: Some("mock-model".into()),
        json_schema: Some(json!({"type": "object", "properties": {"a": {"type": "nope"}}})),
        ..Default::default()
    };
    let err = Session::spawn(rt.handle(), opts).err().unwrap();
    assert_eq!(err.option.as_deref(), Some("jsonSchema"), "{err:?}");
}
