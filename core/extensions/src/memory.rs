//! Memory files: project instructions the model reads with every request. `DCL.md`,
//! `CLAUDE.md`, `AGENTS.md` (and `CLAUDE.local.md`) in the working directory and each
//! directory above it and in the project folders (`.claude/`, `.dcl/`); the user's own in
//! the user folders (docs/protocol.md "client home" and "dcl home": `$CLAUDE_CONFIG_DIR` or
//! `~/.claude`, then `--data-dir`, `DCL_CONFIG_DIR` or `~/.dcl`) and directly in `~`.

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

/// Names looked for in a user folder and in the home directory.
const USER_NAMES: &[&str] = &["DCL.md", "CLAUDE.md", "AGENTS.md"];

/// Where memory files are looked for besides the working directory and its parents.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryPaths {
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// User folders, lowest precedence first (client home, then dcl home).
    pub user_folders: Vec<PathBuf>,
    /// Project folders, lowest precedence first (`.claude/` or `.qoder/`, then `.dcl/`).
    pub project_folders: Vec<PathBuf>,
}

impl MemoryPaths {
    /// The folders of a user whose homes are the defaults under `home`.
    pub fn under_home(home: Option<&Path>, cwd: &Path) -> MemoryPaths {
        MemoryPaths {
            home: home.map(Path::to_path_buf),
            user_folders: home
                .map(|h| vec![h.join(".claude"), h.join(".dcl")])
                .unwrap_or_default(),
            project_folders: vec![cwd.join(".claude"), cwd.join(".dcl")],
        }
    }
}

/// [`load_from`] with the default folders under `home`.
pub fn load(home: Option<&Path>, cwd: &Path, user: bool, project: bool) -> Vec<MemoryFile> {
    load_from(&MemoryPaths::under_home(home, cwd), cwd, user, project)
}

/// Reads the memory files. `user` / `project` say which sources are enabled (settings
/// sources). User files come first, then project files from the outermost directory in,
/// so the nearest instructions are read last.
pub fn load_from(paths: &MemoryPaths, cwd: &Path, user: bool, project: bool) -> Vec<MemoryFile> {
    let home = paths.home.as_deref();
    let mut candidates: Vec<(PathBuf, &'static str)> = Vec::new();
    // A user or project folder that does not exist is one stat, not one per name: most
    // sessions have none of them, and every session opens by looking.
    let folder = |dir: &&PathBuf| dir.is_dir();
    if user {
        let folders = paths.user_folders.iter().filter(folder);
        for dir in folders.map(PathBuf::as_path).chain(home) {
            for name in USER_NAMES {
                candidates.push((dir.join(name), "user"));
            }
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
        for dir in paths.project_folders.iter().filter(folder) {
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
    fn project_and_user_folders_are_read_when_they_exist_and_skipped_when_not() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let cwd = root.path().join("work");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(cwd.join(".dcl")).unwrap();
        std::fs::write(home.join(".claude/CLAUDE.md"), "client home rule").unwrap();
        std::fs::write(cwd.join(".dcl/AGENTS.md"), "project folder rule").unwrap();
        // Neither ~/.dcl nor work/.claude exists: the other two folders are still read.
        let files = load(Some(&home), &cwd, true, true);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, vec!["client home rule", "project folder rule"]);
        assert_eq!(files[1].scope, "project");
    }

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
    fn user_memory_is_found_in_the_dcl_and_client_homes_wherever_they_are() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let data = root.path().join("data-dir");
        let client = root.path().join("claude-config");
        let cwd = root.path().join("repo");
        for d in [&home, &data, &client, &cwd.join(".claude")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(client.join("CLAUDE.md"), "client rule").unwrap();
        std::fs::write(data.join("DCL.md"), "data-dir rule").unwrap();
        std::fs::write(data.join("AGENTS.md"), "data-dir agents rule").unwrap();
        std::fs::write(cwd.join(".claude/CLAUDE.md"), "project folder rule").unwrap();
        // Not a home dcl reads in this session: the default ~/.dcl is not used.
        std::fs::create_dir_all(home.join(".dcl")).unwrap();
        std::fs::write(home.join(".dcl/DCL.md"), "default home rule").unwrap();
        let paths = MemoryPaths {
            home: Some(home.clone()),
            user_folders: vec![client.clone(), data.clone()],
            project_folders: vec![cwd.join(".claude"), cwd.join(".dcl")],
        };
        let files = load_from(&paths, &cwd, true, true);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(
            contents,
            vec![
                "client rule",
                "data-dir rule",
                "data-dir agents rule",
                "project folder rule"
            ]
        );
        assert_eq!(files[1].scope, "user");
        assert_eq!(files[3].scope, "project");
        assert_eq!(load_from(&paths, &cwd, false, true).len(), 1);
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
