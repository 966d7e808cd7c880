//! Reading a transcript back: every line that is a JSON object, in file order. A torn last
//! line (the process died while writing it) and corrupt lines elsewhere are skipped, each
//! with a warning that names the file and line.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Result, StoreError};

/// Why a line was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadWarning {
    #[error(
        "{}: skipped the torn last line {line} ({bytes} bytes): the session ended while it was being written",
        path.display()
    )]
    TornLastLine {
        path: PathBuf,
        line: usize,
        bytes: usize,
    },
    #[error("{}: skipped line {line}: not a JSON object", path.display())]
    CorruptLine { path: PathBuf, line: usize },
}

/// A transcript's lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub path: PathBuf,
    /// Every JSON-object line, in file order (chain entries and metadata lines).
    pub entries: Vec<Value>,
    pub warnings: Vec<LoadWarning>,
    /// File size in bytes.
    pub size: u64,
}

/// Reads and parses one transcript file.
pub fn load(path: &Path) -> Result<Loaded> {
    let bytes = std::fs::read(path).map_err(|e| StoreError::io("cannot read", path, e))?;
    let loaded = parse(&bytes, path);
    for w in &loaded.warnings {
        tracing::warn!("{w}");
    }
    Ok(loaded)
}

/// Parses transcript bytes (`path` only names the file in warnings).
pub fn parse(bytes: &[u8], path: &Path) -> Loaded {
    let mut out = Loaded {
        path: path.to_path_buf(),
        size: bytes.len() as u64,
        ..Loaded::default()
    };
    let ends_with_newline = bytes.last() == Some(&b'\n');
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    let count = lines.len();
    for (i, raw) in lines.into_iter().enumerate() {
        let line = raw.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v @ Value::Object(_)) => out.entries.push(v),
            _ if i + 1 == count && !ends_with_newline => {
                out.warnings.push(LoadWarning::TornLastLine {
                    path: path.to_path_buf(),
                    line: i + 1,
                    bytes: raw.len(),
                });
            }
            _ => out.warnings.push(LoadWarning::CorruptLine {
                path: path.to_path_buf(),
                line: i + 1,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_last_and_corrupt_middle_lines_are_skipped_with_warnings() {
        let text = b"{\"type\":\"user\",\"uuid\":\"a\"}\nnot json\n[1,2]\n\n{\"type\":\"assistant\",\"uuid\":\"b\"}\n{\"type\":\"user\",\"uu";
        let l = parse(text, Path::new("/t.jsonl"));
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries[1]["uuid"], "b");
        assert_eq!(
            l.warnings,
            vec![
                LoadWarning::CorruptLine {
                    path: "/t.jsonl".into(),
                    line: 2
                },
                LoadWarning::CorruptLine {
                    path: "/t.jsonl".into(),
                    line: 3
                },
                LoadWarning::TornLastLine {
                    path: "/t.jsonl".into(),
                    line: 6,
                    bytes: 18
                },
            ]
        );
        assert!(l.warnings[2].to_string().contains("torn last line 6"));
    }

    #[test]
    fn a_complete_last_line_without_newline_is_kept() {
        let l = parse(b"{\"type\":\"user\",\"uuid\":\"a\"}", Path::new("/t"));
        assert_eq!(l.entries.len(), 1);
        assert!(l.warnings.is_empty());
    }
}
