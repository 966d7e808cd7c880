//! Files that give whoever writes them power over later runs: dcl's and the clients'
//! settings folders and state files, `.mcp.json`, `.git/` (hooks, config), editor
//! folders and shell start-up files (the names: `dcl_sandbox::protected`). Writing one
//! asks in every mode but bypassPermissions, whatever the rules allow.
//!
//! A path is protected when any of its names ([`Aliases`]: as given, each link hop, the
//! real path) has a protected folder among its components or a protected file name,
//! compared ASCII case-insensitively (a case-insensitive filesystem reads `.Claude` as
//! `.claude`). A protected name that is itself a symlink protects its target by the
//! target's own name too, and so does a link inside a protected folder:
//! [`Protected::scan`] finds those links in the working dirs and HOME (one level down
//! into a protected folder; deeper links are protected by their own names only).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use dcl_sandbox::protected as names;

use super::paths::{Aliases, resolve_real};

/// Folder names protected wherever they appear: the sandbox's list, what only asks, and
/// all of `.git` — the sandbox leaves most of it writable so commits work, but writing
/// there by hand still asks here.
const DIRS: &[&[&str]] = &[names::DIRS, names::ASK_DIRS, &[".git"]];
/// File names protected wherever they appear.
const FILES: &[&[&str]] = &[names::FILES, names::ASK_FILES];

fn is_any(name: &OsStr, lists: &[&[&str]]) -> bool {
    // Names compared are ASCII: the platform's encoded bytes (WTF-8 on Windows) suffice.
    let bytes = name.as_encoded_bytes();
    lists
        .iter()
        .flat_map(|l| l.iter())
        .any(|n| bytes.eq_ignore_ascii_case(n.as_bytes()))
}

/// Why this one name of a path is protected, by its components alone.
fn by_name(p: &Path) -> Option<String> {
    for comp in p.components() {
        if let Component::Normal(name) = comp
            && is_any(name, DIRS)
        {
            return Some(format!(
                "{} is inside a protected `{}` folder",
                p.display(),
                name.to_string_lossy()
            ));
        }
    }
    p.file_name()
        .filter(|n| is_any(n, FILES))
        .map(|_| format!("{} is a protected file", p.display()))
}

/// A protected name that is a symlink, and where it leads.
#[derive(Debug, Clone)]
struct ProtectedLink {
    link: PathBuf,
    target: PathBuf,
    /// A folder name: everything below the target is protected too.
    folder: bool,
}

/// What protects paths beyond their names: protected links' targets and the shell
/// start-up files `BASH_ENV`/`ENV` name.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    links: Vec<ProtectedLink>,
    startup: Vec<(&'static str, PathBuf)>,
}

impl Protected {
    /// Looks for symlinks that a protected name leads through, in each of `roots` (the
    /// working dirs, HOME): protected names that are links directly in a root, and
    /// links directly inside a protected folder of a root (`.claude/settings.json ->
    /// ../dotconf/settings.json`, `.git/hooks -> ../githooks`). One directory listing per
    /// root and per protected folder in it; no `stat` unless an entry is a link. `env`
    /// supplies `BASH_ENV`/`ENV`.
    pub fn scan(roots: &[PathBuf], env: &BTreeMap<String, String>) -> Protected {
        let mut links = Vec::new();
        let mut seen: Vec<PathBuf> = Vec::new();
        for root in roots {
            let real_root = resolve_real(root);
            if seen.contains(&real_root) {
                continue;
            }
            seen.push(real_root.clone());
            let Ok(entries) = std::fs::read_dir(&real_root) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let folder = is_any(&name, DIRS);
                if !folder && !is_any(&name, FILES) {
                    continue;
                }
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                    links.push(ProtectedLink {
                        target: resolve_real(&path),
                        folder,
                        link: path.clone(),
                    });
                }
                if folder {
                    links_inside(&path, &mut links);
                }
            }
        }
        let startup = ["BASH_ENV", "ENV"]
            .into_iter()
            .filter_map(|key| {
                let target = env.get(key).filter(|t| !t.is_empty())?;
                Some((key, resolve_real(Path::new(target))))
            })
            .collect();
        Protected { links, startup }
    }

    /// Why writing the path these aliases name must ask, if it must.
    pub fn reason(&self, a: &Aliases) -> Option<String> {
        if let Some(why) = a.all().find_map(by_name) {
            return Some(why);
        }
        let real = &a.real;
        if let Some(l) = self
            .links
            .iter()
            .find(|l| *real == l.target || (l.folder && real.starts_with(&l.target)))
        {
            return Some(format!(
                "{} is what the protected link {} points to",
                real.display(),
                l.link.display()
            ));
        }
        self.startup
            .iter()
            .find(|(_, t)| t == real)
            .map(|(key, _)| format!("{} is the shell start-up file {key} names", real.display()))
    }
}

/// Adds the symlinks directly inside the protected folder `dir`: what they lead to is
/// written through the folder (a link to a folder protects all of it).
fn links_inside(dir: &Path, out: &mut Vec<ProtectedLink>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            let link = entry.path();
            out.push(ProtectedLink {
                target: resolve_real(&link),
                folder: true,
                link,
            });
        }
    }
}

/// Whether a line's text names a protected folder or file anywhere, in any case (for
/// lines whose paths cannot all be read from the analysis).
pub fn mentions_protected(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    let names_word = |name: &str| {
        text.match_indices(name).any(|(i, _)| {
            text[i + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        })
    };
    DIRS.iter()
        .chain(FILES)
        .flat_map(|l| l.iter())
        .any(|n| names_word(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn reason(p: &str, env: &BTreeMap<String, String>) -> Option<String> {
        let a = Aliases::resolve(Path::new(p), Path::new("/"));
        Protected::scan(&[], env).reason(&a)
    }

    #[test]
    fn settings_folders_git_and_startup_files_are_protected() {
        let env = BTreeMap::from([("BASH_ENV".to_string(), "/p/env.sh".to_string())]);
        for p in [
            "/p/.dcl/settings.json",
            "/p/.dcl/settings.local.json",
            "/p/.claude/settings.json",
            "/p/.qoder/x",
            "/p/.mcp.json",
            "/p/.git/config",
            "/p/.git/hooks/pre-commit",
            "/p/sub/.git/config",
            "/home/u/.bashrc",
            "/home/u/.profile",
            "/p/env.sh",
            "/home/u/.claude.json",
            "/home/u/.qoder.json",
            "/p/.vscode/tasks.json",
            "/p/.idea/workspace.xml",
            "/p/.gitmodules",
            "/p/.ripgreprc",
            // Case variants.
            "/p/.Claude/settings.json",
            "/p/.MCP.JSON",
            "/p/.VSCode/settings.json",
            "/home/u/.BashRC",
        ] {
            assert!(reason(p, &env).is_some(), "{p}");
        }
        assert!(mentions_protected("d=.dcl; echo x > $d/s"));
        assert!(mentions_protected("echo x > \"$H/.bashrc\""));
        assert!(mentions_protected("echo x > $D/.VSCODE/tasks.json"));
        assert!(!mentions_protected("cat .gitignore .github/x"));
        for p in [
            "/p/src/a.rs",
            "/p/.gitignore",
            "/p/dcl/x",
            "/p/.github/workflows/ci.yml",
            // Names that merely resemble protected ones.
            "/p/settings.json.bak",
            "/p/my.vscode.txt",
            "/p/.mcp.json.example",
            "/p/.vscode-notes",
            "/p/claude.json",
            "/p/.bashrc.d.txt",
        ] {
            assert!(reason(p, &env).is_none(), "{p}");
        }
    }

    #[test]
    fn a_link_named_like_a_protected_file_and_its_target_both_ask() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(p.join("config")).unwrap();
        std::fs::write(p.join("config/mcp.json"), "{}").unwrap();
        symlink("config/mcp.json", p.join(".mcp.json")).unwrap();
        std::fs::create_dir_all(p.join("dotconf")).unwrap();
        symlink("dotconf", p.join(".dcl")).unwrap();
        std::fs::create_dir_all(p.join(".git")).unwrap();
        std::fs::create_dir_all(p.join("githooks")).unwrap();
        symlink("../githooks", p.join(".git/hooks")).unwrap();
        let prot = Protected::scan(std::slice::from_ref(&p), &BTreeMap::new());
        let r = |rel: &str| prot.reason(&Aliases::resolve(Path::new(rel), &p));
        assert!(r(".mcp.json").is_some());
        assert!(r("config/mcp.json").is_some(), "the target by its own name");
        assert!(r("dotconf/settings.json").is_some());
        assert!(r("githooks/pre-commit").is_some());
        // Twins: neighbours of the targets are ordinary files.
        assert!(r("config/other.json").is_none());
        assert!(r("dotconfx/settings.json").is_none());
        assert!(r("src/a.rs").is_none());
    }

    #[test]
    fn a_link_pointing_into_a_protected_folder_asks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(p.join(".git/hooks")).unwrap();
        symlink(".git/hooks/pre-commit", p.join("innocent.sh")).unwrap();
        let prot = Protected::scan(std::slice::from_ref(&p), &BTreeMap::new());
        assert!(
            prot.reason(&Aliases::resolve(Path::new("innocent.sh"), &p))
                .is_some()
        );
        // Twin: a link to an ordinary file inside the project.
        std::fs::write(p.join("real.txt"), "x").unwrap();
        symlink("real.txt", p.join("alias.txt")).unwrap();
        assert!(
            prot.reason(&Aliases::resolve(Path::new("alias.txt"), &p))
                .is_none()
        );
    }
}
