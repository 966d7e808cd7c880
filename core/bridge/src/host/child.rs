//! The session of a [`super::Host`]: in this process ([`crate::Bridge`]), or a `dcl` child
//! process driven over its stdio ([`Child`]), so a language's callbacks, in-process MCP
//! servers and options behave the same either way — the host above does not know which.
//!
//! The child gets the host's options exactly: everything but the environment goes into a
//! private file (`--session-options`, mode 0600, deleted by the child once read) rather
//! than argv, where other users could read keys in `/proc/<pid>/cmdline`; the environment
//! becomes the child's own. Rust spawns it and reaps it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use dcl_protocol::Message;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::{Bridge, BridgeError};

/// Lines waiting to be written to the child before `send` reports the queue full.
const INPUT_QUEUE: usize = 1024;
/// Messages read from the child before its reader waits for the host to take them.
const OUTPUT_QUEUE: usize = 256;
/// A longer line from the child is skipped (with a warning) rather than held in memory.
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

pub(crate) enum Link {
    InProcess(Bridge),
    Child(Child),
}

impl Link {
    pub(crate) fn session_id(&self) -> String {
        match self {
            Link::InProcess(b) => b.session_id(),
            Link::Child(c) => c.session_id(),
        }
    }

    pub(crate) fn send(&self, line: &str) -> Result<(), BridgeError> {
        match self {
            Link::InProcess(b) => b.send(line),
            Link::Child(c) => {
                if line.trim().is_empty() {
                    return Ok(());
                }
                // The same check the in-process session makes, so a bad line is the
                // caller's error in both transports rather than the child's warning.
                dcl_protocol::parse_line(line).map_err(|e| BridgeError::BadInput(e.to_string()))?;
                c.write(line.trim_end().to_string())
            }
        }
    }

    pub(crate) fn send_message(&self, message: Message) -> Result<(), BridgeError> {
        match self {
            Link::InProcess(b) => b.send_message(message),
            Link::Child(c) => c.write(dcl_protocol::to_line(&message)),
        }
    }

    pub(crate) async fn recv_message(&self) -> Option<Message> {
        match self {
            Link::InProcess(b) => b.recv_message().await,
            Link::Child(c) => c.recv().await,
        }
    }

    pub(crate) fn interrupt(&self) {
        match self {
            Link::InProcess(b) => b.interrupt(),
            // Unanswered: the host logs the response to an id it never issued.
            Link::Child(c) => {
                let request = json!({
                    "type": "control_request",
                    "request_id": format!("interrupt_{}", uuid::Uuid::new_v4().simple()),
                    "request": {"subtype": "interrupt"},
                });
                if let Err(e) = c.write(request.to_string()) {
                    tracing::debug!("interrupt not delivered to the dcl child: {e}");
                }
            }
        }
    }

    pub(crate) fn end_input(&self) {
        match self {
            Link::InProcess(b) => b.end_input(),
            Link::Child(c) => c.end_input(),
        }
    }

    pub(crate) fn close(&self) {
        match self {
            Link::InProcess(b) => b.close(),
            Link::Child(c) => c.close(),
        }
    }

    /// Why the session ended before it said anything, when the child said why: a child
    /// refusing its options exits with `Error: …` on stderr, which the waiting calls get
    /// as the same invalid-options error an in-process session gives at open.
    pub(crate) fn failure(&self) -> Option<BridgeError> {
        match self {
            Link::InProcess(_) => None,
            Link::Child(c) => c.failure(),
        }
    }
}

/// What the child's reader tasks learned, for [`Link::failure`].
#[derive(Default)]
struct Outcome {
    /// The child wrote at least one protocol line.
    spoke: AtomicBool,
    /// The last `Error: …` line on its stderr.
    error: Mutex<Option<String>>,
}

/// A `dcl` child process speaking stream-json on its stdio.
pub struct Child {
    session_id: Mutex<String>,
    input: mpsc::Sender<Option<String>>,
    output: tokio::sync::Mutex<mpsc::Receiver<Message>>,
    kill: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    closed: AtomicBool,
    outcome: std::sync::Arc<Outcome>,
}

impl Child {
    /// Spawns `cli_path` with the options of `options_json` (as for [`crate::open`]).
    pub fn spawn(cli_path: &Path, options_json: &str) -> Result<Child, BridgeError> {
        // Checked here as they are in process, so a bad option is refused the same way
        // (naming it) rather than by a child that exits.
        crate::SessionOptions::from_json(options_json)?;
        let invalid = |message: String| BridgeError::InvalidOptions {
            option: None,
            message,
        };
        let mut options: Map<String, Value> = match serde_json::from_str(options_json) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return Err(invalid("session options must be a JSON object".into())),
            Err(e) => return Err(invalid(format!("invalid session options: {e}"))),
        };
        // The child inherits this process's variables byte for byte (a non-UTF-8 one too).
        let env: BTreeMap<std::ffi::OsString, std::ffi::OsString> = match options.remove("env") {
            None | Some(Value::Null) => std::env::vars_os().collect(),
            Some(v) => serde_json::from_value::<BTreeMap<String, String>>(v)
                .map_err(|e| BridgeError::InvalidOptions {
                    option: Some("env".into()),
                    message: format!("env: {e}"),
                })?
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        };
        let cwd = options
            .get("cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from);
        // The id is known before the child answers, as it is in process; a resume keeps
        // its own (and a fork's new one is read from the child's first lines).
        let session_id = match options.get("sessionId").and_then(Value::as_str) {
            Some(id) => id.to_string(),
            None if options.get("resume").and_then(Value::as_str).is_some()
                && options.get("forkSession") != Some(&Value::Bool(true)) =>
            {
                options
                    .get("resume")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            }
            None => {
                let id = uuid::Uuid::new_v4().to_string();
                if options.get("resume").is_none() && options.get("continueConversation").is_none()
                {
                    options.insert("sessionId".into(), json!(id));
                }
                id
            }
        };
        // Checked here as the engine checks it in process: a child cannot even start there.
        if let Some(dir) = cwd.as_ref().filter(|d| !d.is_dir()) {
            return Err(BridgeError::InvalidOptions {
                option: Some("cwd".into()),
                message: format!("working directory {} does not exist", dir.display()),
            });
        }
        let file = options_file(&options, &session_id)?;
        let rt = crate::runtime()?;
        let mut command = tokio::process::Command::new(cli_path);
        command
            .args([
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--session-options",
            ])
            .arg(&file)
            .env_clear()
            .envs(&env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &cwd {
            command.current_dir(dir);
        }
        let spawned = {
            let _enter = rt.enter();
            command.spawn()
        };
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                return Err(BridgeError::InvalidOptions {
                    option: Some("cliPath".into()),
                    message: format!("cannot start {}: {e}", cli_path.display()),
                });
            }
        };
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(BridgeError::Internal("the dcl child has no stdio".into()));
        };
        let (in_tx, in_rx) = mpsc::channel(INPUT_QUEUE);
        let (out_tx, out_rx) = mpsc::channel(OUTPUT_QUEUE);
        let (kill_tx, kill_rx) = tokio::sync::oneshot::channel();
        let outcome = std::sync::Arc::new(Outcome::default());
        rt.spawn(write_lines(stdin, in_rx));
        let stderr_task = rt.spawn(log_stderr(stderr, std::sync::Arc::clone(&outcome)));
        let this = Child {
            session_id: Mutex::new(session_id),
            input: in_tx,
            output: tokio::sync::Mutex::new(out_rx),
            kill: Mutex::new(Some(kill_tx)),
            closed: AtomicBool::new(false),
            outcome: std::sync::Arc::clone(&outcome),
        };
        rt.spawn(read_lines(
            stdout,
            out_tx,
            child,
            kill_rx,
            stderr_task,
            outcome,
        ));
        Ok(this)
    }

    pub fn session_id(&self) -> String {
        match self.session_id.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    fn write(&self, line: String) -> Result<(), BridgeError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(BridgeError::Closed);
        }
        self.input.try_send(Some(line)).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => BridgeError::Busy(INPUT_QUEUE),
            mpsc::error::TrySendError::Closed(_) => BridgeError::Closed,
        })
    }

    async fn recv(&self) -> Option<Message> {
        let message = self.output.lock().await.recv().await?;
        if let Some(id) = message_session_id(&message)
            && let Ok(mut current) = self.session_id.lock()
            && *current != id
        {
            *current = id;
        }
        Some(message)
    }

    fn end_input(&self) {
        let input = self.input.clone();
        // Behind the lines already queued: they reach the child first.
        if let Ok(rt) = crate::runtime() {
            rt.spawn(async move {
                let _ = input.send(None).await;
            });
        }
    }

    fn failure(&self) -> Option<BridgeError> {
        if self.outcome.spoke.load(Ordering::SeqCst) {
            return None;
        }
        let error = match self.outcome.error.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }?;
        Some(BridgeError::InvalidOptions {
            option: None,
            message: error,
        })
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let kill = match self.kill.lock() {
            Ok(mut g) => g.take(),
            Err(p) => p.into_inner().take(),
        };
        if let Some(kill) = kill {
            let _ = kill.send(());
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.close();
    }
}

/// The options file the child reads with `--session-options` (and deletes).
fn options_file(options: &Map<String, Value>, session_id: &str) -> Result<PathBuf, BridgeError> {
    let internal = |e: std::io::Error| BridgeError::Internal(format!("session options file: {e}"));
    // `tempfile` creates it 0600 in the temp dir; kept, as the child removes it.
    let mut file = tempfile::Builder::new()
        .prefix(&format!("dcl-options-{session_id}-"))
        .suffix(".json")
        .tempfile()
        .map_err(internal)?;
    let text = serde_json::to_string(options)
        .map_err(|e| BridgeError::Internal(format!("session options: {e}")))?;
    file.write_all(text.as_bytes()).map_err(internal)?;
    let (_, path) = file.keep().map_err(|e| internal(e.error))?;
    Ok(path)
}

fn message_session_id(message: &Message) -> Option<String> {
    match message {
        Message::System(s) if s.subtype == "init" => s
            .fields
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

async fn write_lines(
    mut stdin: tokio::process::ChildStdin,
    mut lines: mpsc::Receiver<Option<String>>,
) {
    while let Some(Some(mut line)) = lines.recv().await {
        line.push('\n');
        if let Err(e) = stdin.write_all(line.as_bytes()).await {
            tracing::debug!("writing to the dcl child failed: {e}");
            return;
        }
    }
    // `None` (end of input) or every sender gone: closing stdin is the child's EOF.
    let _ = stdin.shutdown().await;
}

async fn log_stderr(stderr: tokio::process::ChildStderr, outcome: std::sync::Arc<Outcome>) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(error) = line.strip_prefix("Error: ")
            && let Ok(mut slot) = outcome.error.lock()
        {
            *slot = Some(error.to_string());
        }
        tracing::warn!(target: "dcl_bridge::child", "{line}");
    }
}

async fn read_lines(
    stdout: tokio::process::ChildStdout,
    out: mpsc::Sender<Message>,
    mut child: tokio::process::Child,
    kill: tokio::sync::oneshot::Receiver<()>,
    stderr_task: tokio::task::JoinHandle<()>,
    outcome: std::sync::Arc<Outcome>,
) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    let reading = async {
        loop {
            buf.clear();
            match read_line(&mut reader, &mut buf).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("reading from the dcl child failed: {e}");
                    break;
                }
            }
            let text = String::from_utf8_lossy(&buf);
            let line = text.trim();
            if line.is_empty() {
                continue;
            }
            match dcl_protocol::parse_line(line) {
                Ok(message) => {
                    outcome.spoke.store(true, Ordering::SeqCst);
                    if out.send(message).await.is_err() {
                        break; // the host is gone
                    }
                }
                Err(e) => tracing::warn!("the dcl child wrote a line that is not protocol: {e}"),
            }
        }
    };
    tokio::select! {
        () = reading => {}
        _ = kill => {}
    }
    // Ended or closed: make sure it is gone, and reap it.
    let _ = child.start_kill();
    match child.wait().await {
        Ok(status) if !status.success() => tracing::debug!("the dcl child exited: {status}"),
        Ok(_) => {}
        Err(e) => tracing::debug!("reaping the dcl child failed: {e}"),
    }
    // Its last words first: the end is seen (`out` dropped) once stderr was read.
    let _ = stderr_task.await;
    drop(out);
}

/// One line into `buf` (without its cap): a line longer than [`MAX_LINE_BYTES`] is skipped
/// up to its newline, with a warning. `Ok(0)` at the end.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut skipping = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(buf.len());
        }
        let (chunk, done) = match memchr_newline(available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let n = chunk.len();
        if !skipping {
            if buf.len() + n > MAX_LINE_BYTES {
                tracing::warn!("a line from the dcl child exceeds {MAX_LINE_BYTES} bytes; skipped");
                buf.clear();
                skipping = true;
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        reader.consume(n);
        if done {
            if skipping {
                // Nothing to hand over: read on to the next line.
                skipping = false;
                continue;
            }
            return Ok(buf.len());
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}
