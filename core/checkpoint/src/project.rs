//! Where a project's work tree starts and where its shadow repository lives.
//!
//! The user's repository is found by the presence of a `.git` entry only: nothing inside
//! it is opened, so none of its objects, refs, index, config or hooks are read or touched.

use std::path::{Component, Path, PathBuf};

use crate::error::{CheckpointError, Result};

/// The nearest ancestor of `cwd` (itself included) holding a `.git` directory or file.
pub fn work_tree_root(cwd: &Path) -> Result<PathBuf> {
    let cwd = std::fs::canonicalize(cwd).map_err(|e| CheckpointError::io(cwd, e))?;
    cwd.ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .map(Path::to_path_buf)
        .ok_or(CheckpointError::NotAGitWorkTree(cwd))
}

/// `<home>/checkpoints/<sanitised root>`: readable like the reference's project folders,
/// with a short hash so two roots that sanitise alike never share a repository.
pub fn shadow_dir(home: &Path, root: &Path) -> PathBuf {
    let text = root.to_string_lossy();
    let mut name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if name.len() > 120 {
        // Keep the tail: it names the project; the hash keeps it unique.
        name = name[name.len() - 120..].to_string();
    }
    let digest = git2::Oid::hash_object(git2::ObjectType::Blob, text.as_bytes())
        .map(|o| o.to_string()[..10].to_string())
        .unwrap_or_default();
    home.join("checkpoints").join(format!("{name}-{digest}"))
}

/// True for a path with a `.git` component: dcl never records or restores inside one.
pub fn inside_git_dir(rel: &Path) -> bool {
    rel.components().any(|c| c.as_os_str() == ".git")
}

/// Resolves links and `..` through the deepest part of `path` that exists, then appends
/// the rest (a file a tool is about to create, in directories it may also create).
pub fn normalise(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

/// Whether `rel` (from the index) still names a file inside `root` that dcl may write:
/// relative, no `..`, no `.git`, and no link on the way that leads out of `root`.
pub fn safe_target(root: &Path, rel: &str) -> bool {
    let rel = Path::new(rel);
    let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
    plain && !inside_git_dir(rel) && normalise(&root.join(rel)).starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_dirs_differ_for_roots_that_sanitise_alike() {
        let home = Path::new("/h");
        let a = shadow_dir(home, Path::new("/p/a-b"));
        let b = shadow_dir(home, Path::new("/p/a_b"));
        assert_ne!(a, b);
        assert!(a.starts_with("/h/checkpoints"));
    }

    #[test]
    fn git_components_are_recognised() {
        assert!(inside_git_dir(Path::new("sub/.git/config")));
        assert!(!inside_git_dir(Path::new("sub/.gitignore")));
    }
}
