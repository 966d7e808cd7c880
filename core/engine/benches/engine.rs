//! Benchmarks: one mock-model turn end to end, and the Grep / Glob tools on a large
//! generated tree, next to `rg` on the same tree when ripgrep is installed.
//!
//! Run: `cargo bench -p dcl-engine --bench engine`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // benchmarks fail loudly on broken fixtures

use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dcl_engine::{Session, SessionOptions};
use dcl_protocol::{Message, MessageContent, UserMessage};
use dcl_tool_api::{Tool, ToolContext};
use dcl_tools::{glob::GlobTool, grep::GrepTool};
use serde_json::json;

fn prompt(text: &str) -> Message {
    Message::User(UserMessage::new(MessageContent::Text(text.into())))
}

fn mock_turns(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = SessionOptions {
        cwd: Some(dir.path().to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("bypassPermissions".into()),
        legacy_events: Some(false),
        ..Default::default()
    };
    let mut group = c.benchmark_group("mock_turn");
    // A fresh session per iteration (opened outside the timing): one turn on an empty
    // history, as a new `query()` has it.
    for (name, text) in [("text", "say hi"), ("bash_tool", "please FAKE_BASH")] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter_batched(
                || Session::spawn(rt.handle(), opts.clone()).unwrap(),
                |session| async move {
                    session.send(prompt(text)).unwrap();
                    while let Some(m) = session.recv().await {
                        if matches!(m, Message::Result(_)) {
                            break;
                        }
                    }
                    session.close();
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// A tree like a mid-sized repository: 40 dirs × 100 files of ~40 lines, a .gitignore'd
/// build folder and some binary files.
pub fn generate_tree(root: &Path) {
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    for d in 0..40 {
        let dir = root.join(format!("src/mod{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let mut body = String::new();
            for l in 0..40 {
                body.push_str(&format!(
                    "fn item_{d}_{f}_{l}() -> usize {{ {l} }} // filler text\n"
                ));
                if l == 20 && f % 7 == 0 {
                    body.push_str("// TODO: needle_marker here\n");
                }
            }
            std::fs::write(dir.join(format!("file{f}.rs")), body).unwrap();
        }
        std::fs::write(dir.join("blob.bin"), [0u8, 1, 2, 3, 0, 255].repeat(1000)).unwrap();
    }
    std::fs::create_dir_all(root.join("build")).unwrap();
    for f in 0..500 {
        std::fs::write(root.join(format!("build/gen{f}.rs")), "needle_marker\n").unwrap();
    }
}

fn search_tools(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    generate_tree(&root);
    let ctx = ToolContext::new(root.clone());
    let mut group = c.benchmark_group("search_4000_files");
    group.sample_size(20);
    group.bench_function("grep_files_with_matches", |b| {
        b.to_async(&rt).iter(|| async {
            let out = GrepTool
                .call(json!({"pattern": "needle_marker", "head_limit": 0}), &ctx)
                .await;
            assert!(!out.is_error);
        })
    });
    group.bench_function("grep_content", |b| {
        b.to_async(&rt).iter(|| async {
            let out = GrepTool
                .call(
                    json!({"pattern": "TODO: needle", "output_mode": "content", "head_limit": 0}),
                    &ctx,
                )
                .await;
            assert!(!out.is_error);
        })
    });
    // The same searches with ripgrep, when it is installed (process start included).
    if std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_ok()
    {
        for (name, args) in [
            ("rg_files_with_matches", vec!["-l", "needle_marker"]),
            ("rg_content", vec!["-n", "TODO: needle"]),
            ("rg_files_glob_rs", vec!["--files", "-g", "*.rs"]),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    let out = std::process::Command::new("rg")
                        .args(&args)
                        .arg(&root)
                        .output()
                        .unwrap();
                    assert!(!out.stdout.is_empty());
                })
            });
        }
    }
    group.bench_function("glob_rs", |b| {
        b.to_async(&rt).iter(|| async {
            let out = GlobTool.call(json!({"pattern": "**/*.rs"}), &ctx).await;
            assert!(!out.is_error);
        })
    });
    group.finish();
}

criterion_group!(benches, mock_turns, search_tools);
criterion_main!(benches);
