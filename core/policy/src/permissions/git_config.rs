//! Whether a repository's own configuration makes "read-only" git commands run
//! programs: `core.fsmonitor`, diff drivers (`diff.*.textconv`, `diff.*.command`,
//! `diff.external`), pagers, `core.hooksPath`, clean/smudge filters, `gpg.program`.
//! The config (and any file it includes) is read as text; git itself is never run.

use std::path::{Path, PathBuf};

/// Most include files followed; beyond, the configuration is treated as unsafe.
const MAX_INCLUDES: usize = 8;
/// Larger config files are not read; they are treated as unsafe.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Why git in `dir` may run a configured program, if it may (also when the repository
/// or its configuration cannot be read).
pub fn runs_configured_programs(dir: &Path) -> Option<String> {
    let git_dir = find_git_dir(dir)?;
    let mut pending = vec![git_dir.join("config")];
    let mut seen = 0;
    while let Some(file) = pending.pop() {
        seen += 1;
        if seen > MAX_INCLUDES {
            return Some("the git configuration includes too many files".into());
        }
        let text = match std::fs::metadata(&file) {
            Ok(m) if m.len() > MAX_CONFIG_BYTES => {
                return Some(format!("{} is too large to check", file.display()));
            }
            Ok(_) => match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => return Some(format!("{} cannot be read: {e}", file.display())),
            },
            // The main config may be absent; an include that is missing is harmless too.
            Err(_) => continue,
        };
        let base = file.parent().unwrap_or(&git_dir).to_path_buf();
        for (section, key, value) in entries(&text) {
            if let Some(why) = dangerous(&section, &key, &value) {
                return Some(format!("{}: {why}", file.display()));
            }
            if (section == "include" || section.starts_with("includeif")) && key == "path" {
                let p = PathBuf::from(value.trim());
                if p.starts_with("~") {
                    return Some("the git configuration includes a file from HOME".into());
                }
                pending.push(if p.is_absolute() { p } else { base.join(p) });
            }
        }
    }
    None
}

/// The repository's git directory from `dir` upwards (`.git` directory or `gitdir:` file).
fn find_git_dir(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let candidate = d.join(".git");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let p = PathBuf::from(target);
            return Some(if p.is_absolute() { p } else { d.join(p) });
        }
    }
    None
}

fn dangerous(section: &str, key: &str, value: &str) -> Option<String> {
    let off = matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "false" | "0" | "no" | "off" | ""
    );
    let name = format!("{section}.{key}");
    let bad = match (section.split('.').next().unwrap_or(""), key) {
        ("core", "fsmonitor") => !off,
        (
            "core",
            "pager" | "hookspath" | "sshcommand" | "askpass" | "editor" | "attributesfile",
        ) => true,
        ("pager", _) => true,
        ("diff", "external") => true,
        ("diff", "textconv" | "command") => section.contains('.'),
        ("filter", _) => true,
        ("gpg", "program") => true,
        ("alias", _) => false,
        ("uploadpack" | "receive" | "sequence", _) => true,
        _ => false,
    };
    bad.then(|| format!("`{name}` makes git run a configured program"))
}

/// `(section[.subsection], key, value)` of each entry, names lower-cased (subsection
/// kept as written). Deliberately forgiving: a line it cannot read only adds entries.
fn entries(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for raw in text.lines() {
        let mut line = raw.trim();
        if line.starts_with('[') {
            let Some(end) = line.find(']') else {
                section = "unreadable".into();
                continue;
            };
            let header = &line[1..end];
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!(
                    "{}.{}",
                    name.to_ascii_lowercase(),
                    sub.trim().trim_matches('"')
                ),
                None => header.to_ascii_lowercase(),
            };
            // `[core] fsmonitor = x` on one line is valid git syntax.
            line = line[end + 1..].trim();
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, "true"),
        };
        out.push((section.clone(), key.to_ascii_lowercase(), value.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(config: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".git")).unwrap();
        std::fs::write(d.path().join(".git/config"), config).unwrap();
        d
    }

    #[test]
    fn configured_programs_are_found() {
        for cfg in [
            "[core]\n\tfsmonitor = ./evil.sh\n",
            "[Core]\nFSMonitor=true",
            "[core] pager = sh -c x",
            "[diff \"x\"]\n textconv = sh\n",
            "[diff]\n external = x\n",
            "[pager]\n log = x\n",
            "[core]\n hooksPath = h\n",
            "[filter \"lfs\"]\n clean = x\n",
        ] {
            let d = repo(cfg);
            assert!(runs_configured_programs(d.path()).is_some(), "{cfg}");
        }
    }

    #[test]
    fn includes_are_followed() {
        let d = repo("[include]\n path = extra\n");
        std::fs::write(d.path().join(".git/extra"), "[core]\nfsmonitor = x\n").unwrap();
        assert!(runs_configured_programs(d.path()).is_some());
    }

    #[test]
    fn an_ordinary_config_is_fine() {
        let d = repo(
            "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = false\n[remote \"origin\"]\n\turl = x\n[diff]\n\talgorithm = histogram\n",
        );
        assert_eq!(runs_configured_programs(d.path()), None);
        std::fs::create_dir(d.path().join("sub")).unwrap();
        assert_eq!(runs_configured_programs(&d.path().join("sub")), None);
    }
}
