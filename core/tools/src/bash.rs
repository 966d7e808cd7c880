//! Bash: runs a command with `bash -c` in the session's persistent shell directory.
//!
//! Each call is a fresh `bash` process, but the directory it ends in is carried to the
//! next call (`cd sub` holds), which is the part of a persistent shell models rely on.
//! The command runs in its own process group so a timeout or an interrupt can kill it
//! together with everything it started.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dcl_sandbox::group::Group;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::support::{input_str, lenient_bool, truncate_middle};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;

const DEFAULT_TIMEOUT_MS: f64 = 120_000.0;
const MAX_TIMEOUT_MS: f64 = 600_000.0;
/// Characters of each stream the model sees; the middle of longer output is cut.
const MAX_OUTPUT_CHARS: usize = 30_000;
/// Bytes kept from each end of a stream while reading, so a command printing gigabytes
/// cannot exhaust memory. Comfortably more than `MAX_OUTPUT_CHARS` in UTF-8.
const CAPTURE_BYTES_PER_END: usize = 256 * 1024;
/// How long output pipes may stay open after the shell itself exited. Longer means a
/// background child (`server &`) still holds them: it is killed rather than waited for.
const PIPE_GRACE: Duration = Duration::from_millis(200);
/// How long to wait for pipes to close after the group was killed. Only a process that
/// left the group (`setsid`) can keep them open past this.
const KILL_GRACE: Duration = Duration::from_secs(2);

const NO_OUTPUT: &str = "(Bash completed with no output)";

const DESCRIPTION: &str = "Executes a bash command and returns its output (stdout, then stderr). \
Each call runs `bash -c` in the session's shell directory: a `cd` in one call holds for the \
next, but shell variables and functions do not persist. The command's environment is the \
session's. Output longer than 30000 characters is cut in the middle. The default timeout is \
2 minutes (at most 10 minutes, via `timeout` in milliseconds); on timeout or interrupt the \
command and every process it started are killed. A non-zero exit status is reported as an \
error with its exit code. With `run_in_background: true` the command is started detached \
and the call returns at once with a shell id (`bash_1`, …): read its new output with \
BashOutput and stop it with KillShell; background commands have no timeout and are killed \
when the session ends. Prefer the Read, Write, Edit, Glob and Grep tools over cat, sed, \
echo redirection, find and grep: they are safer and their output is easier to use. Quote \
paths that contain spaces.";

#[derive(Default)]
pub struct BashTool;

#[derive(Debug, Deserialize)]
struct BashInput {
    command: String,
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default, deserialize_with = "lenient_bool")]
    run_in_background: Option<bool>,
    /// Run outside the session's sandbox, when `sandbox.allowUnsandboxedCommands` lets it.
    #[serde(
        default,
        rename = "dangerouslyDisableSandbox",
        deserialize_with = "lenient_bool"
    )]
    dangerously_disable_sandbox: Option<bool>,
    // `description` is only read by `describe` (unknown fields are ignored).
}

/// The definition, built once per process.
static BASH_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        BashTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/bash.json")),
    )
});

impl Tool for BashTool {
    fn name(&self) -> &'static str {
        "Bash"
    }

    fn spec(&self) -> ToolSpec {
        BASH_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "description")
            .filter(|d| !d.trim().is_empty())
            .map(str::to_string)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: BashInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            // The session's sandbox, unless this command is excluded from it.
            let sandbox = ctx.shell.sandbox().filter(|sb| {
                sb.covers(
                    &input.command,
                    input.dangerously_disable_sandbox == Some(true),
                )
            });
            if input.run_in_background == Some(true) {
                return start_in_background(&input.command, ctx, sandbox.as_deref());
            }
            let timeout = Duration::from_millis(timeout_ms(input.timeout) as u64);
            let ran = match ctx.shell.client_terminal() {
                Some(terminal) if sandbox.is_none() => {
                    run_in_client_terminal(terminal.as_ref(), &input.command, timeout, ctx).await
                }
                Some(_) => {
                    let said = ctx
                        .shell
                        .terminal_fallback_said
                        .swap(true, std::sync::atomic::Ordering::Relaxed);
                    // Once a session: every sandboxed command takes this path.
                    if !said {
                        tracing::warn!(
                            "Bash runs in dcl's own shell, not the editor's terminal: the OS \
                             sandbox is on, and a terminal the editor runs cannot be sandboxed"
                        );
                    }
                    run(&input.command, timeout, ctx, sandbox.as_deref()).await
                }
                None => run(&input.command, timeout, ctx, sandbox.as_deref()).await,
            };
            match ran {
                Ok(mut run) => {
                    // A failure the sandbox caused says so.
                    if let (Some(sb), Ending::Exited(code)) = (&sandbox, run.ending)
                        && code != 0
                        && let Some(note) =
                            dcl_sandbox::sandbox_note(sb, &format!("{}{}", run.stdout, run.stderr))
                    {
                        run.stderr = format!("{}\n{note}", run.stderr);
                    }
                    // Withheld secrets never reach the model, even printed from a file.
                    let secrets = super::environment::withheld_secrets(ctx);
                    run.stdout = super::environment::redact_text(&run.stdout, &secrets);
                    run.stderr = super::environment::redact_text(&run.stderr, &secrets);
                    render(&input.command, run)
                }
                Err(e) => ToolOutput::error(format!("Failed to run bash: {e}")),
            }
        })
    }
}

/// Runs the command in the front end's terminal (the editor shows it as it runs). Its
/// output is one stream there; the shell's directory changes are not carried over.
async fn run_in_client_terminal(
    terminal: &dyn dcl_tool_api::ClientTerminal,
    command: &str,
    timeout: Duration,
    ctx: &ToolContext,
) -> std::io::Result<Run> {
    let cwd = shell_cwd(ctx);
    // The editor's terminal has its own environment; the session's additions go on top.
    let env = ctx
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let ran = terminal
        .run(
            &ctx.tool_use_id,
            command,
            &cwd,
            env,
            timeout,
            ctx.cancel.clone(),
        )
        .await
        .map_err(std::io::Error::other)?;
    let ending = if ran.cancelled {
        Ending::Cancelled
    } else if ran.timed_out {
        Ending::TimedOut(timeout)
    } else {
        Ending::Exited(ran.exit_code.unwrap_or(-1))
    };
    Ok(Run {
        stdout: ran.output,
        stderr: String::new(),
        ending,
    })
}

/// Starts the command detached (see `BackgroundShells`) and answers at once with its id.
fn start_in_background(
    command: &str,
    ctx: &ToolContext,
    sandbox: Option<&dcl_sandbox::Sandbox>,
) -> ToolOutput {
    let cwd = shell_cwd(ctx);
    match ctx.background.start_confined(
        command,
        &cwd,
        super::environment::for_tools(ctx)
            .into_iter()
            .map(|(k, v)| (std::ffi::OsString::from(k), std::ffi::OsString::from(v)))
            .chain(super::environment::non_utf8_for_tools(ctx)),
        sandbox,
        ctx.shell.scope().map(|s| s.as_ref()),
    ) {
        Ok(id) => {
            let text = format!(
                "Command running in background with ID: {id}. Read its output with BashOutput \
                 (bash_id \"{id}\") and stop it with KillShell (shell_id \"{id}\")."
            );
            ToolOutput::ok(text).with_structured(json!({
                "stdout": "",
                "stderr": "",
                "interrupted": false,
                "isImage": false,
                "noOutputExpected": false,
                "backgroundTaskId": id,
            }))
        }
        Err(e) => ToolOutput::error(format!(
            "Failed to start the command in the background: {e}"
        )),
    }
}

/// The timeout the model asked for, clamped to the allowed range.
fn timeout_ms(requested: Option<f64>) -> f64 {
    match requested {
        Some(ms) if ms.is_finite() && ms > 0.0 => ms.min(MAX_TIMEOUT_MS),
        _ => DEFAULT_TIMEOUT_MS,
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    Exited(i32),
    TimedOut(Duration),
    Cancelled,
}

#[derive(Debug)]
struct Run {
    stdout: String,
    stderr: String,
    ending: Ending,
}

/// Runs the command to completion, timeout or cancellation; kills its process group in
/// the latter two cases (and when the call itself is dropped).
async fn run(
    command: &str,
    timeout: Duration,
    ctx: &ToolContext,
    sandbox: Option<&dcl_sandbox::Sandbox>,
) -> std::io::Result<Run> {
    let cwd = shell_cwd(ctx);
    // Inside the sandbox only its private temp dir is writable for the EXIT trap.
    let cwd_file = CwdFile::new(sandbox.map(dcl_sandbox::Sandbox::temp_dir));
    let mut child = spawn_shell(command, &cwd, &cwd_file, ctx, sandbox)?;
    let mut group = GroupGuard::new(&child);

    let stdout = Capture::default();
    let stderr = Capture::default();
    let mut readers = vec![
        spawn_reader(child.stdout.take(), stdout.clone()),
        spawn_reader(child.stderr.take(), stderr.clone()),
    ];

    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(exit_code(status?)),
        () = tokio::time::sleep(timeout) => Ending::TimedOut(timeout),
        () = ctx.cancel.cancelled() => Ending::Cancelled,
    };

    match ending {
        Ending::Exited(_) => {
            // The shell is done, but a background child (`sleep 100 &`) may still hold
            // the pipes open; waiting for EOF would hang the turn, so kill the group.
            if !join_within(&mut readers, PIPE_GRACE).await {
                group.kill();
                join_or_abort(&mut readers, KILL_GRACE).await;
            }
            group.disarm();
            if let Some(dir) = cwd_file.read() {
                ctx.shell.set_cwd(dir);
            }
        }
        Ending::TimedOut(_) | Ending::Cancelled => {
            group.kill();
            let _ = child.wait().await;
            join_or_abort(&mut readers, KILL_GRACE).await;
            group.disarm();
        }
    }

    Ok(Run {
        stdout: stdout.render(MAX_OUTPUT_CHARS),
        stderr: stderr.render(MAX_OUTPUT_CHARS),
        ending,
    })
}

/// The status as a shell reports it: a death by signal N is 128 + N.
fn exit_code(status: ExitStatus) -> i32 {
    dcl_sandbox::group::exit_code(status)
}

/// The directory the command starts in: the shell's, unless it was deleted since, in
/// which case the shell falls back to the session cwd (as a new terminal would).
fn shell_cwd(ctx: &ToolContext) -> PathBuf {
    let cwd = ctx.shell.cwd();
    if cwd.is_dir() {
        cwd
    } else {
        ctx.shell.set_cwd(ctx.cwd.clone());
        ctx.cwd.clone()
    }
}

fn spawn_shell(
    command: &str,
    cwd: &Path,
    cwd_file: &CwdFile,
    ctx: &ToolContext,
    sandbox: Option<&dcl_sandbox::Sandbox>,
) -> std::io::Result<Child> {
    // Git Bash on Windows, or an error naming what to install.
    let bash = dcl_sandbox::shell::bash().map_err(std::io::Error::other)?;
    let mut cmd = Command::from(dcl_sandbox::shell_command(&bash, sandbox));
    cmd.arg("-c")
        .arg(wrap_command(command, cwd_file.path()))
        .current_dir(cwd)
        // The tool environment (no credentials, no secret-named variables), complete.
        .env_clear()
        .envs(super::environment::for_tools(ctx))
        .envs(super::environment::non_utf8_for_tools(ctx))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own group, so one kill reaches everything the command starts.
    dcl_sandbox::group::own_group(cmd.as_std_mut());
    // Its own PID namespace (everything it starts ends with it) and the sandbox.
    match ctx.shell.scope() {
        Some(scope) => dcl_sandbox::apply_scoped(cmd.as_std_mut(), sandbox, scope),
        None => dcl_sandbox::apply(cmd.as_std_mut(), sandbox),
    };
    cmd.spawn()
}

/// The command preceded by an EXIT trap that records the final directory. The trap
/// runs on normal completion and on `exit N` alike. The prelude is a single line so
/// bash's error messages are off by only one line number.
fn wrap_command(command: &str, cwd_file: &Path) -> String {
    let target = shell_words::quote(&cwd_file.to_string_lossy()).into_owned();
    format!(
        "__dcl_save_cwd() {{ {PWD} >| {target} 2>/dev/null; }}; trap __dcl_save_cwd EXIT\n{command}"
    )
}

/// The shell's final directory as this OS names it: Git Bash's `pwd -P` says `/c/x`,
/// `pwd -W` says `C:/x`.
const PWD: &str = if cfg!(windows) { "pwd -W" } else { "pwd -P" };

/// A temp file the shell writes its final directory to; removed when dropped.
struct CwdFile(PathBuf);

impl CwdFile {
    fn new(dir: Option<&Path>) -> Self {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        CwdFile(dir.join(format!("dcl-bash-cwd-{}", uuid::Uuid::new_v4().simple())))
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// The directory the shell ended in, if it recorded one that still exists.
    fn read(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(&self.0).ok()?;
        let dir = PathBuf::from(text.trim_end_matches('\n'));
        (dir.is_absolute() && dir.is_dir()).then_some(dir)
    }
}

impl Drop for CwdFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Kills the command's process group when dropped while armed, so a call future that is
/// dropped mid-run (the turn was aborted) leaves no processes behind.
struct GroupGuard {
    pgid: Option<Group>,
}

impl GroupGuard {
    fn new(child: &Child) -> Self {
        GroupGuard {
            pgid: child.id().and_then(Group::led_by),
        }
    }

    fn kill(&self) {
        if let Some(group) = self.pgid {
            // A group already gone is the normal outcome for finished commands.
            group.kill();
        }
    }

    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A stream's output, bounded: the first and last `CAPTURE_BYTES_PER_END` bytes are
/// kept and the number of bytes dropped between them is counted. Shared with the reader
/// task so output read before an abort is not lost.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<CaptureBuf>>);

#[derive(Default)]
struct CaptureBuf {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: usize,
}

impl Capture {
    fn push(&self, mut bytes: &[u8]) {
        let mut buf = match self.0.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let head_room = CAPTURE_BYTES_PER_END.saturating_sub(buf.head.len());
        let into_head = head_room.min(bytes.len());
        buf.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        buf.tail.extend(bytes);
        let excess = buf.tail.len().saturating_sub(CAPTURE_BYTES_PER_END);
        buf.tail.drain(..excess);
        buf.dropped += excess;
    }

    /// The captured text, cut to `max_chars` with a marker in the middle.
    fn render(&self, max_chars: usize) -> String {
        let buf = match self.0.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut bytes = buf.head.clone();
        let (front, back) = buf.tail.as_slices();
        if buf.dropped == 0 {
            bytes.extend_from_slice(front);
            bytes.extend_from_slice(back);
            return truncate_middle(&String::from_utf8_lossy(&bytes), max_chars);
        }
        // More was printed than kept: show the kept ends around an (approximate) count.
        let mut tail = front.to_vec();
        tail.extend_from_slice(back);
        let head = String::from_utf8_lossy(&bytes);
        let tail = String::from_utf8_lossy(&tail);
        let half = max_chars / 2;
        let head_chars = head.chars().count();
        let tail_chars = tail.chars().count();
        let omitted =
            head_chars.saturating_sub(half) + buf.dropped + tail_chars.saturating_sub(half);
        let head: String = head.chars().take(half).collect();
        let tail: String = tail.chars().skip(tail_chars.saturating_sub(half)).collect();
        format!("{head}\n\n... [{omitted} characters truncated] ...\n\n{tail}")
    }
}

fn spawn_reader<R>(pipe: Option<R>, capture: Capture) -> JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let Some(mut pipe) = pipe else { return };
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => capture.push(&chunk[..n]),
            }
        }
    })
}

/// Waits for all readers to reach EOF; false if they did not within `limit`.
async fn join_within(readers: &mut [JoinHandle<()>], limit: Duration) -> bool {
    tokio::time::timeout(limit, async {
        for reader in readers.iter_mut() {
            // A JoinHandle must not be polled again once it has yielded its result.
            if !reader.is_finished() {
                let _ = reader.await;
            }
        }
    })
    .await
    .is_ok()
}

/// Waits for the readers, then gives up on any still blocked (their output so far is
/// already captured).
async fn join_or_abort(readers: &mut [JoinHandle<()>], limit: Duration) {
    if !join_within(readers, limit).await {
        for reader in readers.iter() {
            reader.abort();
        }
    }
}

/// Exit statuses of some commands mean something other than failure; the reference
/// reports these as ordinary results.
fn benign_exit_meaning(command: &str, code: i32) -> Option<&'static str> {
    let program = last_program(command)?;
    match (program.as_str(), code) {
        ("grep" | "egrep" | "fgrep" | "rg" | "ag", 1) => Some("no matches found"),
        ("diff" | "cmp", 1) => Some("files differ"),
        ("test" | "[" | "[[", 1) => Some("condition is false"),
        ("find", 1) => Some("some paths were inaccessible"),
        _ => None,
    }
}

/// The program run by the last simple command of a pipeline or list, whose status is
/// the shell's (`cat f | grep x` exits with grep's status).
fn last_program(command: &str) -> Option<String> {
    // `2>&1` and `&>file` are redirections, not list separators.
    let command = command
        .replace(">&", "> ")
        .replace("<&", "< ")
        .replace("&>", " >");
    let last = command
        .rsplit(['|', ';', '&', '\n'])
        .find(|segment| !segment.trim().is_empty())?;
    let words = shell_words::split(last).ok()?;
    let program = words.into_iter().find(|w| !w.contains('='))?;
    Some(
        Path::new(&program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(program),
    )
}

/// Turns a finished run into the tool result the model and the host see.
fn render(command: &str, run: Run) -> ToolOutput {
    let stdout = strip_blank_edges(&run.stdout);
    let stderr = strip_blank_edges(&run.stderr);
    let output: Vec<&str> = [stdout.as_str(), stderr.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    let structured = |interrupted: bool| {
        json!({
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": interrupted,
            "isImage": false,
            "noOutputExpected": false,
        })
    };

    match run.ending {
        Ending::Exited(0) => {
            let text = if output.is_empty() {
                NO_OUTPUT.to_string()
            } else {
                output.join("\n")
            };
            ToolOutput::ok(text).with_structured(structured(false))
        }
        Ending::Exited(code) => match benign_exit_meaning(command, code) {
            Some(meaning) => {
                let mut lines = output.clone();
                let status = format!("Exit code {code} ({meaning})");
                lines.push(&status);
                ToolOutput::ok(lines.join("\n")).with_structured(structured(false))
            }
            // The reference reports a failing command as an error result whose text
            // starts with the exit code, followed by what the command printed.
            None => {
                let status = format!("Exit code {code}");
                let mut lines = vec![status.as_str()];
                lines.extend(output);
                ToolOutput::error(lines.join("\n"))
            }
        },
        Ending::TimedOut(after) => {
            let status = format!(
                "Command timed out after {} ms; it and its child processes were killed.",
                after.as_millis()
            );
            let mut lines = vec![status.as_str()];
            lines.extend(output);
            ToolOutput::error(lines.join("\n")).with_structured(structured(true))
        }
        Ending::Cancelled => {
            let mut lines = vec!["[Request interrupted by user for tool use]"];
            lines.extend(output);
            ToolOutput::error(lines.join("\n")).with_structured(structured(true))
        }
    }
}

/// Drops leading blank lines and trailing whitespace: commands' trailing newlines are
/// noise, but indentation on the first real line is meaningful.
fn strip_blank_edges(text: &str) -> String {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    text[start..].trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::time::Instant;

    fn ctx_in(dir: &Path) -> ToolContext {
        ToolContext::new(dir.to_path_buf())
    }

    async fn bash(ctx: &ToolContext, input: Value) -> ToolOutput {
        BashTool.call(input, ctx).await
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    /// A marker no other process on the machine has in its command line.
    fn unique_sleep_seconds() -> String {
        format!(
            "{}.{}",
            900 + rand::random::<u16>() % 99,
            rand::random::<u32>()
        )
    }

    /// Live (non-zombie) processes whose command line contains `marker`.
    fn live_processes_with(marker: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .chars()
                    .all(|c| c.is_ascii_digit())
            })
            .filter_map(|e| {
                let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
                let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                let zombie = stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'));
                (cmdline.contains(marker) && !zombie).then_some(cmdline)
            })
            .collect()
    }

    /// Waits briefly for killed processes to disappear from /proc.
    async fn assert_no_process_with(marker: &str) {
        for _ in 0..50 {
            if live_processes_with(marker).is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("processes left behind: {:?}", live_processes_with(marker));
    }

    #[tokio::test]
    async fn echo_matches_reference_result() {
        let dir = tempfile::tempdir().unwrap();
        let out = bash(&ctx_in(dir.path()), json!({"command": "echo hi"})).await;
        assert!(!out.is_error);
        assert_eq!(text(&out), "hi");
        assert_eq!(
            out.structured,
            Some(json!({"stdout": "hi", "stderr": "", "interrupted": false,
                        "isImage": false, "noOutputExpected": false}))
        );
    }

    #[tokio::test]
    async fn stdout_then_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": "echo err >&2; sleep 0.05; echo out"}),
        )
        .await;
        assert_eq!(text(&out), "out\nerr");
        let s = out.structured.unwrap();
        assert_eq!(s["stdout"], "out");
        assert_eq!(s["stderr"], "err");
    }

    #[tokio::test]
    async fn empty_output_has_placeholder() {
        let dir = tempfile::tempdir().unwrap();
        let out = bash(&ctx_in(dir.path()), json!({"command": "true"})).await;
        assert!(!out.is_error);
        assert_eq!(text(&out), "(Bash completed with no output)");
    }

    #[tokio::test]
    async fn nonzero_exit_is_error_with_exit_code_and_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": "echo out; echo err >&2; exit 3"}),
        )
        .await;
        assert!(out.is_error);
        assert_eq!(text(&out), "Exit code 3\nout\nerr");
        assert_eq!(out.structured, Some(json!("Error: Exit code 3\nout\nerr")));
    }

    #[tokio::test]
    async fn grep_without_matches_is_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "abc\n").unwrap();
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": "cat f | grep zzz 2>&1"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        assert_eq!(text(&out), "Exit code 1 (no matches found)");
        // A real grep failure (status 2) still is one.
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": "grep x missing-file"}),
        )
        .await;
        assert!(out.is_error);
    }

    #[tokio::test]
    async fn cd_persists_between_calls_but_not_into_session_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let ctx = ctx_in(&root);
        let out = bash(&ctx, json!({"command": "cd sub"})).await;
        assert!(!out.is_error);
        let out = bash(&ctx, json!({"command": "pwd"})).await;
        assert_eq!(text(&out), root.join("sub").to_string_lossy());
        assert_eq!(ctx.shell.cwd(), root.join("sub"));
        assert_eq!(ctx.cwd, root, "session cwd must not follow the shell");
    }

    #[tokio::test]
    async fn cd_before_exit_with_error_still_persists() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let ctx = ctx_in(&root);
        let out = bash(&ctx, json!({"command": "cd sub && exit 4"})).await;
        assert!(out.is_error);
        assert_eq!(ctx.shell.cwd(), root.join("sub"));
    }

    #[tokio::test]
    async fn deleted_shell_cwd_falls_back_to_session_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ctx = ctx_in(&root);
        ctx.shell.set_cwd(root.join("gone"));
        let out = bash(&ctx, json!({"command": "pwd"})).await;
        assert_eq!(text(&out), root.to_string_lossy());
    }

    #[tokio::test]
    async fn session_env_reaches_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ctx_in(dir.path());
        let mut env = BTreeMap::new();
        env.insert("DCL_TOOL_TEST_VAR".to_string(), "from-session".to_string());
        ctx.env = Arc::new(env);
        let out = bash(&ctx, json!({"command": "echo $DCL_TOOL_TEST_VAR"})).await;
        assert_eq!(text(&out), "from-session");
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let command = format!("echo started; sleep {secs} & sleep {secs}");
        let started = Instant::now();
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": command, "timeout": 500}),
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(out.is_error);
        assert!(
            text(&out).starts_with("Command timed out after 500 ms"),
            "{}",
            text(&out)
        );
        assert!(text(&out).contains("started"));
        let s = out.structured.unwrap();
        assert_eq!(s["interrupted"], true);
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn background_child_holding_stdout_does_not_hang_the_call() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let command = format!("sleep {secs} & echo done");
        let started = Instant::now();
        let out = bash(&ctx_in(dir.path()), json!({"command": command})).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "call hung on the background child"
        );
        assert!(!out.is_error);
        assert_eq!(text(&out), "done");
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn background_child_holding_only_stderr_does_not_hang_the_call() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let command = format!("sleep {secs} >/dev/null & echo done");
        let started = Instant::now();
        let out = bash(&ctx_in(dir.path()), json!({"command": command})).await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(text(&out), "done");
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn background_child_with_redirected_output_is_left_running() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let command = format!("nohup sleep {secs} >/dev/null 2>&1 & echo started");
        let ctx = ctx_in(dir.path());
        let out = bash(&ctx, json!({"command": command})).await;
        assert_eq!(text(&out), "started");
        tokio::time::sleep(PIPE_GRACE * 2).await;
        let marker = format!("sleep {secs}");
        assert!(
            !live_processes_with(&marker).is_empty(),
            "detached job was killed"
        );
        // It lives in the session's scope: the session's end ends it (`$!` would be a
        // PID inside the command's namespace, so nothing is killed by PID here).
        drop(ctx);
        assert_no_process_with(&marker).await;
    }

    #[tokio::test]
    async fn cancel_kills_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let secs = unique_sleep_seconds();
        let cancel = ctx.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        });
        let started = Instant::now();
        let out = bash(
            &ctx,
            json!({"command": format!("sleep {secs} & sleep {secs}")}),
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(out.is_error);
        assert!(text(&out).contains("interrupted"));
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let secs = unique_sleep_seconds();
        let input = json!({"command": format!("sleep {secs} & sleep {secs}")});
        let call = BashTool.call(input, &ctx);
        assert!(
            tokio::time::timeout(Duration::from_millis(300), call)
                .await
                .is_err()
        );
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn long_output_keeps_head_and_tail() {
        let dir = tempfile::tempdir().unwrap();
        let command = "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END";
        let out = bash(&ctx_in(dir.path()), json!({"command": command})).await;
        let t = text(&out);
        assert!(t.starts_with("START"));
        assert!(t.ends_with("END"));
        assert!(t.contains("characters truncated] ..."));
        assert!(t.chars().count() < MAX_OUTPUT_CHARS + 100);
    }

    #[test]
    fn capture_bounds_memory_and_counts_dropped_bytes() {
        let capture = Capture::default();
        capture.push(b"HEAD");
        for _ in 0..100 {
            capture.push(&[b'.'; 16 * 1024]);
        }
        capture.push(b"TAIL");
        {
            let buf = capture.0.lock().unwrap();
            assert_eq!(buf.head.len(), CAPTURE_BYTES_PER_END);
            assert_eq!(buf.tail.len(), CAPTURE_BYTES_PER_END);
            assert!(buf.dropped > 0);
        }
        let text = capture.render(100);
        assert!(text.starts_with("HEAD"));
        assert!(text.ends_with("TAIL"));
        assert!(text.contains("characters truncated"));
    }

    #[tokio::test]
    async fn run_in_background_returns_at_once_and_output_is_readable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let ctx = ctx_in(&root);
        bash(&ctx, json!({"command": "cd sub"})).await;
        let secs = unique_sleep_seconds();
        let started = Instant::now();
        let out = bash(
            &ctx,
            json!({"command": format!("pwd; touch made.txt; sleep {secs}"), "run_in_background": true}),
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(!out.is_error, "{out:?}");
        assert!(text(&out).starts_with("Command running in background with ID: bash_1."));
        assert_eq!(out.structured.unwrap()["backgroundTaskId"], "bash_1");
        // It runs in the shell's directory, after the foreground call returned.
        for _ in 0..100 {
            if root.join("sub/made.txt").exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(root.join("sub/made.txt").exists());
        let listed = ctx.background.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].status.label(), "running");
        let output = std::fs::read_to_string(&listed[0].stdout_path).unwrap();
        assert_eq!(output.trim(), root.join("sub").to_string_lossy());
        // A second one gets the next id; stopping the first kills its sleep.
        let out = bash(
            &ctx,
            json!({"command": "true", "run_in_background": "true"}),
        )
        .await;
        assert!(text(&out).contains("bash_2"));
        ctx.background.stop("bash_1").unwrap();
        assert_no_process_with(&format!("sleep {secs}")).await;
    }

    #[tokio::test]
    async fn stdin_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let out = bash(
            &ctx_in(dir.path()),
            json!({"command": "cat; echo after", "timeout": 5000}),
        )
        .await;
        assert_eq!(text(&out), "after");
        assert!(started.elapsed() < Duration::from_secs(4));
    }

    #[test]
    fn timeout_is_clamped() {
        assert_eq!(timeout_ms(None), 120_000.0);
        assert_eq!(timeout_ms(Some(5_000_000.0)), 600_000.0);
        assert_eq!(timeout_ms(Some(-1.0)), 120_000.0);
        assert_eq!(timeout_ms(Some(1500.0)), 1500.0);
    }

    #[test]
    fn last_program_finds_the_status_owner() {
        assert_eq!(
            last_program("cat f | grep -q x 2>&1").as_deref(),
            Some("grep")
        );
        assert_eq!(
            last_program("cd a && LC_ALL=C /usr/bin/diff a b").as_deref(),
            Some("diff")
        );
        assert_eq!(last_program("grep x f; ls").as_deref(), Some("ls"));
    }

    #[test]
    fn strip_blank_edges_keeps_indentation() {
        assert_eq!(
            strip_blank_edges("\n  \n  indented\nx\n\n"),
            "  indented\nx"
        );
    }

    #[test]
    fn metadata() {
        assert_eq!(BashTool.kind(), ToolKind::Execute);
        assert_eq!(
            BashTool.describe(&json!({"command": "ls", "description": "List files"})),
            Some("List files".to_string())
        );
        let schema = BashTool.spec().input_schema().clone();
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "command",
                "timeout",
                "description",
                "run_in_background",
                "dangerouslyDisableSandbox"
            ]
        );
        assert_eq!(schema["required"], json!(["command"]));
        assert_eq!(schema["properties"]["timeout"]["type"], "number");
    }
}
