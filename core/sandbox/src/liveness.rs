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
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    if r != 0 {
        tracing::warn!(
            "containment: no liveness pipe ({}); tool processes may outlive a killed dcl",
            std::io::Error::last_os_error()
        );
        return None;
    }
    use std::os::fd::FromRawFd as _;
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Some(Pipe {
        read,
        _write: write,
    })
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
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills two descriptors we then own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        use std::os::fd::FromRawFd as _;
        // SAFETY: both descriptors were just created and are owned by nothing else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Scope {
            read,
            _write: write,
        })
    }

    pub(crate) fn read_fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }
}
