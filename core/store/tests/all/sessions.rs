//! Writing, loading, resuming and forking sessions through the public API.

use crate::common;

use common::*;
use dcl_store::{
    LoadWarning, MirrorSink, Redactor, ResumeRequest, SessionState, StoreError, Target,
    TranscriptOptions, loader, new_uuid,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;

fn by_id(id: &str) -> ResumeRequest {
    ResumeRequest {
        target: Target::Id(id.to_string()),
        at: None,
        drops_turn: None,
    }
}

#[test]
fn a_session_round_trips_with_its_history_and_state() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, mut t, turns) = two_turn_session(&store);
    let state = SessionState {
        model: Some("mock-model".into()),
        permission_mode: Some("acceptEdits".into()),
        total_cost_usd: 0.25,
        num_turns: 2,
        ..SessionState::default()
    };
    t.state(&state).unwrap();
    // Plain CLI: under dcl home, in the reference layout.
    let expected = fx
        .home
        .join(".dcl/projects")
        .join(store.project_key())
        .join(format!("{id}.jsonl"));
    assert_eq!(t.path(), expected);
    assert!(store.project_key().ends_with("-work-my-project"));

    let r = store.resume(&by_id(&id)).unwrap();
    assert!(r.warnings().is_empty());
    assert_eq!(r.leaf.as_deref(), Some(turns[1].last()));
    assert_eq!(r.state.as_ref(), Some(&state));
    let roles: Vec<&str> = r.history.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );
    // The text and tool_use blocks of one request come back as one message.
    assert_eq!(r.history[1].content.len(), 2);
    assert_eq!(r.history[1].content[1]["type"], "tool_use");
    assert_eq!(r.history[2].content[0]["type"], "tool_result");
    assert_eq!(r.history[4].content[0]["text"], "and now say bye");

    // Every line is one JSON object with the reference's chain fields.
    let text = read(t.path());
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["type"] == "user" || v["type"] == "assistant" {
            assert_eq!(v["sessionId"], id.as_str());
            assert!(v["uuid"].is_string() && v["timestamp"].is_string());
            assert_eq!(v["isSidechain"], false);
            assert!(v["cwd"].as_str().unwrap().ends_with("/work/my.project"));
            assert_eq!(v["version"], "2.1.332");
        }
    }
}

#[test]
fn resume_appends_to_the_same_file_and_continue_finds_the_newest() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (old, _t, _) = two_turn_session(&store);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (newest, t2, turns) = two_turn_session(&store);
    drop(t2);

    let cont = ResumeRequest {
        target: Target::Continue,
        at: None,
        drops_turn: None,
    };
    let r = store.resume(&cont).unwrap();
    assert_eq!(r.session_id(), newest);
    let reopened = store
        .reopen(&r, None, TranscriptOptions::default())
        .unwrap();
    let mut t = reopened.transcript;
    let history = reopened.history;
    assert_eq!(history.len(), 6);
    let added = text_turn(&mut t, "third", "3");
    let text = read(t.path());
    let first_new: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["uuid"] == added.entries[0].as_str())
        .unwrap();
    assert_eq!(first_new["parentUuid"], turns[1].last());
    let r = store.resume(&by_id(&newest)).unwrap();
    assert_eq!(r.history.len(), 8);
    assert_ne!(old, newest);

    // --continue in a directory without sessions is a clear error.
    let other = fx.root.path().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let s2 = dcl_store::Store::new(fx.homes(&[]), &other);
    let err = s2.resume(&cont).unwrap_err();
    assert!(matches!(err, StoreError::NothingToContinue { .. }), "{err}");
}

#[test]
fn resume_looks_in_every_home() {
    let fx = Fixture::new();
    // Written by an SDK-driven run, under the client home…
    let sdk = fx.store(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-py")]);
    let (id, t, _) = two_turn_session(&sdk);
    assert!(t.path().starts_with(fx.home.join(".claude/projects")));
    // …found by a plain CLI run, whose transcripts go to dcl home.
    let cli = fx.store(&[]);
    let r = cli.resume(&by_id(&id)).unwrap();
    assert_eq!(r.found.home, fx.home.join(".claude"));
    assert_eq!(cli.list(false).len(), 1);
}

#[test]
fn missing_and_malformed_session_ids_are_clear_errors() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let missing = new_uuid();
    let err = store.resume(&by_id(&missing)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("No conversation found with session ID: {missing}")
    );
    // Attack: an id that would walk out of the projects folder never becomes a path.
    std::fs::write(fx.home.join("secret.jsonl"), "{\"type\":\"user\"}\n").unwrap();
    for bad in ["../../secret", "../secret", "/etc/passwd"] {
        let err = store.resume(&by_id(bad)).unwrap_err();
        assert!(matches!(err, StoreError::InvalidId { .. }), "{bad}: {err}");
    }
    // Reusing a session id for a new session is refused; the file is untouched.
    let (id, t, _) = two_turn_session(&store);
    let before = read(t.path());
    let err = store.start(&id, TranscriptOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::SessionExists { .. }), "{err}");
    assert_eq!(read(t.path()), before);
}

#[test]
fn fork_copies_the_chain_with_fresh_ids_and_leaves_the_source_alone() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, t, _) = two_turn_session(&store);
    let source_before = read(t.path());
    let r = store.resume(&by_id(&id)).unwrap();
    let new_id = new_uuid();
    let reopened = store
        .reopen(&r, Some(&new_id), TranscriptOptions::default())
        .unwrap();
    let mut f = reopened.transcript;
    let history = reopened.history;
    assert_eq!(f.session_id(), new_id);
    assert_eq!(history.len(), 6);
    text_turn(&mut f, "in the fork", "ok");
    assert_eq!(read(t.path()), source_before);

    let copied = loader::load(f.path()).unwrap().entries;
    let source = loader::load(t.path()).unwrap().entries;
    let src_ids: Vec<&Value> = source.iter().filter_map(|e| e.get("uuid")).collect();
    let chain: Vec<&Value> = copied
        .iter()
        .filter(|e| e.get("forkedFrom").is_some())
        .collect();
    assert_eq!(chain.len(), 7);
    for e in &chain {
        assert_eq!(e["sessionId"], new_id.as_str());
        assert!(!src_ids.contains(&&e["uuid"]));
        assert_eq!(e["forkedFrom"]["sessionId"], id.as_str());
    }
    // Parents point at copies, not at the source.
    for w in chain.windows(2) {
        assert_eq!(w[1]["parentUuid"], w[0]["uuid"]);
    }
    let r2 = store.resume(&by_id(&new_id)).unwrap();
    assert_eq!(r2.history.len(), 8);
    assert_eq!(r2.history[0].uuids, history[0].uuids);
}

#[test]
fn resume_session_at_keeps_a_prefix_and_branches_from_it() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, _t, turns) = two_turn_session(&store);
    let req = ResumeRequest {
        target: Target::Id(id.clone()),
        at: Some(turns[0].last().to_string()),
        drops_turn: None,
    };
    let r = store.resume(&req).unwrap();
    assert_eq!(r.history.len(), 4);
    assert_eq!(r.leaf.as_deref(), Some(turns[0].last()));
    let reopened = store
        .reopen(&r, None, TranscriptOptions::default())
        .unwrap();
    let mut t = reopened.transcript;
    let _history = reopened.history;
    text_turn(&mut t, "instead", "branch");
    // The new branch is now the session's conversation.
    let r = store.resume(&by_id(&id)).unwrap();
    assert_eq!(r.history.len(), 6);
    assert_eq!(r.history[4].content[0]["text"], "instead");

    let bad = ResumeRequest {
        at: Some(new_uuid()),
        ..req
    };
    assert!(matches!(
        store.resume(&bad).unwrap_err(),
        StoreError::MessageNotFound { .. }
    ));
}

#[test]
fn resume_drops_turn_accepts_the_last_turn_and_refuses_any_other() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let id = new_uuid();
    let mut t = store.start(&id, TranscriptOptions::default()).unwrap();
    let a = tool_turn(&mut t, "one");
    let b = text_turn(&mut t, "two", "2");
    let c = text_turn(&mut t, "three", "3");
    let before = read(t.path());
    let req = |at: Option<&str>, turn: &str| ResumeRequest {
        target: Target::Id(id.clone()),
        at: at.map(str::to_string),
        drops_turn: Some(turn.to_string()),
    };

    // Positive: at the end of turn b, dropping turn c (the last one).
    let r = store.resume(&req(Some(b.last()), &c.prompt)).unwrap();
    assert_eq!(r.leaf.as_deref(), Some(b.last()));
    assert_eq!(r.history.len(), 6);
    // Without --resume-session-at the point is just before the named turn.
    let r = store.resume(&req(None, &c.prompt)).unwrap();
    assert_eq!(r.leaf.as_deref(), Some(b.last()));

    // Refused: turn b is not the last one (turn c follows it).
    for (at, turn) in [
        (Some(a.last()), b.prompt.as_str()),
        (None, b.prompt.as_str()),
        // The point is not right before the named turn.
        (Some(a.last()), c.prompt.as_str()),
        // Not a prompt at all.
        (Some(b.last()), c.last()),
    ] {
        let err = store.resume(&req(at, turn)).unwrap_err();
        assert!(matches!(err, StoreError::DropsTurnRejected { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("Resume rejected by --resume-drops-turn:"),
            "{err}"
        );
    }
    let missing = new_uuid();
    assert!(store.resume(&req(None, &missing)).is_err());
    assert_eq!(
        read(t.path()),
        before,
        "a refused resume leaves the source untouched"
    );
}

#[test]
fn a_half_written_last_line_is_skipped_and_the_next_entry_starts_a_new_line() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, t, turns) = two_turn_session(&store);
    let path = t.path().to_path_buf();
    drop(t);
    // What a SIGKILL in the middle of a write leaves: half of a line, no newline.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"parentUuid":"x","isSidechain":false,"type":"assist"#);
    std::fs::write(&path, &bytes).unwrap();

    let r = store.resume(&by_id(&id)).unwrap();
    assert!(
        matches!(r.warnings(), [LoadWarning::TornLastLine { .. }]),
        "{:?}",
        r.warnings()
    );
    assert_eq!(r.leaf.as_deref(), Some(turns[1].last()));
    let reopened = store
        .reopen(&r, None, TranscriptOptions::default())
        .unwrap();
    let mut t = reopened.transcript;
    let _history = reopened.history;
    text_turn(&mut t, "after the crash", "fine");
    let l = loader::load(&path).unwrap();
    // The fragment is kept (nothing is lost) but is now a terminated corrupt line.
    assert!(
        matches!(l.warnings.as_slice(), [LoadWarning::CorruptLine { .. }]),
        "{:?}",
        l.warnings
    );
    let r = store.resume(&by_id(&id)).unwrap();
    assert_eq!(r.history.len(), 8);
}

/// Attack: a host that forks after using dcl (Python's `multiprocessing`, a pre-forking
/// server) must not hand its children the ids it goes on making: two sessions would share a
/// transcript. Every id comes from the kernel's generator, never from a user-space one
/// copied into the child (rand's `ThreadRng`, which uuid's `fast-rng` uses, is not reseeded
/// on fork). The positive twin: ids made one after another in a process differ too.
#[test]
fn ids_made_after_a_fork_differ_from_the_parents() {
    use nix::sys::wait::waitpid;
    use nix::unistd::{ForkResult, fork, pipe, write};
    // Whatever generator state ids need exists before the fork.
    let before = new_uuid();
    let (r, w) = pipe().unwrap();
    // SAFETY: the child only makes an id (glibc's fork leaves malloc usable in the child),
    // writes it to the pipe and leaves with `_exit`, running no destructors or handlers.
    match unsafe { fork() }.unwrap() {
        ForkResult::Child => {
            let id = new_uuid();
            let code = i32::from(write(&w, id.as_bytes()).ok() != Some(id.len()));
            unsafe { libc::_exit(code) }
        }
        ForkResult::Parent { child } => {
            drop(w);
            let mine = new_uuid();
            let mut theirs = String::new();
            std::io::Read::read_to_string(&mut std::fs::File::from(r), &mut theirs).unwrap();
            waitpid(child, None).unwrap();
            assert_eq!(theirs.len(), 36, "the child's id: {theirs:?}");
            assert_ne!(theirs, mine, "the child made the parent's next id");
            assert_ne!(before, mine);
        }
    }
}

/// The writer child for the SIGKILL test: appends large entries until killed.
#[test]
fn sigkill_child_writer() {
    let Ok(path) = std::env::var("DCL_STORE_KILL_CHILD") else {
        return;
    };
    let path = std::path::PathBuf::from(path);
    let files = dcl_store::SessionFiles {
        session_id: path.file_stem().unwrap().to_string_lossy().into_owned(),
        project_dir: path.parent().unwrap().to_path_buf(),
        transcript: path.clone(),
    };
    let ctx = dcl_store::EntryContext::new(&files.session_id, std::path::Path::new("/"));
    let mut t = dcl_store::Transcript::create(files, ctx, TranscriptOptions::default()).unwrap();
    let big = "x".repeat(256 * 1024);
    loop {
        t.user(
            &new_uuid(),
            json!({"role": "user", "content": big}),
            Map::new(),
        )
        .unwrap();
    }
}

#[test]
fn a_real_sigkill_loses_at_most_the_line_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let id = new_uuid();
    let path = dir.path().join(format!("{id}.jsonl"));
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            // The name libtest gives it inside the one `all` test binary.
            "sessions::sigkill_child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("DCL_STORE_KILL_CHILD", &path)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::metadata(&path).map_or(0, |m| m.len()) < 8 * 1024 * 1024 {
        assert!(
            std::time::Instant::now() < deadline,
            "the child wrote nothing"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY-free: kill(2) through the std API sends SIGKILL.
    child.kill().unwrap();
    child.wait().unwrap();
    let l = loader::load(&path).unwrap();
    assert!(l.entries.len() >= 8, "{}", l.entries.len());
    assert!(l.warnings.len() <= 1, "{:?}", l.warnings);
    assert!(
        l.warnings
            .iter()
            .all(|w| matches!(w, LoadWarning::TornLastLine { .. })),
        "{:?}",
        l.warnings
    );
}

#[test]
fn mirror_frames_carry_every_entry_with_its_file_path() {
    let fx = Fixture::new();
    let store = fx.store(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-py")]);
    let sink = MirrorSink::new();
    let opts = TranscriptOptions {
        mirror: Some(sink.clone()),
        ..TranscriptOptions::default()
    };
    let id = new_uuid();
    let mut t = store.start(&id, opts).unwrap();
    tool_turn(&mut t, "hello");
    let sub = t
        .subagent(
            "a1b2c3",
            &json!({"agentType": "general-purpose", "toolUseId": "toolu_1"}),
        )
        .unwrap();
    let mut sub = sub;
    text_turn(&mut sub, "sub prompt", "sub answer");
    text_turn(&mut t, "again", "ok");

    let frames = sink.drain_frames();
    assert_eq!(frames.len(), 3, "{frames:#?}");
    let projects = fx.home.join(".claude/projects");
    for f in &frames {
        assert_eq!(f["type"], "transcript_mirror");
        let p = std::path::Path::new(f["filePath"].as_str().unwrap());
        assert!(p.starts_with(&projects), "{p:?}");
        assert!(
            f["entries"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["type"].is_string())
        );
    }
    assert_eq!(frames[0]["filePath"], t.path().to_string_lossy().as_ref());
    let main_lines = read(t.path()).lines().count();
    let mirrored: usize = [&frames[0], &frames[2]]
        .iter()
        .map(|f| f["entries"].as_array().unwrap().len())
        .sum();
    assert_eq!(mirrored, main_lines);
    assert!(
        frames[1]["filePath"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{id}/subagents/agent-a1b2c3.jsonl"))
    );
    assert_eq!(frames[1]["entries"][0]["type"], "agent_metadata");
    assert_eq!(frames[1]["entries"][0]["toolUseId"], "toolu_1");
    assert!(sink.drain_frames().is_empty());

    let meta: Value =
        serde_json::from_str(&read(&t.files().subagent_meta("a1b2c3").unwrap())).unwrap();
    assert_eq!(meta["toolUseId"], "toolu_1");
    let sub_lines = loader::load(sub.path()).unwrap().entries;
    assert!(
        sub_lines
            .iter()
            .filter(|e| e.get("uuid").is_some())
            .all(|e| e["isSidechain"] == true && e["agentId"] == "a1b2c3")
    );
}

#[test]
fn secrets_never_reach_the_transcript_or_the_mirror() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let secret = "sk-ant-api03-verysecretvalue";
    let sink = MirrorSink::new();
    let opts = TranscriptOptions {
        redactor: Arc::new(Redactor::from_env([("ANTHROPIC_API_KEY", secret)])),
        mirror: Some(sink.clone()),
        spool: None,
    };
    let id = new_uuid();
    let mut t = store.start(&id, opts).unwrap();
    // Attack: a tool prints the key (e.g. `env`), and the model repeats it.
    t.user(
        &new_uuid(),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": format!("ANTHROPIC_API_KEY={secret}")}]}),
        Map::new(),
    )
    .unwrap();
    t.assistant(
        &new_uuid(),
        assistant_msg(
            "m",
            json!({"type": "text", "text": format!("your key is {secret}")}),
        ),
        Map::new(),
    )
    .unwrap();
    let text = read(t.path());
    assert!(!text.contains(secret), "{text}");
    assert!(
        !serde_json::to_string(&sink.drain_frames())
            .unwrap()
            .contains(secret)
    );
    // Positive twin: the rest of the text is kept.
    assert!(text.contains("ANTHROPIC_API_KEY=[REDACTED]"));
    assert!(text.contains("your key is [REDACTED]"));
}

#[test]
fn a_compaction_can_use_the_uuids_the_stream_showed_and_excluded_entries_survive_resume() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, mut t, turns) = two_turn_session(&store);
    let ids = dcl_store::CompactIds {
        boundary: new_uuid(),
        summary: new_uuid(),
    };
    t.compact_as(&ids, "manual", 42, "Summary:\nshort").unwrap();
    assert_eq!(t.leaf(), Some(ids.summary.as_str()));
    let refused = turns[1].entries[0].clone();
    t.state(&SessionState {
        excluded: vec![refused.clone()],
        ..SessionState::default()
    })
    .unwrap();
    let l = loader::load(t.path()).unwrap();
    let b = l
        .entries
        .iter()
        .find(|e| e["uuid"] == ids.boundary.as_str())
        .unwrap();
    assert_eq!(
        b["compactMetadata"],
        json!({"trigger": "manual", "preTokens": 42})
    );
    let r = store.resume(&by_id(&id)).unwrap();
    assert_eq!(r.state.unwrap().excluded, vec![refused]);
    // A state without exclusions writes no key for them.
    t.state(&SessionState::default()).unwrap();
    let last = loader::load(t.path()).unwrap().entries.pop().unwrap();
    assert!(last.get("excluded").is_none(), "{last}");
}

#[test]
fn compaction_writes_the_boundary_and_the_summary_and_resume_starts_there() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, mut t, turns) = two_turn_session(&store);
    let ids = t
        .compact("auto", 18_000, "We ran echo hi and said bye.")
        .unwrap();
    let after = text_turn(&mut t, "go on", "going");
    let l = loader::load(t.path()).unwrap();
    let boundary = l
        .entries
        .iter()
        .find(|e| e["uuid"] == ids.boundary.as_str())
        .unwrap();
    assert_eq!(boundary["subtype"], "compact_boundary");
    assert_eq!(boundary["parentUuid"], Value::Null);
    assert_eq!(boundary["logicalParentUuid"], turns[1].last());
    assert_eq!(boundary["compactMetadata"]["trigger"], "auto");
    let summary = l
        .entries
        .iter()
        .find(|e| e["uuid"] == ids.summary.as_str())
        .unwrap();
    assert_eq!(summary["isCompactSummary"], true);
    assert_eq!(summary["parentUuid"], ids.boundary.as_str());

    let r = store.resume(&by_id(&id)).unwrap();
    assert_eq!(r.history.len(), 2, "{:#?}", r.history);
    assert!(r.history[0].is_compact_summary);
    assert!(
        r.history[0].content[0]["text"]
            .as_str()
            .unwrap()
            .contains("said bye")
    );
    assert_eq!(r.history[0].content[1]["text"], "go on");
    assert_eq!(r.leaf.as_deref(), Some(after.last()));
}

#[test]
fn listing_and_reading_follow_titles_tags_and_prompts() {
    let fx = Fixture::new();
    let store = fx.store(&[]);
    let (id, mut t, turns) = two_turn_session(&store);
    let list = store.list(false);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].session_id, id);
    assert_eq!(list[0].summary, "and now say bye");
    assert_eq!(list[0].first_prompt.as_deref(), Some("please FAKE_BASH"));
    assert!(list[0].created_at.is_some());
    let title = t.context().custom_title("My work");
    t.metadata(title).unwrap();
    let tag = t.context().tag("review");
    t.metadata(tag).unwrap();
    let list = store.list(true);
    assert_eq!(list[0].summary, "My work");
    assert_eq!(list[0].tag.as_deref(), Some("review"));

    let msgs = store.messages(&id).unwrap();
    assert_eq!(msgs.len(), 7);
    assert_eq!(msgs[0]["uuid"], turns[0].prompt.as_str());
    assert_eq!(msgs[0]["type"], "user");
    assert_eq!(msgs[6]["uuid"], turns[1].last());
}
