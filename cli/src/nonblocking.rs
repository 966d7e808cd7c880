//! stdin and stdout as non-blocking descriptors the runtime waits on, when they are pipes
//! or sockets. The session then needs no thread of its own for either: a host that stops
//! reading parks the writer task on the pipe instead of blocking the runtime's thread (and
//! with it SIGTERM).
//!
//! `O_NONBLOCK` belongs to the open file, not to dcl's descriptor: a shell or script that
//! shares the pipe (`(dcl …; echo done) | …`) would find it non-blocking after dcl, and
//! an `echo` into a full pipe would fail. [`restore`] puts each flag back before dcl exits.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::sync::Mutex;

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::sys::stat::SFlag;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// The descriptors switched to non-blocking (stdin's and stdout's numbers, open for the
/// process's life) and their flags before.
static SWITCHED: Mutex<Vec<(RawFd, OFlag)>> = Mutex::new(Vec::new());

/// `fd` duplicated, switched to non-blocking and registered with the runtime, when it is
/// a pipe or a socket; `None` for anything else or on any failure, and the descriptor is
/// then left as it was (the caller keeps blocking I/O). Call within the runtime.
pub fn open(fd: BorrowedFd<'_>, interest: Interest) -> Option<AsyncFd<File>> {
    let mode = nix::sys::stat::fstat(fd.as_raw_fd()).ok()?.st_mode;
    let kind = SFlag::from_bits_truncate(mode) & SFlag::S_IFMT;
    if kind != SFlag::S_IFIFO && kind != SFlag::S_IFSOCK {
        return None;
    }
    let file = File::from(fd.try_clone_to_owned().ok()?);
    let raw = file.as_raw_fd();
    let before = OFlag::from_bits_truncate(fcntl(raw, FcntlArg::F_GETFL).ok()?);
    fcntl(raw, FcntlArg::F_SETFL(before | OFlag::O_NONBLOCK)).ok()?;
    // SAFETY: the `File` owns its descriptor (a duplicate made above) and the `AsyncFd`
    // owns the `File`: the descriptor stays open, and the same, for the `AsyncFd`'s life.
    match unsafe { AsyncFd::register_with_interest(file, interest) } {
        Ok(registered) => {
            if let Ok(mut switched) = SWITCHED.lock() {
                switched.push((fd.as_raw_fd(), before));
            }
            Some(registered)
        }
        Err(e) => {
            // The flag belongs to the open file, which `fd` shares: put it back.
            let _ = fcntl(raw, FcntlArg::F_SETFL(before));
            tracing::debug!("stdio stays blocking: {e}");
            None
        }
    }
}

/// Gives every descriptor [`open`] switched its flags back. After the session: what is
/// still written goes out blocking, as before.
pub fn restore() {
    let switched = match SWITCHED.lock() {
        Ok(mut s) => std::mem::take(&mut *s),
        Err(_) => return,
    };
    for (fd, before) in switched {
        if let Err(e) = fcntl(fd, FcntlArg::F_SETFL(before)) {
            tracing::debug!("cannot restore the flags of descriptor {fd}: {e}");
        }
    }
}

/// Writes all of `bytes`, waiting for room in the pipe as a task.
pub async fn write_all(fd: &AsyncFd<File>, mut bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    while !bytes.is_empty() {
        let mut out = fd.get_ref();
        match out.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => fd.writable().await?.clear_ready(),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
