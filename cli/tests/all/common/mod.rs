//! Drives the `dcl` binary over stdin/stdout the way an SDK does.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

pub struct Dcl {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    pub seen: Vec<Value>,
    pub cwd: tempfile::TempDir,
    _home: tempfile::TempDir,
}

pub const STREAM: &[&str] = &[
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--model",
    "mock-model",
];

impl Dcl {
    pub fn start(args: &[&str]) -> Dcl {
        Self::start_with_env(args, &[])
    }

    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Dcl {
        Self::start_in(tempfile::tempdir().expect("tempdir"), args, env)
    }

    /// Starts in `cwd`, prepared by the caller (files the session reads at start).
    pub fn start_in(cwd: tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> Dcl {
        let home = tempfile::tempdir().expect("tempdir");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcl"));
        cmd.args(args)
            .current_dir(cwd.path())
            .env("HOME", home.path())
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("DCL_MODEL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn dcl");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let stdin = child.stdin.take();
        Dcl {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
            cwd,
            _home: home,
        }
    }

    pub fn cwd(&self) -> std::path::PathBuf {
        self.cwd.path().canonicalize().expect("canonical cwd")
    }

    pub fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write stdin");
        stdin.flush().expect("flush");
    }

    pub fn user(&mut self, text: &str) {
        self.send(json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""}));
    }

    pub fn control(&mut self, id: &str, request: Value) {
        self.send(json!({"type":"control_request","request_id":id,"request":request}));
    }

    /// The child's stdin, for writing raw bytes.
    pub fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin open")
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line (parsed), or panics after `secs`.
    pub fn next(&mut self, secs: u64) -> Option<Value> {
        match self.lines.recv_timeout(Duration::from_secs(secs)) {
            Ok(l) => {
                let v: Value = serde_json::from_str(&l)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"));
                self.seen.push(v.clone());
                Some(v)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("no output within {secs}s; seen: {:#?}", self.seen)
            }
        }
    }

    /// Reads until a line satisfies `pred`, answering nothing; returns that line.
    pub fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            match self.next(20) {
                Some(v) if pred(&v) => return v,
                Some(_) => {}
                None => panic!(
                    "stdout closed before the expected line; seen: {:#?}",
                    self.seen
                ),
            }
        }
    }

    pub fn until_type(&mut self, t: &str) -> Value {
        self.until(|v| v["type"] == t)
    }

    pub fn response_to(&mut self, id: &str) -> Value {
        self.until(|v| v["type"] == "control_response" && v["response"]["request_id"] == id)
    }

    /// Answers the next `can_use_tool` request with `answer`; returns the request.
    pub fn answer_permission(&mut self, answer: Value) -> Value {
        let req = self
            .until(|v| v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool");
        let id = req["request_id"].as_str().expect("request_id").to_string();
        self.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":answer}}));
        req
    }

    /// Drains stdout until EOF and returns the exit code.
    pub fn finish(&mut self) -> i32 {
        self.close_stdin();
        while self.next(30).is_some() {}
        let status = self.child.wait().expect("wait");
        status.code().unwrap_or(-1)
    }

    pub fn stderr(&mut self) -> String {
        let mut s = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    }

    pub fn of_type(&self, t: &str) -> Vec<&Value> {
        self.seen.iter().filter(|v| v["type"] == t).collect()
    }
}

impl Drop for Dcl {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
