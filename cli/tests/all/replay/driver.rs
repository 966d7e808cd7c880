//! Runs `dcl` on one transcript: a fresh git repo as cwd, a scratch HOME, the recorded
//! argv, and the recorded stdin fed in the recorded order, each line once dcl has printed
//! the stdout line the recording had seen before it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::transcript::{Action, Transcript, Wait, sync_key};

/// How long the driver waits for one awaited line before it goes on without it.
const WAIT_TIMEOUT: Duration = Duration::from_secs(5);
/// All waiting in one scenario (awaited lines, then stdout EOF after stdin is closed):
/// a hung dcl costs at most this (plus [`EXIT_TIMEOUT`]) per scenario.
const SCENARIO_BUDGET: Duration = Duration::from_secs(20);
/// How long dcl may take to exit once its stdout is closed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// The scratch paths a run used, for substituting the transcripts' placeholders.
#[derive(Debug, Clone)]
pub struct Paths {
    pub cwd: String,
    pub home: String,
    pub scratch: String,
    pub mangled: String,
}

impl Paths {
    pub fn substitute(&self, s: &str) -> String {
        s.replace("<CWD_MANGLED>", &self.mangled)
            .replace("<CWD>", &self.cwd)
            .replace("<HOME>", &self.home)
            .replace("<SCRATCH>", &self.scratch)
    }

    /// The paths written back as placeholders.
    pub fn unsubstitute(&self, s: &str) -> String {
        s.replace(&self.mangled, "<CWD_MANGLED>")
            .replace(&self.cwd, "<CWD>")
            .replace(&self.home, "<HOME>")
            .replace(&self.scratch, "<SCRATCH>")
    }

    pub fn substitute_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.substitute(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.substitute_value(x)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), self.substitute_value(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// What dcl did.
#[derive(Debug)]
pub struct Run {
    /// Every stdout line: parsed JSON, or a `Value::String` for a line that is not JSON.
    pub stdout: Vec<Value>,
    pub stderr: String,
    /// `None` when dcl had to be killed (or died from a signal).
    pub exit_code: Option<i64>,
    /// What the driver did, for the failure report.
    pub log: Vec<String>,
    pub paths: Paths,
    pub elapsed: Duration,
}

/// Kills the child when dropped, so a panicking or failing test never leaves it behind.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Driver {
    child: Guard,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    eof: bool,
    stdout: Vec<Value>,
    counts: HashMap<String, usize>,
    results: usize,
    /// The reference CLI's control requests `(subtype, id)`, in order.
    recorded_requests: Vec<(String, String)>,
    /// dcl's control requests `(subtype, id)`, in order.
    dcl_requests: Vec<(String, String)>,
    log: Vec<String>,
    start: Instant,
    /// When the scenario's time budget runs out.
    budget_end: Instant,
}

fn mangle(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A fresh git repo holding `README.md` and `notes.txt`, like the reference's cwd.
fn make_cwd(cwd: &Path) {
    std::fs::create_dir_all(cwd).expect("create cwd");
    std::fs::write(cwd.join("README.md"), "# scratch\n").expect("write README.md");
    std::fs::write(cwd.join("notes.txt"), "line1\nline2\n").expect("write notes.txt");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !matches!(git, Ok(s) if s.success()) {
        eprintln!("warning: `git init` failed in {}", cwd.display());
    }
}

pub fn run(t: &Transcript, bin: &Path, scratch: &Path) -> Run {
    let start = Instant::now();
    let scratch = scratch.canonicalize().expect("canonical scratch");
    let cwd: PathBuf = scratch.join("cwd");
    let home: PathBuf = scratch.join("home");
    make_cwd(&cwd);
    std::fs::create_dir_all(&home).expect("create home");
    let paths = Paths {
        cwd: cwd.display().to_string(),
        home: home.display().to_string(),
        scratch: scratch.display().to_string(),
        mangled: mangle(&cwd.display().to_string()),
    };

    let mut cmd = Command::new(bin);
    cmd.args(&t.argv)
        .args(["--model", "mock-model"])
        .current_dir(&cwd)
        .env_clear()
        .env("HOME", &home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DCL_RETRY_BASE_MS", "5")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if t.name.starts_with("a4_") {
        // What the TS SDK sets (the scenario's point); dcl must not change shape for it.
        cmd.env("CLAUDE_CODE_ENTRYPOINT", "sdk-ts")
            .env("CLAUDE_AGENT_SDK_VERSION", "0.3.332");
    }
    let mut child = cmd.spawn().expect("spawn dcl");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let stdin = child.stdin.take();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(l) = line else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let stderr_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });

    let mut d = Driver {
        child: Guard(child),
        stdin,
        lines: rx,
        eof: false,
        stdout: Vec::new(),
        counts: HashMap::new(),
        results: 0,
        recorded_requests: t.cli_requests(),
        dcl_requests: Vec::new(),
        log: Vec::new(),
        start,
        budget_end: start + SCENARIO_BUDGET,
    };

    for step in t.steps() {
        if let Some(w) = &step.wait {
            d.wait_for(w);
        }
        match step.action {
            Action::Send(line) => d.send(&paths, &line),
            Action::Close => d.close("as recorded"),
        }
    }
    d.close("after the last recorded step");

    while !d.eof {
        let left = d.budget_end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            d.note("stdout still open at the end of the scenario's time budget");
            break;
        }
        d.pump(left);
    }
    let exit_code = d.wait_exit();
    drop(d.child);
    let stderr = stderr_thread.join().unwrap_or_default();
    Run {
        stdout: d.stdout,
        stderr,
        exit_code,
        log: d.log,
        paths,
        elapsed: start.elapsed(),
    }
}

impl Driver {
    fn note(&mut self, what: impl Into<String>) {
        let ms = self.start.elapsed().as_millis();
        self.log.push(format!("{ms:>6} ms  {}", what.into()));
    }

    /// Reads one line (or times out); answers dcl's control requests the recording has no
    /// answer for with an error, so dcl never waits on the driver.
    fn pump(&mut self, timeout: Duration) {
        match self.lines.recv_timeout(timeout) {
            Ok(raw) => {
                let v: Value =
                    serde_json::from_str(&raw).unwrap_or_else(|_| Value::String(raw.clone()));
                *self.counts.entry(sync_key(&v)).or_default() += 1;
                if v["type"] == "result" {
                    self.results += 1;
                }
                if v["type"] == "control_request" {
                    let subtype = v["request"]["subtype"].as_str().unwrap_or("?").to_string();
                    let id = v["request_id"].as_str().unwrap_or("?").to_string();
                    let k = self
                        .dcl_requests
                        .iter()
                        .filter(|(s, _)| *s == subtype)
                        .count();
                    let recorded = self
                        .recorded_requests
                        .iter()
                        .filter(|(s, _)| *s == subtype)
                        .count();
                    self.dcl_requests.push((subtype.clone(), id.clone()));
                    if k >= recorded {
                        self.note(format!(
                            "dcl sent {subtype} #{} which the reference never sent: answering with an error",
                            k + 1
                        ));
                        let answer = json!({"type": "control_response", "response": {
                            "subtype": "error", "request_id": id,
                            "error": "transcript replay: the reference CLI did not send this request"}});
                        self.write(&answer.to_string());
                    }
                }
                self.stdout.push(v);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => self.eof = true,
        }
    }

    fn wait_for(&mut self, w: &Wait) {
        let deadline = (Instant::now() + WAIT_TIMEOUT).min(self.budget_end);
        loop {
            if self.counts.get(&w.key).copied().unwrap_or(0) >= w.n {
                return;
            }
            let why = if self.results > w.results {
                "the turn ended without it"
            } else if self.eof {
                "stdout closed"
            } else if Instant::now() >= deadline {
                "timed out"
            } else {
                let left = deadline.saturating_duration_since(Instant::now());
                self.pump(left);
                continue;
            };
            self.note(format!("gave up waiting for {} #{}: {why}", w.key, w.n));
            return;
        }
    }

    fn send(&mut self, paths: &Paths, line: &Value) {
        let mut line = paths.substitute_value(line);
        // An answer to one of the reference's control requests goes to dcl's request at
        // the same position (same subtype, same index), under dcl's id.
        if line["type"] == "control_response" {
            let rid = line["response"]["request_id"]
                .as_str()
                .unwrap_or("")
                .to_string();
            if let Some(pos) = self.recorded_requests.iter().position(|(_, id)| *id == rid) {
                let subtype = self.recorded_requests[pos].0.clone();
                let k = self.recorded_requests[..pos]
                    .iter()
                    .filter(|(s, _)| *s == subtype)
                    .count();
                let mapped = self
                    .dcl_requests
                    .iter()
                    .filter(|(s, _)| *s == subtype)
                    .nth(k)
                    .map(|(_, id)| id.clone());
                match mapped {
                    Some(id) => line["response"]["request_id"] = Value::String(id),
                    None => {
                        self.note(format!(
                            "dropped the answer to {subtype} #{}: dcl never sent it",
                            k + 1
                        ));
                        return;
                    }
                }
            }
        }
        let text = match &line {
            Value::String(raw) => raw.clone(),
            v => v.to_string(),
        };
        self.note(format!("stdin: {}", shorten(&text, 160)));
        self.write(&text);
    }

    fn write(&mut self, text: &str) {
        let Some(stdin) = self.stdin.as_mut() else {
            self.note("(stdin already closed: line not sent)");
            return;
        };
        let ok = writeln!(stdin, "{text}").and_then(|_| stdin.flush());
        if let Err(e) = ok {
            self.note(format!("writing stdin failed: {e}"));
            self.stdin = None;
        }
    }

    fn close(&mut self, why: &str) {
        if self.stdin.take().is_some() {
            self.note(format!("stdin closed ({why})"));
        }
    }

    fn wait_exit(&mut self) -> Option<i64> {
        let deadline = Instant::now() + EXIT_TIMEOUT;
        loop {
            match self.child.0.try_wait() {
                Ok(Some(status)) => return status.code().map(i64::from),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => {
                    self.note("dcl did not exit: killed");
                    let _ = self.child.0.kill();
                    let _ = self.child.0.wait();
                    return None;
                }
            }
        }
    }
}

pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max).collect();
        format!("{head}…")
    }
}
