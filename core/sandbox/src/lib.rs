//! Containment of every tool process dcl starts, and the OS sandbox for Bash.
//!
//! One backend per OS, chosen at compile time, behind the same items ([`Sandbox`],
//! [`apply`], [`apply_scoped`], [`shell_command`], [`Scope`], [`probe`], [`subreaper`]):
//!
//! - **Linux** (`linux`): [`apply`] hooks a `Command` so that it runs as PID 1 of its own
//!   PID namespace (inside a user namespace, so no privilege is needed), watched by a
//!   keeper process outside it. When the command exits, when the keeper is killed (dcl's
//!   process-group kill at the end of a call or session), or when the process hosting dcl
//!   dies by any signal, the namespace's init dies and the kernel kills everything left
//!   inside: `setsid`, `nohup`, double forks included. With a [`Sandbox`], the same child
//!   also gets a mount namespace where the whole tree is read-only but the working
//!   directory, `--add-dir`s, `allowWrite` dirs and a private temp dir (with the
//!   [`protected`] files inside them read-only again), the read-denied paths hidden; IPC,
//!   UTS and network namespaces (the network is off, or reaches `allowedDomains` through
//!   one relayed proxy endpoint); no capabilities, a session and descriptor table of its
//!   own; a landlock domain allowing writes only in the writable dirs; and a seccomp
//!   filter against what namespaces and landlock cannot express (mounts, io_uring,
//!   TIOCSTI, unix sockets, ptrace). Mechanisms are chosen at run time by what works here
//!   ([`probe::support`]); each one that is missing is named in a warning and the rest
//!   still apply.
//! - **macOS** (`macos`): containment by process group (the caller's `killpg`); the
//!   sandbox is Seatbelt — [`shell_command`] runs the shell under `sandbox-exec` with a
//!   profile [`seatbelt::profile`] writes from the same policy.
//! - **Windows** (`windows`): containment by a Job Object that kills every process in it
//!   when dcl's handle closes; there is no OS sandbox, so `sandbox.enabled` warns once and
//!   `sandbox.failIfUnavailable` refuses.

mod explain;
pub mod group;
pub mod protected;
pub mod seatbelt;
pub mod settings;
pub mod shell;

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod ids;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(unix)]
mod liveness;
#[cfg(target_os = "linux")]
pub mod probe;
#[cfg(unix)]
pub mod proxy;
#[cfg(target_os = "linux")]
mod rules;
#[cfg(target_os = "linux")]
pub mod subreaper;
#[cfg(target_os = "linux")]
mod syscalls;
#[cfg(unix)]
mod tempdir;

#[cfg(target_os = "linux")]
pub use linux::{Sandbox, apply, apply_scoped, shell_command};

#[cfg(target_os = "macos")]
mod macos;
#[cfg(not(target_os = "linux"))]
mod other_os;
#[cfg(target_os = "macos")]
pub use macos::{Sandbox, apply, apply_scoped, probe, shell_command, subreaper};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Sandbox, Scope, apply, apply_scoped, probe, shell_command, subreaper};

pub use explain::sandbox_note;
#[cfg(unix)]
pub use liveness::Scope;
pub use settings::{SandboxSettings, SettingsError};
#[cfg(unix)]
pub use tempdir::remove_temp_dirs;
#[cfg(windows)]
pub use windows::remove_temp_dirs;

/// Setting up a session's sandbox failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot create the sandbox's private temp dir: {0}")]
    TempDir(std::io::Error),
    /// `sandbox.failIfUnavailable` is set and protections are missing here.
    #[error(
        "the sandbox is unavailable here and sandbox.failIfUnavailable is set: {}",
        .0.join("; ")
    )]
    Unavailable(Vec<String>),
}

/// How [`apply`] confined a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Its own PID namespace: nothing it starts outlives it.
    Namespace,
    /// Namespaces are unavailable (or not Linux): its process group (and, on Linux, the
    /// keeper's kill on dcl's death) only.
    ProcessGroup,
    /// Windows: dcl's Job Object, which kills it and what it starts when dcl ends.
    JobObject,
}
