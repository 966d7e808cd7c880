//! Containment of every tool process dcl starts, and the OS sandbox for Bash.
//!
//! [`apply`] hooks a `Command` so that it runs as PID 1 of its own PID namespace (inside
//! a user namespace, so no privilege is needed), watched by a keeper process outside it.
//! When the command exits, when the keeper is killed (dcl's process-group kill at the end
//! of a call or session), or when the process hosting dcl dies by any signal, the
//! namespace's init dies and the kernel kills everything left inside: `setsid`, `nohup`,
//! double forks included. With a [`Sandbox`], the same child also gets a mount namespace
//! hiding the read-denied paths, a network namespace (network off) and a landlock domain
//! allowing writes only in the working directory, `--add-dir`s and a private temp dir.
//!
//! Mechanisms are chosen at run time by what works here ([`probe::support`]); each one
//! that is missing is named in a warning and the rest still apply.

mod child;
mod explain;
mod ids;
mod liveness;
pub mod probe;
pub mod proxy;
mod rules;
pub mod settings;
pub mod subreaper;
mod syscalls;

use std::ffi::CString;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

pub use explain::sandbox_note;
pub use liveness::Scope;
pub use settings::{SandboxSettings, SettingsError};

/// Setting up a session's sandbox failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot create the sandbox's private temp dir: {0}")]
    TempDir(std::io::Error),
}

/// A session's sandbox: what Bash and background shells are confined to.
#[derive(Debug)]
pub struct Sandbox {
    settings: SandboxSettings,
    write_dirs: Vec<PathBuf>,
    hidden: Vec<PathBuf>,
    hide_dirs: Vec<CString>,
    hide_files: Vec<CString>,
    network_ns: bool,
    ruleset: Option<OwnedFd>,
    seccomp: Option<Arc<seccompiler::BpfProgram>>,
    /// The way out to `network.allowedDomains`, when they name any.
    proxy: Option<proxy::Proxy>,
    tmp: tempfile::TempDir,
    warnings: Vec<String>,
}

impl Sandbox {
    /// Prepares the sandbox for a session in `cwd` (writable, with `add_dirs`), reading
    /// the deny list against `home`. Missing mechanisms become [`Sandbox::warnings`].
    pub fn new(
        settings: SandboxSettings,
        cwd: &Path,
        add_dirs: &[PathBuf],
        home: Option<&Path>,
    ) -> Result<Sandbox, SandboxError> {
        let support = probe::support();
        let mut warnings = Vec::new();
        for key in &settings.not_acted_on {
            warnings.push(format!("sandbox.{key} is accepted but not acted on"));
        }
        let tmp = tempfile::Builder::new()
            .prefix("dcl-sandbox-tmp-")
            .tempdir()
            .map_err(SandboxError::TempDir)?;
        let mut write_dirs = vec![cwd.to_path_buf()];
        write_dirs.extend(add_dirs.iter().cloned());
        write_dirs.extend(settings.allow_write_paths(home));
        write_dirs.push(tmp.path().to_path_buf());
        let write_dirs: Vec<PathBuf> = write_dirs
            .into_iter()
            .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
            .collect();

        let (mut hidden, mut hide_dirs, mut hide_files) = (Vec::new(), Vec::new(), Vec::new());
        for path in settings.deny_read_paths(home) {
            let Ok(real) = std::fs::canonicalize(&path) else {
                continue; // Nothing there to read.
            };
            if write_dirs.iter().any(|w| w.starts_with(&real)) {
                warnings.push(format!(
                    "sandbox: {} is read-denied but holds a writable directory; it stays \
                     readable",
                    real.display()
                ));
                continue;
            }
            let Ok(c) = CString::new(real.as_os_str().as_bytes()) else {
                continue;
            };
            if real.is_dir() {
                hide_dirs.push(c);
            } else {
                hide_files.push(c);
            }
            hidden.push(real);
        }
        if !hidden.is_empty() && !support.hide_mounts {
            warnings.push(
                "sandbox: mount namespaces are unavailable, so read-denied paths (~/.ssh, \
                 ~/.aws, …) stay readable"
                    .to_string(),
            );
            hide_dirs.clear();
            hide_files.clear();
        }
        let mut network_ns = support.network_ns;
        let mut proxy = None;
        if !settings.allowed_domains.is_empty() {
            // The proxy runs in dcl's own network; a command reaches it only outside a
            // network namespace, so landlock's TCP rules must be what confines it.
            if support.landlock_abi >= 4 {
                match proxy::Proxy::start(proxy::AllowList::new(&settings.allowed_domains)) {
                    Ok(p) => {
                        proxy = Some(p);
                        network_ns = false;
                    }
                    Err(e) => warnings.push(format!(
                        "sandbox: the proxy for network.allowedDomains did not start ({e}); the network stays off"
                    )),
                }
            } else {
                warnings.push(
                    "sandbox: network.allowedDomains needs landlock TCP rules (ABI 4), which this kernel lacks; the network stays off"
                        .to_string(),
                );
            }
        }
        let (ruleset, ruleset_warnings) = rules::build(
            &write_dirs,
            support.landlock_abi,
            !network_ns,
            proxy.as_ref().map(proxy::Proxy::port),
        );
        warnings.extend(ruleset_warnings);
        let inet = match (&proxy, network_ns) {
            (Some(_), _) => syscalls::Inet::StreamOnly,
            (None, true) => syscalls::Inet::Any,
            (None, false) => syscalls::Inet::Off,
        };
        let seccomp = match syscalls::build(inet) {
            Ok(p) => Some(Arc::new(p)),
            Err(e) => {
                warnings.push(format!("sandbox: no seccomp filter ({e})"));
                None
            }
        };
        if !network_ns && seccomp.is_none() && ruleset.as_ref().is_none_or(|r| !r.blocks_tcp) {
            warnings.push(
                "sandbox: no network namespace, seccomp filter or landlock TCP rules here, \
                 so the network stays on"
                    .to_string(),
            );
        }
        for w in &warnings {
            tracing::warn!("{w}");
        }
        Ok(Sandbox {
            settings,
            write_dirs,
            hidden,
            hide_dirs,
            hide_files,
            network_ns,
            ruleset: ruleset.map(|r| r.fd),
            seccomp,
            proxy,
            tmp,
            warnings,
        })
    }

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    /// The private temp dir (`TMPDIR` inside the sandbox); removed with the sandbox.
    pub fn temp_dir(&self) -> &Path {
        self.tmp.path()
    }

    /// Where sandboxed commands may write.
    pub fn write_dirs(&self) -> &[PathBuf] {
        &self.write_dirs
    }

    /// The read-denied paths that exist (and are hidden).
    pub fn hidden(&self) -> &[PathBuf] {
        &self.hidden
    }

    /// What the sandbox could not do here, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The variables a sandboxed command gets on top of its environment: its temp dir,
    /// and the proxy to `network.allowedDomains` when there is one.
    pub fn env(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        let t = self.tmp.path().as_os_str();
        let mut env = vec![("TMPDIR", t.into()), ("TMP", t.into()), ("TEMP", t.into())];
        if let Some(p) = &self.proxy {
            let url = std::ffi::OsString::from(p.url());
            for k in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
            ] {
                env.push((k, url.clone()));
            }
        }
        env
    }

    /// The port of the proxy to `network.allowedDomains`, when there is one.
    pub fn proxy_port(&self) -> Option<u16> {
        self.proxy.as_ref().map(proxy::Proxy::port)
    }

    /// Whether `command` runs sandboxed: not when `excludedCommands` names it, or when
    /// the call asked for `dangerouslyDisableSandbox` and `allowUnsandboxedCommands` lets it.
    pub fn covers(&self, command: &str, disable_requested: bool) -> bool {
        if self.settings.is_excluded(command) {
            return false;
        }
        !(disable_requested && self.settings.allow_unsandboxed_commands)
    }
}

/// How [`apply`] confined a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Its own PID namespace: nothing it starts outlives it.
    Namespace,
    /// Namespaces are unavailable: its process group (and the keeper's kill on dcl's
    /// death) only.
    ProcessGroup,
}

static WARN_ONCE: Once = Once::new();

/// Hooks `cmd` (before `spawn`) so it is contained, and sandboxed when `sandbox` is
/// given: the command is PID 1 of its own namespace, so everything it starts ends when
/// it exits. The caller still puts it in its own process group and kills that group
/// when the call or session ends: that kill reaches the keeper and so the namespace.
pub fn apply(cmd: &mut std::process::Command, sandbox: Option<&Sandbox>) -> Applied {
    hook(cmd, sandbox, None)
}

/// As [`apply`], but what the command leaves running with its output redirected (a
/// `nohup server > log &`) lives on in the namespace until `scope` is dropped (the
/// session ends), the caller kills the process group, or dcl dies.
pub fn apply_scoped(
    cmd: &mut std::process::Command,
    sandbox: Option<&Sandbox>,
    scope: &Scope,
) -> Applied {
    hook(cmd, sandbox, Some(scope))
}

fn hook(
    cmd: &mut std::process::Command,
    sandbox: Option<&Sandbox>,
    scope: Option<&Scope>,
) -> Applied {
    let support = probe::support();
    WARN_ONCE.call_once(|| {
        for m in &support.missing {
            tracing::warn!("containment: {m}");
        }
    });
    let mut plan = child::Plan {
        namespaces: support.namespaces,
        uid_map: ids::uid_map(),
        gid_map: ids::gid_map(),
        mount_proc: support.proc_mount,
        liveness_fd: liveness::read_fd(),
        lingering: scope.is_some(),
        scope_fd: scope.map(Scope::read_fd),
        ..child::Plan::default()
    };
    if let Some(sb) = sandbox {
        plan.network_ns = sb.network_ns && support.namespaces;
        plan.hide_dirs = sb.hide_dirs.clone();
        plan.hide_files = sb.hide_files.clone();
        plan.landlock_fd = sb.ruleset.as_ref().map(|fd| fd.as_raw_fd());
        plan.seccomp = sb.seccomp.clone();
        for (k, v) in sb.env() {
            cmd.env(k, v);
        }
        if sb.proxy.is_some() {
            // Every host goes through the proxy, which checks it; nothing bypasses it.
            cmd.env_remove("NO_PROXY").env_remove("no_proxy");
        }
    }
    let applied = if plan.namespaces {
        Applied::Namespace
    } else {
        Applied::ProcessGroup
    };
    let plan = Arc::new(plan);
    // SAFETY: `run_in_child` makes only async-signal-safe system calls on data formatted
    // here; the descriptors it names (landlock ruleset, scope and liveness pipes) stay
    // open in the parent for as long as `spawn` runs, because the caller holds their
    // owners (`sandbox`, `scope`, the process-wide pipe).
    unsafe {
        cmd.pre_exec(move || plan.run_in_child());
    }
    applied
}
