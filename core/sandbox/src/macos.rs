//! The macOS backend: containment by process group (the caller puts every tool process
//! in its own group and kills the group when the call or session ends; macOS has no PID
//! namespaces), and the sandbox through Seatbelt — the shell runs under
//! `/usr/bin/sandbox-exec -p <profile>`, the profile written by [`seatbelt::profile`]
//! from the same settings the Linux backend enforces. The proxy to
//! `network.allowedDomains` is the same one, reached through a relay on the loopback
//! (the only address the profile lets a command connect to).

use std::ffi::OsStr;
use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::thread;

use crate::liveness::Scope;
use crate::settings::{self, SandboxSettings};
use crate::{Applied, SandboxError, proxy, seatbelt, tempdir};

/// Apple's `sandbox-exec`: present on every macOS release (deprecated in its man page
/// since 10.12, and still what the reference CLI's sandbox runs).
const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// A session's sandbox: the Seatbelt policy for Bash and background shells.
#[derive(Debug)]
pub struct Sandbox {
    settings: SandboxSettings,
    write_dirs: Vec<PathBuf>,
    hidden: Vec<PathBuf>,
    unix_sockets: Vec<PathBuf>,
    proxy: Option<proxy::Proxy>,
    /// The loopback port the relay to the proxy listens on.
    relay_port: Option<u16>,
    dir: tempdir::SessionDir,
    warnings: Vec<String>,
}

impl Sandbox {
    /// Prepares the sandbox for a session in `cwd` (writable, with `add_dirs`), reading
    /// the deny list against `home`.
    pub fn new(
        settings: SandboxSettings,
        cwd: &Path,
        add_dirs: &[PathBuf],
        home: Option<&Path>,
    ) -> Result<Sandbox, SandboxError> {
        let mut warnings: Vec<String> = settings
            .not_acted_on
            .iter()
            .map(|k| format!("sandbox.{k} is accepted but not acted on"))
            .collect();
        let mut missing = Vec::new();
        if !Path::new(SANDBOX_EXEC).exists() {
            missing.push(format!(
                "sandbox: {SANDBOX_EXEC} is missing, so commands run without Seatbelt"
            ));
        }
        let dir = tempdir::SessionDir::create().map_err(SandboxError::TempDir)?;
        let mut write_dirs = vec![cwd.to_path_buf()];
        write_dirs.extend(add_dirs.iter().cloned());
        write_dirs.extend(settings.allow_write_paths(home));
        write_dirs.push(dir.tmp().to_path_buf());
        // Seatbelt matches real paths (/tmp is /private/tmp).
        let write_dirs: Vec<PathBuf> = write_dirs
            .into_iter()
            .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
            .collect();
        let mut hidden = Vec::new();
        for path in settings.deny_read_paths(home) {
            let real = std::fs::canonicalize(&path).unwrap_or(path);
            if write_dirs.iter().any(|w| w.starts_with(&real)) {
                warnings.push(format!(
                    "sandbox: {} is read-denied but holds a writable directory; it stays \
                     readable",
                    real.display()
                ));
                continue;
            }
            // Denied whether or not it exists yet: a rule costs nothing.
            hidden.push(real);
        }
        let unix_sockets = settings
            .allow_unix_sockets
            .iter()
            .filter_map(|p| settings::expand_path(p, home))
            .collect();
        let (mut proxy, mut relay_port) = (None, None);
        if !settings.allowed_domains.is_empty() {
            let sock = dir.path().join("proxy.sock");
            let started =
                proxy::Proxy::start(proxy::AllowList::new(&settings.allowed_domains), &sock, 0)
                    .and_then(|p| relay(&sock).map(|port| (p, port)));
            match started {
                Ok((p, port)) => {
                    proxy = Some(p);
                    relay_port = Some(port);
                }
                Err(e) => warnings.push(format!(
                    "sandbox: the proxy for network.allowedDomains did not start ({e}); the \
                     network stays off"
                )),
            }
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
            hidden,
            unix_sockets,
            proxy,
            relay_port,
            dir,
            warnings,
        })
    }

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    /// The private temp dir (`TMPDIR` inside the sandbox).
    pub fn temp_dir(&self) -> &Path {
        self.dir.tmp()
    }

    /// Where sandboxed commands may write.
    pub fn write_dirs(&self) -> &[PathBuf] {
        &self.write_dirs
    }

    /// The read-denied paths.
    pub fn hidden(&self) -> &[PathBuf] {
        &self.hidden
    }

    /// What the sandbox could not do here, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The variables a sandboxed command gets: its temp dir, and the proxy when there
    /// is one.
    pub fn env(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        let t = self.dir.tmp().as_os_str();
        let mut env = vec![("TMPDIR", t.into()), ("TMP", t.into()), ("TEMP", t.into())];
        if let Some(port) = self.relay_port {
            let url = std::ffi::OsString::from(format!("http://127.0.0.1:{port}"));
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

    /// The loopback port of the proxy to `network.allowedDomains`, when there is one.
    pub fn proxy_port(&self) -> Option<u16> {
        self.proxy.as_ref().and(self.relay_port)
    }

    /// Whether `command` runs sandboxed (see the Linux backend's twin).
    pub fn covers(&self, command: &str, disable_requested: bool) -> bool {
        if self.settings.is_excluded(command) {
            return false;
        }
        !(disable_requested && self.settings.allow_unsandboxed_commands)
    }

    /// The Seatbelt policy of this sandbox.
    pub fn policy(&self) -> seatbelt::Policy {
        seatbelt::Policy {
            write_dirs: self.write_dirs.clone(),
            deny_read: self.hidden.clone(),
            proxy_port: self.proxy_port(),
            unix_sockets: self.unix_sockets.clone(),
        }
    }
}

/// Relays loopback connections to the proxy's unix socket (the profile allows no unix
/// socket but those named in `allowUnixSockets`); returns the port.
fn relay(sock: &Path) -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = listener.local_addr()?.port();
    let sock = sock.to_path_buf();
    thread::Builder::new()
        .name("dcl-proxy-relay".into())
        .spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let sock = sock.clone();
                let _ = thread::Builder::new().spawn(move || pipe(conn, &sock));
            }
        })?;
    Ok(port)
}

fn pipe(tcp: TcpStream, sock: &Path) -> io::Result<()> {
    let unix = UnixStream::connect(sock)?;
    let (mut tcp_r, mut unix_w) = (tcp.try_clone()?, unix.try_clone()?);
    let up = thread::spawn(move || {
        let _ = io::copy(&mut tcp_r, &mut unix_w);
        let _ = unix_w.shutdown(std::net::Shutdown::Write);
    });
    let (mut unix_r, mut tcp_w) = (unix, tcp);
    let _ = io::copy(&mut unix_r, &mut tcp_w);
    let _ = tcp_w.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
    Ok(())
}

/// The command that runs `shell`: under `sandbox-exec` with this sandbox's profile when
/// there is one (and the tool is there), else the shell itself.
pub fn shell_command(shell: &OsStr, sandbox: Option<&Sandbox>) -> std::process::Command {
    match sandbox {
        Some(sb) if Path::new(SANDBOX_EXEC).exists() => {
            let mut cmd = std::process::Command::new(SANDBOX_EXEC);
            cmd.arg("-p")
                .arg(seatbelt::profile(&sb.policy()))
                .arg(shell);
            cmd
        }
        _ => std::process::Command::new(shell),
    }
}

static WARN_ONCE: Once = Once::new();

/// Gives a sandboxed command its environment; containment is the caller's process
/// group (macOS has no PID namespaces, so a command that calls `setsid` can leave it).
pub fn apply(cmd: &mut std::process::Command, sandbox: Option<&Sandbox>) -> Applied {
    WARN_ONCE.call_once(|| {
        for m in &probe::support().missing {
            tracing::warn!("containment: {m}");
        }
    });
    if let Some(sb) = sandbox {
        for (k, v) in sb.env() {
            cmd.env(k, v);
        }
        if sb.proxy.is_some() {
            cmd.env_remove("NO_PROXY").env_remove("no_proxy");
        }
    }
    Applied::ProcessGroup
}

/// As [`apply`]: a process group has no lingering namespace to keep, so `scope` has
/// nothing to hold.
pub fn apply_scoped(
    cmd: &mut std::process::Command,
    sandbox: Option<&Sandbox>,
    _scope: &Scope,
) -> Applied {
    apply(cmd, sandbox)
}

pub use crate::other_os::{probe, subreaper};
