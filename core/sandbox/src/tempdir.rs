//! The sandbox's own directory: `<temp>/dcl-sandbox-<pid>-<random>/`, holding the
//! private `TMPDIR` (`tmp/`) and the proxy's unix socket. It is removed when the
//! sandbox is dropped, at process exit by [`remove_temp_dirs`] (for a sandbox a host
//! leaked or never dropped), and — when the process died without either (SIGKILL) — by
//! the sweep the next sandbox runs: the pid in the name is the owner, and a dead owner's
//! directory is removed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

const PREFIX: &str = "dcl-sandbox-";

/// The directories this process owns and has not removed yet.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

#[derive(Debug)]
pub(crate) struct SessionDir {
    path: PathBuf,
    tmp: PathBuf,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    shm: PathBuf,
}

impl SessionDir {
    pub(crate) fn create() -> std::io::Result<SessionDir> {
        let base = std::env::temp_dir();
        sweep(&base);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-", std::process::id()))
            .tempdir_in(&base)?
            // Ours to remove (on drop, at exit, or by a later sweep).
            .keep();
        let (tmp, shm) = (dir.join("tmp"), dir.join("shm"));
        let made = std::fs::create_dir(&tmp).and_then(|()| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::create_dir(&shm)?;
            // /dev/shm's own mode: anyone in the sandbox may make segments there.
            std::fs::set_permissions(&shm, std::fs::Permissions::from_mode(0o1777))
        });
        if let Err(e) = made {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
        if let Ok(mut live) = LIVE.lock() {
            live.push(dir.clone());
        }
        Ok(SessionDir {
            path: dir,
            tmp,
            shm,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// Bound over /dev/shm for the sandbox's commands.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn shm(&self) -> &Path {
        &self.shm
    }
}

impl Drop for SessionDir {
    fn drop(&mut self) {
        remove(&self.path);
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|p| p != &self.path);
        }
    }
}

/// Removes every sandbox directory this process still owns. For a host's exit path
/// (the CLI calls it after its sessions end, SIGTERM included), so a sandbox that was
/// never dropped leaves nothing behind.
pub fn remove_temp_dirs() {
    let dirs = match LIVE.lock() {
        Ok(mut live) => std::mem::take(&mut *live),
        Err(_) => return,
    };
    for d in dirs {
        remove(&d);
    }
}

fn remove(dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::debug!("sandbox: cannot remove {}: {e}", dir.display());
    }
}

/// Removes the directories of sandboxes whose process is gone.
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if pid > 0 && !alive(pid) {
            remove(&e.path());
        }
    }
}

fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}
