//! The Windows backend. Containment: the first tool process puts dcl's own process in a
//! Job Object that kills every process in it when its last handle closes; processes
//! started afterwards are in the job too (Windows puts children in their parent's job),
//! so whatever a tool starts ends when dcl ends, however it ends. There is no OS
//! sandbox: `sandbox.enabled` warns once and commands run unconfined (never announced as
//! sandboxed: [`Sandbox::covers`] is false), `sandbox.failIfUnavailable` refuses, as the
//! reference CLI does on Windows.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use crate::settings::SandboxSettings;
use crate::{Applied, SandboxError};

pub use crate::other_os::{probe, subreaper};

const NO_SANDBOX: &str = "sandbox: Windows has no OS sandbox dcl can use (no Seatbelt, \
    namespaces or landlock), so Bash commands run unconfined";

static WARNED: Once = Once::new();

/// The session's sandbox settings; nothing is enforced on Windows.
#[derive(Debug)]
pub struct Sandbox {
    settings: SandboxSettings,
    write_dirs: Vec<PathBuf>,
    dir: tempfile::TempDir,
    warnings: Vec<String>,
}

impl Sandbox {
    /// Refuses under `sandbox.failIfUnavailable`; otherwise warns (once per process) that
    /// nothing is confined.
    pub fn new(
        settings: SandboxSettings,
        cwd: &Path,
        add_dirs: &[PathBuf],
        _home: Option<&Path>,
    ) -> Result<Sandbox, SandboxError> {
        if settings.fail_if_unavailable {
            return Err(SandboxError::Unavailable(vec![NO_SANDBOX.to_string()]));
        }
        WARNED.call_once(|| tracing::warn!("{NO_SANDBOX}"));
        let dir = tempfile::Builder::new()
            .prefix("dcl-sandbox-")
            .tempdir()
            .map_err(SandboxError::TempDir)?;
        let mut write_dirs = vec![cwd.to_path_buf()];
        write_dirs.extend(add_dirs.iter().cloned());
        Ok(Sandbox {
            settings,
            write_dirs,
            dir,
            warnings: vec![NO_SANDBOX.to_string()],
        })
    }

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    pub fn temp_dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn write_dirs(&self) -> &[PathBuf] {
        &self.write_dirs
    }

    pub fn hidden(&self) -> &[PathBuf] {
        &[]
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn env(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        Vec::new()
    }

    pub fn proxy_port(&self) -> Option<u16> {
        None
    }

    /// Never: there is nothing to run a command in.
    pub fn covers(&self, _command: &str, _disable_requested: bool) -> bool {
        false
    }
}

/// Nothing to remove: each sandbox's temp dir goes with it.
pub fn remove_temp_dirs() {}

/// A session's lifetime for what its commands leave running; the Job Object already
/// ends those with dcl, so there is nothing to hold.
#[derive(Debug)]
pub struct Scope(());

impl Scope {
    pub fn new() -> std::io::Result<Scope> {
        Ok(Scope(()))
    }
}

pub fn shell_command(shell: &OsStr, _sandbox: Option<&Sandbox>) -> std::process::Command {
    std::process::Command::new(shell)
}

/// Makes sure dcl is in its kill-on-close Job Object before `cmd` starts, so the command
/// and everything it starts end with dcl.
pub fn apply(_cmd: &mut std::process::Command, _sandbox: Option<&Sandbox>) -> Applied {
    if job::enter() {
        Applied::JobObject
    } else {
        Applied::ProcessGroup
    }
}

pub fn apply_scoped(
    cmd: &mut std::process::Command,
    sandbox: Option<&Sandbox>,
    _scope: &Scope,
) -> Applied {
    apply(cmd, sandbox)
}

mod job {
    use super::OnceLock;
    use windows_sys::Win32::Foundation::HANDLE;
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject,
    };
    use windows_sys::Win32::System::Threading::GetCurrentProcess;

    /// The job's handle, kept open for the life of the process (its close at exit is
    /// what kills the rest).
    struct Job {
        _handle: HANDLE,
    }
    // SAFETY: a job handle is a kernel object reference usable from any thread.
    unsafe impl Send for Job {}
    // SAFETY: as above; it is never written after creation.
    unsafe impl Sync for Job {}

    static JOB: OnceLock<Option<Job>> = OnceLock::new();

    /// Whether dcl is in its job (made on first call).
    pub(super) fn enter() -> bool {
        JOB.get_or_init(|| match create() {
            Ok(job) => Some(job),
            Err(e) => {
                tracing::warn!("containment: no Job Object ({e}); tool processes may outlive dcl");
                None
            }
        })
        .is_some()
    }

    fn create() -> std::io::Result<Job> {
        // SAFETY: plain Win32 calls on a handle we own and a zeroed plain-data struct.
        unsafe {
            let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
            if job.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
            info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            let ok = SetInformationJobObject(
                job,
                JobObjectExtendedLimitInformation,
                (&raw const info).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            );
            if ok == 0 {
                return Err(std::io::Error::last_os_error());
            }
            if AssignProcessToJobObject(job, GetCurrentProcess()) == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(Job { _handle: job })
        }
    }
}
