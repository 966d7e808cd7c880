//! Helpers shared by the mechanism tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::time::{Duration, Instant};

/// PIDs whose argv contains `marker` (a unique `sleep` argument such as `1000.4711`).
pub fn survivors(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(marker) {
                out.push(pid);
            }
        }
    }
    out
}

/// Waits up to `limit` for every process carrying `marker` to be gone.
pub fn gone_within(marker: &str, limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let left = survivors(marker);
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// PIDs of running `sleep <marker>` processes: argv exactly that, so a process still
/// between fork and exec (its cmdline briefly reads empty mid-exec) is not counted.
pub fn sleeping(marker: &str) -> Vec<i32> {
    survivors(marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                let argv: Vec<&[u8]> = c.split(|b| *b == 0).filter(|a| !a.is_empty()).collect();
                argv.len() == 2
                    && argv[0].rsplit(|b| *b == b'/').next() == Some(b"sleep".as_slice())
                    && argv[1] == marker.as_bytes()
            })
        })
        .collect()
}

/// Waits until `count` `sleep <marker>` processes are running (so a test cannot pass
/// because its processes never started, nor fail because one was still exec'ing).
pub fn wait_started(marker: &str, count: usize) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if sleeping(marker).len() >= count {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A marker unique to this test run.
pub fn marker(tag: u32) -> String {
    format!("1000.{}{tag}", std::process::id())
}

/// Whether the namespaces containment relies on work here; prints why not.
pub fn namespaces_or_skip() -> bool {
    let s = dcl_sandbox::probe::support();
    if !s.namespaces {
        eprintln!(
            "SKIP: user/PID namespaces are unavailable here: {:?}",
            s.missing
        );
    }
    s.namespaces
}
