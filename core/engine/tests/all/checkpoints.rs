//! File checkpoints through a whole session on the mock model: turns that write, edit and
//! run shell commands, then `rewind_files` control requests (dry run, real, refused).

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use dcl_protocol::{ControlRequestEnvelope, Message, MessageContent, UserMessage};
use serde_json::{Value, json};

fn options(cwd: &Path, home: &Path, checkpoints: bool) -> SessionOptions {
    SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("bypassPermissions".into()),
        enable_file_checkpointing: checkpoints,
        data_dir: Some(home.to_path_buf()),
        ..Default::default()
    }
}

fn user(text: &str, uuid: &str) -> Message {
    let mut m = UserMessage::new(MessageContent::Text(text.into()));
    m.uuid = Some(uuid.into());
    Message::User(m)
}

/// Runs one turn and checks it succeeded.
async fn turn(session: &Session, text: &str, uuid: &str) -> Vec<Value> {
    session.send(user(text, uuid)).unwrap();
    let (seen, result) = until_result(session).await;
    assert_eq!(result["is_error"], false, "{seen:#?}");
    seen
}

/// Sends `rewind_files` and returns its control_response's `response`.
async fn rewind(session: &Session, id: &str, message: &str, dry_run: bool) -> Value {
    session
        .send(Message::ControlRequest(ControlRequestEnvelope {
            request_id: id.into(),
            request: json!({"subtype": "rewind_files", "user_message_id": message, "dry_run": dry_run}),
            extra: Default::default(),
        }))
        .unwrap();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), session.recv())
            .await
            .expect("no answer within 20s")
            .expect("session ended");
        let v = serde_json::to_value(&m).unwrap();
        if v["type"] == "control_response" && v["response"]["request_id"] == id {
            return v["response"].clone();
        }
    }
}

fn files(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else {
                let mode = meta.permissions().mode() & 0o7777;
                out.insert(p.clone(), (std::fs::read(&p).unwrap(), mode));
            }
        }
    }
    out
}

/// A project that is a Git work tree (its `.git` holds files that must stay as they are).
fn project(tmp: &Path) -> PathBuf {
    let proj = tmp.join("proj");
    std::fs::create_dir_all(proj.join(".git/refs/heads")).unwrap();
    std::fs::write(proj.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(proj.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(proj.join("a.txt"), "original line\n").unwrap();
    std::fs::set_permissions(proj.join("a.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    proj
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_that_write_edit_and_run_commands_are_rewound_by_rewind_files() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path());
    let home = tmp.path().join("home");
    let original = files(&proj);
    let git_before = files(&proj.join(".git"));
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&proj, &home, true),
    )
    .unwrap();

    // A turn that changes nothing: rewinding to it still undoes the turns after it.
    turn(&session, "hello", "u0").await;
    let new = proj.join("new.txt");
    turn(&session, &format!("FAKE_WRITE {}", new.display()), "u1").await;
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "hello\n");
    let edit =
        json!({"file_path": proj.join("a.txt"), "old_string": "original", "new_string": "edited"});
    turn(&session, &format!("FAKE_TOOL Edit {edit}"), "u2").await;
    let bash = json!({"command": "printf 'from the shell\\n' > shell.txt && chmod 755 a.txt"});
    turn(&session, &format!("FAKE_TOOL Bash {bash}"), "u3").await;
    assert!(proj.join("shell.txt").exists());
    let changed = files(&proj);

    let dry = rewind(&session, "r1", "u2", true).await;
    assert_eq!(dry["subtype"], "success", "{dry}");
    let answer = &dry["response"];
    assert_eq!(answer["canRewind"], true, "{answer}");
    let mut changed_paths: Vec<String> = answer["filesChanged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    changed_paths.sort();
    let canon = std::fs::canonicalize(&proj).unwrap();
    assert_eq!(
        changed_paths,
        vec![
            canon.join("a.txt").display().to_string(),
            canon.join("shell.txt").display().to_string()
        ]
    );
    assert_eq!(
        (answer["insertions"].clone(), answer["deletions"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(files(&proj), changed, "a dry run changes nothing");

    let from_u0 = rewind(&session, "r0", "u0", true).await;
    assert_eq!(
        from_u0["response"]["filesChanged"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "{from_u0}"
    );
    let real = rewind(&session, "r2", "u1", false).await;
    assert_eq!(real["response"]["canRewind"], true, "{real}");
    assert_eq!(
        real["response"]["filesChanged"].as_array().unwrap().len(),
        3,
        "{real}"
    );
    assert_eq!(
        files(&proj),
        original,
        "bytes and modes are back, created files gone"
    );
    assert_eq!(
        files(&proj.join(".git")),
        git_before,
        "the user's .git is untouched"
    );
    assert!(
        home.join("checkpoints").is_dir(),
        "the shadow repository is under dcl home"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_edit_is_refused_by_name_and_a_resumed_session_can_rewind() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path());
    let home = tmp.path().join("home");
    let mut opts = options(&proj, &home, true);
    opts.session_id = Some("6d1f4a52-3a4e-4d7c-9a57-0c1f7a0f5e11".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts.clone()).unwrap();
    let a = proj.join("a.txt");
    let edit = json!({"file_path": a, "old_string": "original", "new_string": "edited"});
    turn(&session, &format!("FAKE_TOOL Edit {edit}"), "u1").await;
    session.close();

    // The same session id, another process: the checkpoint is on disk.
    std::fs::write(&a, "the user's edit\n").unwrap();
    let resumed = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    let refused = rewind(&resumed, "r1", "u1", false).await;
    assert_eq!(refused["response"]["canRewind"], false, "{refused}");
    let why = refused["response"]["error"].as_str().unwrap();
    assert!(
        why.contains("a.txt") && why.contains("outside dcl"),
        "{why}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "the user's edit\n");

    std::fs::write(&a, "edited line\n").unwrap();
    let ok = rewind(&resumed, "r2", "u1", false).await;
    assert_eq!(ok["response"]["canRewind"], true, "{ok}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "original line\n");
    resumed.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_checkpoints_or_outside_a_work_tree_rewind_files_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path());
    let home = tmp.path().join("home");
    let off = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&proj, &home, false),
    )
    .unwrap();
    off.send(prompt("hello")).unwrap();
    until_result(&off).await;
    let r = rewind(&off, "r1", "u1", false).await;
    assert_eq!(r["subtype"], "error", "{r}");
    assert!(r["error"].as_str().unwrap().contains("not enabled"), "{r}");
    off.close();

    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&plain, &home, true),
    )
    .unwrap();
    turn(
        &session,
        &format!("FAKE_WRITE {}", plain.join("x.txt").display()),
        "u1",
    )
    .await;
    let r = rewind(&session, "r2", "u1", false).await;
    assert_eq!(r["subtype"], "error", "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("Git work tree"),
        "{r}"
    );
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_can_switch_checkpoints_on() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path());
    let home = tmp.path().join("home");
    let session = Session::spawn(
        &tokio::runtime::Handle::current(),
        options(&proj, &home, false),
    )
    .unwrap();
    session
        .send(Message::ControlRequest(ControlRequestEnvelope {
            request_id: "init".into(),
            request: json!({"subtype": "initialize", "enableFileCheckpointing": true}),
            extra: Default::default(),
        }))
        .unwrap();
    let new = proj.join("made.txt");
    turn(&session, &format!("FAKE_WRITE {}", new.display()), "u1").await;
    let r = rewind(&session, "r1", "u1", false).await;
    assert_eq!(r["response"]["canRewind"], true, "{r}");
    assert!(!new.exists());
    session.close();
}
