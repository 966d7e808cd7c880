//! Plugins: a folder with `.claude-plugin/plugin.json` (Qoder `.qoder-plugin/`, dcl
//! `.dcl-plugin/`), and any of `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and
//! `.mcp.json`. The manifest may name more folders (`commands`, `agents`, `skills`: a path
//! or a list) and give `hooks` / `mcpServers` inline or as a path. Paths are relative to
//! the plugin's root; `${CLAUDE_PLUGIN_ROOT}` in hooks, MCP configs and bodies is the root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dcl_mcp::ServerConfig;
use serde_json::{Map, Value};

/// The manifest folders dcl reads, in order.
const MANIFEST_DIRS: &[&str] = &[".claude-plugin", ".qoder-plugin", ".dcl-plugin"];

/// Variables a plugin's files may use for its root.
pub const ROOT_VARS: &[&str] = &["CLAUDE_PLUGIN_ROOT", "QODER_PLUGIN_ROOT", "DCL_PLUGIN_ROOT"];

#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    pub name: String,
    pub root: PathBuf,
    pub manifest: Map<String, Value>,
    /// Where it was named: `flag` (`--plugin-dir`) or `settings`.
    pub source: String,
    /// `false` for `--plugin-dir-no-mcp`.
    pub with_mcp: bool,
}

/// Why a plugin folder, or a part of it (hooks, MCP servers), could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The folder itself (`dir` as it was named).
    #[error("plugin {}: {source}", dir.display())]
    Folder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("plugin {}: not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    #[error("plugin {}: plugin.json `name` must be a non-empty string", root.display())]
    BadName { root: PathBuf },
    #[error("plugin {name}: `hooks` must be a path or an object")]
    BadHooks { name: String },
    #[error("plugin {name}: hooks.{event} must be a list of matchers")]
    BadHookEvent { name: String, event: String },
    /// The MCP servers it declares, as dcl-mcp words what is wrong with them.
    #[error("plugin {name}: MCP servers: {message}")]
    McpServers { name: String, message: String },
    /// A JSON file of the plugin (manifest, hooks, `.mcp.json`).
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: not a JSON object", path.display())]
    NotAnObject { path: PathBuf },
}

impl Plugin {
    /// Reads a plugin folder's manifest; a folder without one is named after itself.
    pub fn open(dir: &Path, source: &str, with_mcp: bool) -> Result<Plugin, PluginError> {
        let root = std::fs::canonicalize(dir).map_err(|source| PluginError::Folder {
            dir: dir.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(PluginError::NotADirectory {
                dir: dir.to_path_buf(),
            });
        }
        let mut manifest = Map::new();
        for folder in MANIFEST_DIRS {
            let path = root.join(folder).join("plugin.json");
            if path.is_file() {
                manifest = read_object(&path)?;
                break;
            }
        }
        let name = match manifest.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_string(),
            Some(_) => {
                return Err(PluginError::BadName { root });
            }
            None => root
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or("plugin")
                .to_string(),
        };
        Ok(Plugin {
            name,
            root,
            manifest,
            source: source.to_string(),
            with_mcp,
        })
    }

    /// The plugin's `commands/`, `agents/` or `skills/` folders: the default one, then those
    /// the manifest names.
    pub fn dirs(&self, kind: &str) -> Vec<PathBuf> {
        let mut dirs = vec![self.root.join(kind)];
        match self.manifest.get(kind) {
            Some(Value::String(p)) => dirs.push(self.path(p)),
            Some(Value::Array(list)) => {
                dirs.extend(list.iter().filter_map(Value::as_str).map(|p| self.path(p)))
            }
            _ => {}
        }
        dirs.retain(|d| d.is_dir());
        dirs.dedup();
        dirs
    }

    /// The plugin's hooks as a settings `hooks` value (`{event: [matcher…]}`), from
    /// `hooks/hooks.json` and the manifest's `hooks`.
    pub fn hooks(&self) -> Result<Map<String, Value>, PluginError> {
        let mut out = Map::new();
        let default = self.root.join("hooks").join("hooks.json");
        let mut blocks = Vec::new();
        if default.is_file() {
            blocks.push(Value::Object(read_object(&default)?));
        }
        match self.manifest.get("hooks") {
            Some(Value::String(p)) => blocks.push(Value::Object(read_object(&self.path(p))?)),
            Some(v @ Value::Object(_)) => blocks.push(v.clone()),
            Some(_) => {
                return Err(PluginError::BadHooks {
                    name: self.name.clone(),
                });
            }
            None => {}
        }
        for block in blocks {
            // `{"hooks": {...}}` as the reference writes it, or the events directly.
            let events = match block.get("hooks") {
                Some(Value::Object(m)) => m.clone(),
                _ => block.as_object().cloned().unwrap_or_default(),
            };
            for (event, matchers) in events {
                let Value::Array(list) = self.substitute_value(matchers) else {
                    return Err(PluginError::BadHookEvent {
                        name: self.name.clone(),
                        event,
                    });
                };
                merge_hooks(&mut out, &event, list);
            }
        }
        Ok(out)
    }

    /// The plugin's MCP servers, named `plugin:<plugin>:<server>` as the reference does.
    pub fn mcp_servers(&self) -> Result<BTreeMap<String, ServerConfig>, PluginError> {
        if !self.with_mcp {
            return Ok(BTreeMap::new());
        }
        let mut value = None;
        let default = self.root.join(".mcp.json");
        if default.is_file() {
            value = Some(Value::Object(read_object(&default)?));
        }
        match self.manifest.get("mcpServers") {
            Some(Value::String(p)) => value = Some(Value::Object(read_object(&self.path(p))?)),
            Some(v @ Value::Object(_)) => {
                value = Some(serde_json::json!({"mcpServers": v}));
            }
            _ => {}
        }
        let Some(value) = value else {
            return Ok(BTreeMap::new());
        };
        let servers = dcl_mcp::parse_servers_json(&self.substitute_value(value)).map_err(|e| {
            PluginError::McpServers {
                name: self.name.clone(),
                message: e.to_string(),
            }
        })?;
        Ok(servers
            .into_iter()
            .map(|(n, c)| (format!("plugin:{}:{n}", self.name), c))
            .collect())
    }

    pub fn substitute(&self, text: &str) -> String {
        let root = self.root.display().to_string();
        ROOT_VARS.iter().fold(text.to_string(), |t, var| {
            t.replace(&format!("${{{var}}}"), &root)
        })
    }

    fn substitute_value(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.substitute(&s)),
            Value::Array(a) => {
                Value::Array(a.into_iter().map(|v| self.substitute_value(v)).collect())
            }
            Value::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, self.substitute_value(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    fn path(&self, p: &str) -> PathBuf {
        let p = self.substitute(p);
        let p = Path::new(&p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }
}

/// Appends `matchers` to `hooks[event]`.
pub fn merge_hooks(hooks: &mut Map<String, Value>, event: &str, matchers: Vec<Value>) {
    match hooks.get_mut(event) {
        Some(Value::Array(list)) => list.extend(matchers),
        _ => {
            hooks.insert(event.to_string(), Value::Array(matchers));
        }
    }
}

fn read_object(path: &Path) -> Result<Map<String, Value>, PluginError> {
    let text = std::fs::read_to_string(path).map_err(|source| PluginError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(PluginError::NotAnObject {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(PluginError::Json {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_plugin_reads_its_manifest_folders_hooks_and_servers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("kit");
        write(
            &root.join(".claude-plugin/plugin.json"),
            r#"{"name": "kit", "commands": "extra", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}"#,
        );
        write(&root.join("commands/a.md"), "A");
        write(&root.join("extra/b.md"), "B");
        write(
            &root.join("hooks/hooks.json"),
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}}"#,
        );
        write(
            &root.join(".mcp.json"),
            r#"{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db", "args": []}}}"#,
        );
        let p = Plugin::open(&root, "flag", true).unwrap();
        assert_eq!(p.name, "kit");
        assert_eq!(p.dirs("commands").len(), 2);
        assert!(p.dirs("agents").is_empty());
        let hooks = p.hooks().unwrap();
        let real = p.root.display().to_string();
        assert_eq!(
            hooks["PreToolUse"][0]["hooks"][0]["command"],
            json!(format!("{real}/check.sh"))
        );
        assert!(hooks.contains_key("Stop"));
        let servers = p.mcp_servers().unwrap();
        let db = servers.get("plugin:kit:db").unwrap();
        assert!(
            db.to_json().to_string().contains(&format!("{real}/db")),
            "{}",
            db.to_json()
        );
        let no_mcp = Plugin::open(&root, "flag", false).unwrap();
        assert!(no_mcp.mcp_servers().unwrap().is_empty());
    }

    #[test]
    fn bad_plugins_are_errors_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Plugin::open(&dir.path().join("missing"), "flag", true).is_err());
        let root = dir.path().join("bad");
        write(&root.join(".claude-plugin/plugin.json"), r#"{"name": 3}"#);
        assert!(
            Plugin::open(&root, "flag", true)
                .unwrap_err()
                .to_string()
                .contains("name")
        );
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(Plugin::open(&plain, "flag", true).unwrap().name, "plain");
        write(&root.join(".claude-plugin/plugin.json"), r#"{"hooks": 3}"#);
        assert!(Plugin::open(&root, "flag", true).unwrap().hooks().is_err());
    }
}
