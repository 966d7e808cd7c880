//! Resume and fork against a fake Anthropic server with a priced model: the history
//! reaches the model again and the cost total carries over; a fork goes on under a new id
//! and leaves its source untouched.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::SseMessage;
use serde_json::Value;

fn reply(text: &str) -> FakeResponse {
    FakeResponse::sse(SseMessage::new().text(text).usage(1_000, 200).build())
}

fn options(base_url: &str, cwd: &Path, data: &Path) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("ANTHROPIC_API_KEY".to_string(), "sk-ant-test".to_string());
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("claude-sonnet-4-5".into()),
        api_format: Some("anthropic".into()),
        base_url: Some(base_url.to_string()),
        data_dir: Some(data.to_path_buf()),
        env,
        ..Default::default()
    }
}

fn texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| match &m["content"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(b) => b
                .iter()
                .filter_map(|x| x["text"].as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn transcript_lines(data: &Path, id: &str) -> usize {
    for dir in std::fs::read_dir(data.join("projects")).unwrap().flatten() {
        let p = dir.path().join(format!("{id}.jsonl"));
        if p.is_file() {
            return std::fs::read_to_string(p).unwrap().lines().count();
        }
    }
    panic!("no transcript for {id}");
}

async fn one_turn(session: &Session, text: &str) -> Value {
    session.send(prompt(text)).unwrap();
    let (_, result) = until_result(session).await;
    assert_eq!(result["is_error"], false, "{result}");
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_and_fork_carry_history_and_cost_on_a_fake_server() {
    let server = FakeAnthropicServer::start(vec![
        reply("one"),
        reply("two"),
        reply("three"),
        reply("forked"),
    ])
    .await
    .unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let opts = options(&server.base_url(), cwd.path(), data.path());
    let rt = tokio::runtime::Handle::current();

    let session = Session::spawn(&rt, opts.clone()).unwrap();
    one_turn(&session, "first").await;
    let second = one_turn(&session, "second").await;
    let cost_before = second["total_cost_usd"].as_f64().unwrap();
    assert!(cost_before > 0.0, "{second}");
    let id = session.session_id();
    session.close();
    drop(session);

    let resumed = Session::spawn(
        &rt,
        SessionOptions {
            resume: Some(id.clone()),
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(resumed.session_id(), id);
    let third = one_turn(&resumed, "third").await;
    assert_eq!(
        texts(&server.message_bodies()[2]),
        ["first", "one", "second", "two", "third"]
    );
    let cost_after = third["total_cost_usd"].as_f64().unwrap();
    // One more turn of the same size: the total grows by half of what two turns cost.
    let per_turn = cost_before / 2.0;
    assert!(
        (cost_after - (cost_before + per_turn)).abs() < 1e-9,
        "{cost_before} then {cost_after}"
    );
    resumed.close();
    drop(resumed);
    let source_lines = transcript_lines(data.path(), &id);

    let fork = Session::spawn(
        &rt,
        SessionOptions {
            resume: Some(id.clone()),
            fork_session: true,
            ..opts
        },
    )
    .unwrap();
    let fork_id = fork.session_id();
    assert_ne!(fork_id, id);
    let forked = one_turn(&fork, "fourth").await;
    assert_eq!(forked["session_id"], fork_id.as_str());
    assert_eq!(
        texts(&server.message_bodies()[3]),
        ["first", "one", "second", "two", "third", "three", "fourth"]
    );
    fork.close();
    assert_eq!(transcript_lines(data.path(), &id), source_lines);
    assert!(transcript_lines(data.path(), &fork_id) > 0);
    server.assert_no_violations();
}

/// The user entries of a session's transcript, in order.
fn user_contents(data: &Path, id: &str) -> Vec<Value> {
    for dir in std::fs::read_dir(data.join("projects")).unwrap().flatten() {
        let p = dir.path().join(format!("{id}.jsonl"));
        if p.is_file() {
            return std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|e| e["type"] == "user")
                .map(|e| e["message"]["content"].clone())
                .collect();
        }
    }
    panic!("no transcript for {id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_content_is_kept_as_the_host_sent_it_through_resume_and_fork() {
    use dcl_protocol::{ContentBlock, MessageContent, UserMessage};
    let server = FakeAnthropicServer::start(vec![reply("a"), reply("b"), reply("c")])
        .await
        .unwrap();
    let (cwd, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let base = options(&server.base_url(), cwd.path(), data.path());
    let session = Session::spawn(&tokio::runtime::Handle::current(), base.clone()).unwrap();
    let id = session.session_id();
    one_turn(&session, "as a string").await;
    session
        .send(dcl_protocol::Message::User(UserMessage::new(
            MessageContent::Blocks(vec![ContentBlock::text("as blocks")]),
        )))
        .unwrap();
    until_result(&session).await;
    session.close();
    let expected = vec![
        Value::String("as a string".into()),
        serde_json::json!([{"type": "text", "text": "as blocks"}]),
    ];
    assert_eq!(user_contents(data.path(), &id), expected);
    // A fork writes the history again under its own id: the shapes survive.
    let fork = SessionOptions {
        resume: Some(id.clone()),
        fork_session: true,
        ..base
    };
    let session = Session::spawn(&tokio::runtime::Handle::current(), fork).unwrap();
    let forked = session.session_id();
    assert_ne!(forked, id);
    one_turn(&session, "third").await;
    session.close();
    let mut all = expected;
    all.push(Value::String("third".into()));
    assert_eq!(user_contents(data.path(), &forked), all);
}
