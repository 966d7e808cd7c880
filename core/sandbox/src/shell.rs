//! Which bash the Bash tool runs. On Unix, `bash` from `PATH`. On Windows there is no
//! bash of the system's own: Git for Windows' (Git Bash), found as the reference CLI
//! finds it — `CLAUDE_CODE_GIT_BASH_PATH` when set, else next to the `git.exe` on `PATH`,
//! else the default install folders — and a clear error naming what to install when
//! there is none.

use std::ffi::OsString;
use std::path::PathBuf;

/// The variable naming Git Bash's `bash.exe` (the reference CLI's name).
pub const GIT_BASH_VAR: &str = "CLAUDE_CODE_GIT_BASH_PATH";

/// No bash to run commands with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoBash {
    #[error(
        "{GIT_BASH_VAR} is set to {0}, which is not a file; point it at Git Bash's bash.exe \
         (for example C:\\Program Files\\Git\\bin\\bash.exe)"
    )]
    BadVariable(PathBuf),
    #[error(
        "the Bash tool needs Git Bash on Windows: install Git for Windows \
         (https://git-scm.com/downloads/win), or set {GIT_BASH_VAR} to the bash.exe of an \
         existing install"
    )]
    NotInstalled,
}

/// The bash to run: `bash` on Unix; Git Bash on Windows (see the module docs).
pub fn bash() -> Result<OsString, NoBash> {
    if cfg!(windows) {
        find_git_bash(
            std::env::var_os(GIT_BASH_VAR).map(PathBuf::from),
            std::env::var_os("PATH"),
            &program_files(),
        )
        .map(PathBuf::into_os_string)
    } else {
        Ok(OsString::from("bash"))
    }
}

fn program_files() -> Vec<PathBuf> {
    [
        "ProgramFiles",
        "ProgramW6432",
        "ProgramFiles(x86)",
        "LOCALAPPDATA",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .map(|v| {
        let p = PathBuf::from(v);
        // A per-user install sits in %LOCALAPPDATA%\Programs\Git.
        if p.ends_with("AppData\\Local") || p.ends_with("Local") {
            p.join("Programs")
        } else {
            p
        }
    })
    .collect()
}

/// Git Bash from the variable, the `git.exe` on `path`, or an install folder (pure but
/// for the existence checks, so it is tested on every OS).
pub fn find_git_bash(
    variable: Option<PathBuf>,
    path: Option<OsString>,
    install_roots: &[PathBuf],
) -> Result<PathBuf, NoBash> {
    if let Some(v) = variable.filter(|v| !v.as_os_str().is_empty()) {
        return if v.is_file() {
            Ok(v)
        } else {
            Err(NoBash::BadVariable(v))
        };
    }
    let mut candidates = Vec::new();
    for dir in path.iter().flat_map(std::env::split_paths) {
        if dir.join("git.exe").is_file() {
            // <git>\cmd\git.exe or <git>\bin\git.exe or <git>\mingw64\bin\git.exe.
            for up in dir.ancestors().skip(1).take(2) {
                candidates.push(up.join("bin").join("bash.exe"));
            }
        }
    }
    for root in install_roots {
        candidates.push(root.join("Git").join("bin").join("bash.exe"));
    }
    candidates
        .into_iter()
        .find(|c| c.is_file())
        .ok_or(NoBash::NotInstalled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn touch(p: &Path) {
        if let Some(d) = p.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        assert!(std::fs::write(p, b"").is_ok());
    }

    #[test]
    fn the_variable_wins_and_must_name_a_file() {
        let t = tempfile::tempdir().ok();
        let Some(t) = t else { return };
        let bash = t.path().join("custom").join("bash.exe");
        touch(&bash);
        let roots = [t.path().join("pf")];
        touch(&roots[0].join("Git").join("bin").join("bash.exe"));
        assert_eq!(find_git_bash(Some(bash.clone()), None, &roots), Ok(bash));
        let missing = t.path().join("nope.exe");
        assert_eq!(
            find_git_bash(Some(missing.clone()), None, &roots),
            Err(NoBash::BadVariable(missing))
        );
    }

    #[test]
    fn found_next_to_git_on_path_then_in_install_roots() {
        let Ok(t) = tempfile::tempdir() else { return };
        let git = t.path().join("Git");
        touch(&git.join("cmd").join("git.exe"));
        touch(&git.join("bin").join("bash.exe"));
        let path = std::env::join_paths([git.join("cmd")]).ok();
        assert_eq!(
            find_git_bash(None, path, &[]),
            Ok(git.join("bin").join("bash.exe"))
        );
        let pf = t.path().join("pf");
        touch(&pf.join("Git").join("bin").join("bash.exe"));
        assert_eq!(
            find_git_bash(None, None, std::slice::from_ref(&pf)),
            Ok(pf.join("Git").join("bin").join("bash.exe"))
        );
    }

    #[test]
    fn nothing_found_names_what_to_install() {
        let Ok(t) = tempfile::tempdir() else { return };
        let err = find_git_bash(None, None, &[t.path().to_path_buf()]);
        assert_eq!(err, Err(NoBash::NotInstalled));
        let text = NoBash::NotInstalled.to_string();
        assert!(
            text.contains("Git for Windows") && text.contains(GIT_BASH_VAR),
            "{text}"
        );
    }
}
