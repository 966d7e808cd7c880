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
