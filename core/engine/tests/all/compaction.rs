//! Compaction against a fake Anthropic server whose context window is 20k tokens: it
//! refuses longer requests as the real API does (`prompt is too long`) and answers
//! summarisation requests with a summary.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{answer, control_request, next, prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::sse::sse_text;
use serde_json::{Value, json};

const WINDOW: u64 = 20_000;
/// A phrase of dcl's summarisation prompt.
const SUMMARY_ASK: &str = "create a detailed summary of the conversation so far";

/// The text of every block of a request's messages.
fn texts(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(blocks) => out.extend(
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str().map(str::to_string)),
            ),
            _ => {}
        }
    }
    out
}

fn is_summary_request(body: &Value) -> bool {
    texts(body).last().is_some_and(|t| t.contains(SUMMARY_ASK))
}

/// A fake model with a 20k window: summaries for summarisation requests (naming the last
/// turn they saw), a padded answer otherwise.
async fn fake_model() -> FakeAnthropicServer {
    let server = FakeAnthropicServer::start(vec![]).await.unwrap();
    server.set_window(WINDOW);
    server.set_responder(|body| {
        if is_summary_request(body) {
            let last_turn = texts(body)
                .iter()
                .rev()
                .find_map(|t| t.strip_prefix("turn ").map(|r| r.split(':').next().unwrap_or("").to_string()))
                .unwrap_or_default();
            return FakeResponse::sse(sse_text(&format!(
                "<analysis>going through it</analysis>\n<summary>\nThe user counted turns up to turn {last_turn}.\n</summary>"
            )));
        }
        FakeResponse::sse(sse_text(&format!("noted. {}", "answer words ".repeat(30))))
    });
    server
}

fn options(base_url: &str, cwd: &Path, home: &Path, extra: &[(&str, &str)]) -> SessionOptions {
    let mut env = BTreeMap::new();
    for (k, v) in [
        ("ANTHROPIC_API_KEY", "sk-ant-test"),
        ("DCL_RETRY_BASE_MS", "1"),
        ("HOME", home.to_str().unwrap()),
    ]
    .iter()
    .chain(extra)
    {
        env.insert(k.to_string(), v.to_string());
    }
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("claude-test".into()),
        api_format: Some("anthropic".into()),
        base_url: Some(base_url.to_string()),
        permission_mode: Some("bypassPermissions".into()),
        data_dir: Some(home.join("dcl-home")),
        env,
        ..Default::default()
    }
}

/// The threshold the proactive tests use: 70% of a 20k window.
const PROACTIVE: &[(&str, &str)] = &[
    ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "20000"),
    ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "70"),
];

fn turn_prompt(i: usize) -> String {
    format!("turn {i}: {}", "please remember this padding ".repeat(12))
}

fn transcript(home: &Path, session_id: &str) -> PathBuf {
    let projects = home.join("dcl-home/projects");
    for dir in std::fs::read_dir(&projects).unwrap().flatten() {
        let p = dir.path().join(format!("{session_id}.jsonl"));
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "no transcript for {session_id} under {}",
        projects.display()
    );
}

fn entries(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_turn_session_runs_to_the_end_on_a_20k_window() {
    let server = fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server.base_url(), dir.path(), home.path(), PROACTIVE),
    )
    .unwrap();
    let mut boundaries = Vec::new();
    let mut statuses = Vec::new();
    for i in 0..200 {
        session.send(prompt(&turn_prompt(i))).unwrap();
        let (seen, result) = until_result(&session).await;
        assert_eq!(result["is_error"], false, "turn {i}: {result}");
        assert_eq!(result["subtype"], "success", "turn {i}: {result}");
        for v in &seen {
            if v["subtype"] == "compact_boundary" {
                boundaries.push(v.clone());
            }
            if v["type"] == "system" && v["subtype"] == "status" {
                statuses.push(v["status"].clone());
            }
        }
    }
    server.assert_no_violations();
    assert_eq!(server.refused_too_long(), 0, "the threshold comes first");
    assert!(boundaries.len() >= 3, "{} compactions", boundaries.len());
    for b in &boundaries {
        assert_eq!(b["compact_metadata"]["trigger"], "auto", "{b}");
        assert!(
            b["compact_metadata"]["pre_tokens"].as_u64().unwrap() > 5_000,
            "{b}"
        );
    }
    // Each compaction is announced and closed.
    let compacting = statuses.iter().filter(|s| *s == "compacting").count();
    assert_eq!(compacting, boundaries.len());
    assert_eq!(
        statuses.iter().filter(|s| s.is_null()).count(),
        boundaries.len()
    );

    let bodies = server.message_bodies();
    for (n, b) in bodies.iter().enumerate() {
        let tokens = dcl_test_support::request_tokens(b);
        assert!(tokens <= WINDOW, "request {n} has {tokens} tokens");
    }
    // The request after the first summary holds the summary and no earlier turn.
    let first = bodies.iter().position(is_summary_request).unwrap();
    let after = texts(&bodies[first + 1]);
    assert!(
        after[0].starts_with("This session is being continued from a previous conversation"),
        "{after:?}"
    );
    assert!(
        after[0].contains("The user counted turns up to turn"),
        "{after:?}"
    );
    assert!(!after.iter().any(|t| t.starts_with("turn 0:")), "{after:?}");
    // The prompt that came after the summary is there word for word.
    assert!(after.last().unwrap().starts_with("turn "), "{after:?}");
    assert_eq!(bodies[first + 1]["messages"][0]["role"], "user");

    // The transcript marks each compaction as the reference does, under the stream's uuids.
    let path = transcript(home.path(), &session.session_id());
    let all = entries(&path);
    let on_disk: Vec<&Value> = all
        .iter()
        .filter(|e| e["type"] == "system" && e["subtype"] == "compact_boundary")
        .collect();
    assert_eq!(on_disk.len(), boundaries.len());
    for (disk, live) in on_disk.iter().zip(&boundaries) {
        assert_eq!(disk["uuid"], live["uuid"]);
        assert!(disk["parentUuid"].is_null());
        assert!(disk["logicalParentUuid"].is_string());
        assert_eq!(disk["compactMetadata"]["trigger"], "auto");
        let summary = all
            .iter()
            .find(|e| e["parentUuid"] == disk["uuid"])
            .unwrap();
        assert_eq!(summary["isCompactSummary"], true);
        assert_eq!(summary["isVisibleInTranscriptOnly"], true);
        assert_eq!(summary["type"], "user");
    }
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_the_api_refuses_as_too_long_is_compacted_once_and_retried() {
    // No threshold override: dcl takes the catalogue's 200k window, the server has 20k.
    let server = fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server.base_url(), dir.path(), home.path(), &[]),
    )
    .unwrap();
    let mut boundaries = 0;
    for i in 0..80 {
        session.send(prompt(&turn_prompt(i))).unwrap();
        let (seen, result) = until_result(&session).await;
        assert_eq!(result["is_error"], false, "turn {i}: {result}");
        boundaries += seen
            .iter()
            .filter(|v| v["subtype"] == "compact_boundary")
            .count();
    }
    assert!(server.refused_too_long() >= 1);
    assert!(boundaries >= 1);
    server.assert_no_violations();
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_compact_runs_on_demand_after_a_precompact_hook_and_resume_starts_at_the_summary() {
    let server = fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(&server.base_url(), dir.path(), home.path(), &[]);
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts.clone()).unwrap();
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {
                "PreCompact": [{"matcher": "manual", "hookCallbackIds": ["pre"]}],
                "PostCompact": [{"hookCallbackIds": ["post"]}],
            }}),
        ))
        .unwrap();
    let init = next(&session).await;
    let warnings = init["response"]["response"]["warnings"].to_string();
    assert!(!warnings.contains("PreCompact"), "{init}");
    let commands = init["response"]["response"]["commands"].to_string();
    assert!(commands.contains("\"compact\""), "{commands}");
    for i in 0..3 {
        session.send(prompt(&turn_prompt(i))).unwrap();
        until_result(&session).await;
    }
    session
        .send(prompt("/compact keep the turn numbers"))
        .unwrap();
    let mut hook_inputs = Vec::new();
    let mut seen = Vec::new();
    loop {
        let v = next(&session).await;
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            hook_inputs.push(v["request"]["input"].clone());
            session.send(answer(&v["request_id"], json!({}))).unwrap();
            continue;
        }
        seen.push(v.clone());
        if v["type"] == "result" {
            break;
        }
    }
    assert_eq!(hook_inputs.len(), 2, "{hook_inputs:#?}");
    let pre = &hook_inputs[0];
    assert_eq!(pre["hook_event_name"], "PreCompact", "{pre}");
    assert_eq!(pre["trigger"], "manual");
    assert_eq!(pre["custom_instructions"], "keep the turn numbers");
    let post = &hook_inputs[1];
    assert_eq!(post["hook_event_name"], "PostCompact", "{post}");
    assert!(
        post["compact_summary"]
            .as_str()
            .unwrap()
            .starts_with("Summary:\nThe user counted turns"),
        "{post}"
    );
    let result = seen.last().unwrap();
    assert_eq!(result["is_error"], false, "{result}");
    let kinds: Vec<String> = seen
        .iter()
        .filter(|v| v["type"] == "system" && v["subtype"] != "init")
        .map(|v| format!("{}:{}", v["subtype"].as_str().unwrap_or(""), v["status"]))
        .collect();
    assert_eq!(
        kinds,
        vec![
            "status:\"compacting\"",
            "compact_boundary:null",
            "status:null"
        ],
        "{seen:#?}"
    );
    let boundary = seen
        .iter()
        .find(|v| v["subtype"] == "compact_boundary")
        .unwrap();
    assert_eq!(boundary["compact_metadata"]["trigger"], "manual");
    let bodies = server.message_bodies();
    let ask = texts(bodies.last().unwrap());
    assert!(ask.last().unwrap().contains(SUMMARY_ASK));
    assert!(ask.last().unwrap().contains("keep the turn numbers"));

    // The next turn sends the summary and not the old turns.
    session.send(prompt("after the summary")).unwrap();
    until_result(&session).await;
    let sent = texts(server.message_bodies().last().unwrap());
    assert!(sent[0].contains("turns up to turn 2"), "{sent:?}");
    assert!(!sent.iter().any(|t| t.starts_with("turn 1:")), "{sent:?}");
    let id = session.session_id().to_string();
    session.close();
    drop(session);

    // A resumed session starts at the boundary.
    let resumed = Session::spawn(
        &tokio::runtime::Handle::current(),
        SessionOptions {
            resume: Some(id.clone()),
            ..opts
        },
    )
    .unwrap();
    resumed.send(prompt("resumed now")).unwrap();
    let (_, result) = until_result(&resumed).await;
    assert_eq!(result["is_error"], false, "{result}");
    let sent = texts(server.message_bodies().last().unwrap());
    assert!(
        sent[0].starts_with("This session is being continued"),
        "{sent:?}"
    );
    assert!(!sent.iter().any(|t| t.starts_with("turn 0:")), "{sent:?}");
    assert!(sent.iter().any(|t| t == "after the summary"), "{sent:?}");
    assert_eq!(sent.last().unwrap(), "resumed now");
    let on_disk = entries(&transcript(home.path(), &id));
    let b = on_disk
        .iter()
        .find(|e| e["subtype"] == "compact_boundary")
        .unwrap();
    assert_eq!(b["uuid"], boundary["uuid"]);
    assert_eq!(b["compactMetadata"]["trigger"], "manual");
    resumed.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_compact_with_nothing_to_compact_or_a_blocking_hook_says_so() {
    let server = fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server.base_url(), dir.path(), home.path(), &[]),
    )
    .unwrap();
    session.send(prompt("/compact")).unwrap();
    let (_, result) = until_result(&session).await;
    assert_eq!(result["is_error"], true, "{result}");
    assert!(
        result["errors"].to_string().contains("Not enough messages"),
        "{result}"
    );
    assert_eq!(server.messages_served(), 0);
    session
        .send(control_request(
            "init",
            json!({"subtype": "initialize", "hooks": {"PreCompact": [
                {"hookCallbackIds": ["no"]}
            ]}}),
        ))
        .unwrap();
    next(&session).await;
    session.send(prompt(&turn_prompt(0))).unwrap();
    until_result(&session).await;
    session.send(prompt("/compact")).unwrap();
    let mut seen = Vec::new();
    loop {
        let v = next(&session).await;
        seen.push(v.clone());
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            let block = json!({"decision": "block", "reason": "not now"});
            session.send(answer(&v["request_id"], block)).unwrap();
        }
        if v["type"] == "result" {
            break;
        }
    }
    let result = seen.last().unwrap();
    assert_eq!(result["is_error"], true, "{result}");
    assert!(result["errors"].to_string().contains("not now"), "{result}");
    assert!(!seen.iter().any(|v| v["subtype"] == "compact_boundary"));
    assert_eq!(server.messages_served(), 1, "no summary was asked for");
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_the_api_refused_is_not_sent_again_after_resume() {
    let server = FakeAnthropicServer::start(vec![
        FakeResponse::sse(sse_text("first answer")),
        FakeResponse::error(400, "invalid_request_error", "this prompt is refused"),
        FakeResponse::sse(sse_text("third answer")),
        FakeResponse::sse(sse_text("after resume")),
        FakeResponse::sse(sse_text("after fork")),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(&server.base_url(), dir.path(), home.path(), &[]);
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts.clone()).unwrap();
    for p in ["first", "POISON prompt", "third"] {
        session.send(prompt(p)).unwrap();
        until_result(&session).await;
    }
    let live = texts(&server.message_bodies()[2]);
    assert!(!live.iter().any(|t| t.contains("POISON")), "{live:?}");
    let id = session.session_id().to_string();
    session.close();
    drop(session);
    let resumed = Session::spawn(
        &tokio::runtime::Handle::current(),
        SessionOptions {
            resume: Some(id.clone()),
            ..opts.clone()
        },
    )
    .unwrap();
    resumed.send(prompt("fourth")).unwrap();
    let (_, result) = until_result(&resumed).await;
    assert_eq!(result["is_error"], false, "{result}");
    let sent = texts(server.message_bodies().last().unwrap());
    assert_eq!(
        sent,
        vec!["first", "first answer", "third", "third answer", "fourth"]
    );
    resumed.close();
    drop(resumed);
    // A fork's copies (new uuids) stay unsent too.
    let fork = Session::spawn(
        &tokio::runtime::Handle::current(),
        SessionOptions {
            resume: Some(id.clone()),
            fork_session: true,
            ..opts
        },
    )
    .unwrap();
    fork.send(prompt("fifth")).unwrap();
    let (_, result) = until_result(&fork).await;
    assert_eq!(result["is_error"], false, "{result}");
    let sent = texts(server.message_bodies().last().unwrap());
    assert!(!sent.iter().any(|t| t.contains("POISON")), "{sent:?}");
    assert_eq!(sent.last().unwrap(), "fifth");
    let fork_id = fork.session_id();
    fork.close();
    // The positive twin: the refused prompt is still in both transcripts.
    let on_disk = std::fs::read_to_string(transcript(home.path(), &id)).unwrap();
    assert!(on_disk.contains("POISON prompt"));
    let forked = std::fs::read_to_string(transcript(home.path(), &fork_id)).unwrap();
    assert!(forked.contains("POISON prompt"));
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_still_too_long_after_compaction_ends_the_turn_with_a_clear_error() {
    let server = fake_model().await;
    // Smaller than the system prompt and tools alone: nothing can fit.
    server.set_window(100);
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&server.base_url(), dir.path(), home.path(), &[]),
    )
    .unwrap();
    session.send(prompt("hello")).unwrap();
    let (seen, result) = until_result(&session).await;
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["terminal_reason"], "prompt_too_long", "{result}");
    assert!(
        result["result"].to_string().contains("prompt is too long"),
        "{result}"
    );
    let warned = seen.iter().any(|v| {
        v["subtype"] == "informational"
            && v["content"]
                .as_str()
                .is_some_and(|c| c.contains("Automatic compaction failed"))
    });
    assert!(warned, "{seen:#?}");
    assert!(!seen.iter().any(|v| v["subtype"] == "compact_boundary"));
    // One refused request, one refused summary: no loop.
    assert_eq!(server.refused_too_long(), 2);
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_compaction_can_be_turned_off_and_get_context_usage_reports_the_policy() {
    let server = fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let low = [
        ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "20000"),
        ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "30"),
    ];
    let usage = async |session: &Session| {
        session
            .send(control_request(
                "u",
                json!({"subtype": "get_context_usage"}),
            ))
            .unwrap();
        loop {
            let v = next(session).await;
            if v["type"] == "control_response" {
                return v["response"]["response"].clone();
            }
        }
    };
    // Off by the settings key: the threshold is passed, nothing is compacted.
    let off = SessionOptions {
        settings: Some(r#"{"autoCompactEnabled": false}"#.into()),
        ..options(&server.base_url(), dir.path(), home.path(), &low)
    };
    let session = Session::spawn(&tokio::runtime::Handle::current(), off).unwrap();
    let u = usage(&session).await;
    assert_eq!(u["isAutoCompactEnabled"], false, "{u}");
    assert_eq!(u["autoCompactThreshold"], 6_000, "{u}");
    assert_eq!(u["autoCompact"]["thresholdPercentage"], 30.0, "{u}");
    for i in 0..20 {
        session.send(prompt(&turn_prompt(i))).unwrap();
        let (seen, result) = until_result(&session).await;
        assert_eq!(result["is_error"], false, "{result}");
        assert!(!seen.iter().any(|v| v["subtype"] == "compact_boundary"));
    }
    assert!(!server.message_bodies().iter().any(is_summary_request));
    session.close();
    // On: the same turns compact; settings give the percentage when no variable does.
    let on = SessionOptions {
        settings: Some(r#"{"autoCompactThreshold": 30}"#.into()),
        ..options(
            &server.base_url(),
            dir.path(),
            home.path(),
            &[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "20000")],
        )
    };
    let session = Session::spawn(&tokio::runtime::Handle::current(), on).unwrap();
    let u = usage(&session).await;
    assert_eq!(u["isAutoCompactEnabled"], true, "{u}");
    assert_eq!(u["autoCompactThreshold"], 6_000, "{u}");
    let mut compacted = false;
    for i in 0..20 {
        session.send(prompt(&turn_prompt(i))).unwrap();
        let (seen, _) = until_result(&session).await;
        compacted |= seen.iter().any(|v| v["subtype"] == "compact_boundary");
    }
    assert!(compacted);
    session.close();
}
