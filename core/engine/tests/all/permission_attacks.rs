//! Permission attacks, table-driven: every row of `fixtures/permission_attacks.jsonl` is
//! tried in each of its modes by a real `Session` on the mock model (`FAKE_TOOL <name>
//! <json>` makes it call the tool), and the forbidden effect is checked on disk and in
//! the session's output — not just the verdict. Asks become denials (`non_interactive`).
//! Each class has positive twins (`expect: allowed`) so the fix cannot be "refuse all".

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use futures::StreamExt as _;
use serde_json::{Value, json};

const TABLE: &str = include_str!("../fixtures/permission_attacks.jsonl");

const API_KEY: &str = "sk-ant-KEYTEST-0123456789abcdef";
const SERVICE_TOKEN: &str = "tok-SERVICE-SECRET-42";
const DB_PASSWORD: &str = "pw-HUNTER2-SECRET-7";

/// One attempt: a table row in one mode.
#[derive(Debug, Clone)]
struct Attempt {
    line: usize,
    row: Value,
    mode: String,
}

impl Attempt {
    fn strings(&self, key: &str) -> Vec<String> {
        self.row[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    fn label(&self) -> String {
        format!(
            "line {} [{}] {} {} in {}",
            self.line, self.row["class"], self.row["tool"], self.row["input"], self.mode
        )
    }
}

fn attempts() -> Vec<Attempt> {
    TABLE
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with("//"))
        .flat_map(|(i, l)| {
            let row: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("fixture line {}: {e}", i + 1));
            let modes: Vec<String> = row["modes"]
                .as_array()
                .expect("modes")
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            modes.into_iter().map(move |mode| Attempt {
                line: i + 1,
                row: row.clone(),
                mode,
            })
        })
        .collect()
}

/// The world of one attempt: `root/work` is the session's cwd (the row's `work` or
/// `work_bytes` names it otherwise), `root/home` its HOME (reached through the link
/// `root/home-link` when the row says `home_link`), `root/outside.txt` a file outside
/// every allowed directory. A row's `files` (path → text) and `links` (path → target)
/// are made relative to the cwd, files first, a link replacing what is there.
struct World {
    _root: tempfile::TempDir,
    work: PathBuf,
    home: PathBuf,
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn world(row: &Value) -> World {
    use std::os::unix::ffi::OsStrExt as _;
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let work = match (row["work"].as_str(), row["work_bytes"].as_array()) {
        (Some(name), _) => base.join(name),
        (None, Some(bytes)) => {
            let bytes: Vec<u8> = bytes.iter().map(|b| b.as_u64().unwrap() as u8).collect();
            base.join(std::ffi::OsStr::from_bytes(&bytes))
        }
        (None, None) => base.join("work"),
    };
    let home = base.join("home");
    write(&base.join("outside.txt"), "OUTSIDE_MARKER\n");
    write(&home.join(".ssh/id_rsa"), "SSH_MARKER\n");
    write(&work.join("notes.txt"), "x notes\nline2\n");
    let f: String = (1..=10).map(|i| format!("line{i}\n")).collect();
    write(&work.join("f"), &f);
    write(&work.join("src/a.rs"), "fn x() {}\n");
    std::fs::create_dir_all(work.join("sub/deeper")).unwrap();
    write(&work.join("victim"), "v\n");
    write(&work.join("secret/key.txt"), "SECRET_MARKER\n");
    write(
        &work.join("keyfile.txt"),
        &format!("key in a file: {API_KEY}\n"),
    );
    let evil = format!("#!/bin/sh\ntouch {}/pwned\ncat\n", work.display());
    for name in ["evil.sh", "cat"] {
        let p = work.join(name);
        write(&p, &evil);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::os::unix::fs::symlink(&base, work.join("uplink")).unwrap();
    if let Some(setup) = row["setup"].as_str() {
        git_repo(&work, &home, setup);
    }
    for (path, text) in row["files"].as_object().into_iter().flatten() {
        write(&work.join(path), text.as_str().unwrap());
    }
    for (path, target) in row["links"].as_object().into_iter().flatten() {
        let link = work.join(path);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        match link.symlink_metadata() {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&link).unwrap(),
            Ok(_) => std::fs::remove_file(&link).unwrap(),
            Err(_) => {}
        }
        std::os::unix::fs::symlink(target.as_str().unwrap(), &link).unwrap();
    }
    let home = if row["home_link"] == json!(true) {
        let link = base.join("home-link");
        std::os::unix::fs::symlink(&home, &link).unwrap();
        link
    } else {
        home
    };
    World {
        _root: root,
        work,
        home,
    }
}

fn git(work: &Path, home: &Path, args: &[&str]) {
    let st = std::process::Command::new("git")
        .args(args)
        .current_dir(work)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(st.status.success(), "git {args:?}: {st:?}");
}

fn git_repo(work: &Path, home: &Path, setup: &str) {
    git(work, home, &["init", "-q", "-b", "main"]);
    git(work, home, &["add", "notes.txt"]);
    git(work, home, &["commit", "-q", "-m", "init"]);
    let evil = work.join("evil.sh").display().to_string();
    let extra = match setup {
        "git" => String::new(),
        "git-fsmonitor" => format!("[core]\n\tfsmonitor = {evil}\n"),
        "git-pager" => format!("[core]\n\tpager = {evil}\n[pager]\n\tdiff = {evil}\n"),
        "git-hooks" => "[core]\n\thooksPath = hooks\n".to_string(),
        "git-include" => {
            write(
                &work.join(".git/extra.cfg"),
                &format!("[core]\n\tfsmonitor = {evil}\n"),
            );
            "[include]\n\tpath = extra.cfg\n".to_string()
        }
        "git-textconv" => {
            write(&work.join(".gitattributes"), "*.txt diff=x\n");
            write(&work.join("notes.txt"), "x notes\nline2\nchanged\n");
            format!("[diff \"x\"]\n\ttextconv = {evil}\n")
        }
        other => panic!("unknown setup {other}"),
    };
    let cfg = work.join(".git/config");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&extra);
    std::fs::write(cfg, text).unwrap();
}

fn options(w: &World, a: &Attempt) -> SessionOptions {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), w.home.display().to_string());
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
    );
    env.insert("ANTHROPIC_API_KEY".to_string(), API_KEY.to_string());
    env.insert("MY_SERVICE_TOKEN".to_string(), SERVICE_TOKEN.to_string());
    env.insert("DB_PASSWORD".to_string(), DB_PASSWORD.to_string());
    env.insert("DCL_PLAIN_VAR".to_string(), "PLAIN_VISIBLE".to_string());
    SessionOptions {
        cwd: Some(w.work.clone()),
        model: Some("mock-model".into()),
        permission_mode: (a.mode != "(settings)").then(|| a.mode.clone()),
        allowed_tools: a.strings("allow"),
        disallowed_tools: a.strings("deny"),
        non_interactive: true,
        env,
        ..Default::default()
    }
}

fn call_prompt(tool: &str, input: &Value) -> String {
    format!("FAKE_TOOL {tool} {}", serde_json::to_string(input).unwrap())
}

/// Runs one attempt; `Err` describes what went wrong.
async fn run(a: Attempt) -> Result<(), String> {
    let w = world(&a.row);
    for (key, file) in [
        ("project", "settings.json"),
        ("local", "settings.local.json"),
    ] {
        if let Some(s) = a.row.get(key) {
            write(&w.work.join(".dcl").join(file), &s.to_string());
        }
    }
    let unchanged: Vec<(String, Option<Vec<u8>>)> = a
        .strings("unchanged")
        .into_iter()
        .map(|f| {
            let before = std::fs::read(w.work.join(&f)).ok();
            (f, before)
        })
        .collect();
    let session = Session::spawn(&tokio::runtime::Handle::current(), options(&w, &a))
        .map_err(|e| format!("spawn: {e}"))?;
    let mut text = String::new();
    for pre in a.row["pre"].as_array().into_iter().flatten() {
        session.send(prompt(&call_prompt("Bash", pre))).unwrap();
        let (seen, _) = until_result(&session).await;
        for v in seen {
            text.push_str(&v.to_string());
        }
    }
    let tool = a.row["tool"].as_str().unwrap();
    session
        .send(prompt(&call_prompt(tool, &a.row["input"])))
        .unwrap();
    let (seen, result) = until_result(&session).await;
    session.close();
    for v in &seen {
        text.push_str(&v.to_string());
        text.push('\n');
    }
    let denied = result["permission_denials"]
        .as_array()
        .is_some_and(|d| !d.is_empty());
    let mut problems = Vec::new();
    match a.row["expect"].as_str().unwrap() {
        "blocked" if !denied => problems.push("was not blocked".to_string()),
        "allowed" if denied => {
            problems.push(format!("was blocked: {}", result["permission_denials"]))
        }
        _ => {}
    }
    for f in a.strings("absent") {
        if w.work.join(&f).exists() {
            problems.push(format!("{f} exists"));
        }
    }
    for f in a.strings("absent_home") {
        if w.home.join(&f).exists() {
            problems.push(format!("~/{f} exists"));
        }
    }
    for f in a.strings("present") {
        if !w.work.join(&f).exists() {
            problems.push(format!("{f} is missing"));
        }
    }
    for (f, before) in unchanged {
        if std::fs::read(w.work.join(&f)).ok() != before {
            problems.push(format!("{f} changed"));
        }
    }
    for s in a.strings("lacks") {
        if text.contains(&s) {
            problems.push(format!("the output shows {s}"));
        }
    }
    for s in a.strings("contains") {
        if !text.contains(&s) {
            problems.push(format!("the output lacks {s:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let tail: String = text
            .chars()
            .rev()
            .take(1500)
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        Err(format!(
            "{}: {}\n    output tail: {tail}",
            a.label(),
            problems.join("; ")
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_attempt_in_the_table_fails_and_every_twin_runs() {
    let all = attempts();
    assert!(all.len() >= 300, "only {} attempts", all.len());
    let classes: std::collections::BTreeSet<String> = all
        .iter()
        .map(|a| a.row["class"].as_str().unwrap().to_string())
        .collect();
    // Every class has a positive twin.
    for c in &classes {
        let twin = all
            .iter()
            .any(|a| a.row["class"] == json!(c) && a.row["expect"] == "allowed");
        let exempt = matches!(c.as_str(), "readonly-exec" | "quoting" | "outside-read");
        assert!(twin || exempt, "class {c} has no positive twin");
    }
    let failures: Vec<String> = futures::stream::iter(all.clone())
        .map(|a| tokio::spawn(run(a)))
        .buffer_unordered(6)
        .filter_map(|r| async move {
            match r {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(e) => Some(format!("an attempt panicked: {e}")),
            }
        })
        .collect()
        .await;
    assert!(
        failures.is_empty(),
        "{} of {} attempts failed:\n{}",
        failures.len(),
        all.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The key test, on its own: a session whose environment holds provider keys runs
/// `env`, `printenv` and `cat /proc/self/environ` unrestricted, and no key shows up in
/// any line it emits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_in_the_session_environment_never_reach_tool_output() {
    let w = world(&json!({}));
    let a = Attempt {
        line: 0,
        row: json!({"class": "secrets", "tool": "Bash", "input": {}}),
        mode: "bypassPermissions".into(),
    };
    let mut opts = options(&w, &a);
    opts.env
        .insert("OPENAI_API_KEY".into(), "sk-openai-KEYTEST-987654".into());
    let session = Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap();
    let mut all = String::new();
    for cmd in ["env", "printenv", "cat /proc/self/environ"] {
        session
            .send(prompt(&call_prompt("Bash", &json!({"command": cmd}))))
            .unwrap();
        let (seen, result) = until_result(&session).await;
        assert_eq!(result["permission_denials"], json!([]), "{cmd}");
        let text: String = seen.iter().map(|v| v.to_string()).collect();
        assert!(
            text.contains("PLAIN_VISIBLE"),
            "{cmd} ran and printed: {text}"
        );
        all.push_str(&text);
    }
    session.close();
    for secret in [
        API_KEY,
        SERVICE_TOKEN,
        DB_PASSWORD,
        "sk-openai-KEYTEST-987654",
    ] {
        assert!(!all.contains(secret), "{secret} leaked");
    }
}
