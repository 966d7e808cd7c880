//! Files that give whoever writes them power over later runs: dcl's and the clients'
//! settings folders (hooks, permissions, `sandbox.filesystem.allowWrite`,
//! `excludedCommands`, MCP servers), `.mcp.json`, git's hooks and config, and shell
//! start-up files, the clients' state files. This is the one list: the sandbox keeps
//! [`DIRS`] and [`FILES`] read-only inside the writable directories (a read-only bind
//! mount over each), and the permission layer (`dcl_policy::permissions::protected`) asks
//! before a tool writes any of these or of [`ASK_DIRS`] / [`ASK_FILES`], comparing names
//! case-insensitively on every alias of the path.

use std::path::{Path, PathBuf};

/// Directory names protected wherever they appear.
pub const DIRS: &[&str] = &[".dcl", ".claude", ".qoder"];

/// Paths inside a `.git` directory that make git run code or change where it looks.
/// The rest of `.git` stays writable in the sandbox so `git commit` works.
pub const GIT_PATHS: &[&str] = &["hooks", "config"];

/// File names protected wherever they appear.
pub const FILES: &[&str] = &[
    ".mcp.json",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".inputrc",
    ".gitconfig",
    ".envrc",
    // The clients' state files: a trust record written into one makes the next session
    // run the project's hooks (`~/.claude.json`; Qoder's `~/.qoder.json`, read by dcl
    // as Qoder's trust record).
    ".claude.json",
    ".qoder.json",
];

/// Directory names that ask before a tool writes in them, but that the sandbox leaves
/// writable (editors and builds write there): editor folders, whose tasks and launch
/// settings run code when the folder is opened; Qoder's China-edition config folder.
pub const ASK_DIRS: &[&str] = &[".vscode", ".idea", ".qoder-cn"];

/// File names that ask before a tool writes them, but that the sandbox leaves writable
/// (`git submodule add` writes `.gitmodules`): submodule URLs git fetches, ripgrep's
/// config (it can name a preprocessor), Qoder China's state file.
pub const ASK_FILES: &[&str] = &[".gitmodules", ".ripgreprc", ".qoder-cn.json"];

/// What the sandbox creates (empty) at the top of a writable directory when it is
/// missing, so a mount can hold it read-only: a later session reads these from the
/// project, and a path must exist to be mounted over. Empty directories are invisible
/// to git; an empty `.mcp.json` reads as "no servers".
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const PLACEHOLDER_DIRS: &[&str] = DIRS;
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const PLACEHOLDER_FILES: &[&str] = &[".mcp.json"];

/// Directories bound over themselves *writable* so they cannot be renamed or removed
/// (a mount point cannot be): `.git`, whose hooks and config are protected but which
/// could otherwise be moved aside and replaced by a repository with planted hooks.
pub fn pinned_in(root: &Path) -> Vec<PathBuf> {
    let git = root.join(".git");
    match git.symlink_metadata() {
        Ok(m) if m.is_dir() => vec![git],
        _ => Vec::new(),
    }
}

/// The protected paths that exist directly in `root` (a writable directory): its
/// settings folders, protected files, `.git/hooks` and `.git/config` (or `.git` itself
/// when it is a file pointing elsewhere: rewriting it would point git at planted hooks).
pub fn existing_in(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for name in DIRS.iter().chain(FILES) {
        let p = root.join(name);
        // symlink_metadata: a symlink planted in place of a folder is protected as the
        // link itself (a mount over a symlink follows it, which is what we want too).
        if p.symlink_metadata().is_ok() {
            out.push(p);
        }
    }
    let git = root.join(".git");
    match git.symlink_metadata() {
        Ok(m) if m.is_dir() => {
            for name in GIT_PATHS {
                let p = git.join(name);
                if p.symlink_metadata().is_ok() {
                    out.push(p);
                }
            }
        }
        Ok(_) => out.push(git),
        Err(_) => {}
    }
    out
}

/// Creates the missing placeholders in `root`; returns what it created, so the
/// sandbox removes exactly those (still empty) when it ends.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn create_placeholders(root: &Path) -> Vec<PathBuf> {
    let mut made = Vec::new();
    for name in PLACEHOLDER_DIRS {
        let p = root.join(name);
        if std::fs::create_dir(&p).is_ok() {
            made.push(p);
        }
    }
    for name in PLACEHOLDER_FILES {
        let p = root.join(name);
        if std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
            .is_ok()
        {
            made.push(p);
        }
    }
    made
}

/// Removes placeholders that are still empty (what a tool outside the sandbox wrote
/// into one in the meantime stays).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn remove_placeholders(made: &[PathBuf]) {
    for p in made {
        match p.symlink_metadata() {
            Ok(m) if m.is_dir() => {
                // Fails, as it should, when something was put inside.
                let _ = std::fs::remove_dir(p);
            }
            Ok(m) if m.is_file() && m.len() == 0 => {
                let _ = std::fs::remove_file(p);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_made_once_and_removed_only_while_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        let made = create_placeholders(dir.path());
        // .claude existed: not a placeholder, so never removed.
        assert!(!made.contains(&dir.path().join(".claude")));
        assert!(made.contains(&dir.path().join(".dcl")));
        assert!(made.contains(&dir.path().join(".mcp.json")));
        std::fs::write(dir.path().join(".dcl/settings.json"), "{}").unwrap();
        remove_placeholders(&made);
        assert!(dir.path().join(".dcl/settings.json").exists());
        assert!(!dir.path().join(".mcp.json").exists());
        assert!(!dir.path().join(".qoder").exists());
        assert!(dir.path().join(".claude").exists());
    }

    #[test]
    fn git_hooks_and_config_are_protected_but_not_the_rest_of_git() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("hooks")).unwrap();
        std::fs::write(git.join("config"), "").unwrap();
        std::fs::create_dir_all(git.join("objects")).unwrap();
        let got = existing_in(dir.path());
        assert_eq!(got, vec![git.join("hooks"), git.join("config")]);
    }
}
