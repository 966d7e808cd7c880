//! What this kernel (and container) lets an unprivileged process do, found once per
//! process by starting `true` through each mechanism: the answer is what really works
//! here, not what the kernel version promises.

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use crate::child::Plan;
use crate::ids;

/// The mechanisms that work in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// User + PID + mount namespaces (containment).
    pub namespaces: bool,
    /// A fresh /proc in them (fails where /proc has masked entries, as in Docker).
    pub proc_mount: bool,
    /// A network namespace (network off).
    pub network_ns: bool,
    /// tmpfs and bind mounts over denied paths.
    pub hide_mounts: bool,
    /// IPC and UTS namespaces (no SysV/POSIX IPC shared with the host).
    pub ipc_ns: bool,
    /// A recursively read-only tree with writable binds (`mount_setattr`, 5.12+).
    pub read_only_root: bool,
    /// seccomp filters (`SECCOMP_MODE_FILTER`).
    pub seccomp: bool,
    /// The landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// One line per missing mechanism, for warnings.
    pub missing: Vec<String>,
}

static SUPPORT: OnceLock<Support> = OnceLock::new();

/// The probe's answer, computed on first use (it forks a few times: the first
/// contained or sandboxed spawn pays for it, not start-up).
pub fn support() -> &'static Support {
    SUPPORT.get_or_init(detect)
}

/// The probe's answer if a probe already ran in this process; never probes (for
/// reports such as `initialize` that must stay cheap).
pub fn known() -> Option<&'static Support> {
    SUPPORT.get()
}

fn detect() -> Support {
    let mut missing = Vec::new();
    let disabled = std::env::var_os("DCL_NO_NAMESPACES").is_some();
    let namespaces = !disabled && works(Plan::namespaces_only());
    if disabled {
        missing.push("namespaces: turned off by DCL_NO_NAMESPACES".to_string());
    } else if !namespaces {
        missing.push(
            "user/PID namespaces are unavailable (unshare refused): tool processes are \
             contained by process groups only, so a process that calls setsid can outlive \
             the session, and the sandbox (if on) has no mount or network namespace"
                .to_string(),
        );
    }
    // The sandbox's mounts and namespaces all at once first: one fork where they all
    // work (the usual case), each on its own only to name what is missing.
    let all = namespaces && {
        let mut p = Plan::namespaces_only();
        p.mount_proc = true;
        p.network_ns = true;
        p.isolate_ipc = true;
        p.read_only_root = true;
        p.write_dirs = tmp_dir();
        p.hide_dirs = tmp_dir();
        works(p)
    };
    let one = |set: fn(&mut Plan)| {
        all || namespaces && {
            let mut p = Plan::namespaces_only();
            set(&mut p);
            works(p)
        }
    };
    let proc_mount = one(|p| p.mount_proc = true);
    if namespaces && !proc_mount {
        missing.push(
            "a fresh /proc cannot be mounted: tools see the host's /proc (ps shows host \
             PIDs), and a sandboxed command can read dcl's /proc/<pid>/environ"
                .to_string(),
        );
    }
    let network_ns = one(|p| p.network_ns = true);
    let ipc_ns = one(|p| p.isolate_ipc = true);
    let read_only_root = one(|p| {
        p.read_only_root = true;
        p.write_dirs = tmp_dir();
    });
    let hide_mounts = one(|p| p.hide_dirs = tmp_dir());
    let landlock_abi = landlock_abi();
    if !namespaces {
        crate::subreaper::engage_if_wanted();
    }
    Support {
        namespaces,
        proc_mount,
        network_ns,
        hide_mounts,
        ipc_ns,
        read_only_root,
        seccomp: seccomp_filters(),
        landlock_abi,
        missing,
    }
}

fn tmp_dir() -> Vec<std::ffi::CString> {
    std::ffi::CString::new("/tmp").into_iter().collect()
}

/// Whether this kernel has seccomp filters: asking to install a null program fails with
/// EFAULT where the mode exists and EINVAL where it does not. Installs nothing.
fn seccomp_filters() -> bool {
    // SAFETY: prctl with a null filter pointer is rejected before anything is installed.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            std::ptr::null::<libc::c_void>(),
            0,
            0,
        )
    };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EFAULT)
}

impl Plan {
    fn namespaces_only() -> Plan {
        Plan {
            namespaces: true,
            uid_map: ids::uid_map(),
            gid_map: ids::gid_map(),
            ..Plan::default()
        }
    }
}

/// Runs `true` with `plan` applied; true when it started and exited 0.
fn works(plan: Plan) -> bool {
    let plan = Arc::new(plan);
    let mut cmd = Command::new("true");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let p = plan.clone();
    // SAFETY: `run_in_child` makes only async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || p.run_in_child());
    }
    match cmd.status() {
        Ok(s) => s.success(),
        Err(e) => {
            tracing::debug!("sandbox probe failed: {e}");
            false
        }
    }
}

fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented version query (null attributes, size 0).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}
