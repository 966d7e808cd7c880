//! Sessions across machines through the `dcl` binary: two workers with different HOMEs
//! (two machines) share one Postgres or Redis, and any of them resumes any session; a
//! store that goes away mid-session loses nothing once it is back; two workers racing on
//! one session leave one chain and a clear error; a fork passes the store barrier before
//! the `initialize` answer. The servers run on 127.0.0.1 in temp dirs
//! (dcl_test_support::dbs); the model is the fake Anthropic server, which records every
//! request.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dcl_store::remote::postgres::PostgresStore;
use dcl_store::remote::redis::RedisStore;
use dcl_store::remote::{SessionKey, SessionStore};
use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
use dcl_test_support::dbs::{PgServer, RedisServer};
use dcl_test_support::sse::sse_text;
use serde_json::{Value, json};

/// One project folder (the same path on every "machine"), a HOME per worker.
struct Cluster {
    _root: tempfile::TempDir,
    cwd: PathBuf,
    base: PathBuf,
    model_url: String,
}

impl Cluster {
    fn new(model_url: String) -> Cluster {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        let cwd = base.join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        Cluster {
            _root: root,
            cwd,
            base,
            model_url,
        }
    }

    fn home(&self, worker: &str) -> PathBuf {
        let h = self.base.join(worker);
        std::fs::create_dir_all(&h).unwrap();
        h
    }

    fn command(&self, worker: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcl"));
        cmd.args(["--model", "claude-test"])
            .args(args)
            .current_dir(&self.cwd)
            .env("HOME", self.home(worker))
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("ANTHROPIC_BASE_URL", &self.model_url)
            .env("DCL_RETRY_BASE_MS", "1")
            .env_remove("DCL_MODEL")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("DCL_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_ENTRYPOINT")
            .env_remove("QODER_AGENT_SDK_ENTRYPOINT");
        cmd
    }

    /// `dcl -p` on one worker: the result line and stderr.
    fn print(&self, worker: &str, prompt: &str, args: &[&str]) -> (Value, String) {
        let mut all = vec!["-p", prompt, "--output-format", "json"];
        all.extend_from_slice(args);
        let out = self.command(worker, &all).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let result = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "result")
            .unwrap_or_else(|| panic!("no result: {text}\nstderr: {stderr}"));
        (result, stderr)
    }

    /// A stream-json worker kept open.
    fn stream(&self, worker: &str, args: &[&str]) -> Worker {
        let mut all = vec![
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ];
        all.extend_from_slice(args);
        let mut child = self
            .command(worker, &all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Worker {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    fn transcript(&self, worker: &str, session_id: &str) -> PathBuf {
        let projects = self.home(worker).join(".dcl/projects");
        let dir = std::fs::read_dir(&projects)
            .unwrap_or_else(|e| panic!("{}: {e}", projects.display()))
            .flatten()
            .next()
            .unwrap()
            .path();
        dir.join(format!("{session_id}.jsonl"))
    }
}

struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Worker {
    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    fn user(&mut self, text: &str) {
        self.send(json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""}));
    }

    fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("timed out; seen: {:?}", self.seen));
            self.seen.push(v.clone());
            if pred(&v) {
                return v;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        self.send(json!({"type":"control_request","request_id":"init","request":{"subtype":"initialize"}}));
        self.until(|v| v["type"] == "control_response")
    }

    /// Closes stdin and waits for the exit (the store is drained on the way out).
    fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        while let Ok(v) = self.lines.recv_timeout(Duration::from_secs(60)) {
            self.seen.push(v);
        }
        let _ = self.child.wait();
        std::mem::take(&mut self.seen)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The texts of every message of a model request.
fn request_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(b) => b
                .iter()
                .filter_map(|x| x["text"].as_str())
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn model() -> FakeAnthropicServer {
    let server = FakeAnthropicServer::start(vec![]).await.unwrap();
    server.set_responder(|body| {
        let n = body["messages"].as_array().map_or(0, Vec::len);
        FakeResponse::sse(sse_text(&format!("reply to {n} messages")))
    });
    server
}

/// A runtime whose worker keeps serving (the fake model server runs on it).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// A store to read back, connected afresh on the runtime that reads it.
#[derive(Clone)]
enum Spec {
    Pg(String, &'static str),
    Redis(String, &'static str),
}

/// What the store holds for a session (from sync code, even inside a test's runtime).
fn load(spec: &Spec, project_key: &str, session_id: &str) -> Vec<Value> {
    let (spec, pk, sid) = (
        spec.clone(),
        project_key.to_string(),
        session_id.to_string(),
    );
    std::thread::spawn(move || {
        runtime().block_on(async move {
            let store: Arc<dyn SessionStore> = match spec {
                Spec::Pg(url, table) => {
                    Arc::new(PostgresStore::connect(&url, table).await.unwrap())
                }
                Spec::Redis(url, prefix) => {
                    Arc::new(RedisStore::connect(&url, prefix).await.unwrap())
                }
            };
            store
                .load(&SessionKey::main(&pk, &sid))
                .await
                .unwrap()
                .map(|l| l.entries)
                .unwrap_or_default()
        })
    })
    .join()
    .unwrap()
}

fn project_key_of(transcript: &Path) -> String {
    transcript
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The chain entries hang together: each parentUuid names an earlier uuid.
fn assert_one_chain(entries: &[Value]) {
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        if let Some(p) = e["parentUuid"].as_str() {
            assert!(
                seen.contains(p),
                "parent {p} not before its child: {entries:#?}"
            );
        }
        if let Some(u) = e["uuid"].as_str() {
            assert!(seen.insert(u.to_string()), "uuid {u} twice");
        }
    }
}

/// Worker A runs turn 1; worker B (another HOME, no local file) resumes and runs turn 2
/// with turn 1 in its model request; what B wrote reaches the store too.
async fn two_workers(url: String, store: Spec) {
    let server = model().await;
    let cluster = Cluster::new(server.base_url());
    let (r1, err1) = tokio::task::block_in_place(|| {
        cluster.print("a", "remember the word walrus", &["--session-store", &url])
    });
    assert_eq!(r1["subtype"], "success", "{r1}\n{err1}");
    let sid = r1["session_id"].as_str().unwrap().to_string();
    let local_a = cluster.transcript("a", &sid);
    let pk = project_key_of(&local_a);
    let after_a = load(&store, &pk, &sid);
    let lines_a = std::fs::read_to_string(&local_a).unwrap().lines().count();
    assert_eq!(
        after_a.len(),
        lines_a,
        "worker A's transcript is not all in the store"
    );
    let (r2, err2) = tokio::task::block_in_place(|| {
        cluster.print(
            "b",
            "which word?",
            &["--resume", &sid, "--session-store", &url],
        )
    });
    assert_eq!(r2["subtype"], "success", "{r2}\n{err2}");
    assert_eq!(r2["session_id"], sid);
    let bodies = server.message_bodies();
    let last = request_text(bodies.last().unwrap());
    assert!(
        last.contains("walrus"),
        "turn 1 missing from worker B's request: {last}"
    );
    assert!(last.contains("which word?"), "{last}");
    let after_b = load(&store, &pk, &sid);
    assert!(after_b.len() > after_a.len());
    assert_one_chain(&after_b);
    // B's local copy is the store's session.
    let local_b = std::fs::read_to_string(cluster.transcript("b", &sid)).unwrap();
    assert!(local_b.contains("walrus") && local_b.contains("which word?"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_machines_share_a_session_through_postgres() {
    let Some(pg) = PgServer::start() else { return };
    let url = format!("{}&table=two_workers", pg.url());
    let store = Spec::Pg(pg.url(), "two_workers");
    two_workers(url, store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_machines_share_a_session_through_redis() {
    let Some(r) = RedisServer::start() else {
        return;
    };
    let url = format!("{}?prefix=dcl", r.url());
    let store = Spec::Redis(r.url(), "dcl");
    two_workers(url, store).await;
}

/// The database stops while a worker runs a turn: the turn succeeds, one `mirror_error`
/// warning says so, and once the database is back every entry is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_stopped_mid_session_loses_nothing() {
    let Some(mut pg) = PgServer::start() else {
        return;
    };
    let server = model().await;
    let cluster = Cluster::new(server.base_url());
    let url = pg.url();
    let store = Spec::Pg(url.clone(), "claude_session_store");
    let mut w = tokio::task::block_in_place(|| cluster.stream("a", &["--session-store", &url]));
    tokio::task::block_in_place(|| {
        w.initialize();
        w.user("first turn");
        let r1 = w.until(|v| v["type"] == "result");
        assert_eq!(r1["subtype"], "success");
        let sid = r1["session_id"].as_str().unwrap().to_string();
        pg.stop();
        w.user("second turn, database down");
        let r2 = w.until(|v| v["type"] == "result");
        assert_eq!(
            r2["subtype"], "success",
            "a store outage failed the turn: {r2}"
        );
        // Found down once the pool gives up on a connection (3 s); the warning goes out
        // before the next result.
        std::thread::sleep(Duration::from_secs(5));
        w.user("third turn, database still down");
        let r3 = w.until(|v| v["type"] == "result");
        assert_eq!(r3["subtype"], "success");
        let warnings: Vec<&Value> = w
            .seen
            .iter()
            .filter(|v| v["type"] == "system" && v["subtype"] == "mirror_error")
            .collect();
        assert_eq!(warnings.len(), 1, "one warning per outage: {warnings:?}");
        assert!(
            warnings[0]["error"].as_str().unwrap().contains("postgres"),
            "{warnings:?}"
        );
        pg.resume();
        let _ = w.finish();
        let local = cluster.transcript("a", &sid);
        let lines: Vec<Value> = std::fs::read_to_string(&local)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let stored = load(&store, &project_key_of(&local), &sid);
        assert_eq!(stored.len(), lines.len(), "entries lost");
        assert_eq!(stored, lines);
        assert_one_chain(&stored);
    });
}

/// Two workers race on one session: the one holding it keeps it, the other is refused
/// with an error naming why, and the store holds one well-formed chain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_workers_leave_one_chain_and_a_clear_error() {
    let Some(pg) = PgServer::start() else { return };
    let server = model().await;
    let cluster = Cluster::new(server.base_url());
    let url = pg.url();
    let store = Spec::Pg(url.clone(), "claude_session_store");
    tokio::task::block_in_place(|| {
        let (r1, _) = cluster.print("a", "turn one", &["--session-store", &url]);
        let sid = r1["session_id"].as_str().unwrap().to_string();
        // A resumes and keeps the session open (its lease lives while it runs)...
        let mut a = cluster.stream("a", &["--resume", &sid, "--session-store", &url]);
        a.initialize();
        a.user("turn two on a");
        assert_eq!(a.until(|v| v["type"] == "result")["subtype"], "success");
        // ... so B, resuming the same session meanwhile, is refused.
        let (rb, _) = cluster.print(
            "b",
            "turn two on b",
            &["--resume", &sid, "--session-store", &url],
        );
        assert_eq!(rb["is_error"], true, "{rb}");
        let why = rb.to_string();
        assert!(why.contains("in use by another worker"), "{why}");
        a.user("turn three on a");
        assert_eq!(a.until(|v| v["type"] == "result")["subtype"], "success");
        let _ = a.finish();
        let local = cluster.transcript("a", &sid);
        let stored = load(&store, &project_key_of(&local), &sid);
        assert_one_chain(&stored);
        let text = serde_json::to_string(&stored).unwrap();
        assert!(
            !text.contains("turn two on b"),
            "the loser's turn reached the store"
        );
        assert!(text.contains("turn three on a"));
        // Once A is done, B takes over.
        let (rb2, err) = cluster.print(
            "b",
            "turn four on b",
            &["--resume", &sid, "--session-store", &url],
        );
        assert_eq!(rb2["subtype"], "success", "{rb2}\n{err}");
        assert_one_chain(&load(&store, &project_key_of(&local), &sid));
    });
}

/// With a store and `--fork-session`, the fork is in the store and its
/// `transcript_mirror` frames are out before the `initialize` answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_passes_the_store_barrier_before_initialize_is_answered() {
    let Some(r) = RedisServer::start() else {
        return;
    };
    let server = model().await;
    let cluster = Cluster::new(server.base_url());
    let url = r.url();
    let store = Spec::Redis(url.clone(), "");
    tokio::task::block_in_place(|| {
        let (r1, _) = cluster.print("a", "the source turn", &["--session-store", &url]);
        let sid = r1["session_id"].as_str().unwrap().to_string();
        let mut w = cluster.stream(
            "b",
            &[
                "--resume",
                &sid,
                "--fork-session",
                "--session-mirror",
                "--session-store",
                &url,
            ],
        );
        let answer = w.initialize();
        assert_eq!(answer["response"]["subtype"], "success", "{answer}");
        let frames: Vec<&Value> = w
            .seen
            .iter()
            .filter(|v| v["type"] == "transcript_mirror")
            .collect();
        assert!(
            !frames.is_empty(),
            "no transcript_mirror before the initialize answer: {:?}",
            w.seen
        );
        let path = Path::new(frames[0]["filePath"].as_str().unwrap()).to_path_buf();
        let fork_id = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert_ne!(fork_id, sid);
        // At the answer, the store already holds the fork.
        let stored = load(&store, &project_key_of(&path), &fork_id);
        let copied: usize = frames
            .iter()
            .map(|f| f["entries"].as_array().unwrap().len())
            .sum();
        assert_eq!(
            stored.len(),
            copied,
            "the fork is not in the store at the answer"
        );
        assert!(
            serde_json::to_string(&stored)
                .unwrap()
                .contains("the source turn")
        );
        let _ = w.finish();
    });
}

/// A store that cannot be reached never fails a turn, and its URL's password appears in
/// no transcript, log line or `get_settings` answer.
#[test]
fn an_unreachable_store_warns_once_and_never_shows_its_password() {
    let rt = runtime();
    let server = rt.block_on(model());
    let cluster = Cluster::new(server.base_url());
    let secret = "hunter2-store-password";
    let url = format!(
        "postgres://dcl:{secret}@127.0.0.1:{}/db",
        dcl_test_support::dbs::free_port()
    );
    let settings = json!({"sessionStore": url}).to_string();
    let mut w = cluster.stream("a", &["--settings", &settings, "--debug"]);
    w.initialize();
    w.user("hello there");
    let r = w.until(|v| v["type"] == "result");
    assert_eq!(r["subtype"], "success", "{r}");
    w.send(
        json!({"type":"control_request","request_id":"gs","request":{"subtype":"get_settings"}}),
    );
    let gs = w.until(|v| v["type"] == "control_response");
    assert!(gs.to_string().contains("127.0.0.1"), "{gs}");
    let sid = r["session_id"].as_str().unwrap().to_string();
    let mut child_stderr = String::new();
    let seen = w.finish();
    let all = serde_json::to_string(&seen).unwrap();
    assert!(!all.contains(secret), "the store password reached the host");
    assert!(
        seen.iter()
            .any(|v| v["type"] == "system" && v["subtype"] == "mirror_error"),
        "no mirror_error warning: {all}"
    );
    let local = std::fs::read_to_string(cluster.transcript("a", &sid)).unwrap();
    assert!(!local.contains(secret));
    // Logs: a -p run with --debug, stderr captured.
    let (r2, stderr) = cluster.print("a", "again", &["--settings", &settings, "--debug"]);
    assert_eq!(r2["subtype"], "success");
    child_stderr.push_str(&stderr);
    assert!(
        !child_stderr.contains(secret),
        "the store password reached the log: {child_stderr}"
    );
}
