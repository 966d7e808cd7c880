//! Custom slash commands: `commands/*.md` files (front matter `description`,
//! `allowed-tools`, `model`, `argument-hint`; a body with `$ARGUMENTS`, `$1`, `$2`…) from
//! the homes, the project folders and plugins. A file in a subfolder is `sub:name`, a
//! plugin's command `plugin:name`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{NameList, Origin, expand_arguments};
use crate::agents::split_front_matter;

#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec {
    pub name: String,
    pub description: String,
    pub argument_hint: String,
    /// Tools the command may use without asking, for its turn only.
    pub allowed_tools: Vec<String>,
    /// The model its turn runs on (`None`: the session's).
    pub model: Option<String>,
    pub body: String,
    pub path: PathBuf,
    pub origin: Origin,
    /// What dcl reads but does not act on, as warnings.
    pub unsupported: Vec<String>,
}

impl CommandSpec {
    /// The prompt the model receives for `/name args`.
    pub fn expand(&self, args: &str) -> String {
        expand_arguments(&self.body, args)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct FrontMatter {
    description: Option<String>,
    allowed_tools: Option<NameList>,
    model: Option<String>,
    argument_hint: Option<String>,
}

/// Why a command file was skipped.
#[derive(Debug, thiserror::Error)]
pub enum CommandFileError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: front matter: {source}", path.display())]
    FrontMatter {
        path: PathBuf,
        source: serde_yaml_ng::Error,
    },
}

/// Reads one command file named `name` (front matter is optional, as the reference has
/// it: a plain markdown file is a command whose first line describes it).
pub fn parse_command(
    name: &str,
    path: &Path,
    text: &str,
    origin: Origin,
) -> Result<CommandSpec, CommandFileError> {
    let (front, body) = split_front_matter(text);
    let fm: FrontMatter = match front {
        Some(y) if !y.trim().is_empty() => {
            serde_yaml_ng::from_str(y).map_err(|source| CommandFileError::FrontMatter {
                path: path.to_path_buf(),
                source,
            })?
        }
        _ => FrontMatter::default(),
    };
    let body = origin.substitute(body.trim());
    let description = fm.description.unwrap_or_else(|| {
        body.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or_default()
            .trim_start_matches('#')
            .trim()
            .to_string()
    });
    Ok(CommandSpec {
        unsupported: super::body_notes(path, &body),
        name: origin.qualify(name),
        description,
        argument_hint: fm.argument_hint.unwrap_or_default(),
        allowed_tools: fm.allowed_tools.map(NameList::names).unwrap_or_default(),
        model: fm.model.filter(|m| !m.trim().is_empty()),
        body,
        path: path.to_path_buf(),
        origin,
    })
}

#[derive(Debug, Clone, Default)]
pub struct CommandCatalog {
    commands: BTreeMap<String, CommandSpec>,
}

impl CommandCatalog {
    /// Adds the `*.md` files of one `commands/` folder and its subfolders (one level, as
    /// `sub:name`); a later folder's command replaces an earlier one of the same name.
    pub fn add_dir(&mut self, dir: &Path, origin: &Origin, warnings: &mut Vec<String>) {
        let mut files = Vec::new();
        collect(dir, None, &mut files);
        files.sort();
        for (name, path) in files {
            match std::fs::read_to_string(&path)
                .map_err(|source| CommandFileError::Read {
                    path: path.clone(),
                    source,
                })
                .and_then(|t| parse_command(&name, &path, &t, origin.clone()))
            {
                Ok(c) => {
                    self.commands.insert(c.name.clone(), c);
                }
                Err(e) => warnings.push(format!("command skipped: {e}")),
            }
        }
    }

    /// The command `/name` runs: its exact name, else the one plugin command of that bare
    /// name (`/review` for `kit:review` when no other command is called `review`).
    pub fn get(&self, name: &str) -> Option<&CommandSpec> {
        if let Some(c) = self.commands.get(name) {
            return Some(c);
        }
        let suffix = format!(":{name}");
        let mut plugin = self
            .commands
            .values()
            .filter(|c| matches!(c.origin, Origin::Plugin { .. }) && c.name.ends_with(&suffix));
        match (plugin.next(), plugin.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.commands.keys().cloned().collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &CommandSpec> {
        self.commands.values()
    }
}

fn collect(dir: &Path, prefix: Option<&str>, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let name = match prefix {
            Some(p) => format!("{p}:{stem}"),
            None => stem.to_string(),
        };
        if path.is_dir() {
            if prefix.is_none() {
                collect(&path, Some(&name), out);
            }
        } else if path.extension().is_some_and(|x| x == "md") {
            out.push((name, path));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_command_reads_its_front_matter() {
        let c = parse_command(
            "fix",
            Path::new("/c/fix.md"),
            "---\ndescription: Fix an issue\nallowed-tools: Bash(git:*), Edit\nmodel: haiku\nargument-hint: <issue> <prio>\n---\nFix issue $1 (priority $2): $ARGUMENTS\n",
            Origin::Project,
        )
        .unwrap();
        assert_eq!(c.name, "fix");
        assert_eq!(c.description, "Fix an issue");
        assert_eq!(c.allowed_tools, vec!["Bash(git:*)", "Edit"]);
        assert_eq!(c.model.as_deref(), Some("haiku"));
        assert_eq!(c.argument_hint, "<issue> <prio>");
        assert_eq!(c.expand("42 high"), "Fix issue 42 (priority high): 42 high");
    }

    #[test]
    fn a_plain_file_is_a_command_described_by_its_first_line() {
        let c = parse_command(
            "hi",
            Path::new("/c/hi.md"),
            "# Say hi\n\nGreet.",
            Origin::User,
        )
        .unwrap();
        assert_eq!(c.description, "Say hi");
        assert!(c.allowed_tools.is_empty());
        assert!(
            parse_command(
                "x",
                Path::new("/c/x.md"),
                "---\n: : :\n---\nx",
                Origin::User
            )
            .is_err()
        );
    }

    #[test]
    fn folders_namespace_and_plugin_commands_answer_to_their_bare_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("git")).unwrap();
        std::fs::write(dir.path().join("a.md"), "A").unwrap();
        std::fs::write(dir.path().join("git/commit.md"), "Commit").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a command").unwrap();
        let mut c = CommandCatalog::default();
        let mut w = Vec::new();
        c.add_dir(dir.path(), &Origin::User, &mut w);
        assert_eq!(c.names(), vec!["a", "git:commit"]);
        let plugin = Origin::Plugin {
            name: "kit".into(),
            root: dir.path().to_path_buf(),
        };
        c.add_dir(dir.path(), &plugin, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(c.get("kit:a").unwrap().body, "A");
        // `a` is the user's own; `commit` only the plugin's `git:commit`… is namespaced
        // twice, so its bare name is `git:commit`.
        assert_eq!(c.get("a").unwrap().origin, Origin::User);
        assert_eq!(c.get("git:commit").unwrap().origin, Origin::User);
        assert!(c.get("kit:git:commit").is_some());
        assert!(c.get("nothing").is_none());
    }
}
