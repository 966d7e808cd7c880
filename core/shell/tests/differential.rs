//! What bash would run is what the analysis says it runs. Each line is run by bash with
//! every builtin disabled and an empty PATH, so each simple command lands in
//! `command_not_found_handle`, which logs its argv; nothing is executed. Lines are the
//! engine's attack table plus lines that stress quoting. Run twice (handler succeeding,
//! then failing) so both sides of `&&`/`||` are seen; every command bash reaches must be
//! one the analysis reported, and every reported command must be reached by one run.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

use std::collections::BTreeSet;
use std::process::Command;

use dcl_shell::{WordKind, analyse};

const TABLE: &str = include_str!("../../engine/tests/fixtures/permission_attacks.jsonl");

const EXTRA: &[&str] = &[
    r#"echo 'a b' "c\"d" e\ f "\q" x'y'"z""#,
    "ls >/dev/null a b 2>&1 c",
    "ls # x\nrm y",
    "echo a\\\nb",
    "echo \"a\\\nb\"",
    "echo 'a\\nb' \"a\\\\b\" a\\\\b",
    "git status && git log --oneline -5; cat a | wc -l",
    "X=1 Y=2 cmd arg",
    "echo a#b #c",
    "echo '#' \"#\" \\#",
    "a=~/x; echo ~ ~/y x~ \"~\"",
    "echo --x=~/y",
    "echo *.nomatch src/*.rs",
    "ls -la|&cat",
    "! ls x",
    "echo \"\" '' x",
    "echo a;;b",
    "cmd1 & cmd2 && cmd3 || cmd4",
    "echo \"it's\" 'say \"hi\"'",
    "printf '%s\\n' a\\ b",
    "echo \\$HOME '\\$HOME' \"\\$HOME\"",
    "cat <<'EOF'\n$(not run)\nEOF\necho after",
    "echo a\\ \\ b",
    "echo 'multi\nline' next",
    "ls -- -x --y",
    "echo \\\\; echo x",
    "echo \\ #x y; echo \\\\ #z",
];

fn lines() -> Vec<String> {
    let mut out: Vec<String> = TABLE
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let mut cmds = vec![v["input"]["command"].as_str()?.to_string()];
            for pre in v["pre"].as_array().into_iter().flatten() {
                if let Some(c) = pre["command"].as_str() {
                    cmds.push(c.to_string());
                }
            }
            Some(cmds)
        })
        .flatten()
        .collect();
    out.extend(EXTRA.iter().map(|s| s.to_string()));
    out.sort();
    out.dedup();
    out
}

const HOME: &str = "/home/dcl-differential";

/// The argv lists the analysis says bash runs, or `None` when the line has something
/// only known at run time (those are never compared: the analysis does not claim to
/// know them).
fn analysed(line: &str) -> Option<BTreeSet<Vec<String>>> {
    let a = analyse(line);
    // Opaque lines (runners, paths to programs, substitutions) are never compared: the
    // analysis does not claim to know what they run, and a path would really run.
    if !a.is_fully_analysed() {
        return None;
    }
    let mut out = BTreeSet::new();
    for c in &a.commands {
        if c.words.is_empty() {
            continue;
        }
        // A redirect that cannot be opened here (input, a missing directory) stops bash
        // before the command.
        let opens_here = |r: &dcl_shell::Redirect| {
            r.target.is_plain()
                && !r.op.contains('<')
                && (matches!(r.target.value.as_str(), "/dev/null" | "1" | "2" | "-")
                    || !r.target.value.contains('/'))
        };
        if !c.redirects.iter().all(opens_here) {
            return None;
        }
        let mut argv = Vec::new();
        for w in &c.words {
            match w.kind {
                WordKind::Plain => argv.push(w.value.clone()),
                // What a glob matches depends on the directory; not compared.
                WordKind::Glob => return None,
                WordKind::Tilde => argv.push(w.value.replacen('~', HOME, 1)),
                WordKind::Dynamic => return None,
            }
        }
        out.insert(argv);
    }
    Some(out)
}

/// A program's absolute path (the child's PATH is empty on purpose; the handler logs
/// with the external `printf`, since the builtin is disabled).
fn which(program: &str) -> std::path::PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| std::path::Path::new("/usr/bin").join(program))
}

fn bash_runs(line: &str, status: u8, dir: &std::path::Path) -> BTreeSet<Vec<String>> {
    let log = dir.join("log");
    let _ = std::fs::remove_file(&log);
    let prelude = format!(
        "command_not_found_handle() {{ {printf} '%s\\0' \"$@\" $'\\001' >> {log}; return {status}; }}\n\
         for b in $(compgen -b); do case $b in builtin|enable|return) ;; *) enable -n \"$b\" ;; esac; done; enable -n enable\n",
        log = log.display(),
        printf = which("printf").display(),
    );
    let out = Command::new(which("bash"))
        .arg("--norc")
        .arg("--noprofile")
        .arg("-c")
        .arg(format!("{prelude}{line}"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/nonexistent-dcl-differential")
        .env("HOME", HOME)
        .output()
        .expect("bash runs");
    let _ = out;
    let bytes = std::fs::read(&log).unwrap_or_default();
    // One record per call, written by one printf (pipelines run concurrently).
    let records: Vec<&[u8]> = split_records(&bytes);
    records
        .into_iter()
        .map(|rec| {
            rec.split(|b| *b == 0)
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect::<Vec<_>>()
        })
        .map(|mut v| {
            // printf '%s\0' ends every word with NUL: the last split is empty.
            if v.last().is_some_and(String::is_empty) {
                v.pop();
            }
            v
        })
        .collect()
}

fn split_records(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 1 && bytes[i + 1] == 0 && (i == 0 || bytes[i - 1] == 0) {
            out.push(&bytes[start..i]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn bash_runs_exactly_what_the_analysis_reports() {
    if Command::new("bash").arg("-c").arg("true").status().is_err() {
        eprintln!("bash is not installed; skipped");
        return;
    }
    let mut compared = 0;
    let mut problems = Vec::new();
    for line in lines() {
        let Some(expected) = analysed(&line) else {
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut reached = bash_runs(&line, 0, dir.path());
        reached.extend(bash_runs(&line, 1, dir.path()));
        compared += 1;
        let unreported: Vec<_> = reached.difference(&expected).collect();
        let unreached: Vec<_> = expected.difference(&reached).collect();
        if !unreported.is_empty() || !unreached.is_empty() {
            problems.push(format!(
                "{line:?}\n  bash ran, analysis missed: {unreported:?}\n  analysis reported, bash never ran: {unreached:?}"
            ));
        }
    }
    assert!(compared >= 100, "only {compared} lines compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
