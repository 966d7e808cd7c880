//! The sandbox's mechanisms, each with an attack and its positive twin (the same
//! command outside the sandbox does what the sandbox refuses).

// The Linux backend's mechanisms (namespaces, landlock, seccomp).
#![cfg(target_os = "linux")]
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
    // The read-only view refuses it first; landlock would too.
    assert!(text(&o).contains("Read-only file system"), "{}", text(&o));
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
    // /dev/null stays writable; /dev/shm is private (a tmpfs of the namespace), so
    // what is written there never reaches the host's.
    let o = run(
        &f,
        "echo a > /dev/null && echo b > /dev/shm/dcl-sb-test && cat /dev/shm/dcl-sb-test",
        true,
    );
    assert!(o.status.success(), "{}", text(&o));
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
    // CONNECT (what HTTPS uses) through the same endpoint: curl tunnels plain HTTP here.
    let o = run(
        &f,
        &format!("curl -sS -m 5 -p http://127.0.0.1:{port}/ && echo \"$HTTPS_PROXY\""),
        true,
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "hello\nhttp://127.0.0.1:3128\n",
        "{}",
        text(&o)
    );
    // Going around the proxy: a raw TCP connect, a UDP socket.
    let py = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3); print(\"connected\")'"
    );
    let o = run(&f, &py, true);
    assert!(!text(&o).contains("connected\n"), "{}", text(&o));
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let send = format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
         s.sendto(b\"dcl-udp\", (\"127.0.0.1\", {}))'",
        udp.local_addr().unwrap().port()
    );
    run(&f, &send, true);
    let mut buf = [0u8; 64];
    assert!(udp.recv(&mut buf).is_err(), "a datagram got out");
    // Twin: unsandboxed, it arrives.
    run(&f, &send, false);
    let n = udp.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"dcl-udp");
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

// --- issue 24: the sandbox holds -----------------------------------------------------
// Each class of escape, attacked one command at a time, with its positive twin.

/// Runs `script` sandboxed and contained-only; returns both outputs' text.
fn both(f: &Fixture, script: &str) -> (String, String) {
    (text(&run(f, script, true)), text(&run(f, script, false)))
}

#[test]
fn metadata_outside_the_writable_dirs_cannot_change() {
    let Some(f) = fixture() else { return };
    let victim = f.outside.join("victim");
    std::fs::write(&victim, "v").unwrap();
    let v = victim.display();
    let script = format!(
        "chmod 777 {v}; echo chmod=$?; chmod u+s {v}; echo suid=$?; \
         touch -d 2001-01-01 {v}; echo touch=$?; \
         python3 -c 'import os,sys; os.setxattr(sys.argv[1], \"user.dcl\", b\"1\")' {v} 2>/dev/null; echo xattr=$?; \
         mv {v} {v}.moved; echo mv=$?"
    );
    let (confined, twin) = both(&f, &script);
    for op in ["chmod", "suid", "touch", "xattr", "mv"] {
        assert!(confined.contains(&format!("{op}=1")), "{op}: {confined}");
    }
    assert!(confined.contains("Read-only file system"), "{confined}");
    // Twin: outside the sandbox every one of them works (the last renames it).
    for op in ["chmod", "suid", "touch", "xattr", "mv"] {
        assert!(twin.contains(&format!("{op}=0")), "{op}: {twin}");
    }
    // And inside the working directory they all work sandboxed.
    let inside = "echo x > f && chmod 700 f && touch -d 2001-01-01 f && \
        python3 -c 'import os; os.setxattr(\"f\", \"user.dcl\", b\"1\")' && mv f g && echo all-ok";
    let o = run(&f, inside, true);
    assert!(text(&o).contains("all-ok"), "{}", text(&o));
}

#[test]
fn open_tree_cannot_clone_the_home_without_its_hiding_mounts() {
    let Some(f) = fixture() else { return };
    // open_tree(AT_FDCWD, home, OPEN_TREE_CLONE): a copy of the home's mount without
    // the tmpfs over ~/.ssh; then read the key through it.
    let script = "python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(428, -100, os.environ['HOME'].encode(), 1 | 0o2000000)
if fd < 0:
    print('open_tree failed', os.strerror(ctypes.get_errno()))
else:
    print('open_tree ok')
    try:
        print(open(os.open('.ssh/id_rsa', os.O_RDONLY, dir_fd=fd)).read())
    except OSError as e:
        print('read failed', e)
PY";
    let (confined, twin) = both(&f, script);
    assert!(!confined.contains("PRIVATE-KEY-MATERIAL"), "{confined}");
    assert!(
        confined.contains("open_tree failed Operation not permitted"),
        "{confined}"
    );
    // Twin: contained only (root in its user namespace here, or an unprivileged user
    // who gets EPERM from the kernel itself), the call is not refused by a filter.
    assert!(
        twin.contains("open_tree ok") || twin.contains("open_tree failed"),
        "{twin}"
    );
}

#[test]
fn descriptors_the_host_left_open_are_not_inherited() {
    let Some(f) = fixture() else { return };
    let target = f.outside.join("held-open");
    std::fs::write(&target, "").unwrap();
    let path = std::ffi::CString::new(target.to_str().unwrap()).unwrap();
    // A descriptor without close-on-exec, as a careless host leaves one.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_APPEND) };
    assert!(fd > 2);
    let script = format!("echo through-fd >&{fd}; echo rc=$?");
    let (confined, twin) = both(&f, &script);
    unsafe { libc::close(fd) };
    assert!(confined.contains("rc=1"), "{confined}");
    // Twin: contained only, the write goes through.
    assert!(twin.contains("rc=0"), "{twin}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "through-fd\n");
}

/// A unix socket server at `path` counting what it receives.
fn unix_server(path: &Path) -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    use std::io::Read;
    let got = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    let g = got.clone();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let mut buf = Vec::new();
            let _ = c.read_to_end(&mut buf);
            g.fetch_add(buf.len(), std::sync::atomic::Ordering::SeqCst);
        }
    });
    got
}

const UNIX_SEND: &str = "python3 -c 'import socket,sys; s = socket.socket(socket.AF_UNIX); \
     s.connect(sys.argv[1]); s.sendall(b\"planted\"); s.close(); print(\"sent\")'";

#[test]
fn unix_sockets_outside_are_unreachable_with_the_network_off() {
    let Some(f) = fixture() else { return };
    let sock = f.outside.join("agent.sock");
    let got = unix_server(&sock);
    let script = format!("{UNIX_SEND} {}", sock.display());
    let o = run(&f, &script, true);
    assert!(!text(&o).contains("sent"), "{}", text(&o));
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(got.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Twin: contained only, the socket is reached.
    let o = run(&f, &script, false);
    assert!(text(&o).contains("sent"), "{}", text(&o));
}

#[test]
fn allow_unix_sockets_lets_a_socket_in_the_working_directory_work() {
    let Some(mut f) = fixture() else { return };
    let settings = SandboxSettings {
        enabled: true,
        allow_unix_sockets: vec![f.cwd.display().to_string()],
        ..Default::default()
    };
    f.sandbox = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    if dcl_sandbox::probe::support().landlock_abi < 9 {
        // Honest about what it cannot do here.
        assert!(
            f.sandbox
                .warnings()
                .iter()
                .any(|w| w.contains("allowUnixSockets")),
            "{:?}",
            f.sandbox.warnings()
        );
    }
    let script = "python3 - <<'PY'
import socket, os
srv = socket.socket(socket.AF_UNIX); srv.bind('s.sock'); srv.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect('s.sock'); c.sendall(b'hi')
a, _ = srv.accept(); print('unix', a.recv(2).decode())
PY";
    let o = run(&f, script, true);
    assert!(text(&o).contains("unix hi"), "{}", text(&o));
}

#[test]
fn sendto_fast_open_does_not_connect_around_the_proxy() {
    let Some(mut f) = fixture() else { return };
    if !with_domains(&mut f, &["example.com"]) {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // MSG_FASTOPEN (0x20000000) connects as it sends: no connect() call at all.
    let script = format!(
        "python3 -c 'import socket; s = socket.socket(); \
         s.sendto(b\"GET / HTTP/1.0\\r\\n\\r\\n\", 0x20000000, (\"127.0.0.1\", {port})); print(\"sent\")'"
    );
    let o = run(&f, &script, true);
    assert!(!text(&o).contains("sent"), "{}", text(&o));
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the sandbox reached the host");
    // Twin: contained only, it connects.
    let o = run(&f, &script, false);
    assert!(text(&o).contains("sent"), "{}", text(&o));
}

#[test]
fn other_addresses_on_the_proxy_port_reach_nothing() {
    let Some(mut f) = fixture() else { return };
    if !with_domains(&mut f, &["example.com"]) {
        return;
    }
    let port = f.sandbox.proxy_port().unwrap();
    // Listeners on the host on the proxy's port, at other loopback addresses.
    let v4 = std::net::TcpListener::bind(("127.0.0.2", port));
    let v6 = std::net::TcpListener::bind(("::1", port));
    let connect = |host: &str| {
        format!(
            "python3 -c 'import socket; socket.create_connection((\"{host}\", {port}), 3); print(\"connected\")'"
        )
    };
    let mut checked = 0;
    for (l, host) in [(v4, "127.0.0.2"), (v6, "::1")] {
        if l.is_err() {
            continue; // That address or port is not ours to bind here.
        }
        checked += 1;
        let (confined, twin) = both(&f, &connect(host));
        assert!(!confined.contains("connected"), "{host}: {confined}");
        assert!(twin.contains("connected"), "{host}: {twin}");
    }
    if checked == 0 {
        eprintln!("SKIP: neither 127.0.0.2 nor [::1] could be bound on port {port} here");
    }
}

#[test]
fn io_uring_is_refused() {
    let Some(f) = fixture() else { return };
    let script = "python3 -c 'import ctypes, os; l = ctypes.CDLL(None, use_errno=True); \
         p = ctypes.create_string_buffer(120); r = l.syscall(425, 8, p); \
         print(\"io_uring\", \"ok\" if r >= 0 else os.strerror(ctypes.get_errno()))'";
    let (confined, twin) = both(&f, script);
    assert!(
        confined.contains("io_uring Operation not permitted"),
        "{confined}"
    );
    if std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").is_ok_and(|v| v.trim() == "0")
    {
        assert!(twin.contains("io_uring ok"), "{twin}");
    }
}

#[test]
fn tiocsti_cannot_type_into_a_terminal() {
    let Some(f) = fixture() else { return };
    // A terminal of its own, made controlling, then TIOCSTI on it: the attack on dcl's
    // terminal needs the same ioctl.
    let script = "python3 - <<'PY'
import os, fcntl, termios
pid = os.fork()
if pid == 0:
    os.setsid()
    m, s = os.openpty()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    try:
        fcntl.ioctl(s, termios.TIOCSTI, b'x'); print('tiocsti ok')
    except OSError as e:
        print('tiocsti', e.strerror)
    os._exit(0)
os.waitpid(pid, 0)
print('session leader', os.getsid(0) == os.getppid())
PY";
    let o = run(&f, script, true);
    let confined = text(&o);
    assert!(
        confined.contains("tiocsti Operation not permitted"),
        "{confined}"
    );
    // The shell is in a session of its own: dcl's terminal is not its terminal.
    assert!(confined.contains("session leader True"), "{confined}");
    // Twin: not sandboxed (and not in a user namespace, where TIOCSTI on one's own
    // terminal is allowed), the same ioctl types.
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&f.cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let twin = text(&out);
    if std::fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").is_ok_and(|v| v.trim() == "1") {
        assert!(twin.contains("tiocsti ok"), "{twin}");
    }
    assert!(twin.contains("session leader False"), "{twin}");
}

#[test]
fn ipc_objects_of_the_host_are_not_shared() {
    let Some(f) = fixture() else { return };
    let key: libc::key_t = 0x4dc1_0000 | (std::process::id() as libc::key_t & 0xffff);
    let shm = unsafe { libc::shmget(key, 4096, libc::IPC_CREAT | 0o600) };
    assert!(shm >= 0);
    let qname = format!("/dcl-test-{}", std::process::id());
    let qc = std::ffi::CString::new(qname.clone()).unwrap();
    let mq = unsafe { libc::mq_open(qc.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600, 0usize) };
    let shm_file = format!("/dev/shm/dcl-test-{}", std::process::id());
    std::fs::write(&shm_file, "host").unwrap();
    let script = format!(
        "python3 - <<'PY'
import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
print('shm', 'found' if l.shmget({key}, 0, 0) >= 0 else 'none')
l.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
print('mq', 'found' if l.mq_open(b'{qname}', os.O_RDWR) >= 0 else 'none')
print('devshm', 'found' if os.path.exists('{shm_file}') else 'none')
PY"
    );
    let (confined, twin) = both(&f, &script);
    unsafe {
        libc::shmctl(shm, libc::IPC_RMID, std::ptr::null_mut());
        if mq >= 0 {
            libc::mq_unlink(qc.as_ptr());
        }
    }
    let _ = std::fs::remove_file(&shm_file);
    for obj in ["shm", "mq", "devshm"] {
        assert!(
            confined.contains(&format!("{obj} none")),
            "{obj}: {confined}"
        );
    }
    assert!(twin.contains("shm found"), "{twin}");
    assert!(twin.contains("devshm found"), "{twin}");
    if mq >= 0 {
        assert!(twin.contains("mq found"), "{twin}");
    }
}

#[test]
fn no_capabilities_and_no_new_privileges() {
    let Some(f) = fixture() else { return };
    let script = "grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status";
    let (confined, _) = both(&f, script);
    for line in ["CapEff:\t0000000000000000", "CapBnd:\t0000000000000000"] {
        assert!(confined.contains(line), "{confined}");
    }
    assert!(confined.contains("NoNewPrivs:\t1"), "{confined}");
}

#[test]
fn excluded_commands_cover_a_line_only_when_every_part_is_excluded() {
    let Some(mut f) = fixture() else { return };
    let settings = SandboxSettings {
        enabled: true,
        excluded_commands: vec!["git".into()],
        ..Default::default()
    };
    f.sandbox = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    let escape = format!("git --version; echo x > {}/f", f.outside.display());
    assert!(f.sandbox.covers(&escape, false), "{escape}");
    assert!(!f.sandbox.covers("git --version && git status", false));
}

/// A git repository in the fixture's working directory, made outside the sandbox.
fn git_repo(f: &Fixture) {
    let o = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&f.cwd)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
}

const GIT_ID: &str = "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t \
     GIT_COMMITTER_EMAIL=t@e; ";

#[test]
fn files_that_give_power_to_later_runs_stay_read_only() {
    let Some(f) = fixture() else { return };
    git_repo(&f);
    // The sandbox was made before .git existed: what it protects is looked up per call.
    let planted = [
        ".mcp.json",
        ".dcl/mcp.local.json",
        ".dcl/settings.local.json",
        ".dcl/settings.json",
        ".claude/settings.local.json",
        ".claude/settings.json",
        ".qoder/settings.json",
        ".git/hooks/pre-commit",
        ".git/config",
    ];
    let script: String = planted
        .iter()
        .map(|p| format!("echo '{{\"planted\":1}}' >> {p}; echo {p}=$?; "))
        .collect();
    let confined = text(&run(&f, &script, true));
    for p in planted {
        assert!(confined.contains(&format!("{p}=1")), "{p}: {confined}");
        let now = std::fs::read_to_string(f.cwd.join(p)).unwrap_or_default();
        assert!(!now.contains("planted"), "{p} was planted");
    }
    // Renaming or removing them is refused too.
    let o = text(&run(
        &f,
        "mv .dcl .dcl2; echo mv=$?; rm -rf .git/hooks; echo rm=$?; \
         mv .git .git-aside; echo git=$?",
        true,
    ));
    // .git itself cannot be moved aside for a repository with planted hooks.
    assert!(
        o.contains("mv=1") && o.contains("rm=1") && o.contains("git=1"),
        "{o}"
    );
    // Twin: the rest of the repository stays writable, so a commit works.
    let o = run(
        &f,
        &format!(
            "{GIT_ID} echo code > a.rs && git add a.rs && git commit -qm c && git log --oneline | wc -l"
        ),
        true,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1");
    // Twin: outside the sandbox they are writable.
    let twin = text(&run(&f, "echo x > .dcl/settings.json; echo w=$?", false));
    assert!(twin.contains("w=0"), "{twin}");
}

#[test]
fn placeholders_and_the_temp_dir_go_with_the_sandbox() {
    let Some(f) = fixture() else { return };
    let tmp = f.sandbox.temp_dir().to_path_buf();
    assert!(tmp.is_dir());
    // Made for the read-only mounts; empty, so git does not see them.
    assert!(f.cwd.join(".dcl").is_dir() && f.cwd.join(".mcp.json").is_file());
    let o = run(&f, "echo y > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"", true);
    assert!(o.status.success(), "{}", text(&o));
    let Fixture { sandbox, cwd, .. } = f;
    drop(sandbox);
    assert!(!tmp.exists(), "{} left behind", tmp.display());
    assert!(!cwd.join(".dcl").exists() && !cwd.join(".mcp.json").exists());
}

#[test]
fn a_dead_process_s_sandbox_dir_is_swept() {
    let Some(f) = fixture() else { return };
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = std::env::temp_dir().join(format!("dcl-sandbox-{dead}-stale"));
    std::fs::create_dir_all(stale.join("tmp")).unwrap();
    let settings = SandboxSettings {
        enabled: true,
        ..Default::default()
    };
    let _second = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    assert!(!stale.exists());
}

#[test]
fn fail_if_unavailable_starts_where_every_protection_works() {
    let Some(f) = fixture() else { return };
    let settings = SandboxSettings {
        enabled: true,
        fail_if_unavailable: true,
        ..Default::default()
    };
    // The refusal's twin (degraded.rs): here nothing is missing, so it starts.
    let strict = Sandbox::new(settings, &f.cwd, &[], Some(&f.home)).unwrap();
    assert_eq!(strict.warnings(), &[] as &[String]);
}

#[test]
fn a_daemon_left_in_a_lingering_namespace_keeps_the_proxy() {
    let Some(mut f) = fixture() else { return };
    if !with_domains(&mut f, &["127.0.0.1"]) {
        return;
    }
    let port = hello_server();
    let scope = dcl_sandbox::Scope::new().unwrap();
    // The call returns at once; what it left asks the proxy a second later.
    let script = format!(
        "(sleep 1; curl -sS -m 5 http://127.0.0.1:{port}/ > late.txt 2>&1) >/dev/null 2>&1 &"
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(&script)
        .current_dir(&f.cwd)
        .stdin(Stdio::null())
        .process_group(0);
    dcl_sandbox::apply_scoped(&mut cmd, Some(&f.sandbox), &scope);
    assert!(cmd.output().unwrap().status.success());
    let late = f.cwd.join("late.txt");
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(10)
        && !std::fs::read_to_string(&late).is_ok_and(|t| t.contains("hello"))
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let got = std::fs::read_to_string(&late).unwrap_or_default();
    drop(scope);
    assert_eq!(got, "hello\n");
}

#[test]
fn symlinked_protected_files_hold_too() {
    let Some(f) = fixture() else { return };
    // Configuration kept elsewhere in the project and linked in: both the link and
    // what it leads to must hold (the next session follows the link).
    std::fs::create_dir_all(f.cwd.join("conf/claude")).unwrap();
    std::fs::write(f.cwd.join("conf/mcp.json"), "{}").unwrap();
    std::fs::write(f.cwd.join("conf/claude/settings.json"), "{}").unwrap();
    std::fs::remove_file(f.cwd.join(".mcp.json")).unwrap();
    std::fs::remove_dir(f.cwd.join(".claude")).unwrap();
    std::os::unix::fs::symlink("conf/mcp.json", f.cwd.join(".mcp.json")).unwrap();
    std::os::unix::fs::symlink("conf/claude", f.cwd.join(".claude")).unwrap();
    let script = "cat .mcp.json; echo; \
        rm -f .mcp.json; echo rm=$?; echo planted > conf/mcp.json; echo target=$?; \
        rm -f .claude; echo rmdir=$?; echo planted > conf/claude/settings.json; echo dtarget=$?";
    let confined = text(&run(&f, script, true));
    assert!(
        confined.starts_with("{}"),
        "the link still reads: {confined}"
    );
    for op in ["rm", "target", "rmdir", "dtarget"] {
        assert!(confined.contains(&format!("{op}=1")), "{op}: {confined}");
    }
    assert!(f.cwd.join(".mcp.json").is_symlink() && f.cwd.join(".claude").is_symlink());
    assert_eq!(
        std::fs::read_to_string(f.cwd.join("conf/mcp.json")).unwrap(),
        "{}"
    );
    // Twin: outside the sandbox the same script replaces them.
    let twin = text(&run(&f, script, false));
    assert!(twin.contains("rm=0") && twin.contains("target=0"), "{twin}");
}
