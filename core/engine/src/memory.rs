//! Memory files: project instructions the model reads with every request. `DCL.md`,
//! `CLAUDE.md`, `AGENTS.md` (and `CLAUDE.local.md`) in the working directory and each
//! directory above it, and the user's own in the home directory (`~/.dcl/DCL.md`,
//! `~/.claude/CLAUDE.md`, and the same names directly in `~`).

use std::path::{Path, PathBuf};

/// Names looked for in every project directory, in the order they are shown.
const PROJECT_NAMES: &[&str] = &["DCL.md", "CLAUDE.md", "AGENTS.md", "CLAUDE.local.md"];
/// A single file is cut here, so one huge file cannot crowd out the conversation.
const MAX_FILE_CHARS: usize = 40_000;
/// All memory together is cut here.
const MAX_TOTAL_CHARS: usize = 100_000;

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFile {
    pub path: PathBuf,
    /// `user` or `project`.
    pub scope: &'static str,
    pub content: String,
}

/// Reads the memory files. `user` / `project` say which sources are enabled (settings
/// sources). Files further from the working directory come first, so the nearest
/// instructions are read last.
pub fn load(home: Option<&Path>, cwd: &Path, user: bool, project: bool) -> Vec<MemoryFile> {
    let mut candidates: Vec<(PathBuf, &'static str)> = Vec::new();
    if user && let Some(h) = home {
        for p in [
            ".dcl/DCL.md",
            ".claude/CLAUDE.md",
            "DCL.md",
            "CLAUDE.md",
            "AGENTS.md",
        ] {
            candidates.push((h.join(p), "user"));
        }
    }
    if project {
        let mut dirs: Vec<&Path> = cwd.ancestors().collect();
        dirs.reverse();
        for dir in dirs {
            // The home directory's own files are user memory, not project memory.
            if home.is_some_and(|h| h == dir) {
                continue;
            }
            for name in PROJECT_NAMES {
                candidates.push((dir.join(name), "project"));
            }
        }
    }
    let mut seen = Vec::new();
    let mut total = 0usize;
    let mut out = Vec::new();
    for (path, scope) in candidates {
        if !path.is_file() {
            continue;
        }
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&real) {
            continue;
        }
        seen.push(real);
        let Ok(text) = std::fs::read_to_string(&path) else {
            tracing::warn!(
                "memory file {} is not readable UTF-8; skipped",
                path.display()
            );
            continue;
        };
        if text.trim().is_empty() || total >= MAX_TOTAL_CHARS {
            continue;
        }
        let budget = MAX_FILE_CHARS.min(MAX_TOTAL_CHARS - total);
        let content = cut(&text, budget);
        total += content.chars().count();
        out.push(MemoryFile {
            path,
            scope,
            content,
        });
    }
    out
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}\n[... truncated: the file is longer than {max} characters]")
}

/// The system-prompt section that carries the memory files.
pub fn section(files: &[MemoryFile]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let mut s = String::from(
        "Instructions from memory files follow. They come from the user and the project; follow them.",
    );
    for f in files {
        s.push_str(&format!(
            "\n\n<memory path=\"{}\" scope=\"{}\">\n{}\n</memory>",
            f.path.display(),
            f.scope,
            f.content.trim_end()
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_up_the_tree_and_in_home_are_found_nearest_last() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("work/repo");
        let sub = project.join("sub");
        std::fs::create_dir_all(home.join(".dcl")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(home.join(".dcl/DCL.md"), "user rule").unwrap();
        std::fs::write(root.path().join("work/AGENTS.md"), "outer rule").unwrap();
        std::fs::write(project.join("CLAUDE.md"), "project rule").unwrap();
        std::fs::write(sub.join("DCL.md"), "nearest rule").unwrap();
        std::fs::write(sub.join("AGENTS.md"), "   \n").unwrap();
        let files = load(Some(&home), &sub, true, true);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(
            contents,
            vec!["user rule", "outer rule", "project rule", "nearest rule"]
        );
        assert_eq!(files[0].scope, "user");
        let only_project = load(Some(&home), &sub, false, true);
        assert_eq!(only_project.len(), 3);
        assert!(section(&files).unwrap().contains("nearest rule"));
        assert!(section(&[]).is_none());
    }

    #[test]
    fn huge_files_are_cut() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("DCL.md"), "x".repeat(MAX_FILE_CHARS * 2)).unwrap();
        let files = load(None, dir.path(), false, true);
        assert!(files[0].content.contains("truncated"));
        assert!(files[0].content.chars().count() < MAX_FILE_CHARS + 100);
    }
}
