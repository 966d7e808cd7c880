//! Path resolution for permission checks: `..` and symlinks are resolved before any
//! containment test, so `cwd/link-to-etc/passwd` and `cwd/../x` are seen for what they are.

use std::path::{Component, Path, PathBuf};

/// Removes `.` and `..` components without touching the filesystem.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                // Never climb above the root.
                if !out.pop() {
                    out.push(comp.as_os_str());
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real location of `path`: the longest existing ancestor is canonicalized
/// (following symlinks), the rest is appended after lexical normalisation.
pub fn resolve_real(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut full = real;
            for part in rest.iter().rev() {
                full.push(part);
            }
            return normalize_lexically(&full);
        }
        match (
            existing.file_name().map(|f| f.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => {
                // A path with `..` at its end or no existing ancestor at all:
                // normalise lexically first, then retry once.
                let norm = normalize_lexically(path);
                if norm != path {
                    return resolve_real(&norm);
                }
                return norm;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotdot_is_resolved_before_containment() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let sneaky = root.join("sub/../../outside.txt");
        let real = resolve_real(&sneaky);
        assert!(
            !real.starts_with(&root),
            "{real:?} must be outside {root:?}"
        );
    }

    #[test]
    fn symlink_to_outside_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
        let real = resolve_real(&root.join("link/new-file.txt"));
        assert!(!real.starts_with(&root));
        assert!(real.starts_with(outside.path().canonicalize().unwrap()));
    }

    #[test]
    fn nonexistent_inside_stays_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let real = resolve_real(&root.join("a/b/./c.txt"));
        assert_eq!(real, root.join("a/b/c.txt"));
    }
}
