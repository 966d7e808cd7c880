//! Check-then-use races: a swapper thread keeps replacing a checked file (or a checked
//! directory) with a symlink to a target outside the project while Write, Edit and Read
//! run, each call decided as the turn decides it (the call's paths resolved once, then
//! the real permission policy, acceptEdits, inside the project only). Nothing may land
//! outside and no read may return the outside secret. The positive twins: without the
//! swapper every call succeeds, and a symlink inside the project still works.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use dcl_policy::permissions::{PermissionMode, Policy, Verdict};
use dcl_tools::edit::EditTool;
use dcl_tools::glob::GlobTool;
use dcl_tools::grep::GrepTool;
use dcl_tools::read::ReadTool;
use dcl_tools::write::WriteTool;
use dcl_tools::{Tool, ToolContext, ToolOutput};
use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

const CALLS: usize = 1000;

/// The input of the i-th call.
type Inputs<'a> = Box<dyn Fn(usize) -> Value + 'a>;
const SECRET: &str = "SECRET hello outside";
const INSIDE: &str = "inside hello";

struct Project {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    outside: PathBuf,
}

impl Project {
    /// `root/sub/target.txt` inside, `outside/target.txt` (the secret) and
    /// `outside/sub/target.txt` outside.
    fn new() -> Project {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = a.path().canonicalize().unwrap();
        let outside = b.path().canonicalize().unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("sub/target.txt"), INSIDE).unwrap();
        fs::write(outside.join("target.txt"), SECRET).unwrap();
        fs::create_dir(outside.join("sub")).unwrap();
        fs::write(outside.join("sub/target.txt"), SECRET).unwrap();
        Project {
            _dirs: (a, b),
            root,
            outside,
        }
    }

    fn target(&self) -> PathBuf {
        self.root.join("sub/target.txt")
    }

    /// Every file outside, with its content: must never change.
    fn outside_state(&self) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        for dir in [self.outside.clone(), self.outside.join("sub")] {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let content = fs::read_to_string(&path).unwrap_or_default();
                out.push((path, content));
            }
        }
        out.sort();
        out
    }
}

/// One call as the turn makes it: fresh context, paths resolved once, the policy's
/// verdict (acceptEdits; a host that denies everything), then the tool.
async fn decided_call(root: &Path, tool: &dyn Tool, input: Value) -> Option<ToolOutput> {
    decided_call_then(root, tool, input, || {}).await
}

/// [`decided_call`], running `between` after the decision and before the tool.
async fn decided_call_then(
    root: &Path,
    tool: &dyn Tool,
    input: Value,
    between: impl FnOnce(),
) -> Option<ToolOutput> {
    let ctx = ToolContext::new(root.to_path_buf());
    ctx.checked.resolve_all(tool.paths(&input, &ctx));
    let policy = Policy::new(PermissionMode::AcceptEdits, &[], &[], root, &[]);
    match policy.check(tool.name(), Some(tool), &input, &ctx) {
        Verdict::Allow => {
            between();
            Some(tool.call(input, &ctx).await)
        }
        // Nobody to ask: refused.
        Verdict::Ask { .. } | Verdict::Deny(_) => None,
    }
}

#[derive(Clone, Copy)]
enum Swap {
    /// `sub/target.txt` and a symlink to `outside/target.txt` trade places.
    File,
    /// `sub` and a symlink to `outside/sub` trade places.
    Dir,
}

/// Swaps the checked file or directory with a symlink to outside until stopped. The
/// file is replaced by a fresh link, then by a fresh file, each by an atomic rename (a
/// Write replaces whatever stands there, so a link is put back every round); the
/// directory trades places with a link (`RENAME_EXCHANGE`), so it always exists.
fn swapper(project: &Project, swap: Swap, stop: Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    let root = project.root.clone();
    let outside = project.outside.clone();
    thread::spawn(move || {
        let mut swaps = 0u64;
        match swap {
            Swap::File => {
                let (target, link, file) = (
                    root.join("sub/target.txt"),
                    root.join("sub/.swap-link"),
                    root.join("sub/.swap-file"),
                );
                while !stop.load(Ordering::Relaxed) {
                    let _ = fs::remove_file(&link);
                    if symlink(outside.join("target.txt"), &link).is_ok()
                        && fs::rename(&link, &target).is_ok()
                    {
                        swaps += 1;
                    }
                    if fs::write(&file, INSIDE).is_ok() && fs::rename(&file, &target).is_ok() {
                        swaps += 1;
                    }
                    // Leave the file in place a moment, so calls are allowed and race the
                    // next link rather than being refused by the decision.
                    thread::yield_now();
                }
            }
            Swap::Dir => {
                let (dir, link) = (root.join("sub"), root.join(".swap-link"));
                symlink(outside.join("sub"), &link).unwrap();
                while !stop.load(Ordering::Relaxed) {
                    if renameat_with(CWD, &dir, CWD, &link, RenameFlags::EXCHANGE).is_ok() {
                        swaps += 1;
                    }
                }
                if swaps % 2 == 1 {
                    let _ = renameat_with(CWD, &dir, CWD, &link, RenameFlags::EXCHANGE);
                }
            }
        }
        swaps
    })
}

#[derive(Debug, Default)]
struct Tally {
    ok: usize,
    refused_by_policy: usize,
    /// Failed calls that met a swapped-in symlink ("changed during the call").
    changed: usize,
    /// Other failed calls (Edit finding its text swapped away, a file mid-replacement).
    failed: usize,
    leaked: usize,
}

fn text(out: &ToolOutput) -> String {
    out.content.to_text()
}

async fn run_calls(project: &Project, tool: &dyn Tool, input: impl Fn(usize) -> Value) -> Tally {
    let mut tally = Tally::default();
    for i in 0..CALLS {
        match decided_call(&project.root, tool, input(i)).await {
            None => tally.refused_by_policy += 1,
            Some(out) if out.is_error => {
                if text(&out).contains("changed during the call") {
                    tally.changed += 1;
                } else {
                    tally.failed += 1;
                }
                assert!(!text(&out).contains(SECRET), "an error quoted the secret");
            }
            Some(out) => {
                tally.ok += 1;
                if text(&out).contains(SECRET) {
                    tally.leaked += 1;
                }
            }
        }
    }
    tally
}

async fn race(swap: Swap, tool: &dyn Tool, input: impl Fn(usize) -> Value) -> Tally {
    let project = Project::new();
    let before = project.outside_state();
    let stop = Arc::new(AtomicBool::new(false));
    let handle = swapper(&project, swap, stop.clone());
    let tally = run_calls(&project, tool, input).await;
    stop.store(true, Ordering::Relaxed);
    let swaps = handle.join().unwrap();
    assert!(swaps > 0, "the swapper never swapped");
    assert_eq!(
        project.outside_state(),
        before,
        "a call changed something outside"
    );
    assert_eq!(tally.leaked, 0, "{tally:?}");
    eprintln!("{} ({swaps} swaps): {tally:?}", tool.name());
    tally
}

fn write_input(project_target: &Path) -> impl Fn(usize) -> Value {
    let path = project_target.display().to_string();
    move |i| json!({"file_path": path, "content": format!("written {i}")})
}

fn edit_input(project_target: &Path) -> impl Fn(usize) -> Value {
    let path = project_target.display().to_string();
    // Alternating so each call has something to replace, inside or (if it escaped) out.
    move |i| {
        let (old, new) = if i % 2 == 0 {
            ("hello", "HELLO")
        } else {
            ("HELLO", "hello")
        };
        json!({"file_path": path, "old_string": old, "new_string": new})
    }
}

fn read_input(project_target: &Path) -> impl Fn(usize) -> Value {
    let path = project_target.display().to_string();
    move |_| json!({"file_path": path})
}

/// The swap made exactly between the decision and the use, every time: each call must
/// fail saying the path changed, and nothing outside may change.
async fn swap_after_decision(swap: Swap, tool: &dyn Tool, input: impl Fn(usize) -> Value) {
    let project = Project::new();
    let before = project.outside_state();
    let (real, aside, pointee) = match swap {
        Swap::File => (
            project.target(),
            project.root.join("sub/.aside"),
            project.outside.join("target.txt"),
        ),
        Swap::Dir => (
            project.root.join("sub"),
            project.root.join(".aside"),
            project.outside.join("sub"),
        ),
    };
    for i in 0..CALLS {
        let out = decided_call_then(&project.root, tool, input(i), || {
            fs::rename(&real, &aside).unwrap();
            symlink(&pointee, &real).unwrap();
        })
        .await
        .expect("allowed: the decision saw the real file");
        assert!(out.is_error, "{}: call {i} followed the link", tool.name());
        assert!(
            text(&out).contains("changed during the call"),
            "{}: {}",
            tool.name(),
            text(&out)
        );
        fs::remove_file(&real).unwrap();
        fs::rename(&aside, &real).unwrap();
    }
    assert_eq!(
        project.outside_state(),
        before,
        "a call changed something outside"
    );
}

macro_rules! swap_test {
    ($name:ident, $swap:expr, $tool:expr, $input:ident) => {
        #[tokio::test]
        async fn $name() {
            swap_after_decision($swap, &$tool, $input(Path::new("sub/target.txt"))).await;
        }
    };
}

swap_test!(write_after_a_file_swap, Swap::File, WriteTool, write_input);
swap_test!(write_after_a_dir_swap, Swap::Dir, WriteTool, write_input);
swap_test!(edit_after_a_file_swap, Swap::File, EditTool, edit_input);
swap_test!(edit_after_a_dir_swap, Swap::Dir, EditTool, edit_input);
swap_test!(read_after_a_file_swap, Swap::File, ReadTool, read_input);
swap_test!(read_after_a_dir_swap, Swap::Dir, ReadTool, read_input);

fn grep_input(_: &Path) -> impl Fn(usize) -> Value {
    |_| json!({"pattern": "hello", "path": "sub", "output_mode": "content"})
}

fn glob_input(_: &Path) -> impl Fn(usize) -> Value {
    |_| json!({"pattern": "**/*.txt", "path": "sub"})
}

swap_test!(grep_after_a_dir_swap, Swap::Dir, GrepTool, grep_input);
swap_test!(glob_after_a_dir_swap, Swap::Dir, GlobTool, glob_input);

/// Grep and Glob's positive twin: unswapped, and through a link inside the project.
#[tokio::test]
async fn grep_and_glob_find_what_was_checked() {
    let project = Project::new();
    symlink(project.root.join("sub"), project.root.join("dir-link")).unwrap();
    for dir in ["sub", "dir-link"] {
        let out = decided_call(
            &project.root,
            &GrepTool,
            json!({"pattern": "hello", "path": dir, "output_mode": "content"}),
        )
        .await
        .expect("allowed");
        assert!(text(&out).contains(INSIDE), "{dir}: {}", text(&out));
        let out = decided_call(
            &project.root,
            &GlobTool,
            json!({"pattern": "**/*.txt", "path": dir}),
        )
        .await
        .expect("allowed");
        assert!(text(&out).contains("target.txt"), "{dir}: {}", text(&out));
    }
}

macro_rules! race_test {
    ($name:ident, $swap:expr, $tool:expr, $input:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            race($swap, &$tool, $input(Path::new("sub/target.txt"))).await;
        }
    };
}

race_test!(
    write_with_the_file_swapped,
    Swap::File,
    WriteTool,
    write_input
);
race_test!(
    write_with_the_dir_swapped,
    Swap::Dir,
    WriteTool,
    write_input
);
race_test!(edit_with_the_file_swapped, Swap::File, EditTool, edit_input);
race_test!(edit_with_the_dir_swapped, Swap::Dir, EditTool, edit_input);
race_test!(read_with_the_file_swapped, Swap::File, ReadTool, read_input);
race_test!(read_with_the_dir_swapped, Swap::Dir, ReadTool, read_input);

/// The positive twin: with nothing swapping, every call is allowed and succeeds.
#[tokio::test]
async fn without_the_swapper_every_call_succeeds() {
    let project = Project::new();
    let target = PathBuf::from("sub/target.txt");
    let tools: [(&dyn Tool, Inputs); 3] = [
        (&WriteTool, Box::new(write_input(&target))),
        (&ReadTool, Box::new(read_input(&target))),
        (&EditTool, Box::new(edit_input(&target))),
    ];
    for (tool, input) in tools {
        // Edit needs "hello" in the file: Write leaves "written N".
        fs::write(project.target(), INSIDE).unwrap();
        let tally = run_calls(&project, tool, input).await;
        assert_eq!(tally.ok, CALLS, "{}: {tally:?}", tool.name());
    }
    let names: Vec<_> = fs::read_dir(project.root.join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["target.txt"], "temp files left behind");
}

/// The other positive twin: a symlink inside the project, resolved and allowed, is
/// followed as it was resolved (the file it points to is read, edited and written).
#[tokio::test]
async fn a_link_inside_the_project_still_works() {
    let project = Project::new();
    symlink(project.root.join("sub"), project.root.join("dir-link")).unwrap();
    symlink(project.target(), project.root.join("file-link")).unwrap();
    for via in ["dir-link/target.txt", "file-link"] {
        fs::write(project.target(), INSIDE).unwrap();
        let path = project.root.join(via).display().to_string();
        let out = decided_call(&project.root, &ReadTool, json!({"file_path": path}))
            .await
            .expect("allowed");
        assert!(text(&out).contains(INSIDE), "{via}: {}", text(&out));
        let out = decided_call(
            &project.root,
            &EditTool,
            json!({"file_path": path, "old_string": "hello", "new_string": "HELLO"}),
        )
        .await
        .expect("allowed");
        assert!(!out.is_error, "{via}: {}", text(&out));
        assert_eq!(
            fs::read_to_string(project.target()).unwrap(),
            "inside HELLO"
        );
        let out = decided_call(
            &project.root,
            &WriteTool,
            json!({"file_path": path, "content": "via link"}),
        )
        .await
        .expect("allowed");
        assert!(!out.is_error, "{via}: {}", text(&out));
        assert_eq!(fs::read_to_string(project.target()).unwrap(), "via link");
    }
    assert!(project.root.join("file-link").is_symlink());
    assert!(project.root.join("dir-link").is_symlink());
    // A link inside that points outside is not allowed (it asks; nobody can answer).
    symlink(
        project.outside.join("target.txt"),
        project.root.join("out-link"),
    )
    .unwrap();
    let path = project.root.join("out-link").display().to_string();
    let refused = decided_call(
        &project.root,
        &WriteTool,
        json!({"file_path": path, "content": "x"}),
    )
    .await;
    assert!(refused.is_none());
    assert_eq!(
        fs::read_to_string(project.outside.join("target.txt")).unwrap(),
        SECRET
    );
}

/// A 250-byte name (the old temp name, the target's name plus a long suffix, passed
/// the 255-byte limit) is written and edited, leaving no temp file.
#[tokio::test]
async fn a_250_byte_name_is_written_and_edited() {
    let project = Project::new();
    let name = format!("{}.txt", "n".repeat(246));
    assert_eq!(name.len(), 250);
    let path = project.root.join(&name).display().to_string();
    let out = decided_call(
        &project.root,
        &WriteTool,
        json!({"file_path": path, "content": "one hello"}),
    )
    .await
    .expect("allowed");
    assert!(!out.is_error, "{}", text(&out));
    let out = decided_call(
        &project.root,
        &EditTool,
        json!({"file_path": path, "old_string": "hello", "new_string": "world"}),
    )
    .await
    .expect("allowed");
    assert!(!out.is_error, "{}", text(&out));
    assert_eq!(
        fs::read_to_string(project.root.join(&name)).unwrap(),
        "one world"
    );
    let mut names: Vec<_> = fs::read_dir(&project.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec![name, "sub".to_string()]);
}
