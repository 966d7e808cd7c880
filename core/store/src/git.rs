//! The current git branch for `gitBranch`, read from `.git/HEAD` (no `git` process: it runs
//! once per session and must cost nothing when there is no repository).

use std::path::{Path, PathBuf};

/// The branch checked out in the repository holding `cwd`: the branch name, `HEAD` when
/// detached, `None` outside a repository or when `HEAD` cannot be read.
pub fn current_branch(cwd: &Path) -> Option<String> {
    let git_dir = find_git_dir(cwd)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(r) => {
            let r = r.trim();
            Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_string())
        }
        None if !head.is_empty() => Some("HEAD".to_string()),
        None => None,
    }
}

/// `.git` as a directory, or a worktree's `.git` file pointing at its git dir.
fn find_git_dir(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        // One stat per directory (not is_dir then is_file): every session walks to `/` here.
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        if meta.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let target = Path::new(target);
            return Some(if target.is_absolute() {
                target.to_path_buf()
            } else {
                dir.join(target)
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_from_head_file_worktree_and_detached() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("r");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub/dir")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(
            current_branch(&repo.join("sub/dir")).as_deref(),
            Some("feature/x")
        );
        std::fs::write(repo.join(".git/HEAD"), "0123abcd\n").unwrap();
        assert_eq!(current_branch(&repo).as_deref(), Some("HEAD"));

        let wt = d.path().join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::create_dir_all(d.path().join("gd")).unwrap();
        std::fs::write(d.path().join("gd/HEAD"), "ref: refs/heads/store\n").unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", d.path().join("gd").display()),
        )
        .unwrap();
        assert_eq!(current_branch(&wt).as_deref(), Some("store"));

        let none = tempfile::tempdir().unwrap();
        // A temp dir normally sits outside any repository.
        if find_git_dir(none.path()).is_none() {
            assert_eq!(current_branch(none.path()), None);
        }
    }
}
