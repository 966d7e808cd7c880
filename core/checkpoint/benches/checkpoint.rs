//! Checkpoint costs on a generated 10,000-file work tree: one checkpointed edit (record
//! before, write, remember after), a rewind of 50 files, shell-command snapshots, and the
//! disk one checkpoint takes (printed).
//!
//! `cargo bench -p dcl-checkpoint --bench checkpoint`

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dcl_checkpoint::{CheckpointConfig, Checkpointer};

const FILES: usize = 10_000;

struct Repo {
    _tmp: tempfile::TempDir,
    proj: PathBuf,
    home: PathBuf,
}

/// 100 directories of 100 files of ~1 KiB each, and a `.git` marking the work tree.
fn repo() -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::write(proj.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    for i in 0..FILES {
        let dir = proj.join(format!("d{:03}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let line = format!("file {i} line with some text to make it look like source\n");
        std::fs::write(dir.join(format!("f{i:05}.txt")), line.repeat(18)).unwrap();
    }
    Repo {
        home: tmp.path().join("home"),
        proj,
        _tmp: tmp,
    }
}

fn file(r: &Repo, i: usize) -> PathBuf {
    r.proj
        .join(format!("d{:03}", (i % FILES) / 100))
        .join(format!("f{:05}.txt", i % FILES))
}

static SESSION: AtomicUsize = AtomicUsize::new(0);

fn session(r: &Repo) -> Checkpointer {
    let n = SESSION.fetch_add(1, Ordering::Relaxed);
    Checkpointer::open(CheckpointConfig::new(
        r.home.clone(),
        r.proj.clone(),
        format!("bench-{n}"),
    ))
    .unwrap()
}

fn edit(cp: &Checkpointer, prompt: &str, path: &Path, n: usize) {
    let p = [path.to_path_buf()];
    cp.before_change(prompt, &p).unwrap();
    let mut bytes = std::fs::read(path).unwrap();
    bytes.extend_from_slice(format!("edit {n}\n").as_bytes());
    std::fs::write(path, bytes).unwrap();
    cp.after_change(&p).unwrap();
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

fn benches(c: &mut Criterion) {
    let r = repo();
    let counter = AtomicUsize::new(0);

    // Disk: 200 turns of one edited ~1 KiB file each, in one session.
    {
        let cp = session(&r);
        let before = dir_size(cp.shadow_dir());
        for t in 0..200 {
            edit(&cp, &format!("disk-{t}"), &file(&r, 5000 + t), t);
        }
        let per = (dir_size(cp.shadow_dir()) - before) / 200;
        eprintln!(
            "checkpoints: disk per checkpoint (one ~1 KiB file edited per turn, 200 turns): {per} bytes"
        );
        // Cold and warm shell-command snapshot of the whole tree.
        let t0 = std::time::Instant::now();
        let snap = cp.snapshot().unwrap();
        let cold = t0.elapsed();
        assert!(snap.warnings().is_empty(), "{:?}", snap.warnings());
        let with_blobs = dir_size(cp.shadow_dir());
        eprintln!(
            "checkpoints: first shell snapshot of {FILES} files: {cold:?}, shadow repository now {} KiB",
            with_blobs / 1024
        );
    }

    let mut g = c.benchmark_group("checkpoint_10k_files");
    g.sample_size(20);
    g.measurement_time(std::time::Duration::from_secs(5));

    g.bench_function("checkpointed_edit", |b| {
        b.iter_batched(
            || session(&r),
            |cp| {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                edit(&cp, "p1", &file(&r, n), n);
                cp
            },
            BatchSize::PerIteration,
        )
    });

    g.bench_function("rewind_50_files", |b| {
        b.iter_batched(
            || {
                let cp = session(&r);
                let base = counter.fetch_add(50, Ordering::Relaxed);
                for k in 0..50 {
                    edit(&cp, "p1", &file(&r, base + k), base + k);
                }
                cp
            },
            |cp| {
                let report = cp.rewind("p1", false).unwrap();
                assert_eq!(report.files_changed.len(), 50);
                cp
            },
            BatchSize::PerIteration,
        )
    });

    let cp = session(&r);
    cp.snapshot().unwrap();
    g.bench_function("shell_snapshot_warm", |b| {
        b.iter(|| cp.snapshot().unwrap().files.len())
    });
    g.finish();
}

criterion_group!(checkpoint, benches);
criterion_main!(checkpoint);
