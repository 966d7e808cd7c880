//! Process groups, the containment every OS has: a tool process is started as the leader
//! of a group of its own, and killing the group ends what it started too. On Unix that
//! is `setpgid` and `killpg`; on Windows a new process group and `taskkill /T` (the tree
//! by parent links; what escaped the tree still ends with dcl's Job Object).

use std::process::ExitStatus;

/// A process group, named by its leader's process id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group(u32);

impl Group {
    /// The group `pid` leads (the process [`own_group`] started).
    pub fn led_by(pid: u32) -> Option<Group> {
        // 0 names the caller's own group to killpg, and a pid above i32::MAX would wrap.
        (pid != 0 && i32::try_from(pid).is_ok()).then_some(Group(pid))
    }

    pub fn id(self) -> u32 {
        self.0
    }

    /// Kills every process of the group; a group already gone is not an error.
    pub fn kill(self) {
        #[cfg(unix)]
        {
            // SAFETY: a signal to a process group (led_by keeps the id a positive i32).
            unsafe { libc::kill(-(self.0 as libc::pid_t), libc::SIGKILL) };
        }
        #[cfg(windows)]
        {
            use std::process::{Command, Stdio};
            let _ = Command::new("taskkill")
                .args(["/F", "/T", "/PID", &self.0.to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Makes `cmd` start as the leader of a new process group.
pub fn own_group(cmd: &mut std::process::Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt as _;
        // CREATE_NEW_PROCESS_GROUP: a console Ctrl+C to dcl does not reach it.
        cmd.creation_flags(0x0000_0200);
    }
}

/// The status as a shell reports it: a death by signal N is 128 + N (Unix); Windows has
/// only exit codes.
pub fn exit_code(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        status
            .code()
            .or_else(|| status.signal().map(|signal| 128 + signal))
            .unwrap_or(-1)
    }
    #[cfg(not(unix))]
    {
        status.code().unwrap_or(-1)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn led_by_refuses_ids_that_name_other_groups() {
        // Attack: 0 would signal dcl's own group, and a wrapped id all processes.
        assert_eq!(Group::led_by(0), None);
        assert_eq!(Group::led_by(u32::MAX), None);
        assert_eq!(Group::led_by(1234).map(Group::id), Some(1234));
    }

    #[test]
    fn kill_ends_the_group_and_its_children() {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "sleep 30 & wait"]);
        own_group(&mut cmd);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => panic!("sh: {e}"),
        };
        let group = Group::led_by(child.id());
        assert!(group.is_some());
        if let Some(g) = group {
            g.kill();
        }
        let status = child.wait().ok();
        assert_eq!(status.map(exit_code), Some(128 + libc::SIGKILL));
    }
}
