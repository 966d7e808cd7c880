//! Prompt history per project, in the reference's shape (one JSON line per prompt, with
//! the project's path) in dcl's own folder beside its transcripts:
//! `$DCL_CONFIG_DIR/history.jsonl`, by default `~/.dcl/history.jsonl`.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Value, json};

#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
    /// Where ↑/↓ stands (`None`: at the new prompt).
    pos: Option<usize>,
    /// The prompt being typed before ↑ was pressed.
    draft: String,
    file: Option<PathBuf>,
    project: String,
}

impl History {
    pub fn load(dcl_home: Option<PathBuf>, project: String) -> History {
        let file = dcl_home.map(|h| h.join("history.jsonl"));
        let entries = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|text| {
                text.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|v| v["project"].as_str() == Some(project.as_str()))
                    .filter_map(|v| v["display"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        History {
            entries,
            pos: None,
            draft: String::new(),
            file,
            project,
        }
    }

    pub fn push(&mut self, text: &str) {
        self.pos = None;
        if self.entries.last().map(String::as_str) == Some(text) {
            return;
        }
        self.entries.push(text.to_string());
        let Some(file) = &self.file else { return };
        let line = json!({
            "display": text,
            "pastedContents": {},
            "timestamp": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            "project": self.project,
        });
        // History is a convenience: a home that cannot be written loses it, nothing else.
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
        {
            let _ = writeln!(f, "{line}");
        }
    }

    /// The entry before the one shown (`current` is kept as the draft on the first step).
    pub fn prev(&mut self, current: &str) -> Option<&str> {
        let next = match self.pos {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_string();
                self.entries.len() - 1
            }
            Some(0) => 0,
            Some(p) => p - 1,
        };
        self.pos = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// The entry after the one shown, or the draft past the newest.
    pub fn next(&mut self) -> Option<&str> {
        let p = self.pos?;
        if p + 1 >= self.entries.len() {
            self.pos = None;
            return Some(&self.draft);
        }
        self.pos = Some(p + 1);
        self.entries.get(p + 1).map(String::as_str)
    }

    /// The newest entry containing `query`.
    pub fn search(&self, query: &str) -> Option<&str> {
        if query.is_empty() {
            return None;
        }
        self.entries
            .iter()
            .rev()
            .find(|e| e.contains(query))
            .map(String::as_str)
    }
}
