//! Differential fuzzing of the shell analysis against bash itself, for the lines it calls
//! read-only: every simple command bash reaches must be one the analysis reported (the
//! same argv when every word is plain, else the same program). Each line runs under bash
//! with every builtin disabled and an empty PATH, so each command lands in
//! `command_not_found_handle`, which logs its argv; nothing is executed. Slow (two bash
//! processes per read-only input), so it is run by hand, not in CI:
//! `shell_vs_bash -max_total_time=600 corpus/shell_analysis`.
#![no_main]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn which(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| Path::new("/usr/bin").join(program))
}

fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dcl-shell-vs-bash-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    })
}

fn bash_runs(line: &str, status: u8) -> Vec<Vec<String>> {
    let dir = scratch();
    let log = dir.join("log");
    let _ = std::fs::remove_file(&log);
    let prelude = format!(
        "command_not_found_handle() {{ {printf} '%s\\0' \"$#\" \"$@\" >> {log}; return {status}; }}\n\
         for b in $(compgen -b); do case $b in builtin|enable|return) ;; *) enable -n \"$b\" ;; esac; done; enable -n enable\n",
        log = log.display(),
        printf = which("printf").display(),
    );
    let _ = Command::new(which("timeout"))
        .arg("5")
        .arg(which("bash"))
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!("{prelude}{line}"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/nonexistent-dcl-differential")
        .env("HOME", "/home/dcl-differential")
        .stdin(std::process::Stdio::null())
        .output();
    // Each record is the argument count, then the arguments (any byte string can be an
    // argument, so no sentinel could end a record).
    let bytes = std::fs::read(&log).unwrap_or_default();
    let mut words = bytes.split(|b| *b == 0);
    let mut out = Vec::new();
    while let Some(count) = words.next() {
        let Some(n) = std::str::from_utf8(count)
            .ok()
            .and_then(|c| c.parse::<usize>().ok())
        else {
            break;
        };
        let argv: Vec<String> = words
            .by_ref()
            .take(n)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        out.push(argv);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let a = dcl_shell::analyse(line);
    if dcl_shell::readonly::classify(&a).is_err() {
        return;
    }
    let argvs: BTreeSet<Vec<String>> = a
        .commands
        .iter()
        .filter(|c| c.words.iter().all(|w| w.kind == dcl_shell::WordKind::Plain))
        .map(|c| c.words.iter().map(|w| w.value.clone()).collect())
        .collect();
    let programs: BTreeSet<&str> = a
        .commands
        .iter()
        .filter_map(|c| c.words.first())
        .map(|w| w.value.as_str())
        .collect();
    for status in [0, 1] {
        for ran in bash_runs(line, status) {
            let Some(program) = ran.first() else { continue };
            assert!(
                programs.contains(program.as_str()),
                "bash ran {ran:?}, a program the analysis did not report: {line:?} {a:?}"
            );
            // Its argv is known only when every command naming this program is plain words.
            let known = a
                .commands
                .iter()
                .filter(|c| c.words.first().is_some_and(|w| &w.value == program))
                .all(|c| c.words.iter().all(|w| w.kind == dcl_shell::WordKind::Plain));
            if known {
                assert!(
                    argvs.contains(&ran),
                    "bash ran {ran:?}, an argv the analysis did not report: {line:?} {a:?}"
                );
            }
        }
    }
});
