//! Validates recorded stream-json sessions against the protocol schema.
//!
//! `validate-lines <path>…`: each path is a `*.jsonl` file of dcl's stdout lines, a `*.out`
//! file of `tests/conformance/trace-dcl.sh` (its `*.in` beside it gives the host's requests,
//! so answers are checked against their request's type), or a directory searched for both.
//! Exit 0 when every line passes; 1 when some line fails (each failure printed as
//! `file:line: what: errors`); 2 when there is nothing to check or a file cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dcl_protocol::validate::{SchemaValidator, StreamChecker, Violation};
use serde_json::Value;

/// Failures printed before the rest are only counted.
const SHOWN: usize = 50;

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            collect(&p, out)?;
        }
    } else if path.extension().is_some_and(|x| x == "out" || x == "jsonl") {
        out.push(path.to_path_buf());
    } else if !path.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{}: no such file or directory", path.display()),
        ));
    }
    Ok(())
}

/// Why a line fails the check.
#[derive(Debug, thiserror::Error)]
enum BadLine {
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("{0}")]
    Invalid(#[from] Violation),
}

/// Each non-empty line, parsed (or the parse error), with its 1-based number.
fn lines(text: &str) -> impl Iterator<Item = (usize, Result<Value, BadLine>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, serde_json::from_str(l).map_err(BadLine::NotJson)))
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        eprintln!("usage: validate-lines <file.jsonl|trace.out|dir>…");
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    for a in &args {
        if let Err(e) = collect(a, &mut files) {
            eprintln!("validate-lines: {e}");
            return ExitCode::from(2);
        }
    }
    let validator = match SchemaValidator::new() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("validate-lines: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut checked, mut failures) = (0usize, 0usize);
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("validate-lines: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let mut stream = StreamChecker::new(&validator);
        // A trace's stdin: every request the host made in that session.
        if let Ok(input) = std::fs::read_to_string(file.with_extension("in")) {
            for (_, line) in lines(&input) {
                if let Ok(v) = line {
                    stream.host_line(&v);
                }
            }
        }
        for (n, line) in lines(&text) {
            checked += 1;
            let verdict = line.and_then(|v| Ok(stream.dcl_line(&v)?));
            if let Err(e) = verdict {
                failures += 1;
                if failures <= SHOWN {
                    println!("{}:{n}: {e}", file.display());
                }
            }
        }
    }
    if checked == 0 {
        eprintln!(
            "validate-lines: no lines to check in {} file(s) under {:?}",
            files.len(),
            args
        );
        return ExitCode::from(2);
    }
    println!(
        "validate-lines: {checked} line(s) in {} file(s); {failures} fail the schema",
        files.len()
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
