//! A realistic session written through the store's own writer.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use dcl_store::{Homes, Store, Transcript, TranscriptOptions, new_uuid};
use serde_json::{Map, Value, json};

/// A temp HOME, a temp project directory inside it, and homes resolved from an env.
pub struct Fixture {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let home = base.join("home");
        let cwd = base.join("work/my.project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Fixture { root, home, cwd }
    }

    /// Homes for an env given as pairs (HOME is added).
    pub fn homes(&self, pairs: &[(&str, &str)]) -> Homes {
        let home = self.home.to_string_lossy().into_owned();
        let mut all: Vec<(String, String)> = vec![("HOME".into(), home)];
        all.extend(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Homes::resolve(
            None,
            |k| {
                all.iter()
                    .rev()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
            },
            &self.cwd,
        )
    }

    pub fn store(&self, pairs: &[(&str, &str)]) -> Store {
        Store::new(self.homes(pairs), &self.cwd)
    }
}

/// The uuids of one turn as written.
#[derive(Debug, Clone)]
pub struct Turn {
    pub prompt: String,
    pub entries: Vec<String>,
}

impl Turn {
    pub fn last(&self) -> &str {
        self.entries.last().unwrap()
    }
}

/// A plain text turn: prompt, one assistant text block.
pub fn text_turn(t: &mut Transcript, prompt: &str, answer: &str) -> Turn {
    let u = new_uuid();
    t.user(&u, json!({"role": "user", "content": prompt}), Map::new())
        .unwrap();
    t.last_prompt(prompt).unwrap();
    let a = new_uuid();
    t.assistant(
        &a,
        assistant_msg(
            &format!("msg_{}", &a[..8]),
            json!({"type": "text", "text": answer}),
        ),
        Map::new(),
    )
    .unwrap();
    Turn {
        prompt: u.clone(),
        entries: vec![u, a],
    }
}

/// A tool turn: prompt, assistant text + tool_use (one message id, two entries), the
/// tool result, then a final text answer.
pub fn tool_turn(t: &mut Transcript, prompt: &str) -> Turn {
    let u = new_uuid();
    t.user(&u, json!({"role": "user", "content": prompt}), Map::new())
        .unwrap();
    let mid = format!("msg_{}", &u[..8]);
    let a1 = new_uuid();
    t.assistant(
        &a1,
        assistant_msg(&mid, json!({"type": "text", "text": "I'll run it."})),
        Map::new(),
    )
    .unwrap();
    let a2 = new_uuid();
    let tool_id = format!("toolu_{}", &a2[..8]);
    t.assistant(
        &a2,
        assistant_msg(&mid, json!({"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "echo hi"}})),
        Map::new(),
    )
    .unwrap();
    let r = new_uuid();
    let mut extra = Map::new();
    extra.insert(
        "toolUseResult".into(),
        json!({"stdout": "hi\n", "stderr": "", "interrupted": false}),
    );
    t.user(
        &r,
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "hi", "is_error": false}]}),
        extra,
    )
    .unwrap();
    let a3 = new_uuid();
    t.assistant(
        &a3,
        assistant_msg(
            &format!("msg_{}", &a3[..8]),
            json!({"type": "text", "text": "It printed hi."}),
        ),
        Map::new(),
    )
    .unwrap();
    Turn {
        prompt: u.clone(),
        entries: vec![u, a1, a2, r, a3],
    }
}

pub fn assistant_msg(id: &str, block: Value) -> Value {
    json!({
        "id": id, "type": "message", "role": "assistant", "model": "mock-model",
        "content": [block], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    })
}

/// Starts a session and writes a tool turn then a text turn.
pub fn two_turn_session(store: &Store) -> (String, Transcript, Vec<Turn>) {
    let id = new_uuid();
    let mut t = store.start(&id, TranscriptOptions::default()).unwrap();
    let a = tool_turn(&mut t, "please FAKE_BASH");
    let b = text_turn(&mut t, "and now say bye", "bye");
    (id, t, vec![a, b])
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}
