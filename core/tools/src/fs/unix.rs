//! The descriptor implementation: directories are walked with `openat(O_NOFOLLOW)` (or in
//! one `openat2(RESOLVE_NO_SYMLINKS)` call on Linux), files opened and replaced relative to
//! the directory descriptor.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

use super::FsError;

/// Directories are opened only to be walked from: `O_PATH` on Linux (no read permission
/// needed, as for path lookups), read-only elsewhere.
#[cfg(any(target_os = "linux", target_os = "android"))]
const DIR_FLAGS: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// Files are read with `O_NONBLOCK` so that a FIFO swapped in after the type check cannot
/// block the call (regular files ignore it).
const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// An open directory, reached without following a symlink.
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Opens the absolute directory `path` refusing a symlink at every component; with
/// `create`, makes the directories it lacks.
pub(super) fn open_dir(path: &Path, create: bool) -> Result<Dir, FsError> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match linux::open_no_symlinks(CWD, path, DIR_FLAGS) {
        Some(Ok(fd)) => {
            return Ok(Dir {
                fd,
                path: path.to_path_buf(),
            });
        }
        Some(Err(Errno::NOENT)) if create => {}
        Some(Err(e)) => return Err(classify(path, e)),
        // No openat2 here: walk.
        None => {}
    }
    walk(path, create)
}

/// The component-by-component walk: each directory opened with `O_NOFOLLOW` relative to
/// the one before it.
pub(super) fn walk(path: &Path, create: bool) -> Result<Dir, FsError> {
    if !path.is_absolute() {
        return Err(FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not an absolute path"),
        ));
    }
    let mut cur =
        rustix::fs::openat(CWD, "/", DIR_FLAGS, Mode::empty()).map_err(|e| classify(path, e))?;
    for component in path.components() {
        let name = match component {
            Component::Normal(name) => name,
            Component::RootDir | Component::CurDir | Component::Prefix(_) => continue,
            // A resolved path has none; climbing would leave what was checked.
            Component::ParentDir => {
                return Err(FsError::io(
                    path,
                    io::Error::new(io::ErrorKind::InvalidInput, "`..` in a checked path"),
                ));
            }
        };
        cur = match open_child_dir(&cur, name) {
            Ok(fd) => fd,
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&cur, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(classify(path, e)),
                }
                open_child_dir(&cur, name).map_err(|e| child_error(&cur, name, path, e))?
            }
            Err(e) => return Err(child_error(&cur, name, path, e)),
        };
    }
    Ok(Dir {
        fd: cur,
        path: path.to_path_buf(),
    })
}

fn open_child_dir(dir: &OwnedFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    rustix::fs::openat(dir, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())
}

/// `O_NOFOLLOW|O_DIRECTORY` on a symlink fails with `ELOOP` or `ENOTDIR` (and opens the
/// link itself with `O_PATH`): a symlink there is a change, anything else an error.
fn child_error(dir: &OwnedFd, name: &OsStr, path: &Path, e: Errno) -> FsError {
    if matches!(e, Errno::LOOP | Errno::NOTDIR) && is_symlink_at(dir, name) {
        return FsError::Changed {
            path: path.to_path_buf(),
        };
    }
    classify(path, e)
}

fn is_symlink_at(dir: &OwnedFd, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
    })
}

/// `ELOOP` is what `RESOLVE_NO_SYMLINKS` and `O_NOFOLLOW` answer to a symlink.
fn classify(path: &Path, e: Errno) -> FsError {
    if e == Errno::LOOP {
        FsError::Changed {
            path: path.to_path_buf(),
        }
    } else {
        FsError::io(path, e.into())
    }
}

impl Dir {
    /// Opens `name` for reading without following a symlink. Only regular files and
    /// directories are opened: anything else is named by [`super::super::support`]'s
    /// special-file check before any open, and refused here should it appear later.
    pub(crate) fn open_read(&self, name: &OsStr) -> Result<File, FsError> {
        let path = self.path.join(name);
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => check_openable(&path, st.st_mode)?,
            Err(e) => return Err(classify(&path, e)),
        }
        let fd = rustix::fs::openat(&self.fd, name, READ_FLAGS, Mode::empty())
            .map_err(|e| classify(&path, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| classify(&path, e))?;
        check_openable(&path, st.st_mode)?;
        Ok(File::from(fd))
    }

    /// Opens `relative` (below this directory) for reading, refusing symlinks and `..`
    /// on the way: `openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS)` on Linux, a walk
    /// elsewhere.
    pub(crate) fn open_read_beneath(&self, relative: &Path) -> Result<File, FsError> {
        let path = self.path.join(relative);
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(opened) = linux::open_beneath(&self.fd, relative, READ_FLAGS) {
            let fd = opened.map_err(|e| classify(&path, e))?;
            let st = rustix::fs::fstat(&fd).map_err(|e| classify(&path, e))?;
            check_openable(&path, st.st_mode)?;
            return Ok(File::from(fd));
        }
        let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else {
            return Err(FsError::io(
                &path,
                io::Error::new(io::ErrorKind::InvalidInput, "not a file path"),
            ));
        };
        let mut cur = rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())
            .map_err(|e| classify(&path, e))?;
        for component in parent.components() {
            match component {
                Component::Normal(part) => {
                    cur = open_child_dir(&cur, part)
                        .map_err(|e| child_error(&cur, part, &path, e))?;
                }
                Component::CurDir => {}
                _ => {
                    return Err(FsError::io(
                        &path,
                        io::Error::new(io::ErrorKind::InvalidInput, "path leaves its root"),
                    ));
                }
            }
        }
        let dir = Dir {
            fd: cur,
            path: self.path.join(parent),
        };
        dir.open_read(name)
    }

    /// Writes `contents` to a fresh temp file in this directory (`O_EXCL|O_NOFOLLOW`),
    /// gives it `mode`, syncs it and renames it over `name` within the directory. The temp
    /// file is removed on every error.
    pub(crate) fn write_atomic(
        &self,
        name: &OsStr,
        contents: &[u8],
        mode: Option<u32>,
    ) -> Result<(), FsError> {
        let path = self.path.join(name);
        let (tmp, fd) = self.create_temp()?;
        let written = (|| -> io::Result<()> {
            let mut file = File::from(fd);
            file.write_all(contents)?;
            if let Some(mode) = mode {
                rustix::fs::fchmod(&file, Mode::from_raw_mode(mode as _))?;
            }
            file.sync_all()?;
            drop(file);
            rustix::fs::renameat(&self.fd, tmp.as_str(), &self.fd, name)?;
            Ok(())
        })();
        written.map_err(|e| {
            // Best effort: the temp file never outlives a failed call.
            let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
            FsError::io(&path, e)
        })
    }

    fn create_temp(&self) -> Result<(String, OwnedFd), FsError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut last = Errno::EXIST;
        // A name taken (O_EXCL) is tried again with another; anything else is an error.
        for _ in 0..8 {
            let tmp = super::temp_name();
            match rustix::fs::openat(&self.fd, tmp.as_str(), flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => return Ok((tmp, fd)),
                Err(Errno::EXIST) => last = Errno::EXIST,
                Err(e) => {
                    last = e;
                    break;
                }
            }
        }
        Err(FsError::io(&self.path, last.into()))
    }
}

/// Symlinks are a change; FIFOs, sockets and devices are refused (opening them can block
/// or act on a device).
fn check_openable(path: &Path, mode: rustix::fs::RawMode) -> Result<(), FsError> {
    use rustix::fs::FileType;
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile | FileType::Directory => Ok(()),
        FileType::Symlink => Err(FsError::Changed {
            path: path.to_path_buf(),
        }),
        _ => Err(FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
        )),
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) mod linux {
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, Ordering};

    use rustix::fd::{AsFd, OwnedFd};
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;

    /// Set once the kernel said it has no `openat2` (before 5.6, or filtered out).
    static MISSING: AtomicBool = AtomicBool::new(false);

    fn openat2(
        dir: impl AsFd,
        path: &Path,
        flags: OFlags,
        resolve: ResolveFlags,
    ) -> Option<Result<OwnedFd, Errno>> {
        if MISSING.load(Ordering::Relaxed) {
            return None;
        }
        match rustix::fs::openat2(dir, path, flags, Mode::empty(), resolve) {
            Err(Errno::NOSYS) => {
                MISSING.store(true, Ordering::Relaxed);
                None
            }
            // A kernel's interrupted path walk (a rename raced it) is retried by callers
            // as the walk.
            Err(Errno::AGAIN) => None,
            other => Some(other),
        }
    }

    /// Makes the code act as on a kernel without openat2 (or back), for the tests of the
    /// walk. Other tests running meanwhile take the walk too, which is as correct.
    #[cfg(test)]
    pub(crate) fn pretend_missing(missing: bool) {
        MISSING.store(missing, Ordering::Relaxed);
    }

    /// `path` opened in one call with no symlink followed anywhere; `None` without openat2.
    pub(super) fn open_no_symlinks(
        dir: impl AsFd,
        path: &Path,
        flags: OFlags,
    ) -> Option<Result<OwnedFd, Errno>> {
        openat2(dir, path, flags, ResolveFlags::NO_SYMLINKS)
    }

    /// `relative` opened below `dir`, neither leaving it nor following a symlink.
    pub(super) fn open_beneath(
        dir: impl AsFd,
        relative: &Path,
        flags: OFlags,
    ) -> Option<Result<OwnedFd, Errno>> {
        openat2(
            dir,
            relative,
            flags,
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
        )
    }
}
