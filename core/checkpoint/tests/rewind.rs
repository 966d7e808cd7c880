//! Checkpoints end to end on real directories: a turn changes text and binary files,
//! creates, deletes, changes a mode, edits an ignored file and a file of a nested
//! repository; rewind must restore all of it byte for byte and leave every `.git` alone.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use dcl_checkpoint::{CheckpointConfig, CheckpointError, Checkpointer};

/// Every file under `dir` except inside `.git` directories: bytes and permission bits.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    walk(dir, dir, false, &mut out);
    out
}

/// Every file inside any `.git` under `dir`, for the "untouched" check.
fn git_dirs(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    walk(dir, dir, true, &mut out);
    assert!(!out.is_empty(), "the fixture has .git files");
    out
}

fn walk(root: &Path, dir: &Path, git_only: bool, out: &mut BTreeMap<String, (Vec<u8>, u32)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let in_git = p
            .strip_prefix(root)
            .unwrap()
            .components()
            .any(|c| c.as_os_str() == ".git");
        if meta.is_dir() {
            if in_git || git_only || e.file_name() != ".git" {
                walk(root, &p, git_only, out);
            }
        } else if in_git == git_only {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
            out.insert(
                rel,
                (
                    std::fs::read(&p).unwrap(),
                    meta.permissions().mode() & 0o7777,
                ),
            );
        }
    }
}

/// A repository with one commit (so its `.git` has objects, refs, an index, hooks).
fn git_repo(dir: &Path, files: &[(&str, &[u8])]) {
    std::fs::create_dir_all(dir).unwrap();
    let repo = git2::Repository::init(dir).unwrap();
    let mut index = repo.index().unwrap();
    for (name, bytes) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        index.add_path(Path::new(name)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
        .unwrap();
    std::fs::create_dir_all(dir.join(".git/hooks")).unwrap();
    std::fs::write(
        dir.join(".git/hooks/pre-commit"),
        "#!/bin/sh\necho hook ran > hook-ran\n",
    )
    .unwrap();
    std::fs::set_permissions(
        dir.join(".git/hooks/pre-commit"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

struct Fixture {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let proj = tmp.path().join("proj");
    git_repo(
        &proj,
        &[
            ("a.txt", b"one\ntwo\nthree\n"),
            ("bin.dat", &[0, 159, 146, 150, 255, 0, 1]),
            ("gone.txt", b"to be deleted\n"),
            ("script.sh", b"#!/bin/sh\necho hi\n"),
            (".gitignore", b"build/\n"),
            ("keep.txt", b"untouched\n"),
        ],
    );
    std::fs::set_permissions(
        proj.join("script.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::create_dir_all(proj.join("build")).unwrap();
    std::fs::write(proj.join("build/out.log"), "ignored but edited\n").unwrap();
    git_repo(&proj.join("nested"), &[("inner.txt", b"nested v1\n")]);
    Fixture {
        _tmp: tmp,
        home,
        proj,
    }
}

fn open(f: &Fixture, session: &str) -> Checkpointer {
    Checkpointer::open(CheckpointConfig::new(
        f.home.clone(),
        f.proj.clone(),
        session,
    ))
    .unwrap()
}

/// The multi-file turn, as file tools do it: record before, change, remember after.
fn edit_turn(cp: &Checkpointer, p: &Path, prompt: &str) -> Vec<PathBuf> {
    let paths: Vec<PathBuf> = [
        "a.txt",
        "bin.dat",
        "gone.txt",
        "new/dir/created.txt",
        "nested/inner.txt",
        "script.sh",
        "build/out.log",
    ]
    .iter()
    .map(|r| p.join(r))
    .collect();
    let warnings = cp.before_change(prompt, &paths).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    std::fs::write(p.join("a.txt"), "one\nTWO\nthree\nfour\n").unwrap();
    std::fs::write(p.join("bin.dat"), [1u8, 2, 3, 0, 0, 254]).unwrap();
    std::fs::remove_file(p.join("gone.txt")).unwrap();
    std::fs::create_dir_all(p.join("new/dir")).unwrap();
    std::fs::write(p.join("new/dir/created.txt"), "fresh\nfile\n").unwrap();
    std::fs::write(p.join("nested/inner.txt"), "nested v2\n").unwrap();
    std::fs::set_permissions(p.join("script.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(p.join("build/out.log"), "changed by a tool\n").unwrap();
    cp.after_change(&paths).unwrap();
    paths
}

#[test]
fn a_multi_file_turn_rewinds_byte_for_byte_and_dry_run_changes_nothing() {
    let f = fixture();
    let original = tree(&f.proj);
    let git_before = git_dirs(&f.proj);
    let cp = open(&f, "s-multi");
    cp.note_prompt("p1").unwrap();
    edit_turn(&cp, &f.proj, "p1");
    // A later turn whose shell command changes files.
    cp.note_prompt("p2").unwrap();
    let snap = cp.snapshot().unwrap();
    assert!(snap.warnings().is_empty(), "{:?}", snap.warnings());
    std::fs::write(f.proj.join("keep.txt"), "shell changed it\n").unwrap();
    std::fs::write(f.proj.join("from-shell.txt"), "made by a shell\n").unwrap();
    let recorded = cp.record_since("p2", &snap).unwrap();
    assert_eq!(
        recorded,
        vec![f.proj.join("keep.txt"), f.proj.join("from-shell.txt")]
    );
    let changed = tree(&f.proj);
    assert_ne!(changed, original);

    let dry = cp.rewind("p1", true).unwrap();
    assert_eq!(tree(&f.proj), changed, "a dry run changes nothing");
    let mut names: Vec<String> = dry
        .files_changed
        .iter()
        .map(|p| {
            p.strip_prefix(&f.proj)
                .unwrap()
                .to_string_lossy()
                .to_string()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "a.txt",
            "bin.dat",
            "build/out.log",
            "from-shell.txt",
            "gone.txt",
            "keep.txt",
            "nested/inner.txt",
            "new/dir/created.txt",
            "script.sh"
        ]
    );
    // a.txt: TWO/four out, two back; out.log, inner.txt, keep.txt: one line each way;
    // created.txt (2) and from-shell.txt (1) go; gone.txt comes back (1).
    assert_eq!(
        (dry.insertions, dry.deletions),
        (1 + 1 + 1 + 1 + 1, 2 + 1 + 1 + 1 + 2 + 1)
    );

    let real = cp.rewind("p1", false).unwrap();
    assert_eq!(real, dry, "the dry run reports what the rewind does");
    let after: BTreeMap<_, _> = tree(&f.proj)
        .into_iter()
        // Directories the turn created may stay; their files are gone.
        .collect();
    assert_eq!(after, original, "every file is back, bytes and modes");
    assert_eq!(git_dirs(&f.proj), git_before, "no .git file changed");
    assert!(!f.proj.join("hook-ran").exists(), "no hook ran");

    // Everything is undone: rewinding again changes nothing.
    let again = cp.rewind("p1", false).unwrap();
    assert!(again.files_changed.is_empty(), "{again:?}");
}

#[test]
fn an_outside_edit_after_dcl_makes_rewind_refuse_and_name_the_file() {
    let f = fixture();
    let cp = open(&f, "s-outside");
    cp.note_prompt("p1").unwrap();
    edit_turn(&cp, &f.proj, "p1");
    std::fs::write(f.proj.join("a.txt"), "the user's own edit\n").unwrap();
    let before = tree(&f.proj);
    for dry in [true, false] {
        match cp.rewind("p1", dry) {
            Err(CheckpointError::ChangedOutside(paths)) => {
                assert_eq!(paths, vec![f.proj.join("a.txt")]);
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    let msg = cp.rewind("p1", false).unwrap_err().to_string();
    assert!(
        msg.contains("a.txt") && msg.contains("outside dcl"),
        "{msg}"
    );
    assert_eq!(tree(&f.proj), before, "a refused rewind changes nothing");
    // A mode-only change by someone else counts too.
    std::fs::write(f.proj.join("a.txt"), "one\nTWO\nthree\nfour\n").unwrap();
    assert!(cp.rewind("p1", true).is_ok(), "as dcl left it again");
    std::fs::set_permissions(f.proj.join("a.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(matches!(
        cp.rewind("p1", true),
        Err(CheckpointError::ChangedOutside(_))
    ));
}

#[test]
fn outside_a_git_work_tree_there_are_no_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let err = Checkpointer::open(CheckpointConfig::new(tmp.path().join("home"), plain, "s"))
        .err()
        .expect("not a work tree");
    assert!(
        matches!(err, CheckpointError::NotAGitWorkTree(_)),
        "{err:?}"
    );
    assert!(err.to_string().contains("need a Git work tree"), "{err}");
    assert!(!tmp.path().join("home/checkpoints").exists());
}

#[test]
fn checkpoints_survive_the_process_for_the_same_session() {
    let f = fixture();
    let original = tree(&f.proj);
    {
        let cp = open(&f, "s-resume");
        cp.note_prompt("p0").unwrap();
        cp.note_prompt("p1").unwrap();
        edit_turn(&cp, &f.proj, "p1");
    }
    // Another session of the same project has its own index.
    let other = open(&f, "s-other");
    assert!(matches!(
        other.rewind("p1", true),
        Err(CheckpointError::UnknownMessage(_))
    ));
    let resumed = open(&f, "s-resume");
    // p0 changed nothing, but rewinding to it undoes p1 after it.
    let report = resumed.rewind("p0", false).unwrap();
    assert_eq!(report.files_changed.len(), 7, "{report:?}");
    assert_eq!(tree(&f.proj), original);
}

#[test]
fn turns_before_the_target_stay_and_unknown_messages_are_refused() {
    let f = fixture();
    let cp = open(&f, "s-order");
    let a = f.proj.join("a.txt");
    for (prompt, text) in [("p1", "first\n"), ("p2", "second\n"), ("p3", "third\n")] {
        cp.note_prompt(prompt).unwrap();
        cp.before_change(prompt, std::slice::from_ref(&a)).unwrap();
        std::fs::write(&a, text).unwrap();
        cp.after_change(std::slice::from_ref(&a)).unwrap();
    }
    let r = cp.rewind("p2", false).unwrap();
    assert_eq!(r.files_changed, vec![a.clone()]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "first\n");
    assert!(matches!(
        cp.rewind("nope", true),
        Err(CheckpointError::UnknownMessage(_))
    ));
    cp.rewind("p1", false).unwrap();
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\ntwo\nthree\n");
}

#[test]
fn paths_outside_the_tree_or_in_a_git_dir_are_not_recorded_and_say_so() {
    let f = fixture();
    let cp = open(&f, "s-warn");
    let w = cp
        .before_change(
            "p1",
            &[
                f.proj.join(".git/config"),
                f.proj.join("nested/.git/HEAD"),
                f.home.join("elsewhere.txt"),
            ],
        )
        .unwrap();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].contains(".git") && w[2].contains("outside"), "{w:?}");
}

#[test]
fn a_tree_over_the_file_limit_is_not_snapshotted_and_says_so() {
    let f = fixture();
    let mut cfg = CheckpointConfig::new(f.home.clone(), f.proj.clone(), "s-limit");
    cfg.limits.max_files = 3;
    let cp = Checkpointer::open(cfg).unwrap();
    let snap = cp.snapshot().unwrap();
    let w = snap.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("more than 3 files"), "{w:?}");
    std::fs::write(f.proj.join("keep.txt"), "x").unwrap();
    assert!(cp.record_since("p1", &snap).unwrap().is_empty());
}

#[test]
fn a_directory_swapped_for_a_link_out_of_the_tree_is_never_written_through() {
    let f = fixture();
    let cp = open(&f, "s-link");
    let sub = f.proj.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("x.txt"), "before\n").unwrap();
    let x = [sub.join("x.txt")];
    cp.before_change("p1", &x).unwrap();
    std::fs::write(sub.join("x.txt"), "dcl wrote this\n").unwrap();
    cp.after_change(&x).unwrap();
    // Positive twin: as dcl left it, the rewind would go ahead.
    assert_eq!(cp.rewind("p1", true).unwrap().files_changed, x.to_vec());

    // The attack: `sub` becomes a link to a directory outside the work tree whose x.txt
    // looks exactly like dcl's last write.
    let outside = f.home.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x.txt"), "dcl wrote this\n").unwrap();
    std::fs::remove_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(&outside, &sub).unwrap();
    match cp.rewind("p1", false) {
        Err(CheckpointError::ChangedOutside(paths)) => assert_eq!(paths, x.to_vec()),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("x.txt")).unwrap(),
        "dcl wrote this\n",
        "nothing outside the work tree was written"
    );
}
