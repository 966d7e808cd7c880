//! stdin and stdout as non-blocking descriptors the runtime waits on, when they are pipes
//! or sockets. The session then needs no thread of its own for either: a host that stops
//! reading parks the writer task on the pipe instead of blocking the runtime's thread (and
//! with it SIGTERM).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::sys::stat::SFlag;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

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
        Ok(fd) => Some(fd),
        Err(e) => {
            // The flag belongs to the open file, which `fd` shares: put it back.
            let _ = fcntl(raw, FcntlArg::F_SETFL(before));
            tracing::debug!("stdio stays blocking: {e}");
            None
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
