//! Background shells: commands Bash starts with `run_in_background: true`, and the
//! BashOutput and KillShell tools that read and stop them.
//!
//! Each command runs detached from the turn in its own process group, with stdout and
//! stderr going to files in a per-session temp directory. A registry shared by the
//! session (`ToolContext::background`) tracks them; dropping the registry kills every
//! group it started and removes the directory, so nothing outlives the session.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use grep_matcher::Matcher as _;
use grep_regex::RegexMatcher;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::process::Command;

use super::support::{input_str, object_schema, truncate_middle};
use super::{Tool, ToolContext, ToolKind, ToolOutput, parse_input};
use crate::model::BoxFuture;

/// Characters of each stream one BashOutput call shows; the middle of more is cut.
const MAX_OUTPUT_CHARS: usize = 30_000;
/// Bytes read from each end of a stream's new output, so a command that printed
/// gigabytes since the last read cannot exhaust memory.
const READ_BYTES_PER_END: u64 = 256 * 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Where a background command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStatus {
    Running,
    /// Exited by itself with this status (a death by signal N is 128 + N).
    Exited(i32),
    /// Stopped by KillShell, `stop` or the end of the session.
    Killed,
}

impl ShellStatus {
    /// The word BashOutput reports: `running`, `completed` (exit 0), `failed`, `killed`.
    pub fn label(self) -> &'static str {
        match self {
            ShellStatus::Running => "running",
            ShellStatus::Exited(0) => "completed",
            ShellStatus::Exited(_) => "failed",
            ShellStatus::Killed => "killed",
        }
    }

    pub fn exit_code(self) -> Option<i32> {
        match self {
            ShellStatus::Exited(code) => Some(code),
            _ => None,
        }
    }
}

/// Why a background shell could not be stopped or read (KillShell, BashOutput,
/// `stop_task`); the texts are what the model and hosts are shown.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("No shell found with ID: {id}")]
    NotFound { id: String },
    #[error(
        "Shell {id} is not running, so it cannot be killed (status: {}{})",
        status.label(),
        status.exit_code().map(|c| format!(", exit code {c}")).unwrap_or_default()
    )]
    NotRunning { id: String, status: ShellStatus },
    #[error("Cannot read the output of {id}: {source}")]
    Output { id: String, source: io::Error },
}

/// A summary of one background shell, for hosts (`list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundShellInfo {
    pub id: String,
    pub command: String,
    pub status: ShellStatus,
    pub stdout_path: PathBuf,
    pub stderr_path: PathBuf,
}

#[derive(Debug)]
struct Shell {
    id: String,
    command: String,
    pgid: Option<Pid>,
    stdout_path: PathBuf,
    stderr_path: PathBuf,
    status: Mutex<ShellStatus>,
    /// Bytes of (stdout, stderr) already returned by BashOutput.
    read_offsets: Mutex<(u64, u64)>,
}

impl Shell {
    fn status(&self) -> ShellStatus {
        *lock(&self.status)
    }

    /// SIGKILLs the whole group. Also done for finished commands, since something
    /// they started in the background (`server &`) may still be in the group.
    fn kill_group(&self) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is the normal outcome for finished ones.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }

    fn info(&self) -> BackgroundShellInfo {
        BackgroundShellInfo {
            id: self.id.clone(),
            command: self.command.clone(),
            status: self.status(),
            stdout_path: self.stdout_path.clone(),
            stderr_path: self.stderr_path.clone(),
        }
    }
}

/// Told of each shell's life, in order, from the task that reaps it: its start, then its
/// exit when it ended by itself (not when it was killed). The session's TaskCreated /
/// TaskCompleted hooks.
pub trait ShellListener: Send + Sync {
    fn started<'a>(&'a self, id: &'a str, command: &'a str) -> BoxFuture<'a, ()>;
    fn exited<'a>(&'a self, id: &'a str, command: &'a str, code: i32) -> BoxFuture<'a, ()>;
}

/// The session's background shells.
#[derive(Default)]
pub struct BackgroundShells {
    next_id: AtomicU64,
    shells: Mutex<BTreeMap<u64, Arc<Shell>>>,
    /// Created on first use; removed (with the output files) when the registry drops.
    dir: Mutex<Option<PathBuf>>,
    listener: Mutex<Option<Arc<dyn ShellListener>>>,
}

impl std::fmt::Debug for BackgroundShells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundShells")
            .field("next_id", &self.next_id)
            .field("shells", &self.shells)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// What one BashOutput call returns: output new since the previous call.
#[derive(Debug, Clone)]
pub(crate) struct NewOutput {
    pub id: String,
    pub command: String,
    pub status: ShellStatus,
    pub stdout: String,
    pub stderr: String,
}

impl BackgroundShells {
    pub fn new() -> Self {
        BackgroundShells::default()
    }

    /// Who hears of shells started from now on.
    pub fn set_listener(&self, listener: Arc<dyn ShellListener>) {
        *lock(&self.listener) = Some(listener);
    }

    /// Starts `command` with `bash -c` in `cwd`, detached from the caller, and returns
    /// its id (`bash_1`, `bash_2`, …). Must be called inside a Tokio runtime (a task
    /// reaps the process and records its exit status). `env` is the process's whole
    /// environment: nothing else is inherited.
    pub fn start(
        &self,
        command: &str,
        cwd: &Path,
        env: &BTreeMap<String, String>,
    ) -> io::Result<String> {
        self.start_confined(command, cwd, env, None, None)
    }

    /// [`BackgroundShells::start`], in `sandbox` when given. Either way the command runs
    /// in its own PID namespace, which ends — with everything in it, `setsid` or not —
    /// at KillShell, when the registry drops, when `scope` drops (session end) or when
    /// dcl dies; without a scope, already when the command exits.
    pub fn start_confined(
        &self,
        command: &str,
        cwd: &Path,
        env: &BTreeMap<String, String>,
        sandbox: Option<&dcl_sandbox::Sandbox>,
        scope: Option<&dcl_sandbox::Scope>,
    ) -> io::Result<String> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("bash_{n}");
        let dir = self.output_dir()?;
        let stdout_path = dir.join(format!("{id}.stdout"));
        let stderr_path = dir.join(format!("{id}.stderr"));
        let stdout = File::create(&stdout_path)?;
        let stderr = File::create(&stderr_path)?;

        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(command)
            .current_dir(cwd)
            // `env` is the complete tool environment (see `tools::environment`).
            .env_clear()
            .envs(env.iter())
            .stdin(Stdio::null())
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::from(stderr))
            // Its own group, so one killpg reaches everything the command starts.
            .process_group(0)
            // Outliving the call is the point; the registry kills it at session end.
            .kill_on_drop(false);
        match scope {
            Some(scope) => dcl_sandbox::apply_scoped(cmd.as_std_mut(), sandbox, scope),
            None => dcl_sandbox::apply(cmd.as_std_mut(), sandbox),
        };
        let mut child = cmd.spawn()?;
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        let shell = Arc::new(Shell {
            id: id.clone(),
            command: command.to_string(),
            pgid,
            stdout_path,
            stderr_path,
            status: Mutex::new(ShellStatus::Running),
            read_offsets: Mutex::new((0, 0)),
        });
        lock(&self.shells).insert(n, shell.clone());
        let listener = lock(&self.listener).clone();

        tokio::spawn(async move {
            let started = async {
                if let Some(l) = &listener {
                    l.started(&shell.id, &shell.command).await;
                }
            };
            // Reaped at once even while a slow start hook runs, so the status is right.
            let reaped = async {
                let code = match child.wait().await {
                    Ok(status) => exit_code(status),
                    Err(_) => -1,
                };
                let mut status = lock(&shell.status);
                let running = *status == ShellStatus::Running;
                if running {
                    *status = ShellStatus::Exited(code);
                }
                (code, running)
            };
            let ((), (code, ended_itself)) = tokio::join!(started, reaped);
            if let (Some(l), true) = (&listener, ended_itself) {
                l.exited(&shell.id, &shell.command, code).await;
            }
        });
        Ok(id)
    }

    /// Kills a running shell's process group (the `stop_task` control request and
    /// KillShell). Errors name an unknown id or a shell that is no longer running.
    pub fn stop(&self, id: &str) -> Result<(), ShellError> {
        let shell = self
            .get(id)
            .ok_or_else(|| ShellError::NotFound { id: id.to_string() })?;
        let previous = {
            let mut status = lock(&shell.status);
            let previous = *status;
            if previous == ShellStatus::Running {
                *status = ShellStatus::Killed;
            }
            previous
        };
        // Also for a finished shell: what it left running in its group goes too.
        shell.kill_group();
        match previous {
            ShellStatus::Running => Ok(()),
            other => Err(ShellError::NotRunning {
                id: id.to_string(),
                status: other,
            }),
        }
    }

    /// Every shell of the session, oldest first.
    pub fn list(&self) -> Vec<BackgroundShellInfo> {
        lock(&self.shells).values().map(|s| s.info()).collect()
    }

    /// Kills every shell's process group (session end; also called on drop).
    pub fn kill_all(&self) {
        for shell in lock(&self.shells).values() {
            {
                let mut status = lock(&shell.status);
                if *status == ShellStatus::Running {
                    *status = ShellStatus::Killed;
                }
            }
            shell.kill_group();
        }
    }

    fn get(&self, id: &str) -> Option<Arc<Shell>> {
        let n: u64 = id.strip_prefix("bash_")?.parse().ok()?;
        lock(&self.shells).get(&n).cloned()
    }

    fn output_dir(&self) -> io::Result<PathBuf> {
        let mut dir = lock(&self.dir);
        if let Some(d) = dir.as_ref() {
            return Ok(d.clone());
        }
        let path =
            std::env::temp_dir().join(format!("dcl-background-{}", uuid::Uuid::new_v4().simple()));
        {
            use std::os::unix::fs::DirBuilderExt as _;
            fs::DirBuilder::new().mode(0o700).create(&path)?;
        }
        *dir = Some(path.clone());
        Ok(path)
    }

    /// Output written since the previous read, and the shell's status (read first, so
    /// a `completed` status comes with all of the output).
    pub(crate) fn read_new(&self, id: &str) -> Result<NewOutput, ShellError> {
        let shell = self
            .get(id)
            .ok_or_else(|| ShellError::NotFound { id: id.to_string() })?;
        let status = shell.status();
        let mut offsets = lock(&shell.read_offsets);
        let (stdout, stdout_end) =
            read_from(&shell.stdout_path, offsets.0).map_err(|source| ShellError::Output {
                id: id.to_string(),
                source,
            })?;
        let (stderr, stderr_end) =
            read_from(&shell.stderr_path, offsets.1).map_err(|source| ShellError::Output {
                id: id.to_string(),
                source,
            })?;
        *offsets = (stdout_end, stderr_end);
        Ok(NewOutput {
            id: shell.id.clone(),
            command: shell.command.clone(),
            status,
            stdout,
            stderr,
        })
    }
}

impl Drop for BackgroundShells {
    fn drop(&mut self) {
        self.kill_all();
        if let Some(dir) = lock(&self.dir).take() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// The status as a shell reports it: a death by signal N is 128 + N.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(-1)
}

/// The file's bytes from `offset` to its current end, as text, plus that end. When more
/// than twice `READ_BYTES_PER_END` is new, only both ends are read and the middle is
/// replaced with a marker.
fn read_from(path: &Path, offset: u64) -> io::Result<(String, u64)> {
    let mut file = File::open(path)?;
    let end = file.metadata()?.len();
    if end <= offset {
        return Ok((String::new(), end.max(offset)));
    }
    let new = end - offset;
    let read_range = |file: &mut File, from: u64, len: u64| -> io::Result<Vec<u8>> {
        file.seek(SeekFrom::Start(from))?;
        let mut buf = Vec::new();
        file.take(len).read_to_end(&mut buf)?;
        Ok(buf)
    };
    if new <= 2 * READ_BYTES_PER_END {
        let bytes = read_range(&mut file, offset, new)?;
        return Ok((String::from_utf8_lossy(&bytes).into_owned(), end));
    }
    let head = read_range(&mut file, offset, READ_BYTES_PER_END)?;
    let tail = read_range(&mut file, end - READ_BYTES_PER_END, READ_BYTES_PER_END)?;
    let text = format!(
        "{}\n\n... [{} bytes omitted] ...\n\n{}",
        String::from_utf8_lossy(&head),
        new - 2 * READ_BYTES_PER_END,
        String::from_utf8_lossy(&tail)
    );
    Ok((text, end))
}

/// Keeps only the lines matching `filter` (lines that do not match are dropped for good:
/// the next read starts after them).
fn filter_lines(text: &str, filter: Option<&RegexMatcher>) -> String {
    match filter {
        None => text.to_string(),
        Some(m) => text
            .lines()
            .filter(|line| m.is_match(line.as_bytes()).unwrap_or(false))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.lines().count()
    }
}

// ---------------------------------------------------------------------------
// BashOutput
// ---------------------------------------------------------------------------

const BASH_OUTPUT_DESCRIPTION: &str = "Reads the output of a command started with Bash \
`run_in_background: true`. Returns only what the command wrote since the previous \
BashOutput call for the same shell (stdout and stderr separately), plus its status: \
`running`, `completed` (exit 0), `failed` (with the exit code) or `killed`. `filter` is an \
optional regular expression: only matching lines are shown, and the others are discarded \
(they will not be shown by a later call either). Shell ids look like `bash_1`.";

pub struct BashOutputTool;

#[derive(Debug, Deserialize)]
struct BashOutputInput {
    bash_id: String,
    #[serde(default)]
    filter: Option<String>,
}

impl Tool for BashOutputTool {
    fn name(&self) -> &'static str {
        "BashOutput"
    }

    fn description(&self) -> &'static str {
        BASH_OUTPUT_DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "bash_id": {
                    "description": "The ID of the background shell to read output from",
                    "type": "string"
                },
                "filter": {
                    "description": "Optional regular expression; only output lines matching it are returned, and the others are discarded",
                    "type": "string"
                }
            }),
            &["bash_id"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn always_allowed(&self) -> bool {
        true
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "bash_id").map(|id| format!("Read output of {id}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: BashOutputInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let filter = match input.filter.as_deref().filter(|f| !f.is_empty()) {
                None => None,
                Some(pattern) => match RegexMatcher::new(pattern) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        return ToolOutput::error(format!(
                            "Invalid filter regular expression {pattern:?}: {e}"
                        ));
                    }
                },
            };
            let registry = ctx.background.clone();
            let id = input.bash_id.clone();
            let read = tokio::task::spawn_blocking(move || registry.read_new(&id)).await;
            let new = match read {
                Ok(Ok(new)) => new,
                Ok(Err(message)) => return ToolOutput::error(message.to_string()),
                Err(e) => return ToolOutput::error(format!("internal error: {e}")),
            };
            render_output(new, filter.as_ref(), input.filter.as_deref())
        })
    }
}

fn render_output(
    new: NewOutput,
    filter: Option<&RegexMatcher>,
    pattern: Option<&str>,
) -> ToolOutput {
    let stdout = truncate_middle(
        filter_lines(&new.stdout, filter).trim_end(),
        MAX_OUTPUT_CHARS,
    );
    let stderr = truncate_middle(
        filter_lines(&new.stderr, filter).trim_end(),
        MAX_OUTPUT_CHARS,
    );
    let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);

    let mut parts = vec![format!("<status>{}</status>", new.status.label())];
    if let Some(code) = new.status.exit_code() {
        parts.push(format!("<exit_code>{code}</exit_code>"));
    }
    if !stdout.is_empty() {
        parts.push(format!("<stdout>\n{stdout}\n</stdout>"));
    }
    if !stderr.is_empty() {
        parts.push(format!("<stderr>\n{stderr}\n</stderr>"));
    }
    if stdout.is_empty() && stderr.is_empty() {
        parts.push("(no new output since the last read)".to_string());
    }
    parts.push(format!("<timestamp>{timestamp}</timestamp>"));

    let mut structured = json!({
        "shellId": new.id,
        "command": new.command,
        "status": new.status.label(),
        "exitCode": new.status.exit_code(),
        "stdout": stdout,
        "stderr": stderr,
        "stdoutLines": line_count(&stdout),
        "stderrLines": line_count(&stderr),
        "timestamp": timestamp,
    });
    if let Some(p) = pattern.filter(|p| !p.is_empty()) {
        structured["filterPattern"] = json!(p);
    }
    ToolOutput::ok(parts.join("\n\n")).with_structured(structured)
}

// ---------------------------------------------------------------------------
// KillShell
// ---------------------------------------------------------------------------

const KILL_SHELL_DESCRIPTION: &str = "Stops a command started with Bash \
`run_in_background: true`: its whole process group is killed (SIGKILL). Give the shell id \
Bash returned (`bash_1`, …). Stopping a command that already finished is an error that \
reports how it ended.";

pub struct KillShellTool;

#[derive(Debug, Deserialize)]
struct KillShellInput {
    shell_id: String,
}

impl Tool for KillShellTool {
    fn name(&self) -> &'static str {
        "KillShell"
    }

    fn description(&self) -> &'static str {
        KILL_SHELL_DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "shell_id": {
                    "description": "The ID of the background shell to kill",
                    "type": "string"
                }
            }),
            &["shell_id"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn always_allowed(&self) -> bool {
        true
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "shell_id").map(|id| format!("Kill {id}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: KillShellInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let id = input.shell_id;
            let command = ctx
                .background
                .list()
                .into_iter()
                .find(|s| s.id == id)
                .map(|s| s.command);
            match ctx.background.stop(&id) {
                Ok(()) => {
                    let command = command.unwrap_or_default();
                    let message = format!("Successfully killed shell: {id} ({command})");
                    ToolOutput::ok(message.clone()).with_structured(json!({
                        "message": message,
                        "shell_id": id,
                    }))
                }
                Err(message) => ToolOutput::error(message.to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::time::Duration;

    fn ctx_in(dir: &Path) -> ToolContext {
        ToolContext::new(dir.to_path_buf())
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    /// A marker no other process on the machine has in its command line.
    fn unique_sleep_seconds() -> String {
        format!(
            "{}.{}",
            800 + rand::random::<u16>() % 99,
            rand::random::<u32>()
        )
    }

    fn live_processes_with(marker: &str) -> usize {
        let Ok(entries) = fs::read_dir("/proc") else {
            return 0;
        };
        entries
            .flatten()
            .filter(|e| {
                let cmdline = fs::read(e.path().join("cmdline")).unwrap_or_default();
                let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                let stat = fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let zombie = stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'));
                cmdline.contains(marker) && !zombie
            })
            .count()
    }

    async fn wait_until_gone(marker: &str) {
        for _ in 0..100 {
            if live_processes_with(marker) == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("processes with {marker:?} left behind");
    }

    async fn wait_for_status(ctx: &ToolContext, id: &str, label: &str) {
        for _ in 0..200 {
            if ctx
                .background
                .list()
                .iter()
                .any(|s| s.id == id && s.status.label() == label)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{id} never became {label}: {:?}", ctx.background.list());
    }

    #[tokio::test]
    async fn output_is_incremental_and_status_reports_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let id = ctx
            .background
            .start(
                "echo one; echo err >&2; sleep 0.3; echo two; exit 3",
                dir.path(),
                &BTreeMap::new(),
            )
            .unwrap();
        assert_eq!(id, "bash_1");
        tokio::time::sleep(Duration::from_millis(150)).await;
        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        let t = text(&out);
        assert!(t.starts_with("<status>running</status>"), "{t}");
        assert!(t.contains("<stdout>\none\n</stdout>"), "{t}");
        assert!(t.contains("<stderr>\nerr\n</stderr>"), "{t}");

        wait_for_status(&ctx, &id, "failed").await;
        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        let t = text(&out);
        assert!(t.contains("<status>failed</status>"), "{t}");
        assert!(t.contains("<exit_code>3</exit_code>"), "{t}");
        assert!(
            t.contains("<stdout>\ntwo\n</stdout>"),
            "only new output: {t}"
        );
        assert!(!t.contains("one"));
        let s = out.structured.unwrap();
        assert_eq!(s["exitCode"], 3);
        assert_eq!(s["stdout"], "two");
        assert_eq!(s["stderr"], "");

        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        assert!(text(&out).contains("no new output"));
    }

    #[tokio::test]
    async fn filter_keeps_matching_lines_and_discards_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let id = ctx
            .background
            .start(
                "printf 'INFO a\\nERROR b\\nINFO c\\nERROR d\\n'",
                dir.path(),
                &BTreeMap::new(),
            )
            .unwrap();
        wait_for_status(&ctx, &id, "completed").await;
        let out = BashOutputTool
            .call(json!({"bash_id": id, "filter": "^ERROR"}), &ctx)
            .await;
        let s = out.structured.unwrap();
        assert_eq!(s["stdout"], "ERROR b\nERROR d");
        assert_eq!(s["stdoutLines"], 2);
        assert_eq!(s["filterPattern"], "^ERROR");
        assert_eq!(s["status"], "completed");
        assert_eq!(s["exitCode"], 0);
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert!(text(&out).contains("no new output"));

        let out = BashOutputTool
            .call(json!({"bash_id": id, "filter": "("}), &ctx)
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("Invalid filter"));
    }

    #[tokio::test]
    async fn kill_shell_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let secs = unique_sleep_seconds();
        let id = ctx
            .background
            .start(
                &format!("sleep {secs} & sleep {secs}"),
                dir.path(),
                &BTreeMap::new(),
            )
            .unwrap();
        let marker = format!("sleep {secs}");
        for _ in 0..100 {
            if live_processes_with(&marker) >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let out = KillShellTool.call(json!({"shell_id": id}), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        assert!(text(&out).starts_with("Successfully killed shell: bash_1 (sleep"));
        wait_until_gone(&marker).await;
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert!(text(&out).contains("<status>killed</status>"));

        // Killing it again, or an unknown id, is an error.
        let out = KillShellTool.call(json!({"shell_id": id}), &ctx).await;
        assert!(out.is_error);
        assert!(text(&out).contains("not running"));
        let out = KillShellTool
            .call(json!({"shell_id": "bash_99"}), &ctx)
            .await;
        assert!(out.is_error);
        assert_eq!(text(&out), "No shell found with ID: bash_99");
        let out = BashOutputTool.call(json!({"bash_id": "nope"}), &ctx).await;
        assert!(out.is_error);
    }

    #[tokio::test]
    async fn dropping_the_registry_kills_everything_and_removes_files() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let marker = format!("sleep {secs}");
        let output_dir;
        {
            let ctx = ctx_in(dir.path());
            let id = ctx
                .background
                .start(&format!("sleep {secs}"), dir.path(), &BTreeMap::new())
                .unwrap();
            let info = ctx.background.list();
            assert_eq!(info.len(), 1);
            assert_eq!(info[0].id, id);
            assert_eq!(info[0].status, ShellStatus::Running);
            output_dir = info[0].stdout_path.parent().unwrap().to_path_buf();
            assert!(output_dir.is_dir());
            for _ in 0..100 {
                if live_processes_with(&marker) >= 1 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(live_processes_with(&marker), 1);
        }
        wait_until_gone(&marker).await;
        assert!(!output_dir.exists());
    }

    #[tokio::test]
    async fn stop_reports_unknown_and_finished_shells() {
        let dir = tempfile::tempdir().unwrap();
        let shells = BackgroundShells::new();
        assert!(
            shells
                .stop("bash_1")
                .unwrap_err()
                .to_string()
                .contains("No shell")
        );
        let id = shells.start("true", dir.path(), &BTreeMap::new()).unwrap();
        for _ in 0..200 {
            if shells.list()[0].status != ShellStatus::Running {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let err = shells.stop(&id).unwrap_err().to_string();
        assert!(err.contains("status: completed, exit code 0"), "{err}");
    }

    #[tokio::test]
    async fn session_env_and_cwd_reach_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ctx = ctx_in(&root);
        let mut env = BTreeMap::new();
        env.insert("DCL_BG_TEST".to_string(), "hello".to_string());
        let id = ctx
            .background
            .start("echo $DCL_BG_TEST; pwd", &root, &env)
            .unwrap();
        wait_for_status(&ctx, &id, "completed").await;
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert_eq!(
            out.structured.unwrap()["stdout"],
            format!("hello\n{}", root.display())
        );
    }

    #[test]
    fn read_from_keeps_both_ends_of_huge_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let mut body = b"HEAD".to_vec();
        body.extend(std::iter::repeat_n(b'.', 3 * READ_BYTES_PER_END as usize));
        body.extend_from_slice(b"TAIL");
        fs::write(&path, &body).unwrap();
        let (text, end) = read_from(&path, 0).unwrap();
        assert_eq!(end, body.len() as u64);
        assert!(text.starts_with("HEAD"));
        assert!(text.ends_with("TAIL"));
        assert!(text.contains("bytes omitted"));
        let (text, end2) = read_from(&path, end).unwrap();
        assert_eq!((text.as_str(), end2), ("", end));
    }

    #[test]
    fn metadata() {
        assert!(BashOutputTool.always_allowed());
        assert!(KillShellTool.always_allowed());
        assert_eq!(
            BashOutputTool.input_schema()["required"],
            json!(["bash_id"])
        );
        assert_eq!(
            KillShellTool.input_schema()["required"],
            json!(["shell_id"])
        );
    }
}
