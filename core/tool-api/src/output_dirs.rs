//! Where background shells write their output, and the sweep of what a dead dcl left.
//!
//! A session removes its output directory when it ends, but a dcl that is SIGKILLed (or
//! crashes) cannot. So each directory is named after its owner —
//! `dcl-background-<pid namespace>-<pid>-<start time>-<random>` — and the next dcl to start
//! removes the ones whose owner is gone. They sit in one directory per user under the temp
//! dir (`dcl-<uid>`, mode 0700, as tmux keeps its sockets), so the sweep at every start
//! lists only dcl's own entries, not the whole temp dir. The start time (clock ticks since boot, from
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

/// A new output directory (mode 0700), named after this process, in this user's
/// directory under the temp dir. When that directory is not this user's private one
/// (someone else made it, or a link), the output goes directly in the temp dir instead:
/// it still works, but a SIGKILLed dcl's output there is not swept.
pub(crate) fn create() -> io::Result<PathBuf> {
    let tmp = std::env::temp_dir();
    let parent = match own_parent(&tmp) {
        Ok(parent) => parent,
        Err(e) => {
            tracing::warn!("background output goes in {} directly: {e}", tmp.display());
            tmp
        }
    };
    let path = parent.join(Owner::this_process().dir_name());
    private_dir(&path)?;
    Ok(path)
}

/// This user's directory of output directories under `tmp`.
fn parent_dir(tmp: &Path) -> PathBuf {
    #[cfg(unix)]
    let name = format!("dcl-{}", nix::unistd::geteuid().as_raw());
    // Windows: the temp folder is the user's own already.
    #[cfg(not(unix))]
    let name = String::from("dcl");
    tmp.join(name)
}

/// [`parent_dir`], made if missing; an error when it is not a directory this user owns
/// and only this user can enter (a planted link or another user's directory would let
/// them read the output or swap it).
fn own_parent(tmp: &Path) -> io::Result<PathBuf> {
    let parent = parent_dir(tmp);
    match private_dir(&parent) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let meta = std::fs::symlink_metadata(&parent)?;
        let mine = meta.is_dir()
            && meta.uid() == nix::unistd::geteuid().as_raw()
            && meta.mode() & 0o077 == 0;
        if !mine {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is not this user's private directory", parent.display()),
            ));
        }
    }
    Ok(parent)
}

fn private_dir(path: &Path) -> io::Result<()> {
    // Only Unix sets a mode on it.
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
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

/// Removes the output directories in this user's directory under `tmp` whose owner is
/// dead for certain (see the module comment for what is kept). Returns the ones removed.
#[cfg(target_os = "linux")]
pub fn sweep_stale(tmp: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let uid = nix::unistd::geteuid().as_raw();
    let parent = parent_dir(tmp);
    // Not followed, and only this user's own: the start-up path of every dcl (most often
    // there is nothing here, and this is one failed lstat).
    match std::fs::symlink_metadata(&parent) {
        Ok(meta) if meta.is_dir() && meta.uid() == uid => {}
        _ => return Vec::new(),
    }
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut me = None;
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(Owner::parse) else {
            continue;
        };
        let me = *me.get_or_insert_with(Owner::this_process);
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
        let dir = own_parent(tmp.path()).unwrap();
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
            let p = dir.join(o.dir_name());
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join("bash_1.stdout"), "out").unwrap();
            p
        };
        let dead_dir = mk(&dead);
        let parent_dir = mk(&parent);
        let elsewhere_dir = mk(&elsewhere);
        let legacy = dir.join("dcl-background-0123456789abcdef0123456789abcdef");
        std::fs::create_dir(&legacy).unwrap();
        // A pid that is alive but started at another time was reused: its dcl is gone.
        let reused_pid = Owner {
            pid: parent.pid,
            ..reused
        };
        let reused_dir = mk(&reused_pid);
        // A link named like a dead dcl's directory is not followed or removed.
        let target = tempfile::tempdir().unwrap();
        let link = dir.join(dead.dir_name());
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

    #[test]
    fn the_users_directory_is_private_and_a_planted_one_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let tmp = tempfile::tempdir().unwrap();
        let made = own_parent(tmp.path()).unwrap();
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // Made already: used again.
        assert_eq!(own_parent(tmp.path()).unwrap(), made);

        // Open to others: someone could read or swap the output.
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(own_parent(tmp.path()).is_err());
        std::fs::remove_dir(&made).unwrap();
        // A link planted in its place, even to a private directory of this user.
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &made).unwrap();
        assert!(own_parent(tmp.path()).is_err());
    }

    #[test]
    fn the_sweep_reads_only_the_users_directory_and_follows_no_link_to_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dead = dead_child();
        // A dead owner's directory outside the user's directory (the temp dir itself) is
        // not dcl's to list at start-up.
        let loose = tmp.path().join(dead.dir_name());
        std::fs::create_dir(&loose).unwrap();
        // The user's directory as a link: nothing under it is removed.
        let elsewhere = tempfile::tempdir().unwrap();
        let inside = elsewhere.path().join(dead.dir_name());
        std::fs::create_dir(&inside).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), parent_dir(tmp.path())).unwrap();
        assert!(sweep_stale(tmp.path()).is_empty());
        assert!(loose.is_dir() && inside.is_dir());
    }
}
