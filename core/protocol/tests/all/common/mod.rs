//! Locating and loading the reference transcripts shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One stdin/stdout record of a transcript.
#[derive(Debug, Clone)]
pub struct Record {
    pub file: String,
    /// 1-based line number in the transcript file.
    pub lineno: usize,
    /// `stdin` or `stdout`.
    pub dir: String,
    /// The `line` field: a JSON value, or a string for a raw (non-JSON) line.
    pub line: Value,
}

impl Record {
    pub fn at(&self) -> String {
        format!("{}:{} ({})", self.file, self.lineno, self.dir)
    }
}

fn has_jsonl(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        })
        .unwrap_or(false)
}

/// The recorded reference transcripts, copied into the repository (`tests/fixtures/`).
pub fn transcripts_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/reference-cli/transcripts");
    assert!(
        has_jsonl(&dir),
        "the transcript fixtures are missing from {}",
        dir.display()
    );
    dir
}

/// Every stdin/stdout record of every transcript, in file order.
pub fn records() -> Vec<Record> {
    let dir = transcripts_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read transcripts dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts in {}", dir.display());
    let mut out = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("read transcript");
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let rec: Value = serde_json::from_str(raw)
                .unwrap_or_else(|e| panic!("{name}:{}: transcript record is not JSON: {e}", i + 1));
            let dir = rec.get("dir").and_then(Value::as_str).unwrap_or("");
            if dir != "stdin" && dir != "stdout" {
                continue;
            }
            out.push(Record {
                file: name.clone(),
                lineno: i + 1,
                dir: dir.to_string(),
                line: rec.get("line").cloned().unwrap_or(Value::Null),
            });
        }
    }
    out
}
