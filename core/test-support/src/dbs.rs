//! Real Postgres and Redis servers for tests: each starts on 127.0.0.1 on a free port in
//! a temp dir, and is stopped (and its dir removed) when dropped. Postgres refuses to run
//! as root, so as root `initdb` and `postgres` run as `nobody` through `runuser`.
//!
//! When the binaries are missing, [`PgServer::start`] / [`RedisServer::start`] return
//! `None` after printing a loud notice, so a developer without them still runs the rest;
//! under `CI=true` they panic instead: CI (`.ci/run`) installs them, and a store test that
//! silently skipped there would prove nothing.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free port on 127.0.0.1 (the listener is closed before the server binds it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn missing(what: &str) {
    let msg = format!(
        "\n*** {what} is not installed: the session store tests that need it are SKIPPED. \
         Install it (apt-get install -y postgresql redis-server; .ci/run does) to run them. ***\n"
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}(CI=true: refusing to skip)");
    }
    eprintln!("{msg}");
}

/// `name` on PATH, else in Debian's versioned Postgres folder.
fn find_binary(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|r| {
            r.flatten()
                .map(|d| d.path().join("bin").join(name))
                .collect()
        })
        .unwrap_or_default();
    debian.sort();
    debian.reverse();
    on_path.into_iter().chain(debian).find(|p| p.is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs `bin` as `nobody` when we are root (Postgres will not run as root).
fn as_db_user(bin: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "nobody", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

fn give_to_nobody(path: &Path) {
    if !is_root() {
        return;
    }
    let ids = |flag: &str| {
        Command::new("id")
            .args([flag, "nobody"])
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<u32>()
                    .ok()
            })
    };
    if let Err(e) = std::os::unix::fs::chown(path, ids("-u"), ids("-g")) {
        panic!("cannot hand {} to nobody: {e}", path.display());
    }
}

fn wait_for_port(port: u16, child: &mut Child, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited at start-up: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not listen on 127.0.0.1:{port} within 30 s");
}

/// Stops a server child: a polite signal, then a kill after 10 s.
fn stop_child(child: &mut Child, signal: &str) {
    let _ = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A Postgres server of its own (superuser `dcl`, trust auth on 127.0.0.1 only).
pub struct PgServer {
    dir: tempfile::TempDir,
    port: u16,
    postgres: PathBuf,
    child: Option<Child>,
}

impl PgServer {
    /// `None` (after a loud notice) when Postgres is not installed and `CI` is not `true`.
    pub fn start() -> Option<PgServer> {
        let (Some(initdb), Some(postgres)) = (find_binary("initdb"), find_binary("postgres"))
        else {
            missing("Postgres (initdb, postgres)");
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("dcl-pg-")
            .tempdir()
            .unwrap_or_else(|e| panic!("temp dir: {e}"));
        give_to_nobody(dir.path());
        let data = dir.path().join("data");
        let out = as_db_user(&initdb)
            .args(["-U", "dcl", "--auth=trust", "--no-sync", "-E", "UTF8", "-D"])
            .arg(&data)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run initdb: {e}"));
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut s = PgServer {
            dir,
            port: free_port(),
            postgres,
            child: None,
        };
        s.resume();
        Some(s)
    }

    /// postgres://dcl@127.0.0.1:<port>/postgres, without TLS.
    pub fn url(&self) -> String {
        format!(
            "postgres://dcl@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }

    /// Stops the server (fast shutdown); [`PgServer::resume`] starts it again on the same
    /// port and data.
    pub fn stop(&mut self) {
        let Some(mut c) = self.child.take() else {
            return;
        };
        // The child may be `runuser`, which does not pass signals on: signal the
        // postmaster itself (its pid heads postmaster.pid), fast shutdown.
        let pid = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid"))
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string));
        if let Some(pid) = pid {
            let _ = Command::new("kill").args(["-INT", &pid]).status();
        }
        stop_child(&mut c, "-INT");
    }

    pub fn resume(&mut self) {
        if self.child.is_some() {
            return;
        }
        let log = std::fs::File::create(self.dir.path().join("log"))
            .unwrap_or_else(|e| panic!("postgres log: {e}"));
        give_to_nobody(&self.dir.path().join("log"));
        let mut child = as_db_user(&self.postgres)
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-p", &self.port.to_string(), "-h", "127.0.0.1", "-k"])
            .arg(self.dir.path())
            .args([
                "-c",
                "fsync=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=50",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start postgres: {e}"));
        wait_for_port(self.port, &mut child, "postgres");
        self.child = Some(child);
        // Listening is not yet accepting queries; give start-up recovery a moment.
        std::thread::sleep(Duration::from_millis(300));
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A redis-server of its own, persisting to an append-only file in its temp dir.
pub struct RedisServer {
    dir: tempfile::TempDir,
    port: u16,
    bin: PathBuf,
    child: Option<Child>,
}

impl RedisServer {
    /// `None` (after a loud notice) when redis-server is not installed and `CI` is not
    /// `true`.
    pub fn start() -> Option<RedisServer> {
        let Some(bin) = find_binary("redis-server") else {
            missing("redis-server");
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("dcl-redis-")
            .tempdir()
            .unwrap_or_else(|e| panic!("temp dir: {e}"));
        let mut s = RedisServer {
            dir,
            port: free_port(),
            bin,
            child: None,
        };
        s.resume();
        Some(s)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            stop_child(&mut c, "-TERM");
        }
    }

    pub fn resume(&mut self) {
        if self.child.is_some() {
            return;
        }
        let mut child = Command::new(&self.bin)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            // Kept on disk (AOF, synced per write) so a stop and restart loses nothing, as
            // a production Redis holding sessions must be configured.
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .args(["--daemonize", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
        wait_for_port(self.port, &mut child, "redis-server");
        self.child = Some(child);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
