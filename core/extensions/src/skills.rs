//! Skills: `skills/<name>/SKILL.md` folders (front matter `name`, `description`,
//! optional `allowed-tools`), read from the homes, the project folders and plugins. The
//! `Skill` tool hands the model a skill's body together with its base directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{NameList, Origin, expand_arguments};
use crate::agents::split_front_matter;
use dcl_protocol::ToolSpec;

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

#[derive(Debug, Clone, PartialEq)]
pub struct SkillSpec {
    /// As the model calls it (`plugin:name` for a plugin's skill).
    pub name: String,
    pub description: String,
    /// Tools the skill may use without asking while the turn lasts.
    pub allowed_tools: Vec<String>,
    pub body: String,
    /// The skill's folder (its files are relative to it).
    pub base_dir: PathBuf,
    pub origin: Origin,
    /// Front matter dcl reads but does not act on, as warnings.
    pub unsupported: Vec<String>,
}

impl SkillSpec {
    /// What the model reads when it uses the skill (the reference's shape: the base
    /// directory, then the body with its arguments filled in).
    pub fn content(&self, args: &str) -> String {
        format!(
            "Base directory for this skill: {}\n\n{}",
            self.base_dir.display(),
            expand_arguments(&self.body, args)
        )
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
    allowed_tools: Option<NameList>,
    model: Option<String>,
}

/// Why a `SKILL.md` was skipped.
#[derive(Debug, thiserror::Error)]
pub enum SkillFileError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: no front matter (a SKILL.md starts with ---, name and description)",
        path.display()
    )]
    NoFrontMatter { path: PathBuf },
    #[error("{}: front matter: {source}", path.display())]
    FrontMatter {
        path: PathBuf,
        source: serde_yaml_ng::Error,
    },
    #[error("{}: the skill has no name", path.display())]
    NoName { path: PathBuf },
    #[error("{}: front matter needs a description", path.display())]
    NoDescription { path: PathBuf },
}

/// Reads one `SKILL.md`; the folder names the skill unless the front matter does.
pub fn parse_skill(path: &Path, text: &str, origin: Origin) -> Result<SkillSpec, SkillFileError> {
    let (front, body) = split_front_matter(text);
    let Some(front) = front else {
        return Err(SkillFileError::NoFrontMatter {
            path: path.to_path_buf(),
        });
    };
    let fm: FrontMatter =
        serde_yaml_ng::from_str(front).map_err(|source| SkillFileError::FrontMatter {
            path: path.to_path_buf(),
            source,
        })?;
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let folder = base_dir
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let name = fm.name.unwrap_or(folder);
    if name.trim().is_empty() {
        return Err(SkillFileError::NoName {
            path: path.to_path_buf(),
        });
    }
    let description = fm
        .description
        .ok_or_else(|| SkillFileError::NoDescription {
            path: path.to_path_buf(),
        })?;
    let mut unsupported = Vec::new();
    if fm.model.is_some() {
        unsupported.push(format!(
            "{}: a skill's `model` is not acted on (the turn keeps its model)",
            path.display()
        ));
    }
    unsupported.extend(super::body_notes(path, body));
    Ok(SkillSpec {
        unsupported,
        name: origin.qualify(&name),
        description,
        allowed_tools: fm.allowed_tools.map(NameList::names).unwrap_or_default(),
        body: origin.substitute(body.trim()),
        base_dir,
        origin,
    })
}

#[derive(Debug, Clone, Default)]
pub struct SkillCatalog {
    skills: BTreeMap<String, SkillSpec>,
    /// The Skill tool's definition, which lists these skills.
    offer: crate::derived_spec::DerivedSpec,
}

impl SkillCatalog {
    /// Adds the skills of one `skills/` folder; a later folder's skill replaces an
    /// earlier one of the same name. Unreadable skills become warnings.
    pub fn add_dir(&mut self, dir: &Path, origin: &Origin, warnings: &mut Vec<String>) {
        self.offer.reset();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path().join(SKILL_FILE))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            match std::fs::read_to_string(&path)
                .map_err(|source| SkillFileError::Read {
                    path: path.clone(),
                    source,
                })
                .and_then(|t| parse_skill(&path, &t, origin.clone()))
            {
                Ok(s) => {
                    self.skills.insert(s.name.clone(), s);
                }
                Err(e) => warnings.push(format!("skill skipped: {e}")),
            }
        }
    }

    /// A skill by the name the model gave (a leading `/` is allowed, as users type it).
    pub fn get(&self, name: &str) -> Option<&SkillSpec> {
        let name = name.trim().trim_start_matches('/');
        self.skills.get(name)
    }

    pub fn names(&self) -> Vec<String> {
        self.skills.keys().cloned().collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &SkillSpec> {
        self.skills.values()
    }

    /// Keeps only the skills named in `allowed`.
    pub fn retain(&mut self, allowed: &[String]) {
        self.offer.reset();
        self.skills.retain(|name, _| {
            allowed
                .iter()
                .any(|a| a.trim().trim_start_matches('/') == name)
        });
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The Skill tool's definition for these skills, built by `build` once per change.
    pub fn tool_spec(&self, build: impl FnOnce(&SkillCatalog) -> ToolSpec) -> ToolSpec {
        self.offer.get_or_build(|| build(self))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_skill_reads_its_front_matter_and_names_its_folder() {
        let s = parse_skill(
            Path::new("/p/skills/pdf/SKILL.md"),
            "---\ndescription: Fill PDF forms\nallowed-tools: Read, Bash(python:*)\n---\nUse forms.py for $ARGUMENTS.\n",
            Origin::User,
        )
        .unwrap();
        assert_eq!(s.name, "pdf");
        assert_eq!(s.allowed_tools, vec!["Read", "Bash(python:*)"]);
        assert_eq!(
            s.content("a.pdf"),
            "Base directory for this skill: /p/skills/pdf\n\nUse forms.py for a.pdf."
        );
        let named = parse_skill(
            Path::new("/p/skills/x/SKILL.md"),
            "---\nname: other\ndescription: d\nallowed-tools: [Read]\n---\nbody",
            Origin::Plugin {
                name: "kit".into(),
                root: PathBuf::from("/k"),
            },
        )
        .unwrap();
        assert_eq!(named.name, "kit:other");
        assert_eq!(named.allowed_tools, vec!["Read"]);
    }

    #[test]
    fn skills_without_front_matter_or_description_are_refused() {
        let p = Path::new("/p/skills/a/SKILL.md");
        assert!(parse_skill(p, "text only", Origin::User).is_err());
        assert!(parse_skill(p, "---\nname: a\n---\nbody", Origin::User).is_err());
        assert!(parse_skill(p, "---\n: : :\n---\nbody", Origin::User).is_err());
    }

    #[test]
    fn folders_load_and_bad_skills_warn() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good");
        std::fs::create_dir_all(&good).unwrap();
        std::fs::write(good.join(SKILL_FILE), "---\ndescription: g\n---\nGood.").unwrap();
        let bad = dir.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join(SKILL_FILE), "no front matter").unwrap();
        std::fs::create_dir_all(dir.path().join("empty")).unwrap();
        let mut c = SkillCatalog::default();
        let mut warnings = Vec::new();
        c.add_dir(dir.path(), &Origin::Project, &mut warnings);
        assert_eq!(c.names(), vec!["good"]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(c.get("/good").unwrap().body, "Good.");
    }
}
