//! The Linux backend: PID namespaces for containment; mount, IPC and network namespaces,
//! landlock and seccomp for the sandbox.

use std::ffi::CString;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

use crate::liveness::Scope;
use crate::settings::{self, SandboxSettings};
use crate::{
    Applied, SandboxError, child, ids, liveness, probe, protected, proxy, rules, syscalls, tempdir,
};

impl Drop for Sandbox {
    fn drop(&mut self) {
        protected::remove_placeholders(&self.placeholders);
    }
}

fn c_path(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_bytes()).ok()
}

/// The in-namespace port of the proxy to `network.allowedDomains` (the namespace is
/// empty, so any port is free; a fixed one keeps `HTTP_PROXY` the same for every call).
const PROXY_PORT: u16 = 3128;

/// A session's sandbox: what Bash and background shells are confined to.
#[derive(Debug)]
pub struct Sandbox {
    settings: SandboxSettings,
    write_dirs: Vec<PathBuf>,
    write_dirs_c: Vec<CString>,
    hidden: Vec<PathBuf>,
    hide_dirs: Vec<CString>,
    hide_files: Vec<CString>,
    network_ns: bool,
    read_only_root: bool,
    isolate_ipc: bool,
    /// The directory bound over /dev/shm in the namespace.
    shm: Option<PathBuf>,
    ruleset: Option<OwnedFd>,
    seccomp: Option<Arc<seccompiler::BpfProgram>>,
    /// The way out to `network.allowedDomains`, when they name any.
    proxy: Option<proxy::Proxy>,
    bridge_socket: Option<PathBuf>,
    /// What the sandbox created to hold read-only (removed at the end while empty).
    placeholders: Vec<PathBuf>,
    dir: tempdir::SessionDir,
    warnings: Vec<String>,
}

impl Sandbox {
    /// Prepares the sandbox for a session in `cwd` (writable, with `add_dirs`), reading
    /// the deny list against `home`. Missing mechanisms become [`Sandbox::warnings`],
    /// or [`SandboxError::Unavailable`] under `sandbox.failIfUnavailable`.
    pub fn new(
        settings: SandboxSettings,
        cwd: &Path,
        add_dirs: &[PathBuf],
        home: Option<&Path>,
    ) -> Result<Sandbox, SandboxError> {
        let support = probe::support();
        let mut warnings = Vec::new();
        // Protections this machine lacks (as opposed to notes about settings).
        let mut missing = Vec::new();
        for key in &settings.not_acted_on {
            warnings.push(format!("sandbox.{key} is accepted but not acted on"));
        }
        if !support.namespaces {
            missing.push(
                "sandbox: user namespaces are unavailable, so there is no read-only view of \
                 the filesystem (chmod, touch and xattrs outside the working directory are \
                 not refused), no private IPC and no network namespace"
                    .to_string(),
            );
        } else {
            if !support.read_only_root {
                missing.push(
                    "sandbox: mount_setattr is unavailable (Linux < 5.12), so the filesystem \
                     is not read-only outside the writable directories: landlock refuses \
                     writes, but not chmod, touch or xattrs"
                        .to_string(),
                );
            }
            if !support.ipc_ns {
                missing.push(
                    "sandbox: IPC namespaces are unavailable, so SysV and POSIX IPC are shared \
                     with the host"
                        .to_string(),
                );
            }
        }
        if !support.seccomp {
            missing.push(
                "sandbox: seccomp filters are unavailable, so mount, io_uring, ptrace, \
                 TIOCSTI and unix sockets are not refused"
                    .to_string(),
            );
        }
        let dir = tempdir::SessionDir::create().map_err(SandboxError::TempDir)?;
        let mut write_dirs = vec![cwd.to_path_buf()];
        write_dirs.extend(add_dirs.iter().cloned());
        // The project roots (cwd, --add-dir) get placeholders; allowWrite dirs and the
        // temp dir only have what exists protected.
        let projects = write_dirs.len();
        write_dirs.extend(settings.allow_write_paths(home));
        write_dirs.push(dir.tmp().to_path_buf());
        let write_dirs: Vec<PathBuf> = write_dirs
            .into_iter()
            .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
            .collect();
        let write_dirs_c: Vec<CString> = write_dirs.iter().filter_map(|d| c_path(d)).collect();
        let read_only_root = support.namespaces && support.read_only_root;
        let placeholders = if read_only_root {
            write_dirs[..projects]
                .iter()
                .flat_map(|d| protected::create_placeholders(d))
                .collect()
        } else {
            Vec::new()
        };

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
            let Some(c) = c_path(&real) else {
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
            missing.push(
                "sandbox: mount namespaces are unavailable, so read-denied paths (~/.ssh, \
                 ~/.aws, …) stay readable"
                    .to_string(),
            );
            hide_dirs.clear();
            hide_files.clear();
        }
        let network_ns = support.network_ns;
        let mut proxy = None;
        let mut bridge_socket = None;
        if !settings.allowed_domains.is_empty() {
            // The proxy is reachable only through one endpoint inside the empty network
            // namespace, relayed over a unix socket: no rule on the host network names it.
            let sock = dir.path().join("proxy.sock");
            if network_ns && child::Bridge::new(PROXY_PORT, &sock).is_none() {
                // A unix socket path has at most 107 bytes.
                warnings.push(format!(
                    "sandbox: the proxy's socket path {} is too long for a unix socket (set a \
                     shorter TMPDIR); the network stays off",
                    sock.display()
                ));
            } else if network_ns {
                match proxy::Proxy::start(
                    proxy::AllowList::new(&settings.allowed_domains),
                    &sock,
                    PROXY_PORT,
                ) {
                    Ok(p) => {
                        proxy = Some(p);
                        bridge_socket = Some(sock);
                    }
                    Err(e) => warnings.push(format!(
                        "sandbox: the proxy for network.allowedDomains did not start ({e}); the network stays off"
                    )),
                }
            } else {
                missing.push(
                    "sandbox: network.allowedDomains needs a network namespace, which is \
                     unavailable here; the network stays off"
                        .to_string(),
                );
            }
        }
        let unix_paths: Vec<PathBuf> = settings
            .allow_unix_sockets
            .iter()
            .filter_map(|p| settings::expand_path(p, home))
            .collect();
        let isolate_ipc = support.namespaces && support.ipc_ns;
        let shm = isolate_ipc.then(|| dir.shm().to_path_buf());
        let (ruleset, ruleset_warnings) = rules::build(
            &write_dirs,
            shm.as_deref(),
            support.landlock_abi,
            !network_ns,
            &unix_paths,
        );
        missing.extend(ruleset_warnings);
        let inet = if network_ns {
            syscalls::Inet::Any
        } else {
            syscalls::Inet::Off
        };
        let seccomp = if support.seccomp {
            match syscalls::build(inet, !unix_paths.is_empty()) {
                Ok(p) => Some(Arc::new(p)),
                Err(e) => {
                    missing.push(format!("sandbox: no seccomp filter ({e})"));
                    None
                }
            }
        } else {
            None
        };
        if !network_ns && seccomp.is_none() && ruleset.as_ref().is_none_or(|r| !r.blocks_tcp) {
            missing.push(
                "sandbox: no network namespace, seccomp filter or landlock TCP rules here, \
                 so the network stays on"
                    .to_string(),
            );
        }
        if settings.fail_if_unavailable && !missing.is_empty() {
            return Err(SandboxError::Unavailable(missing));
        }
        warnings.extend(missing);
        for w in &warnings {
            tracing::warn!("{w}");
        }
        Ok(Sandbox {
            settings,
            write_dirs,
            write_dirs_c,
            hidden,
            hide_dirs,
            hide_files,
            network_ns,
            read_only_root,
            isolate_ipc,
            shm,
            ruleset: ruleset.map(|r| r.fd),
            seccomp,
            proxy,
            bridge_socket,
            placeholders,
            dir,
            warnings,
        })
    }

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    /// The private temp dir (`TMPDIR` inside the sandbox); removed with the sandbox,
    /// by [`remove_temp_dirs`] at exit, or by the next sandbox's sweep if the process
    /// died first.
    pub fn temp_dir(&self) -> &Path {
        self.dir.tmp()
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
        let t = self.dir.tmp().as_os_str();
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

    /// The port of the proxy to `network.allowedDomains` on the namespace's loopback,
    /// when there is one.
    pub fn proxy_port(&self) -> Option<u16> {
        self.proxy.as_ref().map(proxy::Proxy::port)
    }

    /// The directories pinned in place (see [`protected::pinned_in`]) now.
    fn pinned_now(&self) -> Vec<CString> {
        self.write_dirs
            .iter()
            .flat_map(|d| protected::pinned_in(d))
            .filter_map(|p| c_path(&p))
            .collect()
    }

    /// The protected paths (see [`protected`]) that exist now in the writable dirs, and
    /// which of them are symlinks (with whether they lead to a file).
    fn protected_now(&self) -> (Vec<CString>, Vec<(CString, bool)>) {
        let mut links = Vec::new();
        let mut all = Vec::new();
        for p in self
            .write_dirs
            .iter()
            .flat_map(|d| protected::existing_in(d))
        {
            let Some(c) = c_path(&p) else { continue };
            if p.symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                let file = p.metadata().is_ok_and(|m| !m.is_dir());
                links.push((c.clone(), file));
            }
            all.push(c);
        }
        (all, links)
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
        plan.isolate_ipc = sb.isolate_ipc;
        plan.shm_source = sb.shm.as_deref().and_then(c_path);
        plan.read_only_root = sb.read_only_root;
        if sb.read_only_root {
            plan.write_dirs = sb.write_dirs_c.clone();
            plan.write_dirs.extend(plan.shm_source.clone());
            // Looked up per spawn: a `.git` created since the last call is covered.
            plan.pin = sb.pinned_now();
            let (protect, links) = sb.protected_now();
            plan.protect = protect;
            plan.protect_links = links;
        }
        plan.harden = true;
        // A new session only with a PID namespace: without one, the process group is
        // all that contains the command, and setsid would leave it.
        plan.new_session = support.namespaces;
        plan.bridge = match (&sb.proxy, &sb.bridge_socket) {
            (Some(p), Some(sock)) => child::Bridge::new(p.port(), sock),
            _ => None,
        };
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

/// The command that runs `shell` (the sandbox applies in [`apply`]'s hook, so it is the
/// shell itself here).
pub fn shell_command(shell: &std::ffi::OsStr, _sandbox: Option<&Sandbox>) -> std::process::Command {
    std::process::Command::new(shell)
}
