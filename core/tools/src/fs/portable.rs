//! The fallback for systems without `openat` (Windows): paths, with every component
//! checked by `symlink_metadata` before use and the opened file checked again after. The
//! window between a check and an open is small but not closed; Unix does without it.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use super::FsError;

/// A directory, by path, checked to contain no symlink when it was opened.
#[derive(Debug)]
pub(crate) struct Dir {
    path: PathBuf,
}

pub(super) fn open_dir(path: &Path, create: bool) -> Result<Dir, FsError> {
    if !path.is_absolute() {
        return Err(FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not an absolute path"),
        ));
    }
    let mut cur = PathBuf::new();
    for component in path.components() {
        if component == Component::ParentDir {
            return Err(FsError::io(
                path,
                io::Error::new(io::ErrorKind::InvalidInput, "`..` in a checked path"),
            ));
        }
        cur.push(component.as_os_str());
        if !matches!(component, Component::Normal(_)) {
            continue;
        }
        match fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(FsError::Changed {
                    path: path.to_path_buf(),
                });
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(FsError::io(
                    path,
                    io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                match fs::create_dir(&cur) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(FsError::io(path, e)),
                }
                if fs::symlink_metadata(&cur).is_ok_and(|m| !m.is_dir()) {
                    return Err(FsError::Changed {
                        path: path.to_path_buf(),
                    });
                }
            }
            Err(e) => return Err(FsError::io(path, e)),
        }
    }
    Ok(Dir {
        path: path.to_path_buf(),
    })
}

impl Dir {
    pub(crate) fn open_read(&self, name: &OsStr) -> Result<File, FsError> {
        let path = self.path.join(name);
        check_not_link(&path)?;
        let file = File::open(&path).map_err(|e| FsError::io(&path, e))?;
        // Checked again once open: a link swapped in meanwhile is refused.
        check_not_link(&path)?;
        let meta = file.metadata().map_err(|e| FsError::io(&path, e))?;
        if !(meta.is_file() || meta.is_dir()) {
            return Err(FsError::io(
                &path,
                io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
            ));
        }
        Ok(file)
    }

    pub(crate) fn open_read_beneath(&self, relative: &Path) -> Result<File, FsError> {
        let path = self.path.join(relative);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(FsError::io(
                &path,
                io::Error::new(io::ErrorKind::InvalidInput, "path leaves its root"),
            ));
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(FsError::io(
                &path,
                io::Error::new(io::ErrorKind::InvalidInput, "not a file path"),
            ));
        };
        open_dir(parent, false)?.open_read(name)
    }

    pub(crate) fn write_atomic(
        &self,
        name: &OsStr,
        contents: &[u8],
        _mode: Option<u32>,
    ) -> Result<(), FsError> {
        let path = self.path.join(name);
        let tmp = self.path.join(super::temp_name());
        let written = (|| -> io::Result<()> {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            file.write_all(contents)?;
            if let Ok(old) = fs::metadata(&path) {
                file.set_permissions(old.permissions())?;
            }
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, &path)
        })();
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            FsError::io(&path, e)
        })
    }
}

fn check_not_link(path: &Path) -> Result<(), FsError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(FsError::Changed {
            path: path.to_path_buf(),
        }),
        Ok(_) => Ok(()),
        Err(e) => Err(FsError::io(path, e)),
    }
}
