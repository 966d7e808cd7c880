//! A file's state as checkpoints see it: its bytes (a blob id) and its permission bits, or
//! its absence.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{CheckpointError, Result};

/// A present file: the blob holding its exact bytes and its Unix permission bits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Hex id of the blob in the shadow repository.
    pub blob: String,
    /// Permission bits (`0o755`…), restored as they were.
    pub mode: u32,
}

impl FileState {
    /// The git tree mode the blob is filed under in checkpoint commits.
    pub fn git_mode(&self) -> u32 {
        if self.mode & 0o111 != 0 {
            0o100755
        } else {
            0o100644
        }
    }
}

/// Reads what is at `path` now: `None` when nothing is there.
pub fn read(path: &Path) -> Result<Option<(Vec<u8>, u32)>> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let bytes = std::fs::read(path).map_err(|e| CheckpointError::io(path, e))?;
            Ok(Some((bytes, mode_of(&meta))))
        }
        // A directory where a file was is not a file: treated as absent (and never deleted).
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CheckpointError::io(path, e)),
    }
}

/// The id git gives `bytes`, without storing them.
pub fn hash(bytes: &[u8]) -> Result<String> {
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes)
        .map(|o| o.to_string())
        .map_err(|source| CheckpointError::Git {
            path: Default::default(),
            source,
        })
}

/// What is at `path` now, hashed but not stored.
pub fn current(path: &Path) -> Result<Option<FileState>> {
    Ok(match read(path)? {
        Some((bytes, mode)) => Some(FileState {
            blob: hash(&bytes)?,
            mode,
        }),
        None => None,
    })
}

#[cfg(unix)]
pub fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
pub fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

#[cfg(unix)]
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    let mut p = std::fs::metadata(path)?.permissions();
    p.set_readonly(mode & 0o222 == 0);
    std::fs::set_permissions(path, p)
}
