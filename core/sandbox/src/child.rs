//! What runs in the forked child before `exec` (a `pre_exec` hook): only raw,
//! async-signal-safe system calls on data the parent prepared (a multi-threaded process
//! was forked, so nothing may allocate or take a lock here).
//!
//! The child becomes the *keeper*: it unshares a user + PID (+ mount, + network)
//! namespace, forks PID 1 of the new namespace, and stays outside it, waiting. When PID 1
//! dies, the kernel kills everything left in the namespace, whatever `setsid`, `nohup` or
//! double forks did. PID 1 is either the command itself, or (`lingering`) a small init
//! that forks the command and keeps the namespace — and a daemon the command left with
//! its output redirected — until the scope ends. The keeper relays the command's exit
//! status with `_exit`, and kills PID 1 when dcl dies (the liveness pipe reads EOF: the
//! write end is held only by dcl).

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

/// Everything the child needs, formatted in the parent.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Unshare user + PID + mount namespaces (containment).
    pub namespaces: bool,
    /// `"<uid> <uid> 1\n"` and the same for the gid: the caller keeps its own ids.
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    /// Mount a fresh `/proc` for the new PID namespace.
    pub mount_proc: bool,
    /// Also a network namespace (only a down-then-up loopback inside).
    pub network_ns: bool,
    /// Paths overmounted so they read as empty: directories with a tmpfs, files with
    /// `/dev/null`.
    pub hide_dirs: Vec<CString>,
    pub hide_files: Vec<CString>,
    /// A landlock ruleset to restrict the command with.
    pub landlock_fd: Option<RawFd>,
    /// A seccomp program to install last.
    pub seccomp: Option<std::sync::Arc<seccompiler::BpfProgram>>,
    /// The read end of the liveness pipe.
    pub liveness_fd: Option<RawFd>,
    /// The namespace outlives the command (a small init keeps it) until `scope_fd`
    /// reads EOF or the caller kills the process group.
    pub lingering: bool,
    /// The read end of the scope's pipe (a session's), for a lingering namespace.
    pub scope_fd: Option<RawFd>,
}

const PROC_SETGROUPS: &[u8] = b"/proc/self/setgroups\0";
const PROC_UID_MAP: &[u8] = b"/proc/self/uid_map\0";
const PROC_GID_MAP: &[u8] = b"/proc/self/gid_map\0";
const DENY: &[u8] = b"deny";
const ROOT: &[u8] = b"/\0";
const PROC: &[u8] = b"/proc\0";
const PROC_FS: &[u8] = b"proc\0";
const TMPFS: &[u8] = b"tmpfs\0";
const DEV_NULL: &[u8] = b"/dev/null\0";
const TMPFS_OPTS: &[u8] = b"size=16k,mode=0500\0";
const LO: &[u8] = b"lo\0";

fn cstr(bytes: &[u8]) -> *const libc::c_char {
    bytes.as_ptr().cast()
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Writes `data` to a /proc file. Async-signal-safe.
fn write_file(path: &[u8], data: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated; open/write/close are async-signal-safe.
    unsafe {
        let fd = check(libc::open(cstr(path), libc::O_WRONLY | libc::O_CLOEXEC))?;
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let e = io::Error::last_os_error();
        libc::close(fd);
        if n < 0 || n as usize != data.len() {
            return Err(e);
        }
    }
    Ok(())
}

/// The keeper's name in `ps` / `/proc/<pid>/comm` (at most 15 bytes).
const KEEPER_NAME: &std::ffi::CStr = c"dcl-tool-keeper";

impl Plan {
    /// The `pre_exec` body. Returns in the command's process (which then execs); the
    /// keeper (and, when lingering, the namespace's init) never return.
    ///
    /// # Safety
    /// Must only be called in a freshly forked child, before exec.
    pub(crate) unsafe fn run_in_child(&self) -> io::Result<()> {
        // This process stays a fork of its host until the command execs (the keeper
        // never does): name it for `ps` instead of leaving the forking thread's name.
        // SAFETY: prctl with a static NUL-terminated name.
        unsafe { libc::prctl(libc::PR_SET_NAME, KEEPER_NAME.as_ptr(), 0, 0, 0) };
        if self.namespaces {
            let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS;
            if self.network_ns {
                flags |= libc::CLONE_NEWNET;
            }
            // SAFETY: plain system calls on static or parent-formatted data.
            unsafe { check(libc::unshare(flags))? };
            // A non-dumpable process (dcl makes itself one, so tools cannot read its
            // /proc files) has root-owned /proc/self files: an unprivileged keeper could
            // not write its maps. Dumpable only for these writes, then as before.
            // SAFETY: prctl with integer arguments.
            let was_dumpable = unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) };
            if was_dumpable == 0 {
                // SAFETY: as above.
                unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) };
            }
            // Without `deny`, an unprivileged process may not write gid_map.
            let written = write_file(PROC_SETGROUPS, DENY)
                .and_then(|()| write_file(PROC_UID_MAP, &self.uid_map))
                .and_then(|()| write_file(PROC_GID_MAP, &self.gid_map));
            if was_dumpable == 0 {
                // SAFETY: as above.
                unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
            }
            written?;
        }
        let lingering = self.lingering && self.namespaces;
        // The init tells the keeper the command's status through this pipe.
        let mut status_pipe = [-1 as libc::c_int; 2];
        if lingering {
            // SAFETY: raw system call into a local array.
            unsafe { check(libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC))? };
        }
        // SAFETY: fork in a single-threaded child; the branches only make raw calls.
        let pid = unsafe { check(libc::fork())? };
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                if lingering {
                    libc::close(status_pipe[0]);
                    return self.become_init(status_pipe[1]);
                }
                // The keeper is single-threaded: its death is exactly this parent's death.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                self.prepare_namespace()?;
                return self.confine();
            }
        }
        // SAFETY: as above; never returns.
        unsafe {
            if lingering {
                libc::close(status_pipe[1]);
            }
            self.keep(pid, status_pipe[0])
        }
    }

    /// Mounts and network set-up, in a process of the new namespaces.
    unsafe fn prepare_namespace(&self) -> io::Result<()> {
        if !self.namespaces {
            return Ok(());
        }
        // SAFETY: raw system calls on NUL-terminated static or parent-formatted strings.
        unsafe {
            // Nothing mounted here may propagate back to the host (best effort: a mount
            // namespace owned by a user namespace already only receives).
            libc::mount(
                std::ptr::null(),
                cstr(ROOT),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            );
            if self.mount_proc {
                check(libc::mount(
                    cstr(PROC_FS),
                    cstr(PROC),
                    cstr(PROC_FS),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ))?;
            }
            for dir in &self.hide_dirs {
                check(libc::mount(
                    cstr(TMPFS),
                    dir.as_ptr(),
                    cstr(TMPFS),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
                    cstr(TMPFS_OPTS).cast(),
                ))?;
            }
            for file in &self.hide_files {
                check(libc::mount(
                    cstr(DEV_NULL),
                    file.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                ))?;
            }
            if self.network_ns {
                loopback_up();
            }
        }
        Ok(())
    }

    /// The landlock domain (it also forbids further mounts) and the seccomp filter,
    /// last before exec.
    unsafe fn confine(&self) -> io::Result<()> {
        if self.landlock_fd.is_none() && self.seccomp.is_none() {
            return Ok(());
        }
        // SAFETY: raw system calls; the program was compiled in the parent.
        unsafe {
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            if let Some(fd) = self.landlock_fd {
                check(libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) as libc::c_int)?;
            }
            if let Some(prog) = &self.seccomp {
                let fprog = libc::sock_fprog {
                    len: prog.len() as libc::c_ushort,
                    filter: prog.as_ptr() as *mut libc::sock_filter,
                };
                const SECCOMP_SET_MODE_FILTER: libc::c_long = 1;
                check(libc::syscall(
                    libc::SYS_seccomp,
                    SECCOMP_SET_MODE_FILTER,
                    0,
                    &fprog as *const libc::sock_fprog,
                ) as libc::c_int)?;
            }
        }
        Ok(())
    }

    /// PID 1 of a namespace that outlives its command: forks the command, reaps
    /// whatever is orphaned to it, and reports the command's status on `status_fd`.
    /// It exits — and the kernel kills what is left in the namespace — when nothing is
    /// left, when it is killed (the caller's group kill), or when the scope's pipe
    /// reads EOF (the session ended, or dcl died).
    unsafe fn become_init(&self, status_fd: RawFd) -> io::Result<()> {
        // SAFETY: raw system calls; every path of the init ends in `_exit`.
        unsafe {
            self.prepare_namespace()?;
            let mut chld: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut chld);
            libc::sigaddset(&mut chld, libc::SIGCHLD);
            libc::sigprocmask(libc::SIG_BLOCK, &chld, std::ptr::null_mut());
            let sfd = libc::signalfd(-1, &chld, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
            let command = check(libc::fork())?;
            if command == 0 {
                let empty: libc::sigset_t = std::mem::zeroed();
                libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
                return self.confine();
            }
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            let mut keep = [
                status_fd,
                sfd,
                self.scope_fd.unwrap_or(-1),
                self.liveness_fd.unwrap_or(-1),
            ];
            keep.sort_unstable();
            close_all_but(&keep);
            let mut fds = [
                pollfd(sfd),
                pollfd(self.scope_fd.unwrap_or(-1)),
                pollfd(self.liveness_fd.unwrap_or(-1)),
            ];
            // Without a signalfd, look for exits every 100 ms.
            let timeout = if sfd >= 0 { -1 } else { 100 };
            let mut reported = false;
            loop {
                let mut pending = None;
                let r = loop {
                    let mut status: libc::c_int = 0;
                    let r = libc::waitpid(-1, &mut status, libc::WNOHANG);
                    if r == command && !reported {
                        pending = Some(status);
                    }
                    if r <= 0 {
                        break r;
                    }
                };
                if let Some(status) = pending {
                    // The status, and whether this init is about to exit (nothing else in
                    // the namespace): then the keeper reaps it rather than orphaning it.
                    let mut msg = [0u8; 5];
                    msg[..4].copy_from_slice(&status.to_ne_bytes());
                    msg[4] = u8::from(r < 0);
                    libc::write(status_fd, msg.as_ptr().cast(), msg.len());
                    libc::close(status_fd);
                    reported = true;
                }
                if r < 0 {
                    // No children left: nothing in the namespace needs it any more.
                    libc::_exit(0);
                }
                for f in &mut fds {
                    f.revents = 0;
                }
                let n = libc::poll(fds.as_mut_ptr(), 3, timeout);
                if n > 0 {
                    if fds[1].revents != 0 || fds[2].revents != 0 {
                        libc::_exit(137);
                    }
                    if fds[0].revents != 0 {
                        let mut info = [0u8; 128];
                        while libc::read(sfd, info.as_mut_ptr().cast(), info.len()) > 0 {}
                    }
                }
            }
        }
    }

    /// In the keeper: wait for the command (or the init's report) or for dcl's death,
    /// then relay and exit.
    unsafe fn keep(&self, pid: libc::pid_t, status_fd: RawFd) -> ! {
        // SAFETY: raw system calls only; every path ends in `_exit`.
        unsafe {
            // tokio's SIGCHLD handler (inherited) would write into a closed pipe.
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as libc::c_int;
            // Hold nothing of dcl's: its stdio, sockets, the liveness write end, and the
            // pipe std uses to report exec errors (spawn() returns when all copies close,
            // so the command's exec, or its failure, is what the parent sees).
            let mut keep = [self.liveness_fd.unwrap_or(-1), pidfd, status_fd];
            keep.sort_unstable();
            close_all_but(&keep);
            let mut fds = [
                pollfd(self.liveness_fd.unwrap_or(-1)),
                pollfd(pidfd),
                pollfd(status_fd),
            ];
            // Without a pidfd, look at the child every 100 ms.
            let timeout = if pidfd >= 0 { -1 } else { 100 };
            loop {
                let mut status: libc::c_int = 0;
                let r = libc::waitpid(pid, &mut status, libc::WNOHANG);
                if r == pid {
                    // The init died: a status it reported first is the command's.
                    let mut msg = [0u8; 5];
                    if status_fd >= 0 && libc::read(status_fd, msg.as_mut_ptr().cast(), 5) == 5 {
                        relay(libc::c_int::from_ne_bytes([msg[0], msg[1], msg[2], msg[3]]));
                    }
                    relay(status);
                }
                if r < 0 {
                    libc::_exit(127);
                }
                for f in &mut fds {
                    f.revents = 0;
                }
                let n = libc::poll(fds.as_mut_ptr(), 3, timeout);
                if n > 0 && fds[0].revents != 0 {
                    // dcl is gone: nothing it started may outlive it.
                    libc::kill(pid, libc::SIGKILL);
                    libc::kill(-libc::getpgrp(), libc::SIGKILL);
                    libc::_exit(137);
                }
                if n > 0 && fds[2].revents & libc::POLLIN != 0 {
                    // The command ended. An init that is exiting is reaped here (else it
                    // would linger as the host's zombie); one that stays keeps the rest
                    // of the namespace alive on its own.
                    let mut msg = [0u8; 5];
                    if libc::read(status_fd, msg.as_mut_ptr().cast(), 5) == 5 {
                        if msg[4] == 1 {
                            let mut ignored: libc::c_int = 0;
                            libc::waitpid(pid, &mut ignored, 0);
                        }
                        relay(libc::c_int::from_ne_bytes([msg[0], msg[1], msg[2], msg[3]]));
                    }
                    // EOF without a status: the init is dying; wait for it.
                    fds[2].fd = -1;
                }
            }
        }
    }
}

fn pollfd(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Exits the way the command did: its code, or by its signal.
unsafe fn relay(status: libc::c_int) -> ! {
    // SAFETY: raw system calls.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// Closes every descriptor except those in `keep` (sorted; negatives ignored).
unsafe fn close_all_but(keep: &[RawFd]) {
    let mut from: libc::c_uint = 0;
    for &fd in keep {
        if fd < 0 {
            continue;
        }
        let fd = fd as libc::c_uint;
        if fd > from {
            // SAFETY: raw system call.
            unsafe { libc::syscall(libc::SYS_close_range, from, fd - 1, 0) };
        }
        from = fd + 1;
    }
    // SAFETY: raw system call.
    unsafe { libc::syscall(libc::SYS_close_range, from, libc::c_uint::MAX, 0) };
}

/// Brings the new network namespace's loopback up, so servers a command starts for
/// itself (tests on 127.0.0.1) work; nothing outside is reachable. Best effort.
unsafe fn loopback_up() {
    // SAFETY: raw socket/ioctl calls on a zeroed ifreq.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if sock < 0 {
            return;
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in LO.iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        if libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(sock, libc::SIOCSIFFLAGS, &req);
        }
        libc::close(sock);
    }
}
