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

use crate::config::{ServerConfig, type_name};

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

impl FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Scope, String> {
        match s {
            "local" => Ok(Scope::Local),
            "project" => Ok(Scope::Project),
            "user" | "global" => Ok(Scope::User),
            other => Err(format!(
                "invalid scope {other:?}: expected local, project or user"
            )),
        }
    }
}

/// The servers of one scope; a missing or empty file has none.
pub fn load_scope(
    scope: Scope,
    home: &Path,
    cwd: &Path,
) -> Result<BTreeMap<String, ServerConfig>, String> {
    let path = scope.path(home, cwd);
    let doc = read_doc(&path)?;
    crate::config::parse_servers_json(&Value::Object(doc))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Every configured server with the scope it comes from (local > project > user). A file
/// that cannot be read or parsed is an error naming it; use [`load_scope`] per scope to
/// skip a broken file instead.
pub fn load_all(
    home: &Path,
    cwd: &Path,
) -> Result<BTreeMap<String, (ServerConfig, Scope)>, String> {
    let mut out = BTreeMap::new();
    for scope in Scope::ALL.iter().rev() {
        for (name, config) in load_scope(*scope, home, cwd)? {
            out.insert(name, (config, *scope));
        }
    }
    Ok(out)
}

/// Every scope that defines `name`, highest precedence first, with that scope's config.
pub fn find(name: &str, home: &Path, cwd: &Path) -> Result<Vec<(Scope, ServerConfig)>, String> {
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
) -> Result<PathBuf, String> {
    ServerConfig::from_json(name, server)?;
    let path = scope.path(home, cwd);
    let mut doc = read_doc(&path)?;
    let servers = servers_of(&mut doc, &path)?;
    if servers.contains_key(name) {
        return Err(format!(
            "MCP server {name:?} already exists in {} config ({})",
            scope,
            path.display()
        ));
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
) -> Result<Scope, String> {
    let scope = match scope {
        Some(s) => s,
        None => {
            let found = find(name, home, cwd)?;
            match found.as_slice() {
                [] => return Err(format!("No MCP server named {name:?} is configured")),
                [(s, _)] => *s,
                many => {
                    let scopes: Vec<&str> = many.iter().map(|(s, _)| s.as_str()).collect();
                    return Err(format!(
                        "MCP server {name:?} exists in several scopes ({}); choose one with --scope",
                        scopes.join(", ")
                    ));
                }
            }
        }
    };
    let path = scope.path(home, cwd);
    let mut doc = read_doc(&path)?;
    let servers = servers_of(&mut doc, &path)?;
    if servers.remove(name).is_none() {
        return Err(format!("No MCP server named {name:?} in {scope} config"));
    }
    write_doc(&path, &doc)?;
    Ok(scope)
}

fn read_doc(path: &Path) -> Result<Map<String, Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(other) => Err(format!(
            "{}: expected a JSON object, got {}",
            path.display(),
            type_name(&other)
        )),
        Err(e) => Err(format!("{}: invalid JSON: {e}", path.display())),
    }
}

fn servers_of<'a>(
    doc: &'a mut Map<String, Value>,
    path: &Path,
) -> Result<&'a mut Map<String, Value>, String> {
    let entry = doc
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if entry.is_null() {
        *entry = Value::Object(Map::new());
    }
    entry
        .as_object_mut()
        .ok_or_else(|| format!("{}: \"mcpServers\" is not an object", path.display()))
}

fn write_doc(path: &Path, doc: &Map<String, Value>) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut text = serde_json::to_string_pretty(doc)
        .map_err(|e| format!("cannot encode {}: {e}", path.display()))?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    tmp.write_all(text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
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
        assert!(e.contains("local, project, user"), "{e}");
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
        assert!(e.contains(".mcp.json"), "{e}");
    }
}
