//! File I/O on what the permission phase checked. The permission phase resolves a tool's
//! path once (recorded in the call's [`CheckedPaths`](dcl_tool_api::CheckedPaths)); the
//! file tools open exactly that resolved path by descriptor, refusing a symlink at every
//! component, and write atomically inside the directory descriptor they opened. A file or
//! directory swapped for a symlink between the decision and the use fails the call with
//! [`FsError::Changed`]; it never redirects it outside what was checked.
//!
//! Unix walks by descriptor (`openat2` with `RESOLVE_NO_SYMLINKS` on Linux, an
//! `openat(O_NOFOLLOW)` walk elsewhere or on kernels without it), through `rustix`: a
//! well-kept safe wrapper over exactly these calls, portable across Linux, macOS and the
//! BSDs (cap-std was considered, but it follows symlinks that stay inside its directory
//! and its no-follow option covers only the last component). Other systems get a
//! path-based fallback that checks every component with `symlink_metadata`.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use dcl_tool_api::CheckedPaths;

#[cfg(not(unix))]
mod portable;
#[cfg(unix)]
mod unix;

#[cfg(not(unix))]
use portable as imp;
#[cfg(unix)]
use unix as imp;

pub(crate) use imp::Dir;

/// Why a checked path could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FsError {
    #[error(
        "{} changed during the call: a symlink now stands where the checked path had none, \
         so the call was refused rather than followed",
        path.display()
    )]
    Changed { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl FsError {
    pub(crate) fn io(path: &Path, source: io::Error) -> FsError {
        FsError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, FsError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// The underlying error, for messages that name the path themselves.
    pub(crate) fn reason(&self) -> String {
        match self {
            FsError::Io { source, .. } => source.to_string(),
            changed => changed.to_string(),
        }
    }
}

#[derive(Debug)]
/// A file the permission phase checked: the directory holding it, opened by descriptor
/// without following a symlink, and its name in that directory.
pub(crate) struct Target {
    pub dir: Dir,
    pub name: OsString,
    /// The resolved path (where the file is), for messages.
    pub resolved: PathBuf,
}

/// The path `given` (absolute, as the tool's `paths` reports it) led to when this call was
/// checked. A call made outside a turn (tests, direct calls) had no permission phase: it
/// is resolved here, once, and recorded the same way.
pub(crate) fn checked_path(checked: &CheckedPaths, given: &Path) -> PathBuf {
    checked.resolve(given)
}

/// Opens the directory of the checked file `given`; with `create`, the directories it
/// lacks are made on the way (each refused if a symlink appears in its place).
pub(crate) fn target(
    checked: &CheckedPaths,
    given: &Path,
    create: bool,
) -> Result<Target, FsError> {
    let resolved = checked_path(checked, given);
    let (parent, name) = split(&resolved)?;
    let dir = imp::open_dir(parent, create)?;
    Ok(Target {
        dir,
        name: name.to_os_string(),
        resolved,
    })
}

impl Target {
    /// The file opened for reading, refusing a symlink; `None` when it does not exist.
    /// Special files are never opened: see [`Dir::open_read`].
    pub(crate) fn open_existing(&self) -> Result<Option<std::fs::File>, FsError> {
        match self.dir.open_read(&self.name) {
            Ok(f) => Ok(Some(f)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What stands at the path now: nothing, a directory, or a file's bytes and mode.
    pub(crate) fn read_existing(&self) -> Result<Existing, FsError> {
        use std::io::Read as _;
        let Some(mut file) = self.open_existing()? else {
            return Ok(Existing::Missing);
        };
        let meta = file
            .metadata()
            .map_err(|e| FsError::io(&self.resolved, e))?;
        if meta.is_dir() {
            return Ok(Existing::Directory);
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)
            .map_err(|e| FsError::io(&self.resolved, e))?;
        Ok(Existing::File {
            bytes,
            mode: mode_of(&meta),
        })
    }

    /// Replaces the file's content atomically inside its directory: an existing file keeps
    /// its permission bits (`mode`), no temp file outlives the call.
    pub(crate) fn write_atomic(&self, contents: &[u8], mode: Option<u32>) -> Result<(), FsError> {
        self.dir.write_atomic(&self.name, contents, mode)
    }
}

/// What a checked path holds before a tool changes it.
#[derive(Debug)]
pub(crate) enum Existing {
    Missing,
    Directory,
    File { bytes: Vec<u8>, mode: Option<u32> },
}

fn split(path: &Path) -> Result<(&Path, &OsStr), FsError> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if path.is_absolute() => Ok((parent, name)),
        _ => Err(FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not an absolute file path"),
        )),
    }
}

/// The permission bits of an open file, to give its replacement.
pub(crate) fn mode_of(meta: &std::fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// A short temp name (`.dcl-<8 hex>.tmp`): a long target name plus a suffix would pass
/// the 255-byte name limit.
fn temp_name() -> String {
    let n = uuid::Uuid::new_v4().as_u128() as u32;
    format!(".dcl-{n:08x}.tmp")
}

/// Opens a directory to walk (Glob's and Grep's root), refusing symlinks on the way.
pub(crate) fn open_dir(path: &Path) -> Result<Dir, FsError> {
    imp::open_dir(path, false)
}

#[cfg(test)]
mod tests;
