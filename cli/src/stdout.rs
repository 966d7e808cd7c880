//! Protocol lines on stdout: whole lines in one `write` each batch (stdout's line buffering
//! would split every newline off into a write of its own).
//!
//! In a stream-json session stdout is, when it is a pipe or a socket, non-blocking
//! ([`use_nonblocking`]) and written by tasks ([`write_text_async`]) that wait for room
//! in the pipe: the runtime's one thread never blocks on a host that stops reading.

#[cfg(unix)]
use std::fs::File;
use std::io::Write;
#[cfg(unix)]
use std::os::fd::AsFd;
#[cfg(unix)]
use std::sync::OnceLock;

use dcl_protocol::Message;
#[cfg(unix)]
use tokio::io::Interest;
#[cfg(unix)]
use tokio::io::unix::AsyncFd;

#[cfg(unix)]
use crate::nonblocking;

#[cfg(unix)]
static NONBLOCKING: OnceLock<AsyncFd<File>> = OnceLock::new();

/// Held for a whole batch, so lines from two tasks never interleave when a write is cut
/// short by a full pipe.
#[cfg(unix)]
static WRITING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Makes stdout non-blocking when it is a pipe or a socket. Call within the runtime,
/// before the session writes.
pub fn use_nonblocking() {
    // Windows: stdout stays blocking (written as in print mode).
    #[cfg(unix)]
    if let Some(fd) = nonblocking::open(std::io::stdout().as_fd(), Interest::WRITABLE) {
        let _ = NONBLOCKING.set(fd);
    }
}

/// `message` as one line, newline included, appended to `out`.
pub fn push_line(out: &mut String, message: &Message) {
    out.push_str(&dcl_protocol::to_line(message));
    out.push('\n');
}

/// One message as one line; `false` when stdout is gone. Blocking: for print mode.
pub fn write_line(message: &Message) -> bool {
    let mut line = String::new();
    push_line(&mut line, message);
    write_text(&line)
}

/// One message as one line from a task; `false` when stdout is gone.
pub async fn write_line_async(message: &Message) -> bool {
    let mut line = String::new();
    push_line(&mut line, message);
    write_text_async(&line).await
}

/// Whole lines in one write; `false` when stdout is gone. Blocking: for print mode,
/// whose stdout is never made non-blocking.
pub fn write_text(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_ok()
}

/// Whole lines, written from a task; `false` when stdout is gone.
pub async fn write_text_async(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    #[cfg(unix)]
    if let Some(fd) = NONBLOCKING.get() {
        let _turn = WRITING.lock().await;
        return nonblocking::write_all(fd, text.as_bytes()).await.is_ok();
    }
    write_text(text)
}
