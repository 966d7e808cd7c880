//! Files that give whoever writes them power over later runs: dcl's and the clients'
//! settings folders, `.mcp.json`, `.git/` (hooks, config), and shell start-up files.
//! Writing one asks in every mode but bypassPermissions, whatever the rules allow.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use super::paths::resolve_real;

/// Directory names that are protected wherever they appear: the sandbox's list (which
/// keeps them read-only in its writable dirs), plus all of `.git` — the sandbox leaves
/// most of it writable so commits work, but writing there by hand still asks here.
const DIRS: &[&[&str]] = &[dcl_sandbox::protected::DIRS, &[".git"]];
/// File names that are protected wherever they appear (the sandbox's list).
const FILES: &[&str] = dcl_sandbox::protected::FILES;

/// Why writing `path` must ask, if it must. `env` supplies `BASH_ENV`/`ENV`, whose
/// targets are start-up files too.
pub fn protected_reason(path: &Path, env: &BTreeMap<String, String>) -> Option<String> {
    let real = resolve_real(path);
    for comp in real.components() {
        if let Component::Normal(name) = comp {
            let name = name.to_string_lossy();
            if DIRS.iter().any(|d| d.contains(&name.as_ref())) {
                return Some(format!(
                    "{} is inside a protected `{name}` folder",
                    real.display()
                ));
            }
        }
    }
    if let Some(name) = real.file_name().map(|n| n.to_string_lossy())
        && FILES.contains(&name.as_ref())
    {
        return Some(format!("{} is a protected file", real.display()));
    }
    for key in ["BASH_ENV", "ENV"] {
        if let Some(target) = env.get(key).filter(|t| !t.is_empty())
            && resolve_real(Path::new(target)) == real
        {
            return Some(format!(
                "{} is the shell start-up file {key} names",
                real.display()
            ));
        }
    }
    None
}

/// Whether a line's text names a protected folder or file anywhere (for lines whose
/// paths cannot all be read from the analysis).
pub fn mentions_protected(text: &str) -> bool {
    let names_word = |name: &str| {
        text.match_indices(name).any(|(i, _)| {
            text[i + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        })
    };
    DIRS.iter().flat_map(|d| d.iter()).any(|d| names_word(d)) || FILES.iter().any(|f| names_word(f))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            assert!(protected_reason(Path::new(p), &env).is_some(), "{p}");
        }
        assert!(mentions_protected("d=.dcl; echo x > $d/s"));
        assert!(mentions_protected("echo x > \"$H/.bashrc\""));
        assert!(!mentions_protected("cat .gitignore .github/x"));
        for p in [
            "/p/src/a.rs",
            "/p/.gitignore",
            "/p/dcl/x",
            "/p/.github/workflows/ci.yml",
        ] {
            assert!(protected_reason(Path::new(p), &env).is_none(), "{p}");
        }
    }
}
