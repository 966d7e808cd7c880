//! `--session-mirror`: entries written to disk are also collected, and handed out as
//! `{"type":"transcript_mirror","filePath":…,"entries":[…]}` frames before each `result`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// Collects every committed entry of a session (main and subagent transcripts), in order.
/// Cloning shares the buffer.
#[derive(Debug, Clone, Default)]
pub struct MirrorSink {
    pending: Arc<Mutex<Vec<(PathBuf, Value)>>>,
}

impl MirrorSink {
    pub fn new() -> MirrorSink {
        MirrorSink::default()
    }

    pub(crate) fn push(&self, path: &Path, entry: Value) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        p.push((path.to_path_buf(), entry));
    }

    /// Takes what was committed since the last call, as frames: one per run of entries of
    /// the same file, in commit order. Empty when nothing was written.
    pub fn drain_frames(&self) -> Vec<Value> {
        let taken = {
            let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut *p)
        };
        let mut frames: Vec<(PathBuf, Vec<Value>)> = Vec::new();
        for (path, entry) in taken {
            match frames.last_mut() {
                Some((p, entries)) if *p == path => entries.push(entry),
                _ => frames.push((path, vec![entry])),
            }
        }
        frames
            .into_iter()
            .map(|(path, entries)| frame(&path, entries))
            .collect()
    }
}

/// One mirror frame.
pub fn frame(path: &Path, entries: Vec<Value>) -> Value {
    json!({
        "type": "transcript_mirror",
        "filePath": path.to_string_lossy(),
        "entries": entries,
    })
}
