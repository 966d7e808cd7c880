//! Replays every reference transcript (`tests/fixtures/reference-cli/transcripts/*.jsonl`)
//! against `dcl --model mock-model` and compares the output by structure: the sequence of
//! line types/subtypes, the keys the reference has, request↔response pairing, a few
//! deterministic values and the exit code (docs/protocol.md, first paragraph). Every deliberate
//! difference is listed in `tests/transcript-allowlist.json`; a difference not listed fails,
//! and so does a listed one that no longer happens. Every line dcl prints must also validate
//! against the exported protocol schema (`replay::schema`); that has no allowlist.
//!
//! Env: `DCL_REPLAY_ONLY=a_init_text,b` (scenario names or prefixes; stale entries are then not
//! checked); `DCL_REPLAY_VERBOSE=1` (print every scenario's alignment);
//! `DCL_REPLAY_DUMP=<dir>` (write dcl's stdout/stderr per scenario there).

use crate::replay;

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use replay::allowlist::Allowlist;
use replay::compare::{self, Comparison, Difference};
use replay::driver::{self, Run};
use replay::schema::{self, SchemaCheck};
use replay::transcript::Transcript;

const WORKERS: usize = 4;

fn transcripts_dir() -> Result<PathBuf, String> {
    // The recorded transcripts are fixtures of this repository: a clone anywhere replays them.
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/reference-cli/transcripts");
    if dir.join("a_init_text.jsonl").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "the transcript fixtures are missing from {}",
            dir.display()
        ))
    }
}

fn allowlist_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/transcript-allowlist.json")
}

fn selected(name: &str) -> bool {
    match std::env::var("DCL_REPLAY_ONLY") {
        Ok(only) if !only.trim().is_empty() => only
            .split(',')
            .map(str::trim)
            .any(|p| !p.is_empty() && name.starts_with(p)),
        _ => true,
    }
}

struct Outcome {
    transcript: Transcript,
    run: Run,
    comparison: Comparison,
    schema: SchemaCheck,
}

fn replay_all(transcripts: Vec<Transcript>, list: &Allowlist) -> Vec<Outcome> {
    let bin = Path::new(env!("CARGO_BIN_EXE_dcl"));
    let validator = dcl_protocol::validate::SchemaValidator::new()
        .unwrap_or_else(|e| panic!("transcript replay: {e}"));
    let queue = Mutex::new(transcripts.into_iter().collect::<VecDeque<_>>());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                loop {
                    let Some(t) = queue.lock().unwrap().pop_front() else {
                        break;
                    };
                    let scratch = tempfile::tempdir().expect("tempdir");
                    let run = driver::run(&t, bin, scratch.path());
                    let comparison = compare::compare(&t, &run, &|k| list.ignores(k));
                    let schema = schema::check(&t, &run.stdout, &validator);
                    done.lock().unwrap().push(Outcome {
                        transcript: t,
                        run,
                        comparison,
                        schema,
                    });
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by(|a, b| a.transcript.name.cmp(&b.transcript.name));
    done
}

fn dump(dir: &Path, o: &Outcome) {
    let _ = std::fs::create_dir_all(dir);
    let out: String = o
        .run
        .stdout
        .iter()
        .map(|v| match v {
            serde_json::Value::String(s) => format!("{s}\n"),
            v => format!("{v}\n"),
        })
        .collect();
    let name = &o.transcript.name;
    let _ = std::fs::write(dir.join(format!("{name}.stdout.jsonl")), out);
    let _ = std::fs::write(dir.join(format!("{name}.stderr.txt")), &o.run.stderr);
    let _ = std::fs::write(
        dir.join(format!("{name}.log.txt")),
        o.run.log.join("\n") + "\n",
    );
}

fn entry_json(d: &Difference) -> String {
    format!(
        "{{\"kind\": {}, \"detail\": {}, \"reason\": \"TODO\"}}",
        serde_json::Value::String(d.kind.clone()),
        serde_json::Value::String(d.detail.clone())
    )
}

#[test]
fn reference_transcripts_replay_with_only_allowlisted_differences() {
    let started = Instant::now();
    let dir = transcripts_dir().unwrap_or_else(|e| panic!("transcript replay: {e}"));
    let list = Allowlist::load(&allowlist_path())
        .unwrap_or_else(|e| panic!("transcript replay: allowlist: {e}"));
    let all = Transcript::load_dir(&dir).unwrap_or_else(|e| panic!("transcript replay: {e}"));
    assert!(!all.is_empty(), "no transcripts in {}", dir.display());
    let names: BTreeSet<String> = all.iter().map(|t| t.name.clone()).collect();
    let full_run = all.iter().all(|t| selected(&t.name));
    let chosen: Vec<Transcript> = all.into_iter().filter(|t| selected(&t.name)).collect();
    assert!(!chosen.is_empty(), "DCL_REPLAY_ONLY selects no transcript");

    let mut report = String::new();
    for scenario in list.scenarios.keys() {
        if scenario != "*" && !names.contains(scenario) {
            let _ = writeln!(
                report,
                "allowlist names scenario {scenario:?}, which has no transcript"
            );
        }
    }

    let outcomes = replay_all(chosen, &list);
    let verbose = std::env::var_os("DCL_REPLAY_VERBOSE").is_some();
    let dump_dir = std::env::var_os("DCL_REPLAY_DUMP").map(PathBuf::from);

    // (scenario key, index) of every allowlist entry that matched something.
    let mut used: BTreeSet<(String, usize)> = BTreeSet::new();
    let mut ignored_seen: BTreeSet<String> = BTreeSet::new();
    let mut failing = 0;
    let mut schema_failing = 0;
    let mut schema_checked = 0;
    for o in &outcomes {
        schema_checked += o.schema.checked;
        if !o.schema.failures.is_empty() {
            schema_failing += 1;
            let _ = writeln!(
                report,
                "\n=== {}: {} line(s) fail the protocol schema:",
                o.transcript.name,
                o.schema.failures.len()
            );
            for f in &o.schema.failures {
                let _ = writeln!(report, "    {}", driver::shorten(f, 400));
            }
        }
        let name = &o.transcript.name;
        if let Some(d) = &dump_dir {
            dump(d, o);
        }
        ignored_seen.extend(o.comparison.ignored.iter().cloned());
        let mut unlisted = Vec::new();
        let mut listed = Vec::new();
        for d in &o.comparison.differences {
            let mut hit = None;
            for (scope, i, e) in list.entries(name) {
                if e.matches(d) {
                    used.insert((scope.to_string(), i));
                    hit.get_or_insert((scope, e));
                }
            }
            match hit {
                Some((scope, e)) => listed.push((d, scope, e)),
                None => unlisted.push(d),
            }
        }
        let ms = o.run.elapsed.as_millis();
        if !unlisted.is_empty() {
            failing += 1;
        }
        if unlisted.is_empty() && !verbose {
            continue;
        }
        let _ = writeln!(
            report,
            "\n=== {name} ({ms} ms): {} unlisted difference(s), {} allowlisted",
            unlisted.len(),
            listed.len()
        );
        let _ = writeln!(
            report,
            "  argv: {:?} + --model mock-model",
            o.transcript.argv
        );
        let _ = writeln!(
            report,
            "  aligned lines (reference | dcl; '-' only in the reference, '+' only in dcl):"
        );
        report.push_str(&o.comparison.aligned);
        if !unlisted.is_empty() {
            let _ = writeln!(report, "  unlisted differences:");
            for d in &unlisted {
                let _ = writeln!(report, "    {:<11} {}", d.kind, d.detail);
                if !d.info.is_empty() {
                    let _ = writeln!(report, "                {}", d.info);
                }
            }
            let _ = writeln!(report, "  as allowlist entries (if deliberate):");
            for d in &unlisted {
                let _ = writeln!(report, "    {},", entry_json(d));
            }
        }
        if verbose {
            for (d, scope, e) in &listed {
                let _ = writeln!(
                    report,
                    "    listed{} {} {}: {} [{}]",
                    if *scope == "*" { " (*)" } else { "" },
                    d.kind,
                    d.detail,
                    e.reason,
                    d.info
                );
            }
        }
        let _ = writeln!(report, "  driver log:");
        for l in &o.run.log {
            let _ = writeln!(report, "    {l}");
        }
        if !o.run.stderr.trim().is_empty() {
            let _ = writeln!(report, "  dcl stderr:");
            for l in o.run.stderr.lines().take(20) {
                let _ = writeln!(report, "    {}", driver::shorten(l, 200));
            }
        }
    }

    // Stale entries: only checkable when every scenario ran.
    let mut stale = Vec::new();
    if full_run {
        for (scope, entries) in &list.scenarios {
            for (i, e) in entries.iter().enumerate() {
                if !used.contains(&(scope.clone(), i)) {
                    stale.push(format!(
                        "{scope}: {{\"kind\": {:?}, \"detail\": {:?}}} matches no difference",
                        e.kind, e.detail
                    ));
                }
            }
        }
        for l in &list.ignore_lines {
            if !ignored_seen.contains(&l.line) {
                stale.push(format!(
                    "ignore_lines: {:?} matches no line dcl printed",
                    l.line
                ));
            }
        }
    }
    if !stale.is_empty() {
        let _ = writeln!(report, "\n=== stale allowlist entries (remove them):");
        for s in &stale {
            let _ = writeln!(report, "    {s}");
        }
    }

    let summary = format!(
        "{} transcript(s) replayed in {:.1} s; {failing} with unlisted differences; {} stale allowlist entr(y/ies); {schema_checked} line(s) checked against the schema, {schema_failing} scenario(s) with failing lines",
        outcomes.len(),
        started.elapsed().as_secs_f64(),
        stale.len()
    );
    let schema_unchecked = full_run && schema_checked < 300;
    if schema_unchecked {
        let _ = writeln!(
            report,
            "\nonly {schema_checked} line(s) were checked against the schema"
        );
    }
    if failing > 0
        || schema_failing > 0
        || schema_unchecked
        || !stale.is_empty()
        || report.contains("has no transcript")
    {
        panic!(
            "{report}\n{summary}\nallowlist: {}",
            allowlist_path().display()
        );
    }
    if verbose {
        println!("{report}");
    }
    println!("{summary}");
}
