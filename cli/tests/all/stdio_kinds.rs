//! stdin and stdout of every kind a host may give: pipes (non-blocking, waited on by the
//! runtime), and files (blocking, read by a thread). A host that stops reading never
//! stops dcl from hearing SIGTERM, and what it reads later arrives whole.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::STREAM;

const INIT: &str = r#"{"type":"control_request","request_id":"init","request":{"subtype":"initialize","hooks":null}}"#;
const USER: &str = r#"{"type":"user","message":{"role":"user","content":"hello"},"parent_tool_use_id":null,"session_id":""}"#;

fn dcl(home: &std::path::Path, stdin: Stdio, stdout: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(STREAM)
        .current_dir(home)
        .env("HOME", home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DCL_MODEL")
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn dcl")
}

/// Waits up to `limit` for `child` to exit; kills it and panics past that.
fn exit_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dcl did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn prompts(stdin: &mut impl Write, n: usize) {
    let mut text = String::new();
    for _ in 0..n {
        text.push_str(USER);
        text.push('\n');
    }
    stdin.write_all(text.as_bytes()).unwrap();
    stdin.flush().unwrap();
}

#[test]
fn a_host_that_stops_reading_gets_every_line_whole_later_and_sigterm_ends_dcl() {
    let home = tempfile::tempdir().unwrap();
    let mut child = dcl(home.path(), Stdio::piped(), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{INIT}").unwrap();
    // Each turn writes ~4 KB: 150 of them are several times what the pipe holds, so the
    // writer finds it full, mid-batch, again and again.
    prompts(&mut stdin, 150);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "dcl ended while its stdout was full"
    );

    let (mut results, mut line) = (0, String::new());
    while results < 150 {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "stdout ended after {results} results"
        );
        let v: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a line arrived cut or mixed ({e}): {line:.200}"));
        if v["type"] == "result" {
            assert_eq!(v["subtype"], "success", "{v}");
            results += 1;
        }
    }

    // Full again, and nobody reading: SIGTERM still ends the session promptly.
    prompts(&mut stdin, 150);
    std::thread::sleep(Duration::from_millis(300));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = exit_within(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(143));
}

#[test]
fn files_for_stdin_and_stdout_work_as_pipes_do() {
    let home = tempfile::tempdir().unwrap();
    let input = home.path().join("in.jsonl");
    std::fs::write(&input, format!("{INIT}\n{USER}\n{USER}")).unwrap();
    let output = home.path().join("out.jsonl");
    let mut child = dcl(
        home.path(),
        Stdio::from(std::fs::File::open(&input).unwrap()),
        Stdio::from(std::fs::File::create(&output).unwrap()),
    );
    let status = exit_within(&mut child, Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    let mut text = String::new();
    std::fs::File::open(&output)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answered = lines
        .iter()
        .any(|v| v["type"] == "control_response" && v["response"]["request_id"] == "init");
    assert!(answered, "{text}");
    // The last line has no newline: it is a prompt all the same.
    let results = lines.iter().filter(|v| v["type"] == "result").count();
    assert_eq!(results, 2, "{text}");
}

fn is_nonblocking(fd: &std::os::fd::OwnedFd) -> bool {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsRawFd;
    let flags = fcntl(fd.as_raw_fd(), FcntlArg::F_GETFL).unwrap();
    OFlag::from_bits_truncate(flags).contains(OFlag::O_NONBLOCK)
}

#[test]
fn the_pipes_are_left_blocking_as_dcl_found_them() {
    let home = tempfile::tempdir().unwrap();
    // Close-on-exec: dcl must not inherit the ends the test writes and reads.
    let cloexec = nix::fcntl::OFlag::O_CLOEXEC;
    let (in_read, in_write) = nix::unistd::pipe2(cloexec).unwrap();
    let (out_read, out_write) = nix::unistd::pipe2(cloexec).unwrap();
    // The test keeps the ends dcl gets open too, as a shell running more commands on the
    // same pipes does: it shares their open files, and with them O_NONBLOCK.
    let shared_in = in_read.try_clone().unwrap();
    let shared_out = out_write.try_clone().unwrap();
    let mut child = dcl(home.path(), Stdio::from(in_read), Stdio::from(out_write));
    let mut host_in = std::fs::File::from(in_write);
    let mut host_out = BufReader::new(std::fs::File::from(out_read));
    writeln!(host_in, "{INIT}").unwrap();
    let mut line = String::new();
    while !line.contains("control_response") {
        line.clear();
        assert!(host_out.read_line(&mut line).unwrap() > 0, "stdout ended");
    }
    // While the session runs, both are non-blocking (so the check below can fail).
    assert!(is_nonblocking(&shared_in) && is_nonblocking(&shared_out));
    drop(host_in);
    let status = exit_within(&mut child, Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    assert!(
        !is_nonblocking(&shared_in),
        "stdin's pipe was left non-blocking"
    );
    assert!(
        !is_nonblocking(&shared_out),
        "stdout's pipe was left non-blocking"
    );
}
