//! Subagent definitions: built in, from agent files (`agents/*.md` with front matter in
//! dcl home, the client home and the project folders), from `--agents` and from
//! `initialize.agents`. Later sources replace earlier ones of the same name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use dcl_protocol::AgentDefinition;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Where a definition came from (shown in warnings, and the order of precedence).
#[derive(Debug, Clone, PartialEq)]
pub enum AgentSource {
    BuiltIn,
    File(PathBuf),
    /// A plugin's `agents/` folder (the agent is named `plugin:name`).
    Plugin(String),
    Flag,
    Initialize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    pub name: String,
    pub description: String,
    /// The subagent's system prompt.
    pub prompt: String,
    /// The tools it may use; `None` means all of the session's (never the Agent tool).
    pub tools: Option<Vec<String>>,
    pub disallowed_tools: Vec<String>,
    /// `sonnet|opus|haiku|inherit` or a model id; `None` inherits.
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    pub background: bool,
    pub source: AgentSource,
}

/// The general-purpose agent every session has, as the reference does.
pub const GENERAL_PURPOSE: &str = "general-purpose";

const GENERAL_PROMPT: &str = "You are an agent for a coding assistant. Given the user's task, use the tools available to complete it fully, then reply with a concise report of what you found or did: the caller sees only your final message.";
const EXPLORE_PROMPT: &str = "You are a read-only exploration agent. Search and read the codebase to answer the question you are given; never change files. Reply with a concise, specific answer naming the files and lines that matter.";

fn builtins() -> Vec<AgentSpec> {
    vec![
        AgentSpec {
            name: GENERAL_PURPOSE.into(),
            description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks.".into(),
            prompt: GENERAL_PROMPT.into(),
            tools: None,
            disallowed_tools: Vec::new(),
            model: None,
            max_turns: None,
            background: false,
            source: AgentSource::BuiltIn,
        },
        AgentSpec {
            name: "Explore".into(),
            description: "Fast read-only agent for exploring codebases: finds files, searches code, answers questions about it.".into(),
            prompt: EXPLORE_PROMPT.into(),
            tools: Some(vec!["Read".into(), "Glob".into(), "Grep".into(), "Bash".into()]),
            disallowed_tools: vec!["Write".into(), "Edit".into(), "NotebookEdit".into()],
            model: None,
            max_turns: None,
            background: false,
            source: AgentSource::BuiltIn,
        },
    ]
}

/// Front matter of an agent file (the reference's keys).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
    /// `Read, Grep` or a list.
    tools: Option<ToolList>,
    disallowed_tools: Option<ToolList>,
    model: Option<String>,
    max_turns: Option<u32>,
    background: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
}

impl ToolList {
    fn names(self) -> Vec<String> {
        match self {
            ToolList::Text(t) => t
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            ToolList::List(l) => l,
        }
    }
}

/// Splits `---\n<yaml>\n---\n<body>` (the body alone when there is no front matter).
pub fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    for marker in ["\n---\n", "\n---\r\n"] {
        if let Some(end) = rest.find(marker) {
            return (Some(&rest[..end]), &rest[end + marker.len()..]);
        }
    }
    match rest
        .strip_suffix("\n---")
        .or_else(|| rest.strip_suffix("\n---\n"))
    {
        Some(fm) => (Some(fm), ""),
        None => (None, text),
    }
}

/// Why an agent file or an `--agents` / `initialize.agents` definition was not taken.
#[derive(Debug, thiserror::Error)]
pub enum AgentDefinitionError {
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
    #[error(
        "{}: no front matter (an agent file starts with ---, name and description)",
        path.display()
    )]
    NoFrontMatter { path: PathBuf },
    #[error("{}: the agent has no name", path.display())]
    NoName { path: PathBuf },
    #[error("{}: front matter needs a description", path.display())]
    NoDescription { path: PathBuf },
    /// An `{name: AgentDefinition}` entry that is not a definition.
    #[error("agents.{name}: {source}")]
    Definition {
        name: String,
        source: serde_json::Error,
    },
}

/// Reads one agent file; the file name (without `.md`) names the agent unless its front
/// matter does.
pub fn parse_agent_file(path: &Path, text: &str) -> Result<AgentSpec, AgentDefinitionError> {
    let (front, body) = split_front_matter(text);
    let fm: FrontMatter = match front {
        Some(y) => {
            serde_yaml_ng::from_str(y).map_err(|source| AgentDefinitionError::FrontMatter {
                path: path.to_path_buf(),
                source,
            })?
        }
        None => {
            return Err(AgentDefinitionError::NoFrontMatter {
                path: path.to_path_buf(),
            });
        }
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let name = fm.name.unwrap_or(stem);
    if name.trim().is_empty() {
        return Err(AgentDefinitionError::NoName {
            path: path.to_path_buf(),
        });
    }
    Ok(AgentSpec {
        description: fm
            .description
            .ok_or_else(|| AgentDefinitionError::NoDescription {
                path: path.to_path_buf(),
            })?,
        prompt: body.trim().to_string(),
        tools: fm.tools.map(ToolList::names),
        disallowed_tools: fm.disallowed_tools.map(ToolList::names).unwrap_or_default(),
        model: fm.model,
        max_turns: fm.max_turns,
        background: fm.background.unwrap_or(false),
        source: AgentSource::File(path.to_path_buf()),
        name,
    })
}

#[derive(Debug, Clone, Default)]
pub struct AgentCatalog {
    // Shared, not copied: every session starts with the same built-ins.
    agents: BTreeMap<String, Arc<AgentSpec>>,
    /// The Agent tool's definition, which lists these agents.
    offer: crate::derived_spec::DerivedSpec,
}

/// Built once per process.
static BUILTINS: LazyLock<Vec<Arc<AgentSpec>>> =
    LazyLock::new(|| builtins().into_iter().map(Arc::new).collect());

impl AgentCatalog {
    /// The built-in agents, then those of every `agents/` folder in `dirs` (in order, so a
    /// later folder's agent replaces an earlier one of the same name). Unreadable files
    /// become warnings.
    pub fn load(dirs: &[PathBuf]) -> (AgentCatalog, Vec<String>) {
        let mut catalog = AgentCatalog::default();
        for a in BUILTINS.iter() {
            catalog.agents.insert(a.name.clone(), a.clone());
        }
        let mut warnings = Vec::new();
        for dir in dirs {
            let (found, mut w) = Self::read_dir(dir);
            for a in found {
                catalog.insert(a);
            }
            warnings.append(&mut w);
        }
        (catalog, warnings)
    }

    /// Adds a plugin's agent files, named `plugin:name` as the reference lists them.
    pub fn add_plugin_dir(&mut self, plugin: &str, dir: &Path) -> Vec<String> {
        let (found, warnings) = Self::read_dir(dir);
        for mut a in found {
            a.name = format!("{plugin}:{}", a.name);
            a.source = AgentSource::Plugin(plugin.to_string());
            self.insert(a);
        }
        warnings
    }

    /// The agent files of one folder, in name order, and what could not be read.
    fn read_dir(dir: &Path) -> (Vec<AgentSpec>, Vec<String>) {
        let mut found = Vec::new();
        let mut warnings = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (found, warnings);
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
            .collect();
        files.sort();
        for path in files {
            match std::fs::read_to_string(&path)
                .map_err(|source| AgentDefinitionError::Read {
                    path: path.clone(),
                    source,
                })
                .and_then(|t| parse_agent_file(&path, &t))
            {
                Ok(a) => found.push(a),
                Err(e) => warnings.push(format!("agent file skipped: {e}")),
            }
        }
        (found, warnings)
    }

    pub fn insert(&mut self, agent: AgentSpec) {
        self.offer.reset();
        self.agents.insert(agent.name.clone(), Arc::new(agent));
    }

    /// Adds `{name: AgentDefinition}` entries (`--agents`, `initialize.agents`).
    pub fn add_definitions(
        &mut self,
        definitions: &Map<String, Value>,
        source: AgentSource,
    ) -> Result<(), AgentDefinitionError> {
        for (name, value) in definitions {
            let d: AgentDefinition = serde_json::from_value(value.clone()).map_err(|source| {
                AgentDefinitionError::Definition {
                    name: name.clone(),
                    source,
                }
            })?;
            self.insert(AgentSpec {
                name: name.clone(),
                description: d.description,
                prompt: d.prompt,
                tools: d.tools,
                disallowed_tools: d.disallowed_tools.unwrap_or_default(),
                model: d.model,
                max_turns: d.max_turns,
                background: d.background.unwrap_or(false),
                source: source.clone(),
            });
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&AgentSpec> {
        self.agents.get(name).map(|a| &**a)
    }

    pub fn names(&self) -> Vec<String> {
        self.agents.keys().cloned().collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &AgentSpec> {
        self.agents.values().map(|a| &**a)
    }

    /// The Agent tool's definition for these agents, built by `build` once per change.
    pub fn tool_spec(
        &self,
        build: impl FnOnce(&AgentCatalog) -> dcl_protocol::ToolSpec,
    ) -> dcl_protocol::ToolSpec {
        self.offer.get_or_build(|| build(self))
    }
}

/// The folders agent files are read from, lowest precedence first: the client home's
/// and dcl home's `agents/` (user settings), then the project's `.claude/agents` and
/// `.dcl/agents` (project settings).
pub fn agent_dirs(
    dcl_home: Option<&Path>,
    client_home: Option<&Path>,
    client_folder: &str,
    cwd: &Path,
    user: bool,
    project: bool,
) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if user {
        dirs.extend(client_home.map(|h| h.join("agents")));
        dirs.extend(dcl_home.map(|h| h.join("agents")));
    }
    if project {
        dirs.push(cwd.join(client_folder).join("agents"));
        dirs.push(cwd.join(".dcl").join("agents"));
    }
    dirs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_agent_file_reads_its_front_matter_and_body() {
        let a = parse_agent_file(
            Path::new("/x/reviewer.md"),
            "---\ndescription: Reviews code\ntools: Read, Grep\nmodel: haiku\n---\nYou review.\n",
        )
        .unwrap();
        assert_eq!(a.name, "reviewer");
        assert_eq!(a.description, "Reviews code");
        assert_eq!(a.tools, Some(vec!["Read".to_string(), "Grep".to_string()]));
        assert_eq!(a.model.as_deref(), Some("haiku"));
        assert_eq!(a.prompt, "You review.");
        let listed = parse_agent_file(
            Path::new("/x/a.md"),
            "---\nname: other\ndescription: d\ntools:\n  - Bash\n---\nbody",
        )
        .unwrap();
        assert_eq!(listed.name, "other");
        assert_eq!(listed.tools, Some(vec!["Bash".to_string()]));
    }

    #[test]
    fn files_without_front_matter_or_description_are_refused() {
        assert!(parse_agent_file(Path::new("/x/a.md"), "just text").is_err());
        assert!(parse_agent_file(Path::new("/x/a.md"), "---\nname: a\n---\nbody").is_err());
        assert!(parse_agent_file(Path::new("/x/a.md"), "---\n: : :\n---\nbody").is_err());
    }

    #[test]
    fn later_sources_replace_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(
            agents.join("general-purpose.md"),
            "---\ndescription: mine\n---\nCustom.",
        )
        .unwrap();
        std::fs::write(agents.join("broken.md"), "no front matter").unwrap();
        let (mut c, warnings) = AgentCatalog::load(std::slice::from_ref(&agents));
        assert_eq!(c.get(GENERAL_PURPOSE).unwrap().description, "mine");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let mut defs = Map::new();
        defs.insert(
            "greeter".into(),
            serde_json::json!({"description": "greets", "prompt": "Say hi", "tools": ["Read"], "model": "haiku"}),
        );
        c.add_definitions(&defs, AgentSource::Initialize).unwrap();
        assert_eq!(c.get("greeter").unwrap().tools, Some(vec!["Read".into()]));
        assert!(c.names().contains(&"Explore".to_string()));
        let mut bad = Map::new();
        bad.insert("x".into(), serde_json::json!({"prompt": 3}));
        assert!(c.add_definitions(&bad, AgentSource::Flag).is_err());
        let w = c.add_plugin_dir("kit", &agents);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(
            c.get("kit:general-purpose").unwrap().source,
            AgentSource::Plugin("kit".into())
        );
        assert_eq!(c.get(GENERAL_PURPOSE).unwrap().description, "mine");
    }
}
