//! The CLI's fallback where namespaces are unavailable: dcl becomes a child subreaper,
//! so processes its tools orphan (a `setsid` daemon whose shell exited) are re-parented
//! to dcl instead of init, and [`kill_adopted`] ends them when the session ends.

use std::sync::atomic::{AtomicBool, Ordering};

static WANTED: AtomicBool = AtomicBool::new(false);
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Asks for the fallback: when the probe finds no PID namespaces, this process becomes a
/// child subreaper. (With namespaces it stays not one: orphans then have an init of
/// their own, and dcl would only collect the zombies of exited inits.)
pub fn use_as_fallback() {
    WANTED.store(true, Ordering::SeqCst);
}

/// Whether this process became a subreaper (so [`kill_adopted`] is due at exit).
pub fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// Called by the probe when namespaces are missing.
pub(crate) fn engage_if_wanted() {
    if WANTED.load(Ordering::SeqCst) && become_subreaper() {
        ACTIVE.store(true, Ordering::SeqCst);
    }
}

/// Makes this process a child subreaper. Returns whether the kernel accepted it.
pub fn become_subreaper() -> bool {
    // SAFETY: a prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

/// SIGKILLs every live child of this process and reaps it (process exit only: it would
/// take exit statuses from a runtime that still waits on its own children).
pub fn kill_adopted() {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command name (which may hold spaces) are at its `)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<libc::pid_t>().ok());
        if ppid == Some(me) {
            // SAFETY: signalling and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}
