//! Bash lines for permission checks, on the one shell analysis (`dcl-shell`): whether a
//! line only reads, which paths it reads (resolved against the shell's directory and
//! every directory a `cd` in the line may have reached), and every path it mentions at
//! all (what Read deny rules and protected files look at).

use std::path::{Path, PathBuf};

use dcl_shell::readonly::{self, Access};
use dcl_shell::{Analysis, Word, WordKind};

/// True when every simple command of `line` only reads (paths not considered).
pub fn is_read_only(line: &str) -> bool {
    readonly::is_read_only(line)
}

/// A read-only line: the absolute paths it reads, and whether it runs git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlyLine {
    pub paths: Vec<PathBuf>,
    pub runs_git: bool,
}

/// Most distinct directories a line's `cd`s are followed through; beyond, it asks.
const MAX_BASES: usize = 16;

/// Why a Bash line's reads could not be listed: it is not read-only, or a path in it
/// cannot be known before it runs.
#[derive(Debug, thiserror::Error)]
pub enum NotReadOnly {
    /// dcl-shell's classification said no, with its reason.
    #[error("{0}")]
    Classified(#[from] readonly::NotReadOnly),
    #[error("`cd` to an unknown HOME")]
    CdUnknownHome,
    #[error("too many directory changes to follow")]
    TooManyDirectoryChanges,
    #[error("`{0}` needs a HOME")]
    NeedsHome(String),
    #[error("`{0}` is expanded at run time")]
    Dynamic(String),
}

/// The paths a read-only line reads, or why it is not read-only / cannot be resolved.
/// A `cd` may fail, so a path after it is checked against every directory the shell may
/// be in by then, and each `cd` target counts as read.
pub fn read_only_paths(
    analysis: &Analysis,
    shell_cwd: &Path,
    home: Option<&Path>,
) -> Result<ReadOnlyLine, NotReadOnly> {
    let ro = readonly::classify(analysis)?;
    let mut bases = vec![shell_cwd.to_path_buf()];
    let mut paths = Vec::new();
    for access in &ro.accesses {
        match access {
            Access::ChangeDir(target) => {
                let mut reached = Vec::new();
                for base in &bases {
                    let dir = match target {
                        None => home
                            .map(Path::to_path_buf)
                            .ok_or(NotReadOnly::CdUnknownHome)?,
                        Some(w) => resolve_word(w, base, home)?,
                    };
                    paths.push(dir.clone());
                    reached.push(dir);
                }
                for d in reached {
                    if !bases.contains(&d) {
                        bases.push(d);
                    }
                }
                if bases.len() > MAX_BASES {
                    return Err(NotReadOnly::TooManyDirectoryChanges);
                }
            }
            Access::Read(w) => {
                for base in &bases {
                    paths.push(resolve_word(w, base, home)?);
                }
            }
        }
    }
    Ok(ReadOnlyLine {
        paths,
        runs_git: ro.runs_git,
    })
}

/// A path word made absolute: `~`/`~/x` from HOME, a glob by the directory before its
/// first pattern component.
fn resolve_word(w: &Word, base: &Path, home: Option<&Path>) -> Result<PathBuf, NotReadOnly> {
    let value = match w.kind {
        WordKind::Plain => w.value.clone(),
        WordKind::Tilde => {
            let home = home.ok_or_else(|| NotReadOnly::NeedsHome(w.value.clone()))?;
            let rest = w.value.trim_start_matches('~').trim_start_matches('/');
            return Ok(home.join(rest));
        }
        WordKind::Glob => {
            let literal: Vec<&str> = w
                .value
                .split('/')
                .take_while(|part| !part.contains(['*', '?', '[']))
                .collect();
            let joined = literal.join("/");
            if joined.is_empty() && w.value.starts_with('/') {
                "/".to_string()
            } else if joined.is_empty() {
                ".".to_string()
            } else {
                joined
            }
        }
        WordKind::Dynamic => return Err(NotReadOnly::Dynamic(w.value.clone())),
    };
    let p = Path::new(&value);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    Ok(as_the_shell_sees(abs, base))
}

/// `/proc/self/cwd` and `/proc/self/root` (and `thread-self`'s) name the shell's own
/// directory and root when the shell opens them, not dcl's, which is what resolving them
/// here would read.
fn as_the_shell_sees(abs: PathBuf, shell_cwd: &Path) -> PathBuf {
    // Component-wise, never lexically: `/proc/self/cwd/..` is the shell's parent folder.
    for me in ["/proc/self", "/proc/thread-self"] {
        let Ok(rest) = abs.strip_prefix(me) else {
            continue;
        };
        if let Ok(below) = rest.strip_prefix("cwd") {
            return shell_cwd.join(below);
        }
        if let Ok(below) = rest.strip_prefix("root") {
            return Path::new("/").join(below);
        }
    }
    abs
}

/// Every path-like word of a line (operands, `--flag=value` values, redirect targets),
/// made absolute against the shell's directory: what Read deny rules and protected-file
/// checks look at for any line, read-only or not.
pub fn mentioned_paths(analysis: &Analysis, shell_cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut push = |w: &Word, value: &str| {
        if value.is_empty() {
            return;
        }
        let sub = Word {
            value: value.to_string(),
            ..w.clone()
        };
        if let Ok(p) = resolve_word(&sub, shell_cwd, home) {
            out.push(p);
        }
    };
    for cmd in &analysis.commands {
        for w in cmd.words.iter().skip(1) {
            if w.kind == WordKind::Dynamic {
                continue;
            }
            match w.value.split_once('=') {
                Some((flag, v)) if flag.starts_with('-') => push(w, v),
                _ if w.value.starts_with('-') => {}
                _ => push(w, &w.value),
            }
        }
        for r in &cmd.redirects {
            if r.target.kind != WordKind::Dynamic
                && !matches!(r.target.value.as_str(), "1" | "2" | "-")
            {
                push(&r.target, &r.target.value);
            }
        }
    }
    out
}

/// The paths a line writes by redirection (`> f`, `>> f`, `&> f`), resolved.
pub fn redirect_targets(
    analysis: &Analysis,
    shell_cwd: &Path,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    analysis
        .commands
        .iter()
        .flat_map(|c| c.redirects.iter())
        .filter(|r| r.op.contains('>') && !matches!(r.target.value.as_str(), "1" | "2" | "-"))
        .filter_map(|r| resolve_word(&r.target, shell_cwd, home).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Result<Vec<PathBuf>, String> {
        read_only_paths(
            &dcl_shell::analyse(line),
            Path::new("/proj"),
            Some(Path::new("/home/u")),
        )
        .map(|r| r.paths)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn named_paths_are_resolved() {
        assert_eq!(
            paths("cat /etc/passwd && ls ../x -la src && head ~/.ssh/id").unwrap(),
            vec![
                PathBuf::from("/etc/passwd"),
                PathBuf::from("/proj/../x"),
                PathBuf::from("/proj/src"),
                PathBuf::from("/home/u/.ssh/id"),
            ]
        );
        assert!(paths("echo hi").unwrap().is_empty());
    }

    #[test]
    fn paths_after_cd_are_checked_from_every_reachable_directory() {
        let p = paths("cd sub && cat ../../x").unwrap();
        assert!(p.contains(&PathBuf::from("/proj/sub")));
        assert!(p.contains(&PathBuf::from("/proj/sub/../../x")));
        assert!(p.contains(&PathBuf::from("/proj/../../x")));
        let p = paths("cd / && ls").unwrap();
        assert!(p.contains(&PathBuf::from("/")));
    }

    #[test]
    fn flag_values_and_globs_are_paths() {
        assert_eq!(
            paths("wc --files0-from=/abs/list").unwrap(),
            vec![PathBuf::from("/abs/list")]
        );
        assert_eq!(
            paths("ls src/*.rs").unwrap(),
            vec![PathBuf::from("/proj/src")]
        );
        assert!(paths("cat $HOME/x").is_err());
    }

    #[test]
    fn proc_self_names_the_shell_not_dcl() {
        assert_eq!(
            paths("cat /proc/self/cwd/secret/k /proc/thread-self/root/etc/x").unwrap(),
            vec![PathBuf::from("/proj/secret/k"), PathBuf::from("/etc/x")]
        );
        let a = dcl_shell::analyse("cd sub; echo x > /proc/self/cwd/../.git/config");
        let m = mentioned_paths(&a, Path::new("/proj"), None);
        assert!(m.contains(&PathBuf::from("/proj/../.git/config")), "{m:?}");
        // Twin: other /proc paths are left as they are.
        assert_eq!(
            paths("cat /proc/cpuinfo").unwrap(),
            vec![PathBuf::from("/proc/cpuinfo")]
        );
    }

    #[test]
    fn mentioned_paths_cover_any_line() {
        let a = dcl_shell::analyse("cp secret/k /tmp/x > .git/config --to=/abs -v");
        let m = mentioned_paths(&a, Path::new("/proj"), None);
        assert_eq!(
            m,
            vec![
                PathBuf::from("/proj/secret/k"),
                PathBuf::from("/tmp/x"),
                PathBuf::from("/abs"),
                PathBuf::from("/proj/.git/config"),
            ]
        );
        assert_eq!(
            redirect_targets(&a, Path::new("/proj"), None),
            vec![PathBuf::from("/proj/.git/config")]
        );
    }
}
