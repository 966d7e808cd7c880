//! Where a project's work tree starts and where its shadow repository lives.
//!
//! The user's repository is found by the presence of a `.git` entry only: nothing inside
//! it is opened, so none of its objects, refs, index, config or hooks are read or touched.

use std::path::{Path, PathBuf};

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
