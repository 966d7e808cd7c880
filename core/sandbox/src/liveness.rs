#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

//! The liveness pipe: dcl holds its only write end (close-on-exec, and every keeper
//! closes its copy), so its read end reads EOF exactly when the process hosting dcl is
//! gone — SIGKILL, the OOM killer, a crashed Python host. `PR_SET_PDEATHSIG` is no
//! substitute: it fires when the forking *thread* exits, and runtime threads come and go.

use std::os::fd::{AsRawFd as _, OwnedFd, RawFd};
use std::sync::OnceLock;

struct Pipe {
    read: OwnedFd,
    // Never written; kept open for the life of the process.
    _write: OwnedFd,
}

static PIPE: OnceLock<Option<Pipe>> = OnceLock::new();

/// The read end keepers watch, or `None` if no pipe could be made.
pub(crate) fn read_fd() -> Option<RawFd> {
    PIPE.get_or_init(create)
        .as_ref()
        .map(|p| p.read.as_raw_fd())
}

fn create() -> Option<Pipe> {
    // std's pipe is close-on-exec on every Unix (pipe2 where there is one).
    match std::io::pipe() {
        Ok((read, write)) => Some(Pipe {
            read: read.into(),
            _write: write.into(),
        }),
        Err(e) => {
            tracing::warn!(
                "containment: no liveness pipe ({e}); tool processes may outlive a killed dcl"
            );
            None
        }
    }
}

/// A lifetime for lingering namespaces (one per session): while it lives, what a
/// command left running in its namespace may go on; when it is dropped (the session
/// ended) or the process dies, each such namespace's init sees EOF and exits, and the
/// kernel kills what was left in it.
#[derive(Debug)]
pub struct Scope {
    read: OwnedFd,
    _write: OwnedFd,
}

impl Scope {
    pub fn new() -> std::io::Result<Scope> {
        let (read, write) = std::io::pipe()?;
        Ok(Scope {
            read: read.into(),
            _write: write.into(),
        })
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn read_fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }
}
