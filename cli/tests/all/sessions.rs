//! Sessions that last, through the `dcl` binary on the mock model: transcripts in the
//! reference layout, `--resume`, `--continue`, `--fork-session`, `--session-id`,
//! `--resume-session-at`, `--resume-drops-turn`, `--session-mirror`, a SIGKILL mid-turn,
//! and the reference CLI's settings folders.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A HOME and a project directory shared by several runs.
struct Place {
    _root: tempfile::TempDir,
    home: PathBuf,
    cwd: PathBuf,
}

impl Place {
    fn new() -> Place {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        let home = base.join("home");
        let cwd = base.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Place {
            _root: root,
            home,
            cwd,
        }
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcl"));
        cmd.args(args)
            .current_dir(&self.cwd)
            .env("HOME", &self.home)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("DCL_MODEL")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("DCL_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_ENTRYPOINT")
            .env_remove("QODER_AGENT_SDK_ENTRYPOINT");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// `dcl -p <prompt> --output-format json …`: the result and the exit code.
    fn print(&self, prompt: &str, extra: &[&str]) -> (Value, i32) {
        let mut args = vec![
            "-p",
            prompt,
            "--model",
            "mock-model",
            "--output-format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = self.command(&args, &[]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let result = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "result")
            .unwrap_or_else(|| {
                panic!(
                    "no result: {text}\nstderr: {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        (result, out.status.code().unwrap_or(-1))
    }

    /// A stream-json run: `initialize`, then each prompt, stdin closed; every line and
    /// the exit code.
    fn stream(&self, prompts: &[&str], extra: &[&str], env: &[(&str, &str)]) -> (Vec<Value>, i32) {
        let mut args = vec![
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--model",
            "mock-model",
        ];
        args.extend_from_slice(extra);
        let mut child = self
            .command(&args, env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        {
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "{}", json!({"type":"control_request","request_id":"init","request":{"subtype":"initialize"}})).unwrap();
            for p in prompts {
                writeln!(stdin, "{}", user_line(p)).unwrap();
            }
        }
        let out = child.wait_with_output().unwrap();
        let lines = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect();
        (lines, out.status.code().unwrap_or(-1))
    }

    fn transcripts(&self, home: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let root = self.home.join(home).join("projects");
        for d in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
                if f.path().extension().is_some_and(|e| e == "jsonl") {
                    out.push(f.path());
                }
            }
        }
        out.sort();
        out
    }

    fn transcript(&self, session_id: &str) -> PathBuf {
        let found: Vec<PathBuf> = [".dcl", ".claude"]
            .iter()
            .flat_map(|h| self.transcripts(h))
            .filter(|p| p.file_stem().is_some_and(|s| s == session_id))
            .collect();
        assert_eq!(found.len(), 1, "{session_id}: {found:?}");
        found[0].clone()
    }
}

fn user_line(text: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""})
}

fn entries(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn chain_uuids(path: &Path, kind: &str) -> Vec<String> {
    entries(path)
        .into_iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["uuid"].as_str().unwrap().to_string())
        .collect()
}

fn input_tokens(result: &Value) -> u64 {
    result["usage"]["input_tokens"].as_u64().unwrap()
}

#[test]
fn every_session_gets_a_transcript_and_resume_brings_its_history_back() {
    let p = Place::new();
    let (first, code) = p.print("please FAKE_BASH", &["--allowedTools", "Bash"]);
    assert_eq!(code, 0, "{first:#}");
    let id = first["session_id"].as_str().unwrap().to_string();
    let path = p.transcript(&id);
    // Plain CLI: under dcl home, in the reference layout.
    assert!(path.starts_with(p.home.join(".dcl/projects")), "{path:?}");
    assert_eq!(
        path.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy(),
        p.cwd
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    );
    let kinds: Vec<String> = entries(&path)
        .iter()
        .filter(|e| e.get("uuid").is_some())
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        ["user", "assistant", "assistant", "user", "assistant"]
    );

    let (fresh, _) = p.print("say hi", &["--no-session-persistence"]);
    let (resumed, code) = p.print("say hi", &["--resume", &id]);
    assert_eq!(code, 0, "{resumed:#}");
    assert_eq!(resumed["session_id"], id.as_str());
    // The history reached the model again: the same prompt costs more input.
    assert!(
        input_tokens(&resumed) > input_tokens(&fresh) + 10,
        "{} vs {}",
        input_tokens(&resumed),
        input_tokens(&fresh)
    );
    // Totals carry over: the session's model usage holds both runs.
    let total_in = resumed["modelUsage"]["mock-model"]["inputTokens"]
        .as_u64()
        .unwrap();
    assert_eq!(total_in, input_tokens(&first) + input_tokens(&resumed));
    assert_eq!(chain_uuids(&path, "user").len(), 3);
}

#[test]
fn sdk_driven_sessions_go_under_the_client_home_and_continue_finds_them() {
    let p = Place::new();
    let env = [("CLAUDE_CODE_ENTRYPOINT", "sdk-py")];
    let (lines, code) = p.stream(&["first question"], &[], &env);
    assert_eq!(code, 0);
    let id = lines.iter().find(|l| l["type"] == "result").unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        p.transcript(&id)
            .starts_with(p.home.join(".claude/projects"))
    );
    // The assistant line on the stream and its transcript entry share a uuid.
    let streamed: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| l["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(streamed, chain_uuids(&p.transcript(&id), "assistant"));

    let (lines, code) = p.stream(&["second question"], &["--continue"], &env);
    assert_eq!(code, 0);
    let r = lines.iter().find(|l| l["type"] == "result").unwrap();
    assert_eq!(r["session_id"], id.as_str());
    assert_eq!(chain_uuids(&p.transcript(&id), "user").len(), 2);
}

#[test]
fn fork_session_continues_under_a_new_id_and_leaves_the_source_alone() {
    let p = Place::new();
    let (first, _) = p.print("one", &[]);
    let id = first["session_id"].as_str().unwrap().to_string();
    let source = std::fs::read_to_string(p.transcript(&id)).unwrap();
    let (forked, code) = p.print("two", &["--resume", &id, "--fork-session"]);
    assert_eq!(code, 0, "{forked:#}");
    let new_id = forked["session_id"].as_str().unwrap().to_string();
    assert_ne!(new_id, id);
    assert_eq!(std::fs::read_to_string(p.transcript(&id)).unwrap(), source);
    let copied = entries(&p.transcript(&new_id));
    let from: Vec<&Value> = copied
        .iter()
        .filter(|e| e.get("forkedFrom").is_some())
        .collect();
    assert_eq!(from.len(), 2);
    assert!(
        from.iter()
            .all(|e| e["sessionId"] == new_id.as_str()
                && e["forkedFrom"]["sessionId"] == id.as_str())
    );
    assert_eq!(chain_uuids(&p.transcript(&new_id), "user").len(), 2);
}

#[test]
fn session_id_names_the_transcript_and_cannot_be_reused() {
    let p = Place::new();
    let id = "5a1c7a80-5d43-4b65-9d8e-2b0c3f3a9e11";
    let (r, code) = p.print("hello", &["--session-id", id]);
    assert_eq!((code, r["session_id"].as_str()), (0, Some(id)));
    assert!(p.transcript(id).exists());
    let before = std::fs::read_to_string(p.transcript(id)).unwrap();
    let (r, code) = p.print("again", &["--session-id", id]);
    assert_eq!(code, 1, "{r:#}");
    assert!(
        r["errors"][0].as_str().unwrap().contains("already in use"),
        "{r:#}"
    );
    // Not a missing resume target: no reason the SDK would offer a fix for.
    assert!(r.get("startup_failure_reason").is_none(), "{r:#}");
    assert_eq!(std::fs::read_to_string(p.transcript(id)).unwrap(), before);
}

#[test]
fn a_missing_session_is_an_error_result_after_the_initialize_answer() {
    let p = Place::new();
    let missing = "0e0e0e0e-1111-4222-8333-444455556666";
    for dialect in [vec![], vec![("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py")]] {
        let (lines, code) = p.stream(&[], &["--resume", missing], &dialect);
        assert_eq!(code, 1);
        let answer = lines
            .iter()
            .position(|l| l["type"] == "control_response")
            .expect("initialize answered");
        assert_eq!(lines[answer]["response"]["subtype"], "success");
        let result = lines.iter().position(|l| l["type"] == "result").unwrap();
        assert!(answer < result);
        assert_eq!(
            lines[result]["errors"][0],
            format!("No conversation found with session ID: {missing}")
        );
        assert_eq!(lines[result]["is_error"], true);
        // The Claude TS SDK hands this reason to the host; the Qoder result has no such key.
        let reason = &lines[result]["startup_failure_reason"];
        if dialect.is_empty() {
            assert_eq!(reason, "resume_target_not_found");
        } else {
            assert!(reason.is_null(), "{:#}", lines[result]);
        }
    }
    // In print mode too, with the same text.
    let (r, code) = p.print("hi", &["--resume", missing]);
    assert_eq!(code, 1);
    assert_eq!(
        r["errors"][0],
        format!("No conversation found with session ID: {missing}")
    );
}

#[test]
fn resume_session_at_and_resume_drops_turn_both_ways() {
    let p = Place::new();
    let (lines, _) = p.stream(&["turn one", "turn two", "turn three"], &[], &[]);
    let id = lines.iter().find(|l| l["type"] == "result").unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = p.transcript(&id);
    let users = chain_uuids(&path, "user");
    let assistants = chain_uuids(&path, "assistant");
    assert_eq!((users.len(), assistants.len()), (3, 3));
    let before = std::fs::read_to_string(&path).unwrap();

    // Refused: turn two is not the last one. The source is untouched; exit 1.
    let (r, code) = p.print(
        "x",
        &[
            "--resume",
            &id,
            "--resume-session-at",
            &assistants[0],
            "--resume-drops-turn",
            &users[1],
        ],
    );
    assert_eq!(code, 1, "{r:#}");
    let err = r["errors"][0].as_str().unwrap();
    assert!(
        err.starts_with("Resume rejected by --resume-drops-turn:"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);

    // Accepted: dropping turn three (the last), the session goes on from turn two.
    let (r, code) = p.print(
        "instead of three",
        &[
            "--resume",
            &id,
            "--resume-session-at",
            &assistants[1],
            "--resume-drops-turn",
            &users[2],
        ],
    );
    assert_eq!(code, 0, "{r:#}");
    let all = entries(&path);
    let new_prompt = all
        .iter()
        .find(|e| e["type"] == "user" && e["message"]["content"] == "instead of three")
        .unwrap();
    assert_eq!(new_prompt["parentUuid"], assistants[1].as_str());

    // --resume-session-at alone: a prefix (turn one) reaches the model.
    let (short, _) = p.print(
        "q",
        &["--resume", &id, "--resume-session-at", &assistants[0]],
    );
    let (long, _) = p.print("q", &["--resume", &id]);
    assert!(input_tokens(&short) < input_tokens(&long));
}

#[test]
fn session_mirror_frames_come_before_each_result_with_every_entry() {
    let p = Place::new();
    let env = [("CLAUDE_CODE_ENTRYPOINT", "sdk-py")];
    let (lines, code) = p.stream(
        &["please FAKE_BASH", "thanks"],
        &["--session-mirror", "--allowedTools", "Bash"],
        &env,
    );
    assert_eq!(code, 0);
    let results: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l["type"] == "result")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(results.len(), 2);
    let mut mirrored: Vec<Value> = Vec::new();
    let mut last = 0;
    for r in results {
        let frames: Vec<&Value> = lines[last..r]
            .iter()
            .filter(|l| l["type"] == "transcript_mirror")
            .collect();
        assert!(!frames.is_empty(), "no mirror frame before result {r}");
        for f in frames {
            let fp = Path::new(f["filePath"].as_str().unwrap());
            assert!(fp.starts_with(p.home.join(".claude/projects")), "{fp:?}");
            mirrored.extend(f["entries"].as_array().unwrap().iter().cloned());
        }
        last = r;
    }
    let id = lines.last().unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Every line of the transcript went through the mirror, in order.
    assert_eq!(mirrored, entries(&p.transcript(&id)));
}

#[test]
fn a_sigkill_mid_turn_then_continue_goes_on_with_what_was_written() {
    let p = Place::new();
    let mut child = p
        .command(
            &[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--model",
                "mock-model",
                "--permission-mode",
                "bypassPermissions",
            ],
            &[],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        user_line(r#"FAKE_TOOL Bash {"command":"sleep 30","description":"wait"}"#)
    )
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut reader = BufReader::new(stdout).lines();
    let deadline = Instant::now() + Duration::from_secs(30);
    // Wait for the tool call on the stream: the model's answer is on disk by then.
    let id = loop {
        assert!(Instant::now() < deadline, "no tool call");
        let line: Value = serde_json::from_str(&reader.next().unwrap().unwrap()).unwrap();
        if line["type"] == "assistant" && line["message"]["content"][0]["type"] == "tool_use" {
            break line["session_id"].as_str().unwrap().to_string();
        }
    };
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);

    let (r, code) = p.print("are you still there?", &["--continue"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["session_id"], id.as_str());
    let all = entries(&p.transcript(&id));
    // The call the kill left open was answered as interrupted, then the new prompt ran.
    let results: Vec<&Value> = all
        .iter()
        .filter(|e| e["type"] == "user" && e["message"]["content"][0]["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 1, "{all:#?}");
    assert_eq!(results[0]["message"]["content"][0]["is_error"], true);
    assert!(
        all.iter()
            .any(|e| e["message"]["content"] == "are you still there?")
    );
}

#[test]
fn reference_cli_settings_apply_and_get_settings_lists_every_file() {
    let p = Place::new();
    std::fs::create_dir_all(p.cwd.join(".claude")).unwrap();
    std::fs::write(
        p.cwd.join(".claude/settings.json"),
        r#"{"permissions":{"defaultMode":"acceptEdits"}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(p.home.join(".claude")).unwrap();
    std::fs::write(
        p.home.join(".claude/settings.json"),
        r#"{"effortLevel":"low"}"#,
    )
    .unwrap();
    let mut child = p
        .command(
            &[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--model",
                "mock-model",
            ],
            &[],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"type":"control_request","request_id":"s","request":{"subtype":"get_settings"}})
        )
        .unwrap();
        writeln!(stdin, "{}", user_line("hi")).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let resp = lines
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    let paths: Vec<&str> = resp["response"]["response"]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    let want = [
        p.home.join(".claude/settings.json"),
        p.cwd.join(".claude/settings.json"),
    ];
    assert_eq!(
        paths,
        want.iter().map(|p| p.to_str().unwrap()).collect::<Vec<_>>()
    );
    let init = lines
        .iter()
        .find(|l| l["type"] == "system" && l["subtype"] == "init")
        .unwrap();
    assert_eq!(init["permissionMode"], "acceptEdits");
}

#[test]
fn clear_starts_a_new_session_without_history_and_cost_and_context_are_answered_by_dcl() {
    let p = Place::new();
    let (base, _) = p.stream(&["what was the word?"], &["--no-session-persistence"], &[]);
    let baseline = input_tokens(base.iter().find(|l| l["type"] == "result").unwrap());
    let (lines, code) = p.stream(
        &[
            "remember the word blue",
            "/clear",
            "what was the word?",
            "/cost",
            "/context",
        ],
        &[],
        &[],
    );
    assert_eq!(code, 0);
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 5);
    let old = results[0]["session_id"].as_str().unwrap().to_string();
    let reset = lines
        .iter()
        .find(|l| l["type"] == "conversation_reset")
        .expect("conversation_reset");
    assert_eq!(reset["session_id"], old.as_str());
    let new = reset["new_conversation_id"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    assert!(reset["uuid"].is_string());
    // The /clear result is under the new id, and /clear never reached the model.
    assert_eq!(results[1]["session_id"], new.as_str());
    assert_eq!(results[1]["num_turns"], 0);
    assert_eq!(input_tokens(results[1]), 0);
    // The next turn's request holds no earlier history.
    assert_eq!(input_tokens(results[2]), baseline);
    assert_eq!(results[2]["session_id"], new.as_str());
    assert!(
        results[3]["result"]
            .as_str()
            .unwrap()
            .starts_with("Total cost: $"),
        "{:#}",
        results[3]
    );
    assert!(
        results[4]["result"]
            .as_str()
            .unwrap()
            .starts_with("Context: ~"),
        "{:#}",
        results[4]
    );
    // Each session has its own transcript; the new one starts with the question.
    assert_eq!(chain_uuids(&p.transcript(&old), "user").len(), 1);
    let fresh = entries(&p.transcript(&new));
    // The prompt is kept as the host sent it (a string), as docs/protocol.md asks.
    assert_eq!(fresh[0]["message"]["content"], "what was the word?");
    assert_eq!(fresh[0]["parentUuid"], Value::Null);
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let cmds: Vec<&str> = init["slash_commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(cmds, ["clear", "compact", "cost", "context"]);
}

#[test]
fn a_subagent_gets_its_own_transcript_with_meta_beside_the_session() {
    let p = Place::new();
    let (r, code) = p.print(
        r#"FAKE_TOOL Agent {"description":"look","prompt":"say hi","subagent_type":"general-purpose"}"#,
        &["--permission-mode", "bypassPermissions"],
    );
    assert_eq!(code, 0, "{r:#}");
    let id = r["session_id"].as_str().unwrap();
    let main = p.transcript(id);
    let dir = main.with_extension("").join("subagents");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}"))
        .flatten()
        .map(|e| e.path())
        .collect();
    let jsonl: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(jsonl.len(), 1, "{files:?}");
    let name = jsonl[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("agent-"), "{name}");
    let meta_path = dir.join(name.replace(".jsonl", ".meta.json"));
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    let tool_use = entries(&main)
        .into_iter()
        .find(|e| e["message"]["content"][0]["type"] == "tool_use")
        .unwrap();
    assert_eq!(meta["toolUseId"], tool_use["message"]["content"][0]["id"]);
    let sub = entries(jsonl[0]);
    let chain: Vec<&Value> = sub.iter().filter(|e| e.get("uuid").is_some()).collect();
    assert!(chain.len() >= 2, "{sub:#?}");
    assert!(
        chain
            .iter()
            .all(|e| e["isSidechain"] == true && e["sessionId"] == id)
    );
    assert_eq!(
        chain[0]["message"]["content"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["text"],
        "say hi"
    );
}
