//! Structural comparison of dcl's stdout with a recording.
//!
//! Each stdout line becomes a key (type/subtype, content block types, result subtype…);
//! the two key sequences are aligned (longest common subsequence). Unmatched lines are
//! `missing` (the reference printed it, dcl did not) or `extra`; a key that is both
//! missing and extra somewhere is `moved`. Matched pairs are checked for the keys the
//! reference has (`missing_key`), JSON types (`type`), non-empty arrays (`empty`), a few
//! deterministic values (`value`) and the mock's result texts (`text`). Ids, uuids,
//! times, paths, token counts and other texts are not compared.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use serde_json::Value;

use super::driver::{Paths, Run};
use super::transcript::Transcript;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub kind: String,
    /// Stable across runs: what the allowlist matches.
    pub detail: String,
    /// The specifics, for the report only.
    pub info: String,
}

#[derive(Default)]
struct Diffs(Vec<Difference>);

impl Diffs {
    fn push(&mut self, kind: &str, detail: impl Into<String>, info: impl Into<String>) {
        let detail = detail.into();
        if !self.0.iter().any(|d| d.kind == kind && d.detail == detail) {
            self.0.push(Difference {
                kind: kind.into(),
                detail,
                info: info.into(),
            });
        }
    }
}

pub struct Comparison {
    pub differences: Vec<Difference>,
    /// The aligned key sequences, for the report.
    pub aligned: String,
    /// Keys of dcl lines dropped by the allowlist's `ignore_lines`.
    pub ignored: BTreeSet<String>,
}

struct Item {
    key: String,
    /// Index in the full stdout list.
    index: usize,
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("?")
}

/// The structural key of one stdout line.
pub fn seq_key(line: &Value, sent: &HashMap<String, String>) -> String {
    let Some(t) = line.get("type").and_then(Value::as_str) else {
        return "raw".into();
    };
    match t {
        // Paired by request id; success/error is compared on the pair.
        "control_response" => {
            let id = s(&line["response"]["request_id"]);
            let req = sent.get(id).map(String::as_str).unwrap_or("?");
            format!("control_response:{req}({id})")
        }
        "control_request" => format!("control_request/{}", s(&line["request"]["subtype"])),
        "system" => format!("system/{}", s(&line["subtype"])),
        "assistant" => format!("assistant[{}]", block_types(&line["message"]["content"])),
        "user" => {
            if line["isReplay"] == true {
                return "user/replay".into();
            }
            match &line["message"]["content"] {
                Value::String(_) => "user[string]".into(),
                c => format!("user[{}]", block_types(c)),
            }
        }
        "result" => {
            let e = if line["is_error"] == true {
                " is_error"
            } else {
                ""
            };
            format!("result/{}{e}", s(&line["subtype"]))
        }
        "stream_event" => {
            let e = &line["event"];
            match s(&e["type"]) {
                "content_block_delta" => {
                    format!(
                        "stream_event/content_block_delta:{}",
                        s(&e["delta"]["type"])
                    )
                }
                "content_block_start" => format!(
                    "stream_event/content_block_start:{}",
                    s(&e["content_block"]["type"])
                ),
                other => format!("stream_event/{other}"),
            }
        }
        other => other.to_string(),
    }
}

fn block_types(content: &Value) -> String {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|b| match s(&b["type"]) {
                    "tool_use" => format!("tool_use:{}", s(&b["name"])),
                    t => t.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

fn items(
    lines: &[Value],
    sent: &HashMap<String, String>,
    ignore: &dyn Fn(&str) -> bool,
    ignored: &mut BTreeSet<String>,
) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let key = seq_key(line, sent);
        if ignore(&key) {
            ignored.insert(key);
            continue;
        }
        // How a stream is cut into deltas is not structure: a run of deltas is one item.
        if key.starts_with("stream_event/content_block_delta")
            && out.last().is_some_and(|l| l.key == key)
        {
            continue;
        }
        out.push(Item { key, index });
    }
    out
}

/// Longest-common-subsequence alignment of two key lists.
fn align(a: &[Item], b: &[Item]) -> Vec<(Option<usize>, Option<usize>)> {
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if a[i].key == b[j].key {
                dp[i + 1][j + 1] + 1
            } else {
                dp[i + 1][j].max(dp[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i].key == b[j].key {
            out.push((Some(i), Some(j)));
            i += 1;
            j += 1;
        } else if j < m && (i == n || dp[i][j + 1] >= dp[i + 1][j]) {
            out.push((None, Some(j)));
            j += 1;
        } else {
            out.push((Some(i), None));
            i += 1;
        }
    }
    out
}

/// The prefix of a difference's detail: the line kind without the parts the sequence
/// already compares.
fn label(key: &str) -> String {
    if key.starts_with("result/") {
        return "result".into();
    }
    if key.starts_with("control_response:") {
        return key.split_once('(').map_or(key, |(head, _)| head).into();
    }
    match key.split_once('[') {
        Some((head, _)) => head.into(),
        None => key.into(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn join(path: &str, k: &str) -> String {
    if path.is_empty() {
        k.to_string()
    } else {
        format!("{path}.{k}")
    }
}

/// Every key the reference has must be in dcl's line too (recursively; arrays pairwise).
fn required_keys(label: &str, path: &str, r: &Value, d: &Value, depth: usize, out: &mut Diffs) {
    if depth > 6 {
        return;
    }
    let at = |p: &str| {
        if p.is_empty() {
            label.to_string()
        } else {
            format!("{label}.{p}")
        }
    };
    match (r, d) {
        (Value::Object(ro), Value::Object(dobj)) => {
            // Keyed by model name: compare the entries' shapes.
            if path == "modelUsage" {
                if let (Some(rv), Some(dv)) = (ro.values().next(), dobj.values().next()) {
                    required_keys(label, &join(path, "*"), rv, dv, depth + 1, out);
                }
                return;
            }
            for (k, rv) in ro {
                let p = join(path, k);
                match dobj.get(k) {
                    None => out.push(
                        "missing_key",
                        at(&p),
                        format!("reference has {}", short_json(rv)),
                    ),
                    Some(dv) => required_keys(label, &p, rv, dv, depth + 1, out),
                }
            }
        }
        (Value::Array(ra), Value::Array(da)) => {
            if !ra.is_empty() && da.is_empty() {
                out.push(
                    "empty",
                    at(path),
                    format!("reference has {} entries, dcl none", ra.len()),
                );
            }
            for (rv, dv) in ra.iter().zip(da) {
                required_keys(label, &format!("{path}[]"), rv, dv, depth + 1, out);
            }
        }
        (Value::Null, _) | (_, Value::Null) => {}
        _ if kind_of(r) != kind_of(d) => out.push(
            "type",
            at(path),
            format!(
                "reference {} {}, dcl {} {}",
                kind_of(r),
                short_json(r),
                kind_of(d),
                short_json(d)
            ),
        ),
        _ => {}
    }
}

fn short_json(v: &Value) -> String {
    super::driver::shorten(&v.to_string(), 100)
}

/// `N` of the mock's `Done. The tool result had N chars.`
fn done_chars(text: &str) -> Option<usize> {
    text.strip_prefix("Done. The tool result had ")?
        .strip_suffix(" chars.")?
        .parse()
        .ok()
}

fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The text of the last tool result the reference printed in the turn of line `upto`.
fn last_tool_result(lines: &[&Value], upto: usize) -> Option<String> {
    for line in lines[..upto].iter().rev() {
        if line["type"] == "system" && line["subtype"] == "init" {
            return None;
        }
        if line["type"] == "user"
            && let Some(block) = line["message"]["content"]
                .as_array()
                .and_then(|c| c.iter().rev().find(|b| b["type"] == "tool_result"))
        {
            return Some(tool_result_text(&block["content"]));
        }
    }
    None
}

fn check_result_text(ri: usize, di: usize, cx: &Context, out: &mut Diffs) {
    let (r, d) = (cx.ref_lines[ri], cx.dcl_lines[di]);
    let (Some(rt), Some(dt)) = (r["result"].as_str(), d["result"].as_str()) else {
        return;
    };
    match (done_chars(rt), done_chars(dt)) {
        (Some(rn), Some(dn)) => {
            // N counts the last tool result's text, which may hold the run's paths: compare
            // both with the paths written as placeholders, so the scratch dir's length
            // does not matter.
            let chars = |t: &str| t.chars().count();
            let expected = last_tool_result(cx.ref_lines, ri).map_or(rn, |t| chars(&t));
            let got = match last_tool_result(cx.dcl_lines, di) {
                Some(t) => (dn + chars(&cx.paths.unsubstitute(&t))).saturating_sub(chars(&t)),
                None => dn,
            };
            if got != expected {
                out.push(
                    "text",
                    "result.result",
                    format!(
                        "reference {rt:?}, dcl {dt:?} (with paths as placeholders: {expected} vs {got} chars)"
                    ),
                );
            }
        }
        _ => {
            let rt = cx.paths.substitute(rt);
            if rt != dt {
                out.push(
                    "text",
                    "result.result",
                    format!("reference {rt:?}, dcl {dt:?}"),
                );
            }
        }
    }
}

fn value(out: &mut Diffs, detail: &str, r: &Value, d: &Value) {
    if r != d {
        out.push(
            "value",
            detail,
            format!("reference {}, dcl {}", short_json(r), short_json(d)),
        );
    }
}

/// Both full stdout lists, for looking back from a matched pair.
struct Context<'a> {
    ref_lines: &'a [&'a Value],
    dcl_lines: &'a [&'a Value],
    paths: &'a Paths,
}

/// Checks one matched pair of lines (`ri`, `di`: their indices in the full lists).
fn check_pair(key: &str, ri: usize, di: usize, cx: &Context, out: &mut Diffs) {
    let (r, d) = (cx.ref_lines[ri], cx.dcl_lines[di]);
    let lbl = label(key);
    if lbl.starts_with("control_response:") {
        let (rs, ds) = (&r["response"]["subtype"], &d["response"]["subtype"]);
        if rs != ds {
            // An error answers where the reference succeeded: its keys say nothing.
            value(out, &format!("{lbl}.subtype"), rs, ds);
            return;
        }
    }
    required_keys(&lbl, "", r, d, 0, out);
    match lbl.as_str() {
        "raw" => {
            let rt = cx.paths.substitute(r.as_str().unwrap_or_default());
            if rt != d.as_str().unwrap_or_default() {
                out.push("text", "raw", format!("reference {rt:?}, dcl {d}"));
            }
        }
        "system/init" => {
            value(
                out,
                "system/init.permissionMode",
                &r["permissionMode"],
                &d["permissionMode"],
            );
            let names = |v: &Value| -> BTreeSet<String> {
                v.as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (rt, dt) = (names(&r["tools"]), names(&d["tools"]));
            if rt != dt {
                let only_ref: Vec<_> = rt.difference(&dt).cloned().collect();
                let only_dcl: Vec<_> = dt.difference(&rt).cloned().collect();
                out.push(
                    "value",
                    "system/init.tools",
                    format!(
                        "reference only: {}; dcl only: {}",
                        only_ref.join(" "),
                        only_dcl.join(" ")
                    ),
                );
            }
        }
        "system/status" => {
            value(
                out,
                "system/status.permissionMode",
                &r["permissionMode"],
                &d["permissionMode"],
            );
        }
        "result" => {
            for k in [
                "stop_reason",
                "terminal_reason",
                "num_turns",
                "api_error_status",
            ] {
                if r.get(k).is_some() && d.get(k).is_some() {
                    value(out, &format!("result.{k}"), &r[k], &d[k]);
                }
            }
            let len = |v: &Value| v.as_array().map_or(0, Vec::len);
            let (rl, dl) = (len(&r["permission_denials"]), len(&d["permission_denials"]));
            if rl != dl {
                out.push(
                    "value",
                    "result.permission_denials",
                    format!("reference {rl} denial(s), dcl {dl}"),
                );
            }
            check_result_text(ri, di, cx, out);
        }
        "user" => {
            let blocks = |v: &Value| {
                v["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            };
            for (rb, db) in blocks(r).iter().zip(blocks(d).iter()) {
                if rb["type"] == "tool_result" {
                    let err = |b: &Value| b["is_error"] == true;
                    if err(rb) != err(db) {
                        out.push(
                            "value",
                            "user.tool_result.is_error",
                            format!(
                                "reference {}, dcl {} ({})",
                                err(rb),
                                err(db),
                                short_json(&db["content"])
                            ),
                        );
                    }
                }
            }
        }
        _ => {}
    }
}

pub fn compare(t: &Transcript, run: &Run, ignore: &dyn Fn(&str) -> bool) -> Comparison {
    let sent: HashMap<String, String> = t.sent_requests().into_iter().collect();
    let ref_lines: Vec<Value> = t.stdout().into_iter().cloned().collect();
    let ref_refs: Vec<&Value> = ref_lines.iter().collect();
    let mut ignored = BTreeSet::new();
    let a = items(&ref_lines, &sent, &|_| false, &mut BTreeSet::new());
    let b = items(&run.stdout, &sent, ignore, &mut ignored);
    let alignment = align(&a, &b);
    let dcl_refs: Vec<&Value> = run.stdout.iter().collect();
    let cx = Context {
        ref_lines: &ref_refs,
        dcl_lines: &dcl_refs,
        paths: &run.paths,
    };
    let mut out = Diffs::default();
    let mut aligned = String::new();
    let mut missing: Vec<&str> = Vec::new();
    let mut extra: Vec<&str> = Vec::new();
    for (i, j) in &alignment {
        match (i, j) {
            (Some(i), Some(j)) => {
                let _ = writeln!(aligned, "    {:<50} {}", a[*i].key, b[*j].key);
                check_pair(&a[*i].key, a[*i].index, b[*j].index, &cx, &mut out);
            }
            (Some(i), None) => {
                let _ = writeln!(aligned, "  - {:<50}", a[*i].key);
                missing.push(&a[*i].key);
            }
            (None, Some(j)) => {
                let _ = writeln!(aligned, "  + {:<50} {}", "", b[*j].key);
                extra.push(&b[*j].key);
            }
            (None, None) => {}
        }
    }
    for key in &missing {
        if let Some(p) = extra.iter().position(|e| e == key) {
            extra.remove(p);
            out.push(
                "moved",
                *key,
                "the line is there, in another place in the sequence",
            );
        } else {
            out.push("missing", *key, "the reference printed it, dcl did not");
        }
    }
    for key in extra {
        out.push("extra", key, "dcl printed it, the reference did not");
    }

    // Every request the driver sent is answered as often as the reference answered it.
    let answers = |lines: &[Value], id: &str| {
        lines
            .iter()
            .filter(|l| l["type"] == "control_response" && l["response"]["request_id"] == id)
            .count()
    };
    for (id, subtype) in t.sent_requests() {
        let (r, d) = (answers(&ref_lines, &id), answers(&run.stdout, &id));
        if r != d {
            out.push(
                "pairing",
                format!("{subtype} {id}"),
                format!("answered {r} time(s) by the reference, {d} by dcl"),
            );
        }
    }
    for l in &run.stdout {
        if l["type"] == "control_response" && !sent.contains_key(s(&l["response"]["request_id"])) {
            out.push(
                "pairing",
                "response to an unknown request id",
                short_json(l),
            );
        }
    }

    let (re, de) = (t.exit_code(), run.exit_code);
    if re != de {
        let show = |c: Option<i64>| c.map_or("none (killed)".to_string(), |c| c.to_string());
        out.push(
            "exit_code",
            format!("reference {}, dcl {}", show(re), show(de)),
            "",
        );
    }
    Comparison {
        differences: out.0,
        aligned,
        ignored,
    }
}
