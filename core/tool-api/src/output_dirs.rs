//! Where background shells write their output, and the sweep of what a dead dcl left.
//!
//! A session removes its output directory when it ends, but a dcl that is SIGKILLed (or
//! crashes) cannot. So each directory is named after its owner —
//! `dcl-background-<pid namespace>-<pid>-<start time>-<random>` — and the next dcl to start
//! removes the ones whose owner is gone. The start time (clock ticks since boot, from
//! `/proc/<pid>/stat`) tells a reused pid from the owner; the PID namespace keeps a dcl in a
//! container (or one started by a tool, in the tool's own namespace) from judging pids it
//! cannot see. Whatever cannot be judged for certain is kept: names of another form, other
//! namespaces, another user's directories, owners whose `/proc` entry cannot be read.

use std::io;
use std::path::{Path, PathBuf};

const PREFIX: &str = "dcl-background-";

/// Who made an output directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Owner {
    pid_namespace: u64,
    pid: u32,
    start: u64,
}

impl Owner {
    fn this_process() -> Owner {
        let pid = std::process::id();
        Owner {
            pid_namespace: pid_namespace().unwrap_or(0),
            pid,
            start: start_time(pid).ok().flatten().unwrap_or(0),
        }
    }

    fn dir_name(&self) -> String {
        format!(
            "{PREFIX}{}-{}-{}-{}",
            self.pid_namespace,
            self.pid,
            self.start,
            uuid::Uuid::new_v4().simple()
        )
    }

    /// The owner a directory name records; `None` for any other name.
    #[cfg(any(target_os = "linux", test))]
    fn parse(name: &str) -> Option<Owner> {
        let mut parts = name.strip_prefix(PREFIX)?.splitn(4, '-');
        let owner = Owner {
            pid_namespace: parts.next()?.parse().ok()?,
            pid: parts.next()?.parse().ok()?,
            start: parts.next()?.parse().ok()?,
        };
        parts.next()?;
        Some(owner)
    }

    /// Dead for certain: no process has its pid, or the one that has it started at
    /// another time (the pid was reused). Unreadable means alive.
    #[cfg(any(target_os = "linux", test))]
    fn is_dead(&self) -> bool {
        match start_time(self.pid) {
            Ok(None) => true,
            Ok(Some(start)) => self.start != 0 && start != self.start,
            Err(_) => false,
        }
    }
}

/// A new output directory under the temp dir (mode 0700), named after this process.
pub(crate) fn create() -> io::Result<PathBuf> {
    let path = std::env::temp_dir().join(Owner::this_process().dir_name());
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
    }
    // Windows: the user's temp folder is private to the user already.
    #[cfg(not(unix))]
    std::fs::create_dir(&path)?;
    Ok(path)
}

/// Removes, once per process, the output directories under the temp dir that dcl
/// processes now dead left (a SIGKILLed dcl cannot remove its own). Returns the ones
/// removed.
pub fn sweep_stale_once() -> Vec<PathBuf> {
    static DONE: std::sync::Once = std::sync::Once::new();
    let mut removed = Vec::new();
    DONE.call_once(|| removed = sweep_stale(&std::env::temp_dir()));
    removed
}

/// Removes the output directories under `tmp` whose owner is dead for certain (see the
/// module comment for what is kept). Returns the ones removed.
#[cfg(target_os = "linux")]
pub fn sweep_stale(tmp: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    let me = Owner::this_process();
    let uid = nix::unistd::geteuid().as_raw();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(Owner::parse) else {
            continue;
        };
        if owner.pid_namespace != me.pid_namespace || owner.pid == me.pid || !owner.is_dead() {
            continue;
        }
        let path = entry.path();
        // Not followed: a link or another user's directory is not dcl's to remove.
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() && meta.uid() == uid => {}
            _ => continue,
        }
        match std::fs::remove_dir_all(&path) {
            Ok(()) => {
                tracing::debug!(dir = %path.display(), pid = owner.pid, "removed the background output of a dead dcl");
                removed.push(path);
            }
            Err(e) => {
                tracing::debug!(dir = %path.display(), "cannot remove a dead dcl's background output: {e}")
            }
        }
    }
    removed
}

/// Elsewhere there is no `/proc` to tell a dead owner from a live one (every pid would look
/// dead), so nothing is removed.
#[cfg(not(target_os = "linux"))]
pub fn sweep_stale(_tmp: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The inode of this process's PID namespace (`/proc/self/ns/pid -> pid:[N]`).
fn pid_namespace() -> Option<u64> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let text = link.to_str()?;
    text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// When `pid` started (field 22 of `/proc/<pid>/stat`); `Ok(None)` when no such process
/// exists, `Err` when that cannot be told.
fn start_time(pid: u32) -> io::Result<Option<u64>> {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // The command name (field 2) is in parentheses and may hold spaces and ')'.
    let after_name = stat
        .rfind(')')
        .map(|i| &stat[i + 1..])
        .ok_or_else(|| io::Error::other("unexpected /proc stat format"))?;
    // Fields 3.. follow; the start time is field 22, the 20th of them.
    after_name
        .split_whitespace()
        .nth(19)
        .and_then(|f| f.parse().ok())
        .map(Some)
        .ok_or_else(|| io::Error::other("unexpected /proc stat format"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn dead_child() -> Owner {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let start = start_time(pid).unwrap().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        Owner {
            pid_namespace: pid_namespace().unwrap(),
            pid,
            start,
        }
    }

    #[test]
    fn names_record_the_owner_and_other_names_are_not_read() {
        let me = Owner::this_process();
        assert!(me.start > 0 && me.pid_namespace > 0);
        assert_eq!(Owner::parse(&me.dir_name()), Some(me));
        for other in [
            "dcl-background-0123456789abcdef0123456789abcdef",
            "dcl-background-1-2-3",
            "dcl-background-x-2-3-abc",
            "other-1-2-3-abc",
        ] {
            assert_eq!(Owner::parse(other), None, "{other}");
        }
    }

    #[test]
    fn only_dead_owners_directories_in_this_namespace_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dead = dead_child();
        let me = Owner::this_process();
        let reused = Owner {
            start: me.start + 1,
            ..me
        };
        let mut parent = me;
        parent.pid = std::os::unix::process::parent_id();
        parent.start = start_time(parent.pid).unwrap().unwrap();
        let elsewhere = Owner {
            pid_namespace: dead.pid_namespace + 1,
            ..dead
        };
        let mk = |o: &Owner| {
            let p = tmp.path().join(o.dir_name());
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join("bash_1.stdout"), "out").unwrap();
            p
        };
        let dead_dir = mk(&dead);
        let parent_dir = mk(&parent);
        let elsewhere_dir = mk(&elsewhere);
        let legacy = tmp
            .path()
            .join("dcl-background-0123456789abcdef0123456789abcdef");
        std::fs::create_dir(&legacy).unwrap();
        // A pid that is alive but started at another time was reused: its dcl is gone.
        let reused_pid = Owner {
            pid: parent.pid,
            ..reused
        };
        let reused_dir = mk(&reused_pid);
        // A link named like a dead dcl's directory is not followed or removed.
        let target = tempfile::tempdir().unwrap();
        let link = tmp.path().join(dead.dir_name());
        std::os::unix::fs::symlink(target.path(), &link).unwrap();

        let mut removed = sweep_stale(tmp.path());
        removed.sort();
        let mut expected = vec![dead_dir.clone(), reused_dir.clone()];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(!dead_dir.exists() && !reused_dir.exists());
        for kept in [&parent_dir, &elsewhere_dir, &legacy, &link] {
            assert!(kept.symlink_metadata().is_ok(), "{}", kept.display());
        }
        assert!(target.path().is_dir());
    }
}
