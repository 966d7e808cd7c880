//! Stdio servers: the child runs in its own process group with exactly the environment it is
//! given, and the whole group is killed on shutdown or drop (no orphans). The transport
//! reads newline-delimited JSON and tolerates junk lines (some servers log to stdout).

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use super::{TransportError, decode_incoming};

/// Longest line accepted from a server (a tool result with a big image is a few MiB).
const MAX_LINE: u64 = 64 * 1024 * 1024;
/// How much of the child's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;

/// What to start.
pub(crate) struct Spawn<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    /// The complete environment of the child (the session's env plus the config's env).
    pub env: BTreeMap<String, String>,
    /// Variables a string map cannot hold (not UTF-8), passed through unchanged.
    pub raw_env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    pub cwd: Option<PathBuf>,
}

/// Why a stdio server did not start.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot start {command:?}: {source}")]
    Start {
        command: String,
        source: std::io::Error,
    },
    #[error("the child's stdio pipes are missing")]
    NoPipes,
}

pub(crate) fn spawn(spec: Spawn<'_>) -> Result<(LineTransport, ChildGuard), SpawnError> {
    let mut cmd = tokio::process::Command::new(spec.command);
    cmd.args(spec.args)
        .env_clear()
        .envs(&spec.env)
        .envs(spec.raw_env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    // Its own PID namespace: what the server starts ends with it (issue 10).
    dcl_sandbox::apply(cmd.as_std_mut(), None);
    let mut child = cmd.spawn().map_err(|source| SpawnError::Start {
        command: spec.command.to_string(),
        source,
    })?;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(SpawnError::NoPipes);
    };
    let server: Arc<str> = Arc::from(spec.server);
    let tail = Arc::new(Mutex::new(Tail::default()));
    if let Some(stderr) = child.stderr.take() {
        let tail = tail.clone();
        let server = server.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "mcp server stderr: {line}");
                if let Ok(mut t) = tail.lock() {
                    t.push(&line);
                }
            }
        });
    }
    let exited = CancellationToken::new();
    let exit_status = Arc::new(Mutex::new(None::<String>));
    {
        let exited = exited.clone();
        let exit_status = exit_status.clone();
        // The child is owned (and reaped) here; kill_on_drop covers runtime shutdown.
        tokio::spawn(async move {
            let status = child.wait().await;
            let text = match status {
                Ok(s) => match s.code() {
                    Some(code) => format!("exited with status {code}"),
                    None => format!("was killed ({s})"),
                },
                Err(e) => format!("could not be waited for: {e}"),
            };
            if let Ok(mut slot) = exit_status.lock() {
                *slot = Some(text);
            }
            exited.cancel();
        });
    }
    let transport = LineTransport {
        server,
        reader: BufReader::new(stdout),
        writer: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
        queue: VecDeque::new(),
        buf: Vec::new(),
    };
    let guard = ChildGuard {
        pgid,
        exited,
        exit_status,
        tail,
        terminated: AtomicBool::new(false),
    };
    Ok((transport, guard))
}

#[derive(Default)]
struct Tail(VecDeque<String>, usize);

impl Tail {
    fn push(&mut self, line: &str) {
        let line: String = line.chars().take(STDERR_TAIL).collect();
        self.1 += line.len();
        self.0.push_back(line);
        while self.1 > STDERR_TAIL && self.0.len() > 1 {
            if let Some(old) = self.0.pop_front() {
                self.1 -= old.len();
            }
        }
    }
}

/// Owns the child's process group: [`ChildGuard::terminate`] ends it politely, dropping the
/// guard kills it.
pub(crate) struct ChildGuard {
    pgid: Option<i32>,
    exited: CancellationToken,
    exit_status: Arc<Mutex<Option<String>>>,
    tail: Arc<Mutex<Tail>>,
    terminated: AtomicBool,
}

impl ChildGuard {
    /// Cancelled once the child has exited and been reaped.
    pub(crate) fn exited(&self) -> CancellationToken {
        self.exited.clone()
    }

    /// "exited with status 1; stderr: …", for error messages.
    pub(crate) fn describe_exit(&self) -> String {
        let status = self
            .exit_status
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .unwrap_or_else(|| "closed its stdout".to_string());
        let tail = self
            .tail
            .lock()
            .map(|t| t.0.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        if tail.trim().is_empty() {
            format!("the server process {status}")
        } else {
            format!("the server process {status}; stderr: {}", tail.trim())
        }
    }

    /// The server's stdin is closed by then (rmcp closed the transport): give it a moment to
    /// exit, then SIGTERM, then SIGKILL the whole group, and wait until it is reaped.
    pub(crate) async fn terminate(&self) {
        let wait = |ms| tokio::time::timeout(Duration::from_millis(ms), self.exited.cancelled());
        if wait(200).await.is_err() {
            self.signal(Signal::Term);
            let _ = wait(500).await;
        }
        // Also reaches grandchildren left behind by a leader that exited.
        self.signal(Signal::Kill);
        let _ = wait(1000).await;
        self.terminated.store(true, Ordering::SeqCst);
    }

    fn signal(&self, sig: Signal) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid {
            use nix::sys::signal::{Signal as S, killpg};
            use nix::unistd::Pid;
            let s = match sig {
                Signal::Term => S::SIGTERM,
                Signal::Kill => S::SIGKILL,
            };
            let _ = killpg(Pid::from_raw(pgid), s);
        }
        // Windows: no polite signal; the kill ends the process tree.
        #[cfg(not(unix))]
        if let (Signal::Kill, Some(pgid)) = (sig, self.pgid)
            && let Some(group) = u32::try_from(pgid)
                .ok()
                .and_then(dcl_sandbox::group::Group::led_by)
        {
            group.kill();
        }
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if !self.terminated.load(Ordering::SeqCst) {
            self.signal(Signal::Kill);
        }
    }
}

/// Newline-delimited JSON-RPC over the child's stdin/stdout.
pub(crate) struct LineTransport {
    server: Arc<str>,
    reader: BufReader<ChildStdout>,
    writer: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    queue: VecDeque<ServerJsonRpcMessage>,
    buf: Vec<u8>,
}

impl Transport<RoleClient> for LineTransport {
    type Error = TransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let mut line = serde_json::to_vec(&item)
                .map_err(|e| TransportError(format!("cannot encode a message: {e}")))?;
            line.push(b'\n');
            let mut w = writer.lock().await;
            let Some(stdin) = w.as_mut() else {
                return Err(TransportError("the connection is closed".into()));
            };
            stdin
                .write_all(&line)
                .await
                .map_err(|e| TransportError(format!("cannot write to the server: {e}")))?;
            stdin
                .flush()
                .await
                .map_err(|e| TransportError(format!("cannot write to the server: {e}")))
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            if let Some(m) = self.queue.pop_front() {
                return Some(m);
            }
            self.buf.clear();
            let n = match (&mut self.reader)
                .take(MAX_LINE)
                .read_until(b'\n', &mut self.buf)
                .await
            {
                Ok(n) => n,
                Err(e) => {
                    tracing::debug!(server = %self.server, "reading from the server failed: {e}");
                    return None;
                }
            };
            if n == 0 {
                return None;
            }
            if self.buf.last() != Some(&b'\n') && n as u64 >= MAX_LINE {
                tracing::warn!(server = %self.server, "a message from the server exceeds {MAX_LINE} bytes; closing");
                return None;
            }
            let line = self.buf.trim_ascii();
            if line.is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_slice(line) {
                Ok(v) => v,
                Err(_) => {
                    tracing::debug!(
                        server = %self.server,
                        "ignoring a non-JSON line on the server's stdout: {}",
                        String::from_utf8_lossy(&line[..line.len().min(200)])
                    );
                    continue;
                }
            };
            match value {
                Value::Array(items) => {
                    for item in items {
                        self.queue.extend(decode_incoming(item, &self.server));
                    }
                }
                other => self.queue.extend(decode_incoming(other, &self.server)),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Dropping stdin is the polite "please exit" of stdio MCP servers.
        self.writer.lock().await.take();
        Ok(())
    }
}
