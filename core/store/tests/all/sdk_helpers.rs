//! The SDKs' own session helpers (claude-agent-sdk and qoder-agent-sdk in Python, the
//! TypeScript claude-agent-sdk) list and read what dcl's writer produced, unmodified; and
//! dcl still resumes a session after those helpers appended to it or forked it.
//!
//! Needs `bash tests/setup.sh` (the venv in `tests/.work/venv`, the npm packages in
//! `tests/conformance/node/node_modules`); without them each test says so and passes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use dcl_store::{ResumeRequest, Target, TranscriptOptions, new_uuid};
use serde_json::{Value, json};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sdk_python() -> Option<PathBuf> {
    let p = std::env::var_os("DCL_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("tests/.work/venv/bin/python"));
    p.is_file().then_some(p)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

struct Written {
    main: String,
    doomed: String,
    agent: String,
    chain: Vec<String>,
}

fn write_sessions(store: &dcl_store::Store) -> Written {
    let (doomed, _t, _) = two_turn_session(store);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let main = new_uuid();
    let mut t = store.start(&main, TranscriptOptions::default()).unwrap();
    let a = tool_turn(&mut t, "please FAKE_BASH");
    let agent = "a0b1c2d3e4f5".to_string();
    let mut sub = t
        .subagent(
            &agent,
            &json!({"agentType": "general-purpose", "toolUseId": "toolu_sub1"}),
        )
        .unwrap();
    text_turn(&mut sub, "look around", "found it");
    let b = text_turn(&mut t, "and now say bye", "bye");
    let chain = a.entries.iter().chain(&b.entries).cloned().collect();
    Written {
        main,
        doomed,
        agent,
        chain,
    }
}

fn run_python(
    py: &Path,
    which: &str,
    home: &Path,
    env: &[(&str, &Path)],
    cwd: &Path,
    w: &Written,
) -> Value {
    let mut cmd = Command::new(py);
    cmd.arg(fixture("sdk_sessions.py"))
        .args([which, &cwd.to_string_lossy(), &w.main, &w.agent, &w.doomed])
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("QODER_CONFIG_DIR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{which} helpers failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check_sdk(which: &str, env_pairs: &[(&str, &str)], config_dir: Option<&str>) {
    let Some(py) = sdk_python() else {
        eprintln!(
            "SKIPPED: no SDK venv at tests/.work/venv (run `bash tests/setup.sh`, or set DCL_SDK_PYTHON)"
        );
        return;
    };
    let fx = Fixture::new();
    let cfg = config_dir.map(|d| fx.root.path().join(d));
    let cfg_str = cfg.as_ref().map(|p| p.to_string_lossy().into_owned());
    let mut pairs: Vec<(&str, &str)> = env_pairs.to_vec();
    let var = if which == "claude" {
        "CLAUDE_CONFIG_DIR"
    } else {
        "QODER_CONFIG_DIR"
    };
    if let Some(c) = &cfg_str {
        pairs.push((var, c));
    }
    let store = fx.store(&pairs);
    let w = write_sessions(&store);
    let env: Vec<(&str, &Path)> = cfg.as_deref().map(|c| (var, c)).into_iter().collect();
    let out = run_python(&py, which, &fx.home, &env, &fx.cwd, &w);

    let listed: Vec<&str> = out["listed_dir"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [w.main.as_str(), w.doomed.as_str()], "{out:#}");
    assert!(
        out["listed_all"]
            .as_array()
            .unwrap()
            .contains(&json!(w.main))
    );
    let info = &out["info"];
    assert_eq!(info["summary"], "and now say bye", "{info:#}");
    assert_eq!(info["first_prompt"], "please FAKE_BASH");
    assert_eq!(info["cwd"], fx.cwd.to_string_lossy().as_ref());
    assert!(info["created_at"].is_i64(), "{info:#}");
    let uuids: Vec<&str> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(uuids, w.chain, "{:#}", out["messages"]);
    assert_eq!(
        out["messages"][2]["message"]["content"][0]["type"],
        "tool_use"
    );
    assert_eq!(
        out["messages"][3]["message"]["content"][0]["type"],
        "tool_result"
    );
    assert!(
        out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["session_id"] == w.main.as_str())
    );
    assert_eq!(out["messages_any_dir"], 7);
    assert_eq!(out["subagents"], json!([w.agent]));
    assert_eq!(out["subagent_messages"].as_array().unwrap().len(), 2);
    assert_eq!(out["after_rename"]["custom_title"], "Renamed by the SDK");
    assert_eq!(out["after_rename"]["tag"], "sdk-tag");
    assert_eq!(out["fork_messages"], 7);
    let after_delete: Vec<&Value> = out["after_delete"].as_array().unwrap().iter().collect();
    assert!(!after_delete.contains(&&json!(w.doomed)), "{out:#}");

    // dcl reads back what the SDK changed: its title and tag lines, its fork…
    let mine = store.list(false);
    let main = mine.iter().find(|s| s.session_id == w.main).unwrap();
    assert_eq!(main.custom_title.as_deref(), Some("Renamed by the SDK"));
    assert_eq!(main.tag.as_deref(), Some("sdk-tag"));
    let fork_id = out["fork_id"].as_str().unwrap().to_string();
    let forked = store
        .resume(&ResumeRequest {
            target: Target::Id(fork_id),
            at: None,
            drops_turn: None,
        })
        .unwrap();
    assert_eq!(forked.history.len(), 6);
    // …and resumes the session the SDK appended to.
    let r = store
        .resume(&ResumeRequest {
            target: Target::Id(w.main.clone()),
            at: None,
            drops_turn: None,
        })
        .unwrap();
    assert!(r.warnings().is_empty());
    assert_eq!(r.leaf.as_deref(), w.chain.last().map(String::as_str));
    let reopened = store
        .reopen(&r, None, TranscriptOptions::default())
        .unwrap();
    let mut t = reopened.transcript;
    let _history = reopened.history;
    text_turn(&mut t, "one more", "ok");
}

#[test]
fn claude_agent_sdk_helpers_read_dcl_sessions() {
    // Driven by the SDK: transcripts under ~/.claude, found through HOME.
    check_sdk("claude", &[("CLAUDE_CODE_ENTRYPOINT", "sdk-py")], None);
}

#[test]
fn claude_agent_sdk_helpers_read_dcl_sessions_under_claude_config_dir() {
    check_sdk("claude", &[], Some("claude-config"));
}

#[test]
fn qoder_agent_sdk_helpers_read_dcl_sessions() {
    check_sdk(
        "qoder",
        &[("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py")],
        Some("qoder-config"),
    );
}

#[test]
fn typescript_claude_agent_sdk_reads_dcl_sessions() {
    let sdk = repo_root()
        .join("tests/conformance/node/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !sdk.is_file() || !node_ok {
        eprintln!(
            "SKIPPED: no node or no @anthropic-ai/claude-agent-sdk in tests/conformance/node (run `bash tests/setup.sh`)"
        );
        return;
    }
    let fx = Fixture::new();
    let store = fx.store(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-ts")]);
    let w = write_sessions(&store);
    let out = Command::new("node")
        .arg(fixture("ts_sessions.mjs"))
        .arg(std::fs::canonicalize(&sdk).unwrap())
        .arg(&fx.cwd)
        .arg(&w.main)
        .env("HOME", &fx.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<&str> = v["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [w.main.as_str(), w.doomed.as_str()], "{v:#}");
    assert_eq!(v["info"]["summary"], "and now say bye");
    let uuids: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(uuids, w.chain, "{v:#}");
}
