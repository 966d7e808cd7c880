//! Benchmarks: the cost of writing one transcript entry (what every streamed message adds
//! to a turn), and loading + resuming a 1,000-message session.
//!
//! Run: `cargo bench -p dcl-store --bench store`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // benchmarks fail loudly on broken fixtures

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use dcl_store::{
    Homes, MirrorSink, Redactor, ResumeRequest, Store, Target, TranscriptOptions, new_uuid,
};
use serde_json::{Map, Value, json};

fn store(dir: &std::path::Path) -> Store {
    let cwd = dir.join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let home = dir.join("home").to_string_lossy().into_owned();
    let homes = Homes::resolve(None, |k| (k == "HOME").then(|| home.clone()), &cwd);
    Store::new(homes, &cwd)
}

/// A typical assistant text block (~600 bytes on disk with the entry fields).
fn assistant_block(i: usize) -> Value {
    json!({
        "id": format!("msg_{i:08}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "The function reads the file, splits it into lines and returns the ones that match; the error path closes the handle first."}],
        "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 1200, "output_tokens": 40, "cache_read_input_tokens": 0},
    })
}

fn write_entry(c: &mut Criterion) {
    let mut group = c.benchmark_group("transcript_write");
    let cases: [(&str, TranscriptOptions); 3] = [
        ("plain", TranscriptOptions::default()),
        (
            "with_redaction",
            TranscriptOptions {
                redactor: Arc::new(Redactor::from_env([
                    ("ANTHROPIC_API_KEY", "sk-ant-api03-0123456789abcdef"),
                    ("GITHUB_TOKEN", "ghp_0123456789abcdef0123"),
                    ("DB_PASSWORD", "correct-horse-battery"),
                ])),
                mirror: None,
                spool: None,
            },
        ),
        (
            "with_mirror",
            TranscriptOptions {
                mirror: Some(MirrorSink::new()),
                ..TranscriptOptions::default()
            },
        ),
    ];
    for (name, opts) in cases {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let sink = opts.mirror.clone();
        let mut t = s.start(&new_uuid(), opts).unwrap();
        let mut i = 0usize;
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                t.assistant(&new_uuid(), assistant_block(i), Map::new())
                    .unwrap();
                if let Some(m) = &sink
                    && i.is_multiple_of(64)
                {
                    // Frames leave before each result; keep the buffer bounded.
                    std::hint::black_box(m.drain_frames());
                }
            })
        });
    }
    group.finish();
}

fn resume_1000(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let id = new_uuid();
    let mut t = s.start(&id, TranscriptOptions::default()).unwrap();
    // 1,000 messages: 250 turns of prompt, assistant text + tool_use, tool result, answer
    // (4 messages, 5 entries each).
    for turn in 0..250 {
        t.user(&new_uuid(), json!({"role": "user", "content": format!("step {turn}: look at src/lib.rs and fix the failing test")}), Map::new()).unwrap();
        let mid = format!("msg_{turn:08}");
        let mut a = assistant_block(turn);
        a["id"] = json!(mid);
        t.assistant(&new_uuid(), a.clone(), Map::new()).unwrap();
        let tool_id = format!("toolu_{turn:08}");
        a["content"] = json!([{"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": "/repo/src/lib.rs"}}]);
        t.assistant(&new_uuid(), a, Map::new()).unwrap();
        let body = "fn main() {\n    println!(\"hello\");\n}\n".repeat(20);
        t.user(&new_uuid(), json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": body}]}), Map::new()).unwrap();
        t.assistant(&new_uuid(), assistant_block(turn + 1000), Map::new())
            .unwrap();
    }
    drop(t);
    let req = ResumeRequest {
        target: Target::Id(id.clone()),
        at: None,
        drops_turn: None,
    };
    let mut group = c.benchmark_group("transcript_resume");
    group.bench_function("load_and_resume_1000_messages", |b| {
        b.iter(|| {
            let r = s.resume(&req).unwrap();
            assert_eq!(r.history.len(), 1000);
            std::hint::black_box(r);
        })
    });
    group.bench_function("continue_newest_1000_messages", |b| {
        let cont = ResumeRequest {
            target: Target::Continue,
            ..req.clone()
        };
        b.iter(|| std::hint::black_box(s.resume(&cont).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, write_entry, resume_1000);
criterion_main!(benches);
