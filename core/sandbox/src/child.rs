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
    /// Also IPC and UTS namespaces: no SysV shm/message queues or POSIX queues shared
    /// with the host, and a private /dev/shm.
    pub isolate_ipc: bool,
    /// Bound over /dev/shm (a writable directory of the sandbox's own).
    pub shm_source: Option<CString>,
    /// Remount the whole tree read-only, then only `write_dirs` writable: every write,
    /// metadata change or rename outside them fails with EROFS, whatever the syscall.
    pub read_only_root: bool,
    pub write_dirs: Vec<CString>,
    /// Bound over themselves (still writable) so they cannot be renamed or removed.
    pub pin: Vec<CString>,
    /// Bound read-only over themselves inside the writable dirs (`protected`).
    pub protect: Vec<CString>,
    /// Those of `protect` that are symlinks: the bind above protects the target; this
    /// covers the link itself (which could otherwise be replaced) with a read-only copy
    /// of its target (`true`: a file) or `/dev/null` (a directory or a dangling link).
    pub protect_links: Vec<(CString, bool)>,
    /// The command gets a new session (no controlling terminal), no descriptor but
    /// 0, 1 and 2 across exec, and no capabilities.
    pub harden: bool,
    /// With `harden`: `setsid` too (only where a PID namespace contains the command).
    pub new_session: bool,
    /// The proxy's one way in: a loopback listener inside the network namespace whose
    /// connections are relayed to the host-side proxy's unix socket.
    pub bridge: Option<Bridge>,
}

/// Where the in-namespace proxy endpoint listens and where it relays to.
#[derive(Debug)]
pub(crate) struct Bridge {
    /// The port on the namespace's 127.0.0.1.
    pub port: u16,
    /// The host proxy's unix socket.
    pub addr: libc::sockaddr_un,
    pub addr_len: libc::socklen_t,
}

impl Bridge {
    /// `None` when the path does not fit a `sockaddr_un`.
    pub(crate) fn new(port: u16, path: &std::path::Path) -> Option<Bridge> {
        use std::os::unix::ffi::OsStrExt as _;
        // SAFETY: sockaddr_un is plain data; all-zero is a valid value.
        let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let bytes = path.as_os_str().as_bytes();
        if bytes.len() >= addr.sun_path.len() || bytes.contains(&0) {
            return None;
        }
        for (d, b) in addr.sun_path.iter_mut().zip(bytes) {
            *d = *b as libc::c_char;
        }
        let addr_len = (std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1) as _;
        Some(Bridge {
            port,
            addr,
            addr_len,
        })
    }
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
const DEV_SHM: &[u8] = b"/dev/shm\0";
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
        // The proxy relay's lifeline in a lingering namespace (read end: the relay).
        let mut relay_life = [-1 as libc::c_int; 2];
        if self.namespaces {
            let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS;
            if self.network_ns {
                flags |= libc::CLONE_NEWNET;
            }
            if self.isolate_ipc {
                flags |= libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
            }
            let bridged = self.bridge.is_some() && self.network_ns;
            if bridged {
                // The proxy relay must be in the network namespace but not in the PID
                // namespace: a namespace's end waits for every process in it to be
                // reaped, and the keeper (its parent) only reaps after PID 1.
                flags &= !libc::CLONE_NEWPID;
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
            if let (Some(b), true) = (&self.bridge, bridged) {
                // SAFETY: raw socket calls and a fork in a single-threaded child.
                unsafe {
                    // The endpoint listens before the command starts, so its first
                    // connect cannot race the relay (connections wait in the backlog).
                    loopback_up();
                    let listener = bridge_listener(b.port)?;
                    // A lingering namespace outlives the keeper: there the relay lasts
                    // as long as the init, which holds the write end of this pipe.
                    if self.lingering {
                        check(libc::pipe2(relay_life.as_mut_ptr(), libc::O_CLOEXEC))?;
                    }
                    if check(libc::fork())? == 0 {
                        if relay_life[1] >= 0 {
                            libc::close(relay_life[1]);
                        } else {
                            // The keeper is single-threaded: its death is the cue.
                            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                        }
                        relay_forever(listener, b, relay_life[0]);
                    }
                    libc::close(listener);
                    if relay_life[0] >= 0 {
                        libc::close(relay_life[0]);
                    }
                    check(libc::unshare(libc::CLONE_NEWPID))?;
                }
            }
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
                    return self.become_init(status_pipe[1], relay_life[1]);
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
            if relay_life[1] >= 0 {
                libc::close(relay_life[1]);
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
            if self.read_only_root {
                // The working directory was entered before these mounts, so it still
                // names the old (now read-only) mount: enter it again by path, through
                // the writable bind on top.
                let mut cwd = [0 as libc::c_char; libc::PATH_MAX as usize];
                let have_cwd = !libc::getcwd(cwd.as_mut_ptr(), cwd.len()).is_null();
                read_only_world(&self.write_dirs)?;
                if have_cwd {
                    check(libc::chdir(cwd.as_ptr()))?;
                }
            }
            if self.mount_proc {
                check(libc::mount(
                    cstr(PROC_FS),
                    cstr(PROC),
                    cstr(PROC_FS),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ))?;
            }
            if let Some(shm) = &self.shm_source {
                // POSIX shared memory lives in /dev/shm, a path: the sandbox's own
                // directory there keeps it private like the IPC namespace keeps SysV and
                // mqueue objects. A system without /dev/shm has nothing to share.
                match check(libc::mount(
                    shm.as_ptr(),
                    cstr(DEV_SHM),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                )) {
                    Err(e) if e.raw_os_error() != Some(libc::ENOENT) => return Err(e),
                    _ => {}
                }
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
            for path in &self.pin {
                bind_self(path)?;
            }
            for path in &self.protect {
                if bind_self(path)? {
                    check(libc::mount(
                        std::ptr::null(),
                        path.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY,
                        std::ptr::null(),
                    ))?;
                }
            }
            for (link, file) in &self.protect_links {
                let source = if *file { link.as_ptr() } else { cstr(DEV_NULL) };
                cover_link(source, link.as_ptr())?;
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
        if self.harden {
            // SAFETY: raw system calls.
            unsafe { harden(self.new_session)? };
        }
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
    unsafe fn become_init(&self, status_fd: RawFd, relay_life: RawFd) -> io::Result<()> {
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
                relay_life,
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
        // `as _`: musl's ioctl takes an int request, glibc's an unsigned long.
        if libc::ioctl(sock, libc::SIOCGIFFLAGS as _, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(sock, libc::SIOCSIFFLAGS as _, &req);
        }
        libc::close(sock);
    }
}

/// `mount_setattr(2)`'s argument (not in every libc version).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const AT_RECURSIVE: libc::c_uint = 0x8000;

unsafe fn mount_setattr(
    path: *const libc::c_char,
    flags: libc::c_uint,
    attr: &MountAttr,
) -> io::Result<()> {
    // SAFETY: a raw system call on a NUL-terminated path and a live struct.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path,
            flags,
            attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(r as libc::c_int).map(drop)
}

/// Every mount read-only (recursively, in one call), then each writable directory
/// bound over itself and made writable again (only that mount: what is mounted below
/// it keeps its own flags). Landlock refuses writes too, but it has no rights for
/// chmod, chown, utimes or xattrs; a read-only mount refuses all of them.
unsafe fn read_only_world(write_dirs: &[CString]) -> io::Result<()> {
    let ro = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let rw = MountAttr {
        attr_set: 0,
        attr_clr: MOUNT_ATTR_RDONLY,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: raw system calls on NUL-terminated strings.
    unsafe {
        mount_setattr(cstr(ROOT), AT_RECURSIVE, &ro)?;
        for dir in write_dirs {
            let bound = check(libc::mount(
                dir.as_ptr(),
                dir.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ));
            match bound {
                Ok(_) => match mount_setattr(dir.as_ptr(), 0, &rw) {
                    // A dir on a mount the host made read-only (locked for this user
                    // namespace) stays read-only, as it was outside the sandbox too.
                    Err(e) if e.raw_os_error() != Some(libc::EPERM) => return Err(e),
                    _ => {}
                },
                // A configured writable dir that does not exist has nothing to write.
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// Binds `path` over itself; false when it vanished since the parent looked (nothing
/// left to protect, and the mount point it would need cannot be made from here).
unsafe fn bind_self(path: &CString) -> io::Result<bool> {
    // SAFETY: a raw system call on a NUL-terminated string.
    let bound = unsafe {
        check(libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ))
    };
    match bound {
        Ok(_) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Mounts a read-only copy of `source` (following symlinks) over the symlink `link`
/// itself: `mount(2)` would follow the link, the new mount API does not have to.
unsafe fn cover_link(source: *const libc::c_char, link: *const libc::c_char) -> io::Result<()> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    const AT_EMPTY_PATH: libc::c_uint = 0x1000;
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
    let ro = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: raw system calls on NUL-terminated strings and a live struct.
    unsafe {
        let fd = check(libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            source,
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
        ) as libc::c_int)?;
        let empty = c"".as_ptr();
        let done = check(libc::syscall(
            libc::SYS_mount_setattr,
            fd,
            empty,
            AT_EMPTY_PATH,
            &ro as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) as libc::c_int)
        .and_then(|_| {
            check(libc::syscall(
                libc::SYS_move_mount,
                fd,
                empty,
                libc::AT_FDCWD,
                link,
                MOVE_MOUNT_F_EMPTY_PATH,
            ) as libc::c_int)
        });
        libc::close(fd);
        done.map(drop)
    }
}

/// The command's own last steps before its confinement: a new session (TIOCSTI
/// needs a controlling terminal, and tools would otherwise share dcl's), every
/// descriptor but 0, 1 and 2 closed at exec (whatever the host left inheritable), and
/// no capabilities — not now, not after exec (root in the user namespace included).
unsafe fn harden(new_session: bool) -> io::Result<()> {
    // SAFETY: raw system calls with integer arguments or local structs.
    unsafe {
        if new_session {
            check(libc::setsid())?;
        }
        // CLOEXEC rather than close: std's exec-error pipe must survive until exec.
        const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
        if libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        ) != 0
        {
            // Before 5.11: mark them one by one.
            let mut lim: libc::rlimit = std::mem::zeroed();
            let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
                lim.rlim_cur.min(1 << 20) as libc::c_int
            } else {
                1024
            };
            for fd in 3..max {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        // Securebits first (they need CAP_SETPCAP): root gains nothing at exec, and
        // nothing can turn that back on.
        const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
        const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
        const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 1 << 2;
        const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 1 << 3;
        const SECBIT_NO_CAP_AMBIENT_RAISE: libc::c_ulong = 1 << 6;
        const SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED: libc::c_ulong = 1 << 7;
        // Best effort: without CAP_SETPCAP (no user namespace) there are none to drop.
        libc::prctl(
            libc::PR_SET_SECUREBITS,
            SECBIT_NOROOT
                | SECBIT_NOROOT_LOCKED
                | SECBIT_NO_SETUID_FIXUP
                | SECBIT_NO_SETUID_FIXUP_LOCKED
                | SECBIT_NO_CAP_AMBIENT_RAISE
                | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
            0,
            0,
            0,
        );
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        #[repr(C)]
        struct Header {
            version: u32,
            pid: libc::c_int,
        }
        #[repr(C)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
        let header = Header {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
        ];
        check(
            libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) as libc::c_int,
        )?;
    }
    Ok(())
}

/// A listening TCP socket on the namespace's 127.0.0.1:`port`.
unsafe fn bridge_listener(port: u16) -> io::Result<RawFd> {
    // SAFETY: raw socket calls on local plain data.
    unsafe {
        let fd = check(libc::socket(
            libc::AF_INET,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
        ))?;
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_port = port.to_be();
        addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        check(libc::bind(
            fd,
            (&addr as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ))?;
        check(libc::listen(fd, 128))?;
        Ok(fd)
    }
}

/// The in-namespace end of the proxy: each connection to the listener is relayed to
/// the host proxy's unix socket (which checks the allow-list). Forked per connection,
/// one process per direction, so a slow reader never blocks the other way.
/// With `life` (>= 0), it exits when that pipe reads EOF.
unsafe fn relay_forever(listener: RawFd, bridge: &Bridge, life: RawFd) -> ! {
    // SAFETY: raw system calls only; every path ends in `_exit`.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
        let mut keep = [listener, life];
        keep.sort_unstable();
        close_all_but(&keep);
        let mut fds = [pollfd(listener), pollfd(life)];
        loop {
            fds[0].revents = 0;
            fds[1].revents = 0;
            if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
                continue;
            }
            if fds[1].revents != 0 {
                libc::_exit(0);
            }
            let conn = libc::accept4(listener, std::ptr::null_mut(), std::ptr::null_mut(), 0);
            if conn < 0 {
                match *libc::__errno_location() {
                    libc::EINTR | libc::ECONNABORTED | libc::EMFILE | libc::ENFILE => continue,
                    _ => libc::_exit(1),
                }
            }
            if libc::fork() == 0 {
                libc::close(listener);
                // Ends with the relay (and so with the keeper).
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                let up = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                if up < 0
                    || libc::connect(
                        up,
                        (&bridge.addr as *const libc::sockaddr_un).cast(),
                        bridge.addr_len,
                    ) != 0
                {
                    libc::_exit(1);
                }
                let back = libc::fork();
                if back == 0 {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                    copy(up, conn, None);
                }
                // This one waits for the other direction before exiting: its exit
                // would kill that one (the death signal above).
                copy(conn, up, Some(back));
            }
            libc::close(conn);
        }
    }
}

/// Copies `from` to `to` until EOF or an error, then ends the write side, waits for
/// `other` (if any) and exits.
unsafe fn copy(from: RawFd, to: RawFd, other: Option<libc::pid_t>) -> ! {
    // SAFETY: raw reads and writes into a stack buffer.
    unsafe {
        let mut buf = [0u8; 16 * 1024];
        'outer: loop {
            let n = libc::read(from, buf.as_mut_ptr().cast(), buf.len());
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                break;
            }
            let mut off = 0usize;
            while off < n as usize {
                let w = libc::write(to, buf[off..].as_ptr().cast(), n as usize - off);
                if w < 0 && *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                if w <= 0 {
                    break 'outer;
                }
                off += w as usize;
            }
        }
        libc::shutdown(to, libc::SHUT_WR);
        if let Some(pid) = other.filter(|p| *p > 0) {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        libc::_exit(0)
    }
}
