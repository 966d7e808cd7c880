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
    /// The landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// One line per missing mechanism, for warnings.
    pub missing: Vec<String>,
}

static SUPPORT: OnceLock<Support> = OnceLock::new();

/// The probe's answer, computed on first use.
pub fn support() -> &'static Support {
    SUPPORT.get_or_init(detect)
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
    let proc_mount = namespaces && {
        let mut p = Plan::namespaces_only();
        p.mount_proc = true;
        works(p)
    };
    if namespaces && !proc_mount {
        missing.push(
            "a fresh /proc cannot be mounted: tools see the host's /proc (ps shows host \
             PIDs), and a sandboxed command can read dcl's /proc/<pid>/environ"
                .to_string(),
        );
    }
    let network_ns = namespaces && {
        let mut p = Plan::namespaces_only();
        p.network_ns = true;
        works(p)
    };
    let hide_mounts = namespaces && {
        let mut p = Plan::namespaces_only();
        if let Ok(dir) = std::ffi::CString::new("/tmp") {
            p.hide_dirs.push(dir);
        }
        works(p)
    };
    let landlock_abi = landlock_abi();
    if !namespaces {
        crate::subreaper::engage_if_wanted();
    }
    Support {
        namespaces,
        proc_mount,
        network_ns,
        hide_mounts,
        landlock_abi,
        missing,
    }
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
