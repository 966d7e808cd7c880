//! Background shells: the session's registry of commands Bash starts with
//! `run_in_background: true` (the BashOutput and KillShell tools read and stop them).
//!
//! Each command runs detached from the turn in its own process group, with stdout and
//! stderr going to files in a per-session temp directory. The registry is shared by the
//! session (`ToolContext::background`); dropping it kills every group it started and
//! removes the directory, so nothing outlives the session. It lives in the tool API
//! because the engine reads it too (`stop_task`, the background-task list, session end).

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use dcl_sandbox::group::Group;
use tokio::process::Command;

use crate::BoxFuture;

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
    pgid: Option<Group>,
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
        if let Some(group) = self.pgid {
            // A group already gone is the normal outcome for finished ones.
            group.kill();
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
pub struct NewOutput {
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
    pub fn start<K, V>(
        &self,
        command: &str,
        cwd: &Path,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> io::Result<String>
    where
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        self.start_confined(command, cwd, env, None, None)
    }

    /// [`BackgroundShells::start`], in `sandbox` when given. Either way the command runs
    /// in its own PID namespace, which ends — with everything in it, `setsid` or not —
    /// at KillShell, when the registry drops, when `scope` drops (session end) or when
    /// dcl dies; without a scope, already when the command exits.
    pub fn start_confined<K, V>(
        &self,
        command: &str,
        cwd: &Path,
        env: impl IntoIterator<Item = (K, V)>,
        sandbox: Option<&dcl_sandbox::Sandbox>,
        scope: Option<&dcl_sandbox::Scope>,
    ) -> io::Result<String>
    where
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("bash_{n}");
        let dir = self.output_dir()?;
        let stdout_path = dir.join(format!("{id}.stdout"));
        let stderr_path = dir.join(format!("{id}.stderr"));
        let stdout = File::create(&stdout_path)?;
        let stderr = File::create(&stderr_path)?;

        let bash = dcl_sandbox::shell::bash().map_err(io::Error::other)?;
        let mut cmd = Command::from(dcl_sandbox::shell_command(&bash, sandbox));
        cmd.arg("-c")
            .arg(command)
            .current_dir(cwd)
            // `env` is the complete tool environment (see `tools::environment`).
            .env_clear()
            .envs(env)
            .stdin(Stdio::null())
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::from(stderr))
            // Outliving the call is the point; the registry kills it at session end.
            .kill_on_drop(false);
        // Its own group, so one kill reaches everything the command starts.
        dcl_sandbox::group::own_group(cmd.as_std_mut());
        match scope {
            Some(scope) => dcl_sandbox::apply_scoped(cmd.as_std_mut(), sandbox, scope),
            None => dcl_sandbox::apply(cmd.as_std_mut(), sandbox),
        };
        let mut child = cmd.spawn()?;
        let pgid = child.id().and_then(Group::led_by);
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
        // Named after this process, so a later dcl can sweep it if this one is killed.
        let path = crate::output_dirs::create()?;
        *dir = Some(path.clone());
        Ok(path)
    }

    /// Output written since the previous read, and the shell's status (read first, so
    /// a `completed` status comes with all of the output).
    pub fn read_new(&self, id: &str) -> Result<NewOutput, ShellError> {
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
    dcl_sandbox::group::exit_code(status)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

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
}
