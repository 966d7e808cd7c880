//! The reference transcripts: `{"dir": "stdin"|"stdout"|"stderr"|"note", "t_ms", "line"}`
//! per line, the first note holding the argv.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Stdin,
    Stdout,
    Stderr,
    Note,
}

#[derive(Debug, Clone)]
pub struct Record {
    pub dir: Dir,
    /// Parsed JSON, or a `Value::String` for a line that was not JSON.
    pub line: Value,
}

#[derive(Debug, Clone)]
pub struct Transcript {
    pub name: String,
    /// The recorded argv without the program name.
    pub argv: Vec<String>,
    pub records: Vec<Record>,
}

/// Something the driver does, once `wait` (if any) is satisfied.
#[derive(Debug, Clone)]
pub enum Action {
    Send(Value),
    Close,
}

/// "The recording had printed this line before the driver went on."
#[derive(Debug, Clone)]
pub struct Wait {
    /// [`sync_key`] of the awaited stdout line.
    pub key: String,
    /// How many lines with that key the reference had printed by then.
    pub n: usize,
    /// How many `result` lines the reference had printed by then: once dcl has printed
    /// more, the awaited line is not coming in this turn.
    pub results: usize,
}

#[derive(Debug, Clone)]
pub struct Step {
    pub action: Action,
    pub wait: Option<Wait>,
}

/// The key the driver synchronises on: fine enough to tell which stdout line the
/// recording was waiting for, coarse enough that dcl's line has the same key.
pub fn sync_key(line: &Value) -> String {
    let Some(t) = line.get("type").and_then(Value::as_str) else {
        return "raw".into();
    };
    let s = |v: &Value| v.as_str().unwrap_or("?").to_string();
    match t {
        "control_response" => format!("control_response:{}", s(&line["response"]["request_id"])),
        "control_request" => format!("control_request/{}", s(&line["request"]["subtype"])),
        "stream_event" => format!("stream_event/{}", s(&line["event"]["type"])),
        "system" => format!("system/{}", s(&line["subtype"])),
        other => other.to_string(),
    }
}

impl Transcript {
    pub fn load(path: &Path) -> Result<Transcript, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: no file name", path.display()))?
            .to_string();
        let mut records = Vec::new();
        let mut argv = None;
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(raw)
                .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), i + 1))?;
            let dir = match v["dir"].as_str() {
                Some("stdin") => Dir::Stdin,
                Some("stdout") => Dir::Stdout,
                Some("stderr") => Dir::Stderr,
                Some("note") => Dir::Note,
                other => return Err(format!("{}:{}: bad dir {other:?}", path.display(), i + 1)),
            };
            let line = v.get("line").cloned().unwrap_or(Value::Null);
            if dir == Dir::Note
                && argv.is_none()
                && let Some(a) = line.get("argv").and_then(Value::as_array)
            {
                argv = Some(
                    a.iter()
                        .skip(1)
                        .map(|x| x.as_str().unwrap_or_default().to_string())
                        .collect::<Vec<_>>(),
                );
            }
            records.push(Record { dir, line });
        }
        let argv = argv.ok_or_else(|| format!("{}: no argv note", path.display()))?;
        Ok(Transcript {
            name,
            argv,
            records,
        })
    }

    /// All `*.jsonl` transcripts in `dir`, sorted by name.
    pub fn load_dir(dir: &Path) -> Result<Vec<Transcript>, String> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        paths.sort();
        paths.iter().map(|p| Transcript::load(p)).collect()
    }

    pub fn stdout(&self) -> Vec<&Value> {
        self.records
            .iter()
            .filter(|r| r.dir == Dir::Stdout)
            .map(|r| &r.line)
            .collect()
    }

    pub fn exit_code(&self) -> Option<i64> {
        self.records
            .iter()
            .filter(|r| r.dir == Dir::Note)
            .find_map(|r| r.line.get("exit_code").and_then(Value::as_i64))
    }

    /// `request_id` → subtype of every control request the driver sends.
    pub fn sent_requests(&self) -> Vec<(String, String)> {
        self.records
            .iter()
            .filter(|r| r.dir == Dir::Stdin && r.line["type"] == "control_request")
            .map(|r| {
                (
                    r.line["request_id"].as_str().unwrap_or("?").to_string(),
                    r.line["request"]["subtype"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string(),
                )
            })
            .collect()
    }

    /// `(subtype, request_id)` of every control request the reference CLI sent, in order.
    pub fn cli_requests(&self) -> Vec<(String, String)> {
        self.stdout()
            .into_iter()
            .filter(|l| l["type"] == "control_request")
            .map(|l| {
                (
                    l["request"]["subtype"].as_str().unwrap_or("?").to_string(),
                    l["request_id"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect()
    }

    /// The stdin lines and the stdin close, each with the stdout line the recording had
    /// seen last before it.
    pub fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut seen: Vec<&Value> = Vec::new();
        for r in &self.records {
            let action = match r.dir {
                Dir::Stdout => {
                    seen.push(&r.line);
                    continue;
                }
                Dir::Stdin => Action::Send(r.line.clone()),
                Dir::Note if r.line.get("stdin").and_then(Value::as_str) == Some("closed") => {
                    Action::Close
                }
                _ => continue,
            };
            let wait = seen.last().map(|last| {
                let key = sync_key(last);
                Wait {
                    n: seen.iter().filter(|l| sync_key(l) == key).count(),
                    results: seen.iter().filter(|l| l["type"] == "result").count(),
                    key,
                }
            });
            steps.push(Step { action, wait });
        }
        steps
    }
}
