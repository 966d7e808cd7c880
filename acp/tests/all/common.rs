//! Drives a `dcl acp` process: the binary from `DCL_BIN`, else the target dir's
//! `debug/dcl` (`cargo build -p dcl-cli` first). Each test has its own HOME and cwd.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, ReadTextFileRequest, ReadTextFileResponse,
    ReleaseTerminalRequest, ReleaseTerminalResponse, RequestPermissionRequest,
    RequestPermissionResponse, SessionNotification, TerminalOutputRequest, TerminalOutputResponse,
    WaitForTerminalExitRequest, WaitForTerminalExitResponse, WriteTextFileRequest,
    WriteTextFileResponse,
};
use agent_client_protocol::{ByteStreams, on_receive_notification, on_receive_request};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// Generous bounds on waits that only fail a broken run, never a slow one.
pub const LONG: Duration = Duration::from_secs(60);

pub fn dcl_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("DCL_BIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("debug/dcl")
}

pub struct Dcl {
    pub child: Child,
    pub home: tempfile::TempDir,
    pub cwd: tempfile::TempDir,
}

impl Dcl {
    /// `dcl acp --model mock-model <extra>` with a fresh HOME and working directory.
    pub fn spawn(extra: &[&str]) -> (Dcl, ChildStdin, ChildStdout) {
        let home = tempfile::tempdir().expect("home");
        let cwd = tempfile::tempdir().expect("cwd");
        let mut cmd = Command::new(dcl_bin());
        cmd.arg("acp")
            .args(["--model", "mock-model"])
            .args(extra)
            .current_dir(cwd.path())
            .env("HOME", home.path())
            .env("DCL_CONFIG_DIR", home.path().join(".dcl"))
            .env_remove("ANTHROPIC_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn dcl acp (cargo build -p dcl-cli)");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        (Dcl { child, home, cwd }, stdin, stdout)
    }

    pub fn cwd(&self) -> String {
        self.cwd.path().display().to_string()
    }
}

/// What the client saw, and how it answers permission requests.
#[derive(Clone, Default)]
pub struct Seen {
    pub updates: Arc<Mutex<Vec<Value>>>,
    pub permissions: Arc<Mutex<Vec<Value>>>,
    /// The option id chosen for every permission request (`None`: cancelled).
    pub choice: Arc<Mutex<Option<String>>>,
    /// The editor's buffers by absolute path (`fs/read_text_file` answers from them; a
    /// path without one is not found), and each `fs/write_text_file` in order.
    pub buffers: Arc<Mutex<std::collections::HashMap<String, String>>>,
    pub fs_reads: Arc<Mutex<Vec<String>>>,
    pub fs_writes: Arc<Mutex<Vec<(String, String)>>>,
    /// Each `terminal/create`'s command and args; its output, once it exited, by id.
    pub terminals: Arc<Mutex<Vec<Value>>>,
    pub terminal_output: Arc<Mutex<std::collections::HashMap<String, (String, i32)>>>,
}

impl Seen {
    pub fn choosing(option: Option<&str>) -> Seen {
        let s = Seen::default();
        *s.choice.lock().expect("lock") = option.map(str::to_string);
        s
    }

    pub fn updates_of(&self, session: &str) -> Vec<Value> {
        self.updates
            .lock()
            .expect("lock")
            .iter()
            .filter(|n| n["sessionId"] == session)
            .map(|n| n["update"].clone())
            .collect()
    }

    pub fn kinds(&self, session: &str) -> Vec<String> {
        self.updates_of(session)
            .iter()
            .filter_map(|u| u["sessionUpdate"].as_str().map(str::to_string))
            .collect()
    }
}

/// Runs `body` as an ACP client of a fresh `dcl acp`.
pub async fn with_client<F>(extra: &[&str], seen: Seen, body: F) -> Dcl
where
    F: AsyncFnOnce(
            agent_client_protocol::v1::ConnectionTo<agent_client_protocol::Agent>,
            String,
        ) -> agent_client_protocol::Result<()>
        + Send,
{
    let (dcl, stdin, stdout) = Dcl::spawn(extra);
    let transport = ByteStreams::new(stdin.compat_write(), stdout.compat());
    let cwd = dcl.cwd();
    let s1 = seen.clone();
    let s2 = seen.clone();
    let s3 = seen.clone();
    let s4 = seen.clone();
    let (s5, s6, s7) = (seen.clone(), seen.clone(), seen.clone());
    let run = agent_client_protocol::Client
        .v1()
        .name("dcl-acp-test")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                let v = serde_json::to_value(&n).expect("json");
                s1.updates.lock().expect("lock").push(v);
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |r: RequestPermissionRequest, responder, _cx| {
                s2.permissions
                    .lock()
                    .expect("lock")
                    .push(serde_json::to_value(&r).expect("json"));
                let choice = s2.choice.lock().expect("lock").clone();
                let outcome = match choice {
                    Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
                    None => json!({"outcome": {"outcome": "cancelled"}}),
                };
                responder.respond(
                    serde_json::from_value::<RequestPermissionResponse>(outcome).expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |r: ReadTextFileRequest, responder, _cx| {
                let path = r.path.display().to_string();
                s3.fs_reads.lock().expect("lock").push(path.clone());
                let found = s3.buffers.lock().expect("lock").get(&path).cloned();
                match found {
                    Some(content) => responder.respond(
                        serde_json::from_value::<ReadTextFileResponse>(json!({"content": content}))
                            .expect("resp"),
                    ),
                    None => responder.respond_with_error(agent_client_protocol::Error::new(
                        agent_client_protocol::ErrorCode::RESOURCE_NOT_FOUND,
                        "no such buffer",
                    )),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |r: WriteTextFileRequest, responder, _cx| {
                let path = r.path.display().to_string();
                s4.fs_writes
                    .lock()
                    .expect("lock")
                    .push((path.clone(), r.content.clone()));
                s4.buffers.lock().expect("lock").insert(path, r.content);
                responder.respond(
                    serde_json::from_value::<WriteTextFileResponse>(json!({})).expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |r: CreateTerminalRequest, responder, _cx| {
                // The test's "editor" runs the command to its end at once.
                let id = format!("term-{}", s5.terminals.lock().expect("lock").len());
                s5.terminals
                    .lock()
                    .expect("lock")
                    .push(serde_json::to_value(&r).expect("json"));
                let out = std::process::Command::new(&r.command)
                    .args(&r.args)
                    .current_dir(r.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))
                    .output()
                    .expect("run the terminal's command");
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                s5.terminal_output
                    .lock()
                    .expect("lock")
                    .insert(id.clone(), (text, out.status.code().unwrap_or(-1)));
                responder.respond(
                    serde_json::from_value::<CreateTerminalResponse>(json!({"terminalId": id}))
                        .expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |r: WaitForTerminalExitRequest, responder, _cx| {
                let id = serde_json::to_value(&r.terminal_id).expect("json");
                let code = s6
                    .terminal_output
                    .lock()
                    .expect("lock")
                    .get(id.as_str().unwrap_or(""))
                    .map(|o| o.1);
                responder.respond(
                    serde_json::from_value::<WaitForTerminalExitResponse>(
                        json!({"exitCode": code}),
                    )
                    .expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |r: TerminalOutputRequest, responder, _cx| {
                let id = serde_json::to_value(&r.terminal_id).expect("json");
                let (output, code) = s7
                    .terminal_output
                    .lock()
                    .expect("lock")
                    .get(id.as_str().unwrap_or(""))
                    .cloned()
                    .unwrap_or_default();
                responder.respond(
                    serde_json::from_value::<TerminalOutputResponse>(json!({
                        "output": output, "truncated": false, "exitStatus": {"exitCode": code}}))
                    .expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |_r: ReleaseTerminalRequest, responder, _cx| {
                responder.respond(
                    serde_json::from_value::<ReleaseTerminalResponse>(json!({})).expect("resp"),
                )
            },
            on_receive_request!(),
        )
        .connect_with(transport, async move |cx| body(cx, cwd).await);
    tokio::time::timeout(LONG, run)
        .await
        .expect("the client finished in time")
        .expect("the client ran without a protocol error");
    dcl
}

/// A raw JSON-RPC line-level driver, for what the client crate would never send.
pub struct Raw {
    pub dcl: Dcl,
    stdin: Option<ChildStdin>,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl Raw {
    pub fn spawn(extra: &[&str]) -> Raw {
        let (dcl, stdin, stdout) = Dcl::spawn(extra);
        Raw {
            dcl,
            stdin: Some(stdin),
            lines: BufReader::new(stdout).lines(),
        }
    }

    pub async fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    pub async fn request(&mut self, id: u64, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string()).await;
    }

    /// The next line from dcl, as JSON.
    pub async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(LONG, self.lines.next_line())
            .await
            .expect("dcl answered in time")
            .expect("read")?;
        Some(serde_json::from_str(&line).expect("dcl wrote JSON"))
    }

    /// Reads until the response to `id` (other lines are collected and returned too).
    pub async fn response(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut other = Vec::new();
        while let Some(v) = self.next().await {
            if v.get("id") == Some(&json!(id)) && v.get("method").is_none() {
                return (v, other);
            }
            other.push(v);
        }
        panic!("dcl ended before answering request {id}; saw {other:?}");
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub async fn initialize(&mut self) {
        self.request(
            0,
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        )
        .await;
        let (r, _) = self.response(0).await;
        assert!(r.get("result").is_some(), "{r}");
    }

    pub async fn new_session(&mut self, id: u64) -> String {
        let cwd = self.dcl.cwd();
        self.request(id, "session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        let (r, _) = self.response(id).await;
        r["result"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string()
    }
}

pub type Cx = agent_client_protocol::v1::ConnectionTo<agent_client_protocol::Agent>;

/// A JSON value as the ACP crate's typed message (a test's own message is valid).
pub fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("valid ACP message")
}

pub fn js<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("json")
}
