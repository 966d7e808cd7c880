//! File I/O through the front end: an editor that holds the session's files (ACP's
//! `fs/read_text_file`, `fs/write_text_file`) reads and writes them itself, so the model
//! sees unsaved buffers and the editor records each edit. Set per session
//! ([`crate::ShellState::set_client_files`]); Read, Write and Edit use it *after* their
//! permission phase, which is the same either way (rules, protected files, hooks): only
//! where the bytes come from and go to changes. Without it, tools use dcl's own
//! descriptor-based file access.

use std::path::Path;

use crate::BoxFuture;

/// Why the front end's file I/O failed; the text becomes the tool's error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientFilesError {
    #[error("the editor has no such file")]
    NotFound,
    #[error("the editor refused: {0}")]
    Refused(String),
}

/// A front end's text-file access for one session. Paths are absolute.
pub trait ClientFiles: Send + Sync {
    /// Whether Read (and Edit's read) goes through [`ClientFiles::read_text_file`].
    fn reads(&self) -> bool;
    /// Whether Write and Edit write through [`ClientFiles::write_text_file`].
    fn writes(&self) -> bool;
    /// The file's whole text as the editor has it (an unsaved buffer included).
    fn read_text_file<'a>(
        &'a self,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<String, ClientFilesError>>;
    /// Replaces the file's text (creating it).
    fn write_text_file<'a>(
        &'a self,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), ClientFilesError>>;
}

/// How a command run in the front end's terminal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalRun {
    /// What the terminal printed (stdout and stderr as the terminal interleaves them).
    pub output: String,
    /// The exit code, when the command exited by itself.
    pub exit_code: Option<i32>,
    /// The command was killed when its timeout passed.
    pub timed_out: bool,
    /// The command was killed because the turn was interrupted.
    pub cancelled: bool,
}

/// A front end's terminal (ACP's `terminal/*`): Bash runs there so the editor shows the
/// command live. Not used when the OS sandbox is on for the command (a terminal the
/// editor runs cannot be confined by dcl): Bash then runs locally and logs why.
pub trait ClientTerminal: Send + Sync {
    /// Runs `command` with `bash -c` in `cwd`, with `env` added, until it exits, `timeout`
    /// passes or `cancel` fires (then it is killed); `tool_call_id` names the call the
    /// terminal is shown in.
    fn run<'a>(
        &'a self,
        tool_call_id: &'a str,
        command: &'a str,
        cwd: &'a Path,
        env: Vec<(String, String)>,
        timeout: std::time::Duration,
        cancel: tokio_util::sync::CancellationToken,
    ) -> BoxFuture<'a, Result<TerminalRun, ClientFilesError>>;
}
