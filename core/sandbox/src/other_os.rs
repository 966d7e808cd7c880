//! The Linux probe's and subreaper's shapes where there are no namespaces to probe and no
//! subreaper (macOS, Windows), so callers read one API on every OS.

/// What containment has here: every namespace mechanism off, and why.
pub mod probe {
    use std::sync::OnceLock;

    /// The mechanisms that work in this process.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Support {
        pub namespaces: bool,
        pub proc_mount: bool,
        pub network_ns: bool,
        pub hide_mounts: bool,
        pub ipc_ns: bool,
        pub read_only_root: bool,
        pub seccomp: bool,
        pub landlock_abi: i32,
        pub missing: Vec<String>,
    }

    #[cfg(target_os = "macos")]
    const MISSING: &str = "macOS has no PID namespaces: tool processes are contained by \
        process groups only, so a process that calls setsid can outlive the session";
    #[cfg(not(target_os = "macos"))]
    const MISSING: &str = "no PID namespaces here: tool processes are contained by dcl's \
        Job Object, which ends them when dcl exits";

    static SUPPORT: OnceLock<Support> = OnceLock::new();

    pub fn support() -> &'static Support {
        SUPPORT.get_or_init(|| Support {
            namespaces: false,
            proc_mount: false,
            network_ns: false,
            hide_mounts: false,
            ipc_ns: false,
            read_only_root: false,
            seccomp: false,
            landlock_abi: 0,
            missing: vec![MISSING.to_string()],
        })
    }

    pub fn known() -> Option<&'static Support> {
        SUPPORT.get()
    }
}

/// `PR_SET_CHILD_SUBREAPER` is Linux's: the fallback is off elsewhere.
pub mod subreaper {
    pub fn use_as_fallback() {}

    pub fn active() -> bool {
        false
    }

    pub fn become_subreaper() -> bool {
        false
    }

    pub fn kill_adopted() {}
}
