//! `dcl` started in an environment that is not plain UTF-8 — a variable whose name or value
//! is not UTF-8, a working directory whose name is not — and the background output a
//! SIGKILLed dcl leaves under TMPDIR.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn dcl_in(cwd: &Path, args: &[&str], env: &[(&OsStr, &OsStr)]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcl"));
    cmd.args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DCL_MODEL");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn json_result(out: &Output) -> Value {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "{e}: {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_non_utf8_variable_reaches_a_bash_child_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let value = OsStr::from_bytes(b"caf\xe9-\xff\xfe-end");
    let odd_name = OsStr::from_bytes(b"DCL_ODD_\xe9NAME");
    let odd_name_value = OsStr::from_bytes(b"named\xff");
    let prompt =
        r#"FAKE_TOOL Bash {"command":"printf %s \"$DCL_ODD_VALUE\" > seen.bin; env > env.bin"}"#;
    // An MCP stdio server the caller passes gets it too.
    let mcp = serde_json::json!({"mcpServers": {"odd": {"command": "sh",
        "args": ["-c", "printf %s \"$DCL_ODD_VALUE\" > mcp.bin"]}}})
    .to_string();
    let out = dcl_in(
        dir.path(),
        &[
            "--mcp-config",
            &mcp,
            "-p",
            prompt,
            "--model",
            "mock-model",
            "--allowedTools",
            "Bash",
            "--output-format",
            "json",
        ],
        &[
            (OsStr::new("DCL_ODD_VALUE"), value),
            (odd_name, odd_name_value),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let result = json_result(&out);
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(
        std::fs::read(dir.path().join("seen.bin")).unwrap(),
        value.as_bytes()
    );
    assert_eq!(
        std::fs::read(dir.path().join("mcp.bin")).unwrap(),
        value.as_bytes()
    );
    let env = std::fs::read(dir.path().join("env.bin")).unwrap();
    let line = [odd_name.as_bytes(), b"=", odd_name_value.as_bytes()].concat();
    assert!(
        env.windows(line.len()).any(|w| w == line),
        "the variable with a non-UTF-8 name is missing"
    );
    // Said, not silently dropped: the options could not take it.
    assert!(stderr.contains("not UTF-8"), "{stderr}");
}

#[test]
fn a_non_utf8_variable_does_not_break_the_stream_json_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--model",
            "mock-model",
        ])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env(OsStr::new("DCL_ODD_VALUE"), OsStr::from_bytes(b"\xff"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            r#"{{"type":"user","message":{{"role":"user","content":"hi"}}}}"#
        )
        .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "result", "{text}");
    assert_eq!(last["is_error"], false, "{text}");
}

/// A directory whose name is not UTF-8, under a fresh temp dir.
fn odd_dir(root: &Path) -> PathBuf {
    let dir = root.join(OsStr::from_bytes(b"proj-\xff\xfe-caf\xe9"));
    std::fs::create_dir(&dir).unwrap();
    dir
}

#[test]
fn print_mode_writes_and_reads_in_a_non_utf8_working_directory() {
    let root = tempfile::tempdir().unwrap();
    let dir = odd_dir(root.path());
    let write = dcl_in(
        &dir,
        &[
            "-p",
            "FAKE_WRITE note.txt",
            "--model",
            "mock-model",
            "--permission-mode",
            "acceptEdits",
            "--output-format",
            "json",
        ],
        &[],
    );
    let result = json_result(&write);
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(
        result["permission_denials"],
        serde_json::json!([]),
        "{result}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("note.txt")).unwrap(),
        "hello\n"
    );

    std::fs::write(dir.join("data.txt"), "the secret word is marmalade\n").unwrap();
    let read = dcl_in(
        &dir,
        &[
            "-p",
            "FAKE_READ data.txt",
            "--model",
            "mock-model",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        &[],
    );
    let text = String::from_utf8(read.stdout).unwrap();
    assert!(
        text.contains("marmalade"),
        "{text}\n{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert!(read.status.success());
}

#[test]
fn a_relative_deny_rule_binds_in_a_non_utf8_working_directory() {
    let root = tempfile::tempdir().unwrap();
    let dir = odd_dir(root.path());
    std::fs::write(dir.join("secret.txt"), "marmalade\n").unwrap();
    let read = dcl_in(
        &dir,
        &[
            "-p",
            "FAKE_READ secret.txt",
            "--model",
            "mock-model",
            "--disallowedTools",
            "Read(./secret.txt)",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        &[],
    );
    let text = String::from_utf8(read.stdout).unwrap();
    assert!(!text.contains("marmalade"), "{text}");
}

/// Field 22 of `/proc/<pid>/stat`: when the process started.
fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(19).unwrap().parse().unwrap()
}

fn pid_namespace() -> u64 {
    let link = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let text = link.to_str().unwrap();
    text["pid:[".len()..text.len() - 1].parse().unwrap()
}

/// The user's directory of background output under `tmp`: `dcl-<uid>`, mode 0700 (the
/// temp dir was made by this process, so its owner is this user).
fn users_dir(tmp: &Path) -> PathBuf {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    let dir = tmp.join(format!("dcl-{}", std::fs::metadata(tmp).unwrap().uid()));
    if !dir.exists() {
        std::fs::DirBuilder::new().mode(0o700).create(&dir).unwrap();
    }
    dir
}

/// `dcl-background-<pid namespace>-<pid>-<start>-<random>` in the user's directory under
/// `tmp`, with an output file.
fn output_dir(tmp: &Path, pid: u32, start: u64) -> PathBuf {
    let dir = users_dir(tmp).join(format!(
        "dcl-background-{}-{pid}-{start}-0123456789abcdef",
        pid_namespace()
    ));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("bash_1.stdout"), "left behind").unwrap();
    dir
}

#[test]
fn a_session_sweeps_the_background_output_of_dead_dcls_only() {
    let tmp = tempfile::tempdir().unwrap();
    let mut victim = Command::new("sleep").arg("30").spawn().unwrap();
    let (dead_pid, dead_start) = (victim.id(), start_time(victim.id()));
    victim.kill().unwrap();
    victim.wait().unwrap();
    let dead = output_dir(tmp.path(), dead_pid, dead_start);
    let me = std::process::id();
    let live = output_dir(tmp.path(), me, start_time(me));
    // The same pid, started at another time: the pid was reused, its dcl is gone.
    let reused = output_dir(tmp.path(), me, start_time(me) + 1);

    let cwd = tempfile::tempdir().unwrap();
    let out = dcl_in(
        cwd.path(),
        &["-p", "hi", "--model", "mock-model"],
        &[(OsStr::new("TMPDIR"), tmp.path().as_os_str())],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dead.exists(), "a dead dcl's output was kept");
    assert!(!reused.exists(), "a reused pid's output was kept");
    assert!(
        live.join("bash_1.stdout").is_file(),
        "a live dcl's output went"
    );
}

#[test]
fn the_output_of_a_sigkilled_dcl_is_gone_after_the_next_start() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let prompt = r#"FAKE_TOOL Bash {"command":"echo started; sleep 30","run_in_background":true}"#;
    let mut first = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--model",
            "mock-model",
            "--allowedTools",
            "Bash",
        ])
        .current_dir(cwd.path())
        .env("HOME", cwd.path())
        .env("TMPDIR", tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = first.stdin.take().unwrap();
    {
        use std::io::Write;
        let line = serde_json::json!({"type":"user","message":{"role":"user","content":prompt}});
        writeln!(stdin, "{line}").unwrap();
    }
    let stdout = first.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    loop {
        let line = lines.next().expect("a result line").unwrap();
        if line.contains(r#""type":"result""#) {
            break;
        }
    }
    let left: Vec<PathBuf> = std::fs::read_dir(users_dir(tmp.path()))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("dcl-background-"))
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    first.kill().unwrap();
    first.wait().unwrap();
    drop(stdin);
    assert!(left[0].is_dir(), "SIGKILL left nothing to sweep");

    let out = dcl_in(
        cwd.path(),
        &["-p", "hi", "--model", "mock-model"],
        &[(OsStr::new("TMPDIR"), tmp.path().as_os_str())],
    );
    assert!(out.status.success());
    assert!(!left[0].exists(), "{} survived", left[0].display());
}

fn run_with_stdin(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd)
        .env_remove("DCL_LOG")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

const DEBUG_TURN: &str =
    r#"{"type":"user","message":{"role":"user","content":"FAKE_READ missing.txt"}}"#;

#[test]
fn debug_logs_what_dcl_decides_on_stderr_and_stdout_stays_stream_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--model",
        "mock-model",
    ];
    let quiet = run_with_stdin(dir.path(), &args, DEBUG_TURN);
    assert!(
        !String::from_utf8_lossy(&quiet.stderr).contains("DEBUG"),
        "debug lines without --debug"
    );
    for flag in ["--debug", "-d", "--debug-to-stderr"] {
        args.push(flag);
        let out = run_with_stdin(dir.path(), &args, DEBUG_TURN);
        args.pop();
        let stderr = String::from_utf8_lossy(&out.stderr);
        for decided in ["session", "model request", "permission: allow"] {
            assert!(
                stderr.contains(decided),
                "{flag}: no {decided:?} in {stderr}"
            );
        }
        let stdout = String::from_utf8(out.stdout).unwrap();
        for line in stdout.lines() {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{flag}: stdout line is not JSON ({e}): {line}"));
            assert!(v["type"].is_string(), "{line}");
        }
        assert!(stdout.contains(r#""type":"result""#), "{stdout}");
    }
}

#[test]
fn debug_categories_and_the_debug_file() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--model",
        "mock-model",
    ];
    let only = run_with_stdin(
        dir.path(),
        &[&base[..], &["--debug=sampling"]].concat(),
        DEBUG_TURN,
    );
    let stderr = String::from_utf8_lossy(&only.stderr);
    assert!(stderr.contains("model request"), "{stderr}");
    assert!(!stderr.contains("permission: allow"), "{stderr}");

    let log = dir.path().join("debug.log");
    let log_arg = log.to_str().unwrap();
    let to_file = run_with_stdin(
        dir.path(),
        &[&base[..], &["--debug-file", log_arg]].concat(),
        DEBUG_TURN,
    );
    assert!(!String::from_utf8_lossy(&to_file.stderr).contains("model request"));
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("model request"), "{written}");
    assert!(
        String::from_utf8(to_file.stdout)
            .unwrap()
            .contains(r#""type":"result""#)
    );
}
