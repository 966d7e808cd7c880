//! The paths a call's permission phase resolved, handed to the tool so it opens what was
//! checked instead of resolving the path a second time.
//!
//! A file tool's path is resolved once, before the decision: the resolved (symlink-free)
//! path is recorded here, the decision judges it beside the path as given, and the tool
//! opens exactly that path refusing symlinks on the way. A symlink swapped in after the
//! decision then makes the call fail; it can never redirect it.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// One path as the call gave it (absolute, lexically normalised) and where it led when
/// the permission phase resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPath {
    pub given: PathBuf,
    pub resolved: PathBuf,
}

/// The resolutions recorded for one call (a fresh set per call).
#[derive(Debug, Default)]
pub struct CheckedPaths {
    paths: Mutex<Vec<CheckedPath>>,
}

impl CheckedPaths {
    /// Resolves `given` unless it already was, and returns the recorded resolution: a path
    /// is resolved once per call, however often it is asked for.
    /// Paths are compared after lexical normalisation, so the tool finds the decision's
    /// resolution however it spells the same path (`a/./b`, a trailing `/`).
    pub fn resolve(&self, given: &Path) -> PathBuf {
        let given = normalize_lexically(given);
        let mut paths = match self.paths.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(p) = paths.iter().find(|p| p.given == given) {
            return p.resolved.clone();
        }
        let resolved = resolve_real(&given);
        paths.push(CheckedPath {
            given,
            resolved: resolved.clone(),
        });
        resolved
    }

    /// Resolves every path a call gives (what its tool's `paths` reports): the permission
    /// phase does this once, before the decision.
    pub fn resolve_all(&self, given: impl IntoIterator<Item = PathBuf>) {
        for path in given {
            self.resolve(&path);
        }
    }

    /// The recorded resolution of `given`, if the permission phase made one.
    pub fn resolved(&self, given: &Path) -> Option<PathBuf> {
        let given = normalize_lexically(given);
        self.snapshot()
            .into_iter()
            .find(|p| p.given == given)
            .map(|p| p.resolved)
    }

    /// Every resolution recorded so far.
    pub fn snapshot(&self) -> Vec<CheckedPath> {
        match self.paths.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The resolved paths that differ from their given path: what the decision must judge
    /// as well, since they are what the tool will open.
    pub fn resolved_aliases(&self) -> Vec<PathBuf> {
        self.snapshot()
            .into_iter()
            .filter(|p| p.resolved != p.given)
            .map(|p| p.resolved)
            .collect()
    }
}

/// The real location of `path` (absolute): its longest existing ancestor canonicalised
/// (every symlink followed), the rest appended after lexical normalisation. For a file not
/// yet created this is where it would be created.
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
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => {
                // `..` at the end, or nothing of it exists: normalise first, retry once.
                let norm = normalize_lexically(path);
                if norm != path {
                    return resolve_real(&norm);
                }
                return norm;
            }
        }
    }
}

/// Removes `.` and `..` components without touching the filesystem (`/..` stays `/`).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_resolved_once_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("real"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        let checked = CheckedPaths::default();
        assert_eq!(checked.resolve(&root.join("link")), root.join("real"));
        // Re-pointed after the check: the recorded resolution stands.
        std::fs::remove_file(root.join("link")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("link")).unwrap();
        assert_eq!(checked.resolve(&root.join("link")), root.join("real"));
        assert_eq!(
            checked.resolved(&root.join("link")),
            Some(root.join("real"))
        );
        assert_eq!(checked.resolved_aliases(), vec![root.join("real")]);
        assert_eq!(checked.resolved(&root.join("other")), None);
        // The same path spelled otherwise finds the same resolution.
        assert_eq!(
            checked.resolve(&root.join("./x/../link/")),
            root.join("real")
        );
    }

    #[test]
    fn a_missing_file_resolves_under_its_real_parent() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink(root.join("d"), root.join("l")).unwrap();
        assert_eq!(
            resolve_real(&root.join("l/new/x.txt")),
            root.join("d/new/x.txt")
        );
        assert_eq!(resolve_real(&root.join("d/../d/y")), root.join("d/y"));
        let plain = CheckedPaths::default();
        plain.resolve(&root.join("d/y"));
        assert!(plain.resolved_aliases().is_empty());
    }
}
