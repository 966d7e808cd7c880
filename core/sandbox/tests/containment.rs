//! Containment: what a contained command starts ends with it, however it detached.

// The Linux backend's mechanisms (namespaces, landlock, seccomp).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

fn contained(script: &str) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .process_group(0);
    dcl_sandbox::apply(&mut cmd, None);
    cmd
}

use std::os::unix::process::CommandExt as _;

const DETACHING: &str = "nohup sleep M >/dev/null 2>&1 & setsid sleep M & (sleep M &) ; \
     bash -c '(sleep M &) &' ; setsid bash -c 'sleep M & disown' ; sleep 0.3; pgrep -fxc 'sleep M'";

#[test]
fn detached_children_end_with_the_command() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(1);
    let out = contained(&DETACHING.replace('M', &m)).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    // All five were running when the command ended (so their absence below is earned).
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5", "{out:?}");
    assert_eq!(gone_within(&m, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn without_containment_the_same_children_survive() {
    // The positive twin: the script really detaches five sleeps that outlive bash.
    let m = marker(3);
    let out = Command::new("bash")
        .arg("-c")
        .arg(DETACHING.replace('M', &m))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(out.success());
    let left = survivors(&m);
    for pid in &left {
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert_eq!(left.len(), 5, "{left:?}");
}

#[test]
fn exit_status_and_signals_are_relayed() {
    let out = contained("exit 7").output().unwrap();
    assert_eq!(out.status.code(), Some(7));
    use std::os::unix::process::ExitStatusExt as _;
    let out = contained("kill -KILL $$").output().unwrap();
    // PID 1 of a namespace cannot be killed by itself, so this may be an exit; outside a
    // namespace it is a death by SIGKILL.
    assert!(
        out.status.signal() == Some(9) || out.status.code().is_some(),
        "{out:?}"
    );
    let err = contained("true")
        .current_dir("/nonexistent-dcl-dir")
        .spawn();
    assert!(err.is_err(), "a spawn failure is reported to the caller");
}

#[test]
fn killing_the_group_ends_the_namespace() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(2);
    let mut child = contained(&format!("setsid sleep {m} & sleep {m} & wait"))
        .spawn()
        .unwrap();
    assert!(wait_started(&m, 2));
    let pgid = child.id() as i32;
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    let _ = child.wait();
    assert_eq!(gone_within(&m, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn the_command_sees_its_own_pid_namespace() {
    if !namespaces_or_skip() {
        return;
    }
    let out = contained("echo $$; ls /proc | grep -c '^[0-9]'")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("1"), "{text}");
    if dcl_sandbox::probe::support().proc_mount {
        let n: u32 = lines.next().unwrap().trim().parse().unwrap();
        assert!(n < 5, "only the namespace's processes are in /proc: {n}");
    }
}

fn scoped(script: &str, scope: &dcl_sandbox::Scope) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .process_group(0);
    dcl_sandbox::apply_scoped(&mut cmd, None, scope);
    cmd
}

#[test]
fn a_scoped_namespace_keeps_redirected_daemons_until_the_scope_ends() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(5);
    let scope = dcl_sandbox::Scope::new().unwrap();
    let script =
        format!("setsid nohup sleep {m} >/dev/null 2>&1 & (sleep {m} &) >/dev/null 2>&1; exit 3");
    let out = scoped(&script, &scope).output().unwrap();
    // The command's own status, as soon as it exits (the daemons hold no pipe).
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        wait_started(&m, 2),
        "the daemons live on while the scope does"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sleeping(&m).len(), 2);
    drop(scope);
    assert_eq!(gone_within(&m, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn a_scoped_namespace_ends_with_its_process_group() {
    if !namespaces_or_skip() {
        return;
    }
    let m = marker(6);
    let scope = dcl_sandbox::Scope::new().unwrap();
    let script = format!("setsid sleep {m} >/dev/null 2>&1 & echo started");
    let out = scoped(&script, &scope).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "started");
    assert!(wait_started(&m, 1));
    // What the callers do at the end of a call or KillShell: kill the keeper's group.
    // The keeper is gone already, but the init still carries its group id.
    let left = sleeping(&m);
    let pgid = unsafe { libc::getpgid(left[0]) };
    assert!(pgid > 0);
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    // setsid moved the sleep to its own group, yet it dies with the init.
    assert_eq!(gone_within(&m, Duration::from_secs(5)), Vec::<i32>::new());
    drop(scope);
}

#[test]
fn known_reports_a_finished_probe_without_probing() {
    // The first contained spawn probes (lazily); afterwards `known` has the answer.
    let out = contained("true").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        dcl_sandbox::probe::known(),
        Some(dcl_sandbox::probe::support())
    );
}
