//! The sandbox's mechanisms, each with an attack and its positive twin (the same
//! command outside the sandbox does what the sandbox refuses).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod common;

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use dcl_sandbox::{Sandbox, SandboxSettings};

struct Fixture {
    _root: tempfile::TempDir,
    home: std::path::PathBuf,
    cwd: std::path::PathBuf,
    outside: std::path::PathBuf,
    sandbox: Sandbox,
}

fn fixture() -> Option<Fixture> {
    let s = dcl_sandbox::probe::support();
    if !s.namespaces || s.landlock_abi < 1 || !s.hide_mounts || !s.network_ns {
        eprintln!("SKIP: the sandbox's mechanisms are not all available here: {s:?}");
        return None;
    }
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let cwd = root.path().join("project");
    let outside = root.path().join("outside");
    for d in [&home, &cwd, &outside] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL").unwrap();
    std::fs::write(home.join(".netrc"), "machine x password hunter2").unwrap();
    let settings = SandboxSettings {
        enabled: true,
        ..Default::default()
    };
    let sandbox = Sandbox::new(settings, &cwd, &[], Some(&home)).unwrap();
    assert_eq!(sandbox.warnings(), &[] as &[String]);
    Some(Fixture {
        _root: root,
        home,
        cwd,
        outside,
        sandbox,
    })
}

fn run(f: &Fixture, script: &str, sandboxed: bool) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(&f.cwd)
        .env("HOME", &f.home)
        .stdin(Stdio::null())
        .process_group(0);
    dcl_sandbox::apply(&mut cmd, sandboxed.then_some(&f.sandbox));
    cmd.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn writes_outside_the_working_directory_are_refused() {
    let Some(f) = fixture() else { return };
    let target = f.outside.join("escaped.txt");
    let script = format!("echo x > {}", target.display());
    let o = run(&f, &script, true);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("Permission denied"), "{}", text(&o));
    assert!(!target.exists());
    // Twin: the same command unsandboxed writes the file.
    assert!(run(&f, &script, false).status.success());
    assert!(target.exists());
}

#[test]
fn writes_inside_and_in_the_private_temp_dir_work() {
    let Some(f) = fixture() else { return };
    let o = run(
        &f,
        "mkdir -p sub && echo hi > sub/a && mv sub/a sub/b && rm sub/b && \
         t=$(mktemp) && echo y > \"$t\" && echo ok:$TMPDIR",
        true,
    );
    assert!(o.status.success(), "{}", text(&o));
    let expected = format!("ok:{}", f.sandbox.temp_dir().display());
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), expected);
    // /dev/null stays writable, /dev/shm (shared with the host) does not.
    let o = run(
        &f,
        "echo a > /dev/null && echo b > /dev/shm/dcl-sb-test",
        true,
    );
    assert!(!o.status.success());
    assert!(!Path::new("/dev/shm/dcl-sb-test").exists());
}

#[test]
fn credential_paths_read_as_empty() {
    let Some(f) = fixture() else { return };
    let o = run(&f, "cat ~/.ssh/id_rsa; cat ~/.netrc; ls -A ~/.ssh", true);
    assert!(!text(&o).contains("PRIVATE-KEY-MATERIAL"), "{}", text(&o));
    assert!(!text(&o).contains("hunter2"), "{}", text(&o));
    // And cannot be unmasked from inside.
    let o = run(&f, "umount ~/.ssh; cat ~/.ssh/id_rsa", true);
    assert!(!text(&o).contains("PRIVATE-KEY-MATERIAL"), "{}", text(&o));
    // Twin.
    let o = run(&f, "cat ~/.ssh/id_rsa", false);
    assert!(text(&o).contains("PRIVATE-KEY-MATERIAL"));
}

#[test]
fn another_process_environment_is_not_readable() {
    let Some(f) = fixture() else { return };
    // A stand-in for dcl: a process outside the sandbox holding a key in its environment.
    let mut holder = Command::new("sleep")
        .arg("30")
        .env("ANTHROPIC_API_KEY", "sk-ant-planted-4711")
        .spawn()
        .unwrap();
    let script = format!(
        "cat /proc/{pid}/environ; cat /proc/$PPID/environ; \
         for p in /proc/[0-9]*; do cat $p/environ; done",
        pid = holder.id()
    );
    let o = run(&f, &script, true);
    // Twin: not even contained (a contained process has its own /proc), dcl's view.
    let twin = Command::new("cat")
        .arg(format!("/proc/{}/environ", holder.id()))
        .output()
        .unwrap();
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!text(&o).contains("sk-ant-planted-4711"), "{}", text(&o));
    assert!(String::from_utf8_lossy(&twin.stdout).contains("sk-ant-planted-4711"));
}

#[test]
fn the_network_is_off() {
    let Some(f) = fixture() else { return };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let py = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3); print(\"connected\")'"
    );
    let o = run(&f, &py, true);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("connected\n"));
    let curl = format!("curl -sS -m 3 http://127.0.0.1:{port}/");
    let o = run(&f, &curl, true);
    assert!(!o.status.success());
    assert!(
        dcl_sandbox::sandbox_note(&f.sandbox, &text(&o)).is_some(),
        "{}",
        text(&o)
    );
    // Twin: unsandboxed, the same connect succeeds.
    let o = run(&f, &py, false);
    assert!(text(&o).contains("connected"), "{}", text(&o));
}

#[test]
fn excluded_and_disabled_commands_are_not_covered() {
    let Some(mut f) = fixture() else { return };
    let settings = SandboxSettings {
        enabled: true,
        excluded_commands: vec!["docker".into()],
        allow_unsandboxed_commands: false,
        ..Default::default()
    };
    f.sandbox = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    assert!(!f.sandbox.covers("docker ps", false));
    assert!(f.sandbox.covers("ls", false));
    // allowUnsandboxedCommands: false ignores dangerouslyDisableSandbox.
    assert!(f.sandbox.covers("ls", true));
    let open = Sandbox::new(SandboxSettings::default(), &f.cwd, &[], None).unwrap();
    assert!(!open.covers("ls", true));
}

#[test]
fn the_namespace_loopback_works_for_the_command_itself() {
    let Some(f) = fixture() else { return };
    let script = "python3 -c '
import socket
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), 3); print(\"local ok\")'";
    let o = run(&f, script, true);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("local ok"));
}

#[test]
fn other_processes_cannot_be_traced() {
    let Some(f) = fixture() else { return };
    // PTRACE_ATTACH (16) to a child of the shell, then PTRACE_DETACH (17).
    let script = "sleep 30 & python3 -c 'import ctypes, os, sys; \
         l = ctypes.CDLL(None, use_errno=True); p = int(sys.argv[1]); \
         r = l.ptrace(16, p, 0, 0); e = ctypes.get_errno(); \
         print(\"attach\", r, os.strerror(e) if r else \"ok\"); r == 0 and l.ptrace(17, p, 0, 0)' $!; \
         kill $!";
    let confined = text(&run(&f, script, true));
    assert!(
        confined.contains("attach -1 Operation not permitted"),
        "{confined}"
    );
    // Twin: contained but not sandboxed, the same attach works.
    let twin = text(&run(&f, script, false));
    assert!(twin.contains("attach 0 ok"), "{twin}");
}

/// A one-line HTTP server on 127.0.0.1 answering every request with `hello`.
fn hello_server() -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let mut seen = Vec::new();
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            }
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n",
            );
        }
    });
    port
}

fn with_domains(f: &mut Fixture, domains: &[&str]) -> bool {
    if dcl_sandbox::probe::support().landlock_abi < 4 {
        eprintln!("SKIP: allowedDomains needs landlock TCP rules (ABI 4)");
        return false;
    }
    let settings = SandboxSettings {
        enabled: true,
        allowed_domains: domains.iter().map(|d| d.to_string()).collect(),
        ..Default::default()
    };
    f.sandbox = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    assert_eq!(f.sandbox.warnings(), &[] as &[String]);
    assert!(f.sandbox.proxy_port().is_some());
    true
}

#[test]
fn an_allowed_host_is_reached_through_the_proxy_and_raw_sockets_still_fail() {
    let Some(mut f) = fixture() else { return };
    if !with_domains(&mut f, &["127.0.0.1"]) {
        return;
    }
    let port = hello_server();
    let o = run(&f, &format!("curl -sS -m 5 http://127.0.0.1:{port}/"), true);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "hello\n",
        "{}",
        text(&o)
    );
    // Going around the proxy: a raw TCP connect, a UDP socket.
    let py = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3); print(\"connected\")'"
    );
    let o = run(&f, &py, true);
    assert!(!text(&o).contains("connected\n"), "{}", text(&o));
    let udp = "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(\"udp\")'";
    let o = run(&f, udp, true);
    assert!(!text(&o).contains("udp\n"), "{}", text(&o));
    // Twin: unsandboxed, the raw connect works.
    assert!(text(&run(&f, &py, false)).contains("connected"));
}

#[test]
fn a_host_not_allowed_is_refused_by_the_proxy_with_a_reason() {
    let Some(mut f) = fixture() else { return };
    if !with_domains(&mut f, &["example.com", "*.crates.io"]) {
        return;
    }
    let port = hello_server();
    let o = run(&f, &format!("curl -sS -m 5 http://127.0.0.1:{port}/"), true);
    let out = text(&o);
    assert!(!out.contains("hello"), "{out}");
    assert!(
        out.contains("not in sandbox.network.allowedDomains"),
        "{out}"
    );
    // HTTPS goes through CONNECT and gets the same refusal.
    let o = run(&f, "curl -sS -m 5 https://localhost:1/", true);
    assert!(!o.status.success(), "{}", text(&o));
}
