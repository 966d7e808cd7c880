//! What an idle session costs in descriptors, counted from /proc/self/fd. Its own test
//! binary: tests running beside it in one process would open descriptors of their own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use dcl_bridge::host::{Host, HostConfig, Waker};
use serde_json::json;

const IDLE: usize = 500;

fn descriptors() -> BTreeMap<String, usize> {
    let mut kinds = BTreeMap::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let target = target.to_string_lossy().into_owned();
        let kind = match target.split_once(':') {
            Some((k, _)) => k.to_string(),
            None => "file".to_string(),
        };
        *kinds.entry(kind).or_default() += 1;
    }
    kinds
}

#[test]
fn idle_hosts_add_no_descriptor_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        json!({"cwd": dir.path(), "model": "mock-model", "persistSession": false}).to_string();
    let waker = Arc::new(Waker::new().unwrap());
    // The runtime's own descriptors (epoll, eventfds, the liveness pipe) exist from here.
    let first = Host::open(&options, HostConfig::default()).unwrap();
    first.arm(Arc::clone(&waker), 0);
    let before = descriptors();
    let hosts: Vec<Host> = (1..=IDLE)
        .map(|key| {
            let h = Host::open(&options, HostConfig::default()).unwrap();
            h.arm(Arc::clone(&waker), key as u64);
            h
        })
        .collect();
    let after = descriptors();
    let grown = |k: &str| {
        after
            .get(k)
            .unwrap_or(&0)
            .saturating_sub(*before.get(k).unwrap_or(&0))
    };
    let others: usize = after
        .keys()
        .filter(|k| k.as_str() != "pipe")
        .map(|k| grown(k))
        .sum();
    // The host, its pump and the shared waker hold nothing per session.
    assert!(others < 5, "before {before:?} after {after:?}");
    // The engine's containment scope (dcl_sandbox::Scope) is a pipe pair per session: the
    // one remaining per-session cost, bounded here so a new one shows up.
    assert!(
        grown("pipe") <= 2 * IDLE + 2,
        "before {before:?} after {after:?}"
    );
    drop(hosts);
}
