//! What the path decision costs per tool call: resolving a path's aliases with and
//! without symlinks, and whole checks (a Read under a deny rule, a Write that scans for
//! protected links).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use dcl_policy::permissions::paths::Aliases;
use dcl_policy::permissions::{PermissionMode, Policy};
use dcl_tool_api::ToolContext;
use serde_json::json;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical temp dir");
    let work = root.join("work");
    std::fs::create_dir_all(work.join("src/a/b")).expect("dirs");
    std::fs::write(work.join("src/a/b/c.rs"), "x").expect("file");
    std::os::unix::fs::symlink("src/a", work.join("link")).expect("link");
    c.bench_function("aliases: no symlink", |b| {
        b.iter(|| Aliases::resolve(black_box(Path::new("src/a/b/c.rs")), &work))
    });
    c.bench_function("aliases: one symlink", |b| {
        b.iter(|| Aliases::resolve(black_box(Path::new("link/b/c.rs")), &work))
    });
    let deny = vec![
        "Read(./secret/**)".to_string(),
        "Edit(./cfg/**)".to_string(),
    ];
    let policy = Policy::new(PermissionMode::AcceptEdits, &[], &deny, &work, &[]);
    let ctx = ToolContext::new(work.clone());
    let read = dcl_tools::read::ReadTool;
    let write = dcl_tools::write::WriteTool;
    let read_input = json!({"file_path": "src/a/b/c.rs"});
    let write_input = json!({"file_path": "src/a/b/c.rs", "content": "y"});
    c.bench_function("check: Read under two deny rules", |b| {
        b.iter(|| policy.check("Read", Some(&read), black_box(&read_input), &ctx))
    });
    c.bench_function("check: Write in acceptEdits (protected scan)", |b| {
        b.iter(|| policy.check("Write", Some(&write), black_box(&write_input), &ctx))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
