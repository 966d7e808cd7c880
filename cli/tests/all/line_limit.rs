//! A stdin line over `DCL_MAX_LINE_BYTES` is discarded while it is read: a 500 MB line
//! costs dcl far less than 500 MB, gets a clear error, and the session goes on.

use crate::common;

use std::io::Write;

use common::{Dcl, STREAM};

/// Peak resident memory of a live process, from `/proc/<pid>/status` (`VmHWM`, kB).
fn peak_rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc status");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("VmHWM value");
    kb * 1024
}

/// Writes a user line whose content is `size` bytes of `a`, in 1 MiB writes.
fn write_huge_line(d: &mut Dcl, size: usize) {
    let chunk = vec![b'a'; 1 << 20];
    let stdin = d.stdin();
    stdin
        .write_all(br#"{"type":"user","message":{"role":"user","content":""#)
        .unwrap();
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        stdin.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    stdin.write_all(b"\"}}\n").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn a_500_mb_line_is_dropped_without_being_held_and_the_session_goes_on() {
    const SIZE: usize = 500 * 1000 * 1000;
    // The default limit (64 MiB) applies: no DCL_MAX_LINE_BYTES.
    let mut d = Dcl::start(STREAM);
    write_huge_line(&mut d, SIZE);
    d.user("say hi");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["result"], "Hello from the fake model.");
    // Only the short prompt became a turn.
    assert_eq!(d.of_type("result").len(), 1);

    // Measured while dcl is still running: its whole-life peak.
    let peak = peak_rss_bytes(d.child.id());
    assert!(
        peak < 256 * 1024 * 1024,
        "peak RSS {} MiB for a 500 MB line",
        peak >> 20
    );
    assert_eq!(d.finish(), 0);
    let err = d.stderr();
    assert!(
        err.contains("is over the limit of 67108864 bytes (DCL_MAX_LINE_BYTES)"),
        "{err}"
    );
}

#[test]
fn the_limit_comes_from_the_environment_and_lines_under_it_pass() {
    let mut d = Dcl::start_with_env(STREAM, &[("DCL_MAX_LINE_BYTES", "4096")]);
    write_huge_line(&mut d, 5000);
    d.user("say hi");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    // The positive twin: a line just under the limit is a turn of its own.
    write_huge_line(&mut d, 3000);
    let second = d.until_type("result");
    assert_eq!(second["subtype"], "success", "{second}");
    assert_eq!(d.of_type("result").len(), 2);
    assert_eq!(d.finish(), 0);
    let err = d.stderr();
    assert_eq!(
        err.matches("is over the limit of 4096 bytes").count(),
        1,
        "{err}"
    );
}
