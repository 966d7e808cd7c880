//! What a host's (or a PermissionRequest hook's) answer to an ask changes: the input
//! the tool runs with, and `updatedPermissions` — rules, mode and directories — applied to
//! the session and, for settings destinations, written atomically to the right file.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::PermissionMode;

/// The input a tool runs with after an "allow": a non-empty object replaces the
/// original; `{}`, `null`, absent or a non-object keeps it (Java SDKs send `{}` for
/// "allow as is").
pub fn effective_input(original: &Value, updated: Option<&Value>) -> Value {
    match updated {
        Some(Value::Object(m)) if !m.is_empty() => Value::Object(m.clone()),
        _ => original.clone(),
    }
}

/// Whether a deny answer asks to end the turn (`interrupt: true`).
pub fn interrupts(answer: &Value) -> bool {
    answer.get("interrupt").and_then(Value::as_bool) == Some(true)
}

/// Rules and settings the session itself holds (destination `session`, and what a
/// settings destination adds for the rest of this session too).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionPermissions {
    pub allow: Vec<String>,
    pub deny: Vec<String>,
    pub ask: Vec<String>,
    pub mode: Option<PermissionMode>,
    pub directories: Vec<PathBuf>,
}

/// The settings files a destination names.
#[derive(Debug, Clone)]
pub struct SettingsFiles {
    /// `userSettings`: `<dcl home>/settings.json` (`None`: no home known).
    pub user: Option<PathBuf>,
    /// `projectSettings`: `<cwd>/.dcl/settings.json`.
    pub project: PathBuf,
    /// `localSettings`: `<cwd>/.dcl/settings.local.json`.
    pub local: PathBuf,
}

impl SettingsFiles {
    /// The usual locations for a session in `cwd` with dcl home `home_dir` (`~/.dcl`).
    pub fn for_session(cwd: &Path, dcl_home: Option<&Path>) -> Self {
        SettingsFiles {
            user: dcl_home.map(|h| h.join("settings.json")),
            project: cwd.join(".dcl/settings.json"),
            local: cwd.join(".dcl/settings.local.json"),
        }
    }

    /// The files a session with these homes writes (docs/protocol.md "dcl home", "client home",
    /// "project folders"). Each destination has two files, the client's (`~/.claude`,
    /// `.claude/`; Qoder `~/.qoder`, `.qoder/`) and dcl's (dcl home, `.dcl/`), and dcl's
    /// wins where both set a key. So dcl's file is written when it exists (or dcl home was
    /// chosen explicitly), else the client's: the reference CLI sees the rule too, and no
    /// layer above it hides what was written.
    pub fn for_homes(homes: &dcl_store::Homes, cwd: &Path) -> Self {
        let pick =
            |client: Option<PathBuf>, dcl: Option<PathBuf>, prefer_dcl: bool| match (client, dcl) {
                (Some(c), Some(d)) => Some(if prefer_dcl || d.is_file() { d } else { c }),
                (c, d) => d.or(c),
            };
        let user = pick(
            homes.client_home.as_ref().map(|h| h.join("settings.json")),
            homes.dcl_home.as_ref().map(|h| h.join("settings.json")),
            homes.dcl_home_explicit,
        );
        let folders = homes.project_folders(cwd);
        let in_project = |name: &str| {
            let client = folders.first().map(|f| f.join(name));
            let dcl = folders.last().map(|f| f.join(name));
            pick(client, dcl, false).unwrap_or_else(|| cwd.join(".dcl").join(name))
        };
        SettingsFiles {
            user,
            project: in_project("settings.json"),
            local: in_project("settings.local.json"),
        }
    }
}

/// An update that could not be applied (the rest still are).
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("updatedPermissions entry {index}: {message}")]
    Invalid { index: usize, message: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a JSON object; left unchanged")]
    NotAnObject { path: PathBuf },
    #[error("{path} is reached through a symbolic link; not written")]
    Symlinked { path: PathBuf },
    #[error(
        "updatedPermissions entry {index}: project settings cannot hold bypassPermissions (dcl ignores it there); applied to this session only"
    )]
    BypassInProject { index: usize },
}

/// Applies every update: each changes `session`, and a settings destination is also
/// written to its file. Returns the errors of the entries that could not be applied.
pub fn apply_updates(
    updates: &[Value],
    session: &mut SessionPermissions,
    files: &SettingsFiles,
) -> Vec<UpdateError> {
    let mut errors = Vec::new();
    for (index, u) in updates.iter().enumerate() {
        let invalid = |message: &str| UpdateError::Invalid {
            index,
            message: message.to_string(),
        };
        let Some(kind) = u.get("type").and_then(Value::as_str) else {
            errors.push(invalid("no `type`"));
            continue;
        };
        let destination = u
            .get("destination")
            .and_then(Value::as_str)
            .unwrap_or("session");
        let file = match destination {
            "session" | "cliArg" => None,
            "userSettings" => match &files.user {
                Some(p) => Some(p.clone()),
                None => {
                    errors.push(invalid("userSettings: no home directory is known"));
                    continue;
                }
            },
            "projectSettings" => Some(files.project.clone()),
            "localSettings" => Some(files.local.clone()),
            other => {
                errors.push(invalid(&format!("unknown destination {other:?}")));
                continue;
            }
        };
        let change = match Change::parse(kind, u) {
            Ok(c) => c,
            Err(e) => {
                errors.push(invalid(&e.to_string()));
                continue;
            }
        };
        change.apply_to_session(session);
        // A committed project file cannot turn bypassPermissions on (trusted layers), so
        // writing it there would only look applied.
        if destination == "projectSettings"
            && matches!(change, Change::Mode(PermissionMode::BypassPermissions))
        {
            errors.push(UpdateError::BypassInProject { index });
            continue;
        }
        if let Some(path) = file
            && let Err(e) = edit_settings_file(&path, |obj| change.apply_to_settings(obj))
        {
            errors.push(e);
        }
    }
    errors
}

/// One parsed update.
#[derive(Debug, Clone)]
enum Change {
    Rules {
        op: RulesOp,
        behavior: String,
        rules: Vec<String>,
    },
    Mode(PermissionMode),
    Directories {
        add: bool,
        dirs: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RulesOp {
    Add,
    Replace,
    Remove,
}

/// Why one `updatedPermissions` entry could not be read (reported, with its index, as an
/// invalid update).
#[derive(Debug, thiserror::Error)]
pub enum PermissionUpdateError {
    #[error("unknown behavior {0:?}")]
    UnknownBehavior(String),
    /// A field the entry's type needs (`` `rules` array ``, `toolName`, …), as named.
    #[error("{0}")]
    Missing(&'static str),
    #[error(transparent)]
    Mode(#[from] super::InvalidPermissionMode),
    #[error("unknown type {0:?}")]
    UnknownType(String),
}

impl Change {
    fn parse(kind: &str, u: &Value) -> Result<Change, PermissionUpdateError> {
        match kind {
            "addRules" | "replaceRules" | "removeRules" => {
                let behavior = u.get("behavior").and_then(Value::as_str).unwrap_or("allow");
                if !matches!(behavior, "allow" | "deny" | "ask") {
                    return Err(PermissionUpdateError::UnknownBehavior(behavior.to_string()));
                }
                let rules = u
                    .get("rules")
                    .and_then(Value::as_array)
                    .ok_or(PermissionUpdateError::Missing("no `rules` array"))?
                    .iter()
                    .map(|r| {
                        let name = r
                            .get("toolName")
                            .and_then(Value::as_str)
                            .ok_or(PermissionUpdateError::Missing("a rule without toolName"))?;
                        Ok(match r.get("ruleContent").and_then(Value::as_str) {
                            Some(c) if !c.is_empty() => format!("{name}({c})"),
                            _ => name.to_string(),
                        })
                    })
                    .collect::<Result<Vec<_>, PermissionUpdateError>>()?;
                let op = match kind {
                    "addRules" => RulesOp::Add,
                    "replaceRules" => RulesOp::Replace,
                    _ => RulesOp::Remove,
                };
                Ok(Change::Rules {
                    op,
                    behavior: behavior.to_string(),
                    rules,
                })
            }
            "setMode" => {
                let mode = u
                    .get("mode")
                    .and_then(Value::as_str)
                    .ok_or(PermissionUpdateError::Missing("no `mode`"))?;
                Ok(Change::Mode(PermissionMode::parse(mode)?))
            }
            "addDirectories" | "removeDirectories" => {
                let dirs = u
                    .get("directories")
                    .and_then(Value::as_array)
                    .ok_or(PermissionUpdateError::Missing("no `directories` array"))?
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                Ok(Change::Directories {
                    add: kind == "addDirectories",
                    dirs,
                })
            }
            other => Err(PermissionUpdateError::UnknownType(other.to_string())),
        }
    }

    fn apply_to_session(&self, s: &mut SessionPermissions) {
        match self {
            Change::Rules {
                op,
                behavior,
                rules,
            } => {
                let list = match behavior.as_str() {
                    "deny" => &mut s.deny,
                    "ask" => &mut s.ask,
                    _ => &mut s.allow,
                };
                apply_rules(list, *op, rules);
            }
            Change::Mode(m) => s.mode = Some(*m),
            Change::Directories { add, dirs } => {
                for d in dirs {
                    let p = PathBuf::from(d);
                    if *add {
                        if !s.directories.contains(&p) {
                            s.directories.push(p);
                        }
                    } else {
                        s.directories.retain(|x| x != &p);
                    }
                }
            }
        }
    }

    fn apply_to_settings(&self, obj: &mut Map<String, Value>) {
        let perms = obj
            .entry("permissions")
            .or_insert_with(|| Value::Object(Map::new()));
        if !perms.is_object() {
            *perms = Value::Object(Map::new());
        }
        let Value::Object(perms) = perms else {
            return;
        };
        let mut edit_list = |key: &str, f: &dyn Fn(&mut Vec<String>)| {
            let mut list: Vec<String> = perms
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            f(&mut list);
            perms.insert(
                key.to_string(),
                Value::Array(list.into_iter().map(Value::String).collect()),
            );
        };
        match self {
            Change::Rules {
                op,
                behavior,
                rules,
            } => {
                edit_list(behavior, &|list| apply_rules(list, *op, rules));
            }
            Change::Mode(m) => {
                perms.insert("defaultMode".into(), Value::String(m.as_str().into()));
            }
            Change::Directories { add, dirs } => edit_list("additionalDirectories", &|list| {
                for d in dirs {
                    if *add {
                        if !list.contains(d) {
                            list.push(d.clone());
                        }
                    } else {
                        list.retain(|x| x != d);
                    }
                }
            }),
        }
    }
}

fn apply_rules(list: &mut Vec<String>, op: RulesOp, rules: &[String]) {
    match op {
        RulesOp::Replace => *list = rules.to_vec(),
        RulesOp::Add => {
            for r in rules {
                if !list.contains(r) {
                    list.push(r.clone());
                }
            }
        }
        RulesOp::Remove => list.retain(|x| !rules.contains(x)),
    }
}

/// Reads the settings object at `path` (missing: `{}`), changes it, and replaces the
/// file atomically: a temporary file in the same directory, then a rename, so a reader
/// never sees half a file and a crash leaves the old one.
pub fn edit_settings_file(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<(), UpdateError> {
    let write_err = |source| UpdateError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut obj = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Map::new(),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(UpdateError::NotAnObject {
                    path: path.to_path_buf(),
                });
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(write_err(e)),
    };
    change(&mut obj);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_err)?;
    // The folder must be where it says: a symlinked `.dcl/` (or settings file) planted
    // earlier would send the host's write somewhere else.
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if is_link(dir) || is_link(path) {
        return Err(UpdateError::Symlinked {
            path: path.to_path_buf(),
        });
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(obj))
        .map_err(|e| write_err(std::io::Error::other(e)))?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
    use std::io::Write as _;
    tmp.write_all(text.as_bytes()).map_err(write_err)?;
    tmp.as_file().sync_all().map_err(write_err)?;
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_updated_input_keeps_the_original() {
        let original = json!({"command": "ls"});
        assert_eq!(effective_input(&original, Some(&json!({}))), original);
        assert_eq!(effective_input(&original, None), original);
        assert_eq!(effective_input(&original, Some(&Value::Null)), original);
        assert_eq!(
            effective_input(&original, Some(&json!({"command": "pwd"}))),
            json!({"command": "pwd"})
        );
        assert!(interrupts(&json!({"behavior": "deny", "interrupt": true})));
        assert!(!interrupts(&json!({"behavior": "deny"})));
    }

    #[test]
    fn updates_go_to_the_session_and_the_named_files() {
        let dir = tempfile::tempdir().unwrap();
        let files = SettingsFiles::for_session(dir.path(), Some(&dir.path().join("home")));
        std::fs::create_dir_all(dir.path().join(".dcl")).unwrap();
        std::fs::write(
            &files.local,
            r#"{"model":"sonnet","permissions":{"allow":["Read"]}}"#,
        )
        .unwrap();
        let mut session = SessionPermissions::default();
        let errors = apply_updates(
            &[
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"localSettings"}),
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"deny","destination":"projectSettings"}),
                json!({"type":"setMode","mode":"acceptEdits","destination":"userSettings"}),
                json!({"type":"addDirectories","directories":["/data"],"destination":"session"}),
                json!({"type":"setMode","mode":"nope","destination":"session"}),
                json!({"type":"addRules","rules":[],"destination":"elsewhere"}),
            ],
            &mut session,
            &files,
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(session.allow, vec!["Bash(npm test)"]);
        assert_eq!(session.deny, vec!["Bash(rm:*)"]);
        assert_eq!(session.mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(session.directories, vec![PathBuf::from("/data")]);
        let local: Value =
            serde_json::from_str(&std::fs::read_to_string(&files.local).unwrap()).unwrap();
        assert_eq!(
            local,
            json!({"model":"sonnet","permissions":{"allow":["Read","Bash(npm test)"]}})
        );
        let project: Value =
            serde_json::from_str(&std::fs::read_to_string(&files.project).unwrap()).unwrap();
        assert_eq!(project["permissions"]["deny"], json!(["Bash(rm:*)"]));
        let user: Value =
            serde_json::from_str(&std::fs::read_to_string(files.user.as_ref().unwrap()).unwrap())
                .unwrap();
        assert_eq!(user["permissions"]["defaultMode"], "acceptEdits");
        // No temporary files are left next to the settings.
        let names: Vec<_> = std::fs::read_dir(dir.path().join(".dcl"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_broken_settings_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        std::fs::write(&p, "[1,2").unwrap();
        let e = edit_settings_file(&p, |o| {
            o.insert("x".into(), json!(1));
        });
        assert!(matches!(e, Err(UpdateError::NotAnObject { .. })));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "[1,2");
    }
}
