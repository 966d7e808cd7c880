//! The `/` popup's catalogue: the built-in commands, then the project's and the user's
//! custom commands (`.claude/commands/**.md`, `:` between folders) and skills
//! (`.claude/skills/<name>/SKILL.md`), then what the session's `init` lists besides.

use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub name: String,
    pub description: String,
}

pub const BUILT_INS: &[(&str, &str)] = &[
    ("help", "Show keys and commands"),
    ("clear", "Start a new conversation"),
    ("compact", "Summarise the conversation to free context"),
    ("model", "Show or set the model (/model <name>)"),
    (
        "permissions",
        "Show the permission mode and how to change it",
    ),
    ("resume", "Resume an earlier session"),
    ("rewind", "Go back to an earlier prompt"),
    ("cost", "Show the session's cost and tokens"),
    ("status", "Show the session's model, mode and id"),
    ("init", "Write a CLAUDE.md describing this project"),
    ("exit", "Leave dcl"),
];

pub fn built_ins() -> Vec<Command> {
    BUILT_INS
        .iter()
        .map(|(n, d)| Command {
            name: n.to_string(),
            description: d.to_string(),
        })
        .collect()
}

/// Custom commands and skills found under `cwd/.claude` and `home/.claude` (the
/// project's first).
pub fn custom(cwd: &Path, home: Option<&Path>) -> Vec<Command> {
    let mut out = Vec::new();
    for (root, whose) in [(Some(cwd), "project"), (home, "user")] {
        let Some(root) = root else { continue };
        let base = root.join(".claude").join("commands");
        collect_commands(&base, &base, whose, &mut out);
        if let Ok(entries) = std::fs::read_dir(root.join(".claude").join("skills")) {
            for e in entries.flatten() {
                let skill = e.path().join("SKILL.md");
                if skill.is_file() {
                    out.push(Command {
                        name: e.file_name().to_string_lossy().into_owned(),
                        description: format!("{} ({whose} skill)", describe(&skill)),
                    });
                }
            }
        }
    }
    out
}

fn collect_commands(base: &Path, dir: &Path, whose: &str, out: &mut Vec<Command>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_commands(base, &path, whose, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            let rel = path.strip_prefix(base).unwrap_or(&path).with_extension("");
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(":");
            out.push(Command {
                name,
                description: format!("{} ({whose})", describe(&path)),
            });
        }
    }
}

/// The front matter's `description:`, or the first line of text.
fn describe(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut in_front = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if i == 0 && t == "---" {
            in_front = true;
            continue;
        }
        if in_front {
            if t == "---" {
                in_front = false;
            } else if let Some(d) = t.strip_prefix("description:") {
                return d.trim().trim_matches('"').to_string();
            }
            continue;
        }
        if !t.is_empty() {
            return t.trim_start_matches('#').trim().chars().take(60).collect();
        }
    }
    String::new()
}

/// The catalogue: built-ins, custom commands, then the session's other names.
pub fn merge(custom: Vec<Command>, from_session: &[String]) -> Vec<Command> {
    let mut all = built_ins();
    for c in custom {
        if !all.iter().any(|a| a.name == c.name) {
            all.push(c);
        }
    }
    for name in from_session {
        if !all.iter().any(|a| &a.name == name) {
            all.push(Command {
                name: name.clone(),
                description: String::new(),
            });
        }
    }
    all
}
