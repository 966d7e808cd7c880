//! The MCP config files behind `dcl mcp add|list|get|remove`, each `{"mcpServers": {…}}`:
//!
//! | scope | file | |
//! |---|---|---|
//! | `local` | `<cwd>/.dcl/mcp.local.json` | private to you, this project |
//! | `project` | `<cwd>/.mcp.json` | shared with the project (checked in) |
//! | `user` | `<dcl home>/mcp.json` (`DCL_CONFIG_DIR`, else `~/.dcl`) | yours, every project |
//!
//! A name in several scopes resolves local > project > user. Writes keep every other key
//! and server of the file untouched and replace the file atomically (temp file + rename,
//! mode 0600 on Unix).

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::config::{ConfigError, ServerConfig, type_name};

/// Where a server is configured. Ordered by precedence: `Local` wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Local,
    Project,
    User,
}

impl Scope {
    /// Every scope, highest precedence first.
    pub const ALL: [Scope; 3] = [Scope::Local, Scope::Project, Scope::User];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }

    /// For people: "Local config (private to you in this project)", ….
    pub fn describe(self) -> &'static str {
        match self {
            Scope::Local => "Local config (private to you in this project)",
            Scope::Project => "Project config (shared via .mcp.json)",
            Scope::User => "User config (available in all your projects)",
        }
    }

    /// The file of this scope; `home` is dcl home (the folder sessions read `mcp.json` from).
    pub fn path(self, home: &Path, cwd: &Path) -> PathBuf {
        match self {
            Scope::Local => cwd.join(".dcl").join("mcp.local.json"),
            Scope::Project => cwd.join(".mcp.json"),
            Scope::User => home.join("mcp.json"),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--scope` value that names no scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid scope {0:?}: expected local, project or user")]
pub struct InvalidScope(pub String);

/// Why a config file could not be read or changed. `Display` is what `dcl mcp` prints.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("MCP server {name:?} already exists in {scope} config ({})", path.display())]
    Exists {
        name: String,
        scope: Scope,
        path: PathBuf,
    },
    #[error("No MCP server named {0:?} is configured")]
    NotConfigured(String),
    #[error("MCP server {name:?} exists in several scopes ({}); choose one with --scope", scopes.join(", "))]
    SeveralScopes {
        name: String,
        scopes: Vec<&'static str>,
    },
    #[error("No MCP server named {name:?} in {scope} config")]
    NotInScope { name: String, scope: Scope },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: expected a JSON object, got {got}", path.display())]
    NotAnObject { path: PathBuf, got: &'static str },
    #[error("{}: invalid JSON: {source}", path.display())]
    InvalidJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: \"mcpServers\" is not an object", path.display())]
    ServersNotAnObject { path: PathBuf },
    /// `what`: `create`, `write in`, `write`.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot encode {}: {source}", path.display())]
    Encode {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot replace {}: {source}", path.display())]
    Replace {
        path: PathBuf,
        source: tempfile::PersistError,
    },
}

impl FromStr for Scope {
    type Err = InvalidScope;
    fn from_str(s: &str) -> Result<Scope, InvalidScope> {
        match s {
            "local" => Ok(Scope::Local),
            "project" => Ok(Scope::Project),
            "user" | "global" => Ok(Scope::User),
            other => Err(InvalidScope(other.to_string())),
        }
    }
}

/// The servers of one scope; a missing or empty file has none.
pub fn load_scope(
    scope: Scope,
    home: &Path,
    cwd: &Path,
) -> Result<BTreeMap<String, ServerConfig>, StoreError> {
    let path = scope.path(home, cwd);
    let doc = read_doc(&path)?;
    Ok(crate::config::parse_servers_json(&Value::Object(doc))
        .map_err(|e| e.within(path.display().to_string()))?)
}

/// Every configured server with the scope it comes from (local > project > user). A file
/// that cannot be read or parsed is an error naming it; use [`load_scope`] per scope to
/// skip a broken file instead.
pub fn load_all(
    home: &Path,
    cwd: &Path,
) -> Result<BTreeMap<String, (ServerConfig, Scope)>, StoreError> {
    let mut out = BTreeMap::new();
    for scope in Scope::ALL.iter().rev() {
        for (name, config) in load_scope(*scope, home, cwd)? {
            out.insert(name, (config, *scope));
        }
    }
    Ok(out)
}

/// Every scope that defines `name`, highest precedence first, with that scope's config.
pub fn find(name: &str, home: &Path, cwd: &Path) -> Result<Vec<(Scope, ServerConfig)>, StoreError> {
    let mut out = Vec::new();
    for scope in Scope::ALL {
        if let Some(c) = load_scope(scope, home, cwd)?.remove(name) {
            out.push((scope, c));
        }
    }
    Ok(out)
}

/// Adds `name` with the JSON `server` (validated; kept as given, unknown keys included) to
/// `scope`'s file. A name already in that scope is an error. Returns the file written.
pub fn add_server(
    scope: Scope,
    home: &Path,
    cwd: &Path,
    name: &str,
    server: &Value,
) -> Result<PathBuf, StoreError> {
    ServerConfig::from_json(name, server)?;
    let path = scope.path(home, cwd);
    let mut doc = read_doc(&path)?;
    let servers = servers_of(&mut doc, &path)?;
    if servers.contains_key(name) {
        return Err(StoreError::Exists {
            name: name.to_string(),
            scope,
            path,
        });
    }
    servers.insert(name.to_string(), server.clone());
    write_doc(&path, &doc)?;
    Ok(path)
}

/// Removes `name`. Without a scope it must exist in exactly one. Returns the scope it was
/// removed from.
pub fn remove_server(
    scope: Option<Scope>,
    home: &Path,
    cwd: &Path,
    name: &str,
) -> Result<Scope, StoreError> {
    let scope = match scope {
        Some(s) => s,
        None => {
            let found = find(name, home, cwd)?;
            match found.as_slice() {
                [] => return Err(StoreError::NotConfigured(name.to_string())),
                [(s, _)] => *s,
                many => {
                    return Err(StoreError::SeveralScopes {
                        name: name.to_string(),
                        scopes: many.iter().map(|(s, _)| s.as_str()).collect(),
                    });
                }
            }
        }
    };
    let path = scope.path(home, cwd);
    let mut doc = read_doc(&path)?;
    let servers = servers_of(&mut doc, &path)?;
    if servers.remove(name).is_none() {
        return Err(StoreError::NotInScope {
            name: name.to_string(),
            scope,
        });
    }
    write_doc(&path, &doc)?;
    Ok(scope)
}

fn read_doc(path: &Path) -> Result<Map<String, Value>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(StoreError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(other) => Err(StoreError::NotAnObject {
            path: path.to_path_buf(),
            got: type_name(&other),
        }),
        Err(source) => Err(StoreError::InvalidJson {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn servers_of<'a>(
    doc: &'a mut Map<String, Value>,
    path: &Path,
) -> Result<&'a mut Map<String, Value>, StoreError> {
    let entry = doc
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if entry.is_null() {
        *entry = Value::Object(Map::new());
    }
    entry
        .as_object_mut()
        .ok_or_else(|| StoreError::ServersNotAnObject {
            path: path.to_path_buf(),
        })
}

fn write_doc(path: &Path, doc: &Map<String, Value>) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| StoreError::Io { what, path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io("create", &dir))?;
    let mut text = serde_json::to_string_pretty(doc).map_err(|source| StoreError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(io("write in", &dir))?;
    tmp.write_all(text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(io("write", path))?;
    tmp.persist(path).map_err(|source| StoreError::Replace {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_list_remove_across_scopes() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let (h, c) = (home.path(), cwd.path());
        assert!(load_all(h, c).unwrap().is_empty());
        add_server(Scope::User, h, c, "s", &json!({"command": "user-cmd"})).unwrap();
        add_server(
            Scope::Project,
            h,
            c,
            "s",
            &json!({"command": "project-cmd"}),
        )
        .unwrap();
        add_server(
            Scope::User,
            h,
            c,
            "u",
            &json!({"type": "http", "url": "http://x/mcp"}),
        )
        .unwrap();
        let all = load_all(h, c).unwrap();
        assert_eq!(all["s"].1, Scope::Project);
        assert_eq!(all["u"].1, Scope::User);
        add_server(
            Scope::Local,
            h,
            c,
            "s",
            &json!({"command": "local-cmd", "extra": 1}),
        )
        .unwrap();
        assert_eq!(load_all(h, c).unwrap()["s"].1, Scope::Local);
        // Unknown keys survive.
        let text = std::fs::read_to_string(Scope::Local.path(h, c)).unwrap();
        assert!(text.contains("\"extra\""), "{text}");
        // Duplicates in one scope and invalid configs are refused.
        assert!(add_server(Scope::User, h, c, "s", &json!({"command": "x"})).is_err());
        assert!(add_server(Scope::User, h, c, "bad", &json!({"type": "ws"})).is_err());
        // Ambiguous removal needs a scope.
        let e = remove_server(None, h, c, "s").unwrap_err();
        assert!(e.to_string().contains("local, project, user"), "{e}");
        assert_eq!(
            remove_server(Some(Scope::Local), h, c, "s").unwrap(),
            Scope::Local
        );
        assert_eq!(
            remove_server(Some(Scope::Project), h, c, "s").unwrap(),
            Scope::Project
        );
        assert_eq!(remove_server(None, h, c, "s").unwrap(), Scope::User);
        assert!(remove_server(None, h, c, "s").is_err());
        assert_eq!(load_all(h, c).unwrap().len(), 1);
    }

    #[test]
    fn other_keys_are_kept_and_broken_files_named() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let p = Scope::Project.path(home.path(), cwd.path());
        std::fs::write(&p, r#"{"keep": true, "mcpServers": {}}"#).unwrap();
        add_server(
            Scope::Project,
            home.path(),
            cwd.path(),
            "a",
            &json!({"command": "x"}),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["keep"], json!(true));
        std::fs::write(&p, "{oops").unwrap();
        let e = load_all(home.path(), cwd.path()).unwrap_err();
        assert!(e.to_string().contains(".mcp.json"), "{e}");
    }
}
