//! Nothing a session's tools start outlives it: at session end, after SIGTERM and after
//! SIGKILL of `dcl`; and with `--sandbox`, Bash is confined (writes, credentials,
//! dcl's environment, network) while a normal build still works.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::{Dcl, STREAM};
use serde_json::{Value, json};

/// PIDs whose argv contains `marker`.
fn survivors(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if let Ok(c) = std::fs::read(format!("/proc/{pid}/cmdline"))
            && String::from_utf8_lossy(&c)
                .replace('\0', " ")
                .contains(marker)
        {
            out.push(pid);
        }
    }
    out
}

/// PIDs running exactly `sleep <marker>` (not the shells whose script names it).
fn sleeping(marker: &str) -> Vec<i32> {
    let want = format!("sleep {marker} ");
    survivors(marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " ") == want)
                .unwrap_or(false)
        })
        .collect()
}

fn wait_started(marker: &str, count: usize) -> usize {
    let start = Instant::now();
    while sleeping(marker).len() < count && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    sleeping(marker).len()
}

fn wait_for(marker: &str, pred: impl Fn(usize) -> bool, limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let left = survivors(marker);
        if pred(left.len()) || start.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills what a failed test left, so one failure does not leave 1000-second sleeps.
struct Cleanup(String);
impl Drop for Cleanup {
    fn drop(&mut self) {
        for pid in survivors(&self.0) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

fn marker(tag: u32) -> String {
    format!("1000.{}{tag}", std::process::id())
}

/// Four ways of detaching: nohup, setsid, a subshell's background child, a double fork.
fn detaching(m: &str) -> String {
    format!(
        "nohup sleep {m} >/dev/null 2>&1 & setsid sleep {m} >/dev/null 2>&1 & \
         (sleep {m} &) >/dev/null 2>&1; bash -c '(sleep {m} &) &' >/dev/null 2>&1"
    )
}

fn bash(d: &mut Dcl, input: Value) {
    d.user(&format!("FAKE_TOOL Bash {input}"));
}

fn tool_text(d: &Dcl) -> String {
    let last = d
        .seen
        .iter()
        .rfind(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .expect("a tool result");
    let c = &last["message"]["content"][0]["content"];
    c.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| c.to_string())
}

fn namespaces_or_skip() -> bool {
    let s = dcl_sandbox::probe::support();
    if !s.namespaces {
        eprintln!(
            "SKIP: PID namespaces are unavailable here ({:?}); containment falls back to \
             process groups, which setsid escapes",
            s.missing
        );
    }
    s.namespaces
}

fn bypass() -> Vec<&'static str> {
    [STREAM, &["--permission-mode", "bypassPermissions"]].concat()
}

/// A background shell that runs `setsid` (and the other detaching forms), then stays;
/// `total` sleeps of `m` are running afterwards (six of them the shell's).
fn start_background_shell(d: &mut Dcl, m: &str, total: usize) {
    let script = format!(
        "setsid sleep {m} >/dev/null 2>&1 & {}; sleep {m}",
        detaching(m)
    );
    bash(d, json!({"command": script, "run_in_background": true}));
    d.until_type("result");
    assert_eq!(
        wait_started(m, total),
        total,
        "the background shell's processes started"
    );
}

#[test]
fn nothing_outlives_a_session_that_ends() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(1);
    let _c = Cleanup(m.clone());
    let mut d = Dcl::start(&bypass());
    // A call whose detached children are running when its shell exits.
    bash(
        &mut d,
        json!({"command": format!("{}; sleep 0.3; pgrep -fxc 'sleep {m}'", detaching(&m))}),
    );
    d.until_type("result");
    assert_eq!(
        tool_text(&d).trim(),
        "4",
        "all four detached while the call ran"
    );
    // Their output was redirected, so they live on in the session (like a dev server
    // started with `nohup … > log &`) until it ends.
    start_background_shell(&mut d, &m, 10);
    assert_eq!(d.finish(), 0);
    assert_eq!(
        wait_for(&m, |n| n == 0, Duration::from_secs(5)),
        Vec::<i32>::new()
    );
}

fn killed_by(signal: nix::sys::signal::Signal, tag: u32) {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(tag);
    let _c = Cleanup(m.clone());
    let mut d = Dcl::start(&bypass());
    start_background_shell(&mut d, &m, 6);
    // And a call still running when the signal comes.
    bash(
        &mut d,
        json!({"command": format!("{}; sleep {m}", detaching(&m))}),
    );
    d.until_type("tool_start");
    assert_eq!(wait_started(&m, 11), 11, "every process started");
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(d.child.id() as i32), signal);
    let _ = d.child.wait();
    assert_eq!(
        wait_for(&m, |n| n == 0, Duration::from_secs(5)),
        Vec::<i32>::new(),
        "survivors after {signal:?}"
    );
}

#[test]
fn nothing_outlives_sigterm_of_dcl() {
    killed_by(nix::sys::signal::Signal::SIGTERM, 2);
}

#[test]
fn nothing_outlives_sigkill_of_dcl() {
    killed_by(nix::sys::signal::Signal::SIGKILL, 3);
}

#[test]
fn kill_shell_ends_what_the_background_shell_started() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(4);
    let _c = Cleanup(m.clone());
    let mut d = Dcl::start(&bypass());
    start_background_shell(&mut d, &m, 6);
    d.user(r#"FAKE_TOOL KillShell {"shell_id":"bash_1"}"#);
    d.until_type("result");
    assert_eq!(
        wait_for(&m, |n| n == 0, Duration::from_secs(5)),
        Vec::<i32>::new()
    );
    d.finish();
}

// --- the sandbox --------------------------------------------------------------------

fn sandbox_or_skip() -> bool {
    let s = dcl_sandbox::probe::support();
    let ok = s.namespaces && s.landlock_abi >= 1 && s.hide_mounts && s.network_ns;
    if !ok {
        eprintln!("SKIP: the sandbox's mechanisms are not all available here: {s:?}");
    }
    ok
}

/// A sandboxed session with a fake `~/.ssh/id_rsa` and a planted API key; returns it
/// and its home directory.
fn sandboxed(extra: &[&str]) -> (Dcl, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL").unwrap();
    let home_s = home.path().to_str().unwrap().to_string();
    let args: Vec<&str> = [&bypass()[..], extra].concat();
    let mut d = Dcl::start_with_env(
        &args,
        &[
            ("HOME", home_s.as_str()),
            ("ANTHROPIC_API_KEY", "sk-ant-planted-secret-4711"),
        ],
    );
    d.send(
        json!({"type":"control_request","request_id":"init","request":{"subtype":"initialize"}}),
    );
    d.response_to("init");
    (d, home)
}

fn run_bash(d: &mut Dcl, command: &str) -> (String, bool) {
    bash(d, json!({ "command": command }));
    d.until_type("result");
    let last = d
        .seen
        .iter()
        .rfind(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    let is_error = last["message"]["content"][0]["is_error"] == true;
    (tool_text(d), is_error)
}

#[test]
fn sandboxed_bash_cannot_write_outside_or_read_credentials() {
    if !sandbox_or_skip() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let (mut d, _home) = sandboxed(&["--sandbox"]);
    let (text, err) = run_bash(&mut d, &format!("echo x > {}", target.display()));
    assert!(err, "{text}");
    assert!(!target.exists());
    assert!(
        text.contains("[sandbox]"),
        "the result names the sandbox: {text}"
    );
    let (text, _) = run_bash(&mut d, "cat ~/.ssh/id_rsa");
    assert!(!text.contains("PRIVATE-KEY-MATERIAL"), "{text}");
    let (text, _) = run_bash(
        &mut d,
        "cat /proc/$PPID/environ; for p in /proc/[0-9]*; do cat $p/environ; done",
    );
    assert!(!text.contains("sk-ant-planted-secret-4711"), "{text}");
    // Inside the working directory, writing works and the shell's cwd still carries.
    let (text, err) = run_bash(&mut d, "mkdir sub && echo made > sub/f && cd sub");
    assert!(!err, "{text}");
    let (text, _) = run_bash(&mut d, "cat f && pwd");
    assert!(
        text.contains("made") && text.trim_end().ends_with("/sub"),
        "{text}"
    );
    d.finish();
    // The twin: without the sandbox the same session writes outside and reads the key.
    let (mut d, _home) = sandboxed(&[]);
    let (text, err) = run_bash(
        &mut d,
        &format!("echo x > {} && cat ~/.ssh/id_rsa", target.display()),
    );
    assert!(!err && text.contains("PRIVATE-KEY-MATERIAL"), "{text}");
    assert!(target.exists());
    d.finish();
}

#[test]
fn sandboxed_network_is_off_and_settings_turn_it_on() {
    if !sandbox_or_skip() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let py = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3); print(\"connected\")'"
    );
    let curl = format!("curl -sS -m 3 -o /dev/null http://127.0.0.1:{port}/ && echo reached");
    // `sandbox.enabled` in the --settings JSON, the way claude-agent-sdk passes it.
    let settings = json!({"sandbox": {"enabled": true}}).to_string();
    let (mut d, _home) = sandboxed(&["--settings", &settings]);
    let (text, err) = run_bash(&mut d, &py);
    assert!(err && !text.contains("connected"), "{text}");
    let (text, err) = run_bash(&mut d, &curl);
    assert!(err && !text.contains("reached"), "{text}");
    assert!(
        text.contains("[sandbox]") && text.contains("network"),
        "{text}"
    );
    d.finish();
    let (mut d, _home) = sandboxed(&[]);
    let (text, _) = run_bash(&mut d, &py);
    assert!(text.contains("connected"), "{text}");
    d.finish();
}

#[test]
fn a_normal_build_works_in_the_sandbox() {
    if !sandbox_or_skip() {
        return;
    }
    let (mut d, _home) = sandboxed(&["--sandbox"]);
    let project = d.cwd();
    // npm: a package with a test script and no dependencies.
    std::fs::write(
        project.join("package.json"),
        r#"{"name":"fixture","version":"1.0.0","scripts":{"test":"node -e \"require('fs').writeFileSync('out.txt','ok'); console.log('tests passed')\""}}"#,
    )
    .unwrap();
    let (text, err) = run_bash(&mut d, "npm test --silent 2>&1; cat out.txt");
    assert!(
        !err && text.contains("tests passed") && text.contains("ok"),
        "{text}"
    );
    // cargo: a dependency-free crate, offline, its target dir and cargo home inside.
    std::fs::create_dir(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        project.join("src/main.rs"),
        "fn main() { println!(\"built ok\"); }\n",
    )
    .unwrap();
    // Its own target dir too: a CARGO_TARGET_DIR the caller set (outside the clone)
    // is inherited and not writable in the sandbox.
    let (text, err) = run_bash(
        &mut d,
        "CARGO_HOME=$PWD/.cargo-home CARGO_TARGET_DIR=$PWD/target cargo run --offline -q 2>&1",
    );
    assert!(!err && text.contains("built ok"), "{text}");
    // git: a repository made and committed to inside the sandbox.
    let (text, err) = run_bash(
        &mut d,
        "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; \
         git init -q && git add package.json && git commit -qm first && git log --format=%s",
    );
    assert!(!err && text.contains("first"), "{text}");
    d.finish();
}

#[test]
fn sandbox_settings_not_acted_on_are_named_in_the_initialize_answer() {
    let settings = json!({"sandbox": {
        "enabled": true,
        "network": {"allowedDomains": ["example.com"]},
        "autoAllowBashIfSandboxed": true
    }})
    .to_string();
    let (mut d, _home) = sandboxed(&["--settings", &settings]);
    let init = d
        .seen
        .iter()
        .rfind(|v| v["type"] == "control_response")
        .unwrap()
        .to_string();
    // allowedDomains is acted on (a proxy: core/sandbox/tests/sandbox.rs), so not named.
    assert!(!init.contains("allowedDomains"), "{init}");
    assert!(init.contains("autoAllowBashIfSandboxed"), "{init}");
    // get_settings names them too, under applied.sandbox.
    d.control("g", json!({"subtype": "get_settings"}));
    let got = d.response_to("g");
    let applied = &got["response"]["response"]["applied"]["sandbox"];
    assert_eq!(applied["enabled"], true, "{got}");
    assert!(
        applied["warnings"]
            .to_string()
            .contains("autoAllowBashIfSandboxed"),
        "{got}"
    );
    d.finish();
    // A bad block is refused (the session does not open) rather than ignored.
    let bad = json!({"sandbox": {"enabled": "yes"}}).to_string();
    let mut d2 = Dcl::start(&[&bypass()[..], &["--settings", &bad]].concat());
    assert_ne!(d2.finish(), 0);
    let stderr = d2.stderr();
    assert!(
        stderr.contains("sandbox.enabled: must be true or false"),
        "{stderr}"
    );
}

#[test]
fn allowed_domains_are_reached_through_the_sandbox_proxy() {
    if !sandbox_or_skip() || dcl_sandbox::probe::support().landlock_abi < 4 {
        eprintln!("SKIP: allowedDomains needs the sandbox and landlock ABI 4");
        return;
    }
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let mut buf = [0u8; 2048];
            let _ = c.read(&mut buf);
            let _ = c.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nallowed\n",
            );
        }
    });
    let settings = |host: &str| {
        json!({"sandbox": {"enabled": true, "network": {"allowedDomains": [host]}}}).to_string()
    };
    let curl = format!("curl -sS -m 5 http://127.0.0.1:{port}/");
    let (mut d, _home) = sandboxed(&["--settings", &settings("127.0.0.1")]);
    let (text, _) = run_bash(&mut d, &curl);
    assert!(text.contains("allowed"), "{text}");
    d.finish();
    // Twin: another host allowed, this one refused by the proxy with the reason.
    let (mut d, _home) = sandboxed(&["--settings", &settings("example.com")]);
    let (text, _) = run_bash(&mut d, &curl);
    assert!(!text.contains("allowed\\n"), "{text}");
    assert!(
        text.contains("not in sandbox.network.allowedDomains"),
        "{text}"
    );
    d.finish();
}

// --- issue 24: the sandbox holds, end to end ------------------------------------------

#[test]
fn excluded_commands_leave_the_sandbox_only_when_the_whole_line_is_excluded() {
    if !sandbox_or_skip() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path().display();
    let settings = json!({"sandbox": {"enabled": true, "excludedCommands": ["touch"]}}).to_string();
    let (mut d, _home) = sandboxed(&["--settings", &settings]);
    // Twin: the excluded command alone runs outside the sandbox.
    let (text, err) = run_bash(&mut d, &format!("touch {o}/alone"));
    assert!(!err, "{text}");
    assert!(outside.path().join("alone").exists());
    // Attack: an excluded first word no longer takes the rest of the line out.
    let (text, _) = run_bash(&mut d, &format!("touch {o}/first; echo x > {o}/rest"));
    assert!(!outside.path().join("rest").exists(), "{text}");
    assert!(!outside.path().join("first").exists(), "{text}");
    d.finish();
}

#[test]
fn a_sandboxed_call_cannot_plant_settings_for_the_next_session() {
    if !sandbox_or_skip() {
        return;
    }
    let (mut d, _home) = sandboxed(&["--sandbox"]);
    let cwd = d.cwd();
    let plants = [
        (".mcp.json", r#"{"mcpServers":{"x":{"command":"sh"}}}"#),
        (
            ".dcl/mcp.local.json",
            r#"{"mcpServers":{"x":{"command":"sh"}}}"#,
        ),
        (
            ".dcl/settings.local.json",
            r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch /tmp/pwn"}]}]}}"#,
        ),
        (
            ".dcl/settings.json",
            r#"{"sandbox":{"filesystem":{"allowWrite":["/"]}}}"#,
        ),
        (
            ".claude/settings.local.json",
            r#"{"sandbox":{"excludedCommands":["bash"]}}"#,
        ),
    ];
    for (path, content) in plants {
        let (text, err) = run_bash(
            &mut d,
            &format!("mkdir -p $(dirname {path}); echo '{content}' > {path}"),
        );
        assert!(err, "{path}: {text}");
        let now = std::fs::read_to_string(cwd.join(path)).unwrap_or_default();
        assert!(!now.contains("command"), "{path} planted: {now}");
        assert!(
            !now.contains("allowWrite") && !now.contains("excludedCommands"),
            "{now}"
        );
    }
    // Metadata outside the working directory cannot change either.
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("v");
    std::fs::write(&victim, "").unwrap();
    let (text, err) = run_bash(&mut d, &format!("chmod 4777 {}", victim.display()));
    assert!(err && text.contains("Read-only file system"), "{text}");
    use std::os::unix::fs::PermissionsExt as _;
    assert_ne!(
        std::fs::metadata(&victim).unwrap().permissions().mode() & 0o7777,
        0o4777
    );
    d.finish();
    // What the sandbox made to hold them read-only is gone with the session.
    assert!(!cwd.join(".dcl").exists() && !cwd.join(".mcp.json").exists());
}

#[test]
fn the_private_tmpdir_is_removed_when_the_session_ends() {
    if !sandbox_or_skip() {
        return;
    }
    for how in ["eof", "sigterm"] {
        let (mut d, _home) = sandboxed(&["--sandbox"]);
        let (text, err) = run_bash(&mut d, "echo kept > \"$TMPDIR/f\" && echo \"$TMPDIR\"");
        assert!(!err, "{text}");
        let tmp = std::path::PathBuf::from(text.trim());
        assert!(tmp.join("f").exists(), "{how}: {}", tmp.display());
        if how == "eof" {
            d.finish();
        } else {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(d.child.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
            let _ = d.child.wait();
        }
        let dir = tmp.parent().unwrap();
        assert!(!dir.exists(), "{how}: {} left behind", dir.display());
    }
}

#[test]
fn fail_if_unavailable_refuses_a_sandbox_missing_protections() {
    // Namespaces forced off: the read-only view, private IPC and network namespace are
    // missing, so a strict sandbox does not start.
    let strict = json!({"sandbox": {"enabled": true, "failIfUnavailable": true}}).to_string();
    let mut d = Dcl::start_with_env(
        &[&bypass()[..], &["--settings", &strict]].concat(),
        &[("DCL_NO_NAMESPACES", "1")],
    );
    assert_ne!(d.finish(), 0);
    let stderr = d.stderr();
    assert!(
        stderr.contains("failIfUnavailable") && stderr.contains("no read-only view"),
        "{stderr}"
    );
    // Twin: without it, the same machine opens the session (with warnings).
    let lax = json!({"sandbox": {"enabled": true}}).to_string();
    let mut d = Dcl::start_with_env(
        &[&bypass()[..], &["--settings", &lax]].concat(),
        &[("DCL_NO_NAMESPACES", "1")],
    );
    assert_eq!(d.finish(), 0);
}
