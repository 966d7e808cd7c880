//! Remembering the user's answer about a project's `.mcp.json` server where the
//! reference remembers it: the project's local settings (`.claude/settings.local.json`,
//! not committed), under `enabledMcpjsonServers`, `disabledMcpjsonServers` or
//! `enableAllProjectMcpServers` — the keys the engine reads before asking, so the next
//! start does not ask again.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Use this server.
    Enable,
    /// Use this and every other server of the project's `.mcp.json`.
    EnableAll,
    /// Do not use it.
    Disable,
}

impl Choice {
    /// What was done, as the user reads it.
    pub fn said(self, server: &str, file: &Path) -> String {
        let what = match self {
            Choice::Enable => format!("MCP server `{server}` approved"),
            Choice::EnableAll => "All MCP servers of this project's .mcp.json approved".into(),
            Choice::Disable => format!("MCP server `{server}` not started"),
        };
        format!("{what} (remembered in {})", file.display())
    }
}

/// The local settings file of the project at `cwd`: `.qoder/` for Qoder's dialect.
pub fn local_settings(cwd: &Path, qoder: bool) -> PathBuf {
    let folder = if qoder { ".qoder" } else { ".claude" };
    cwd.join(folder).join("settings.local.json")
}

/// Records `choice` for `server` in `file`, keeping everything else in it; written to a
/// temporary file and renamed, so a crash leaves the old file or the new one.
pub fn record(file: &Path, server: &str, choice: Choice) -> std::io::Result<()> {
    let mut root = match std::fs::read_to_string(file) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(std::io::Error::other(format!(
                    "{} is not a JSON object; not changed",
                    file.display()
                )));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(e),
    };
    match choice {
        Choice::EnableAll => {
            root.insert("enableAllProjectMcpServers".into(), Value::Bool(true));
        }
        Choice::Enable => {
            add_name(&mut root, "enabledMcpjsonServers", server)?;
            remove_name(&mut root, "disabledMcpjsonServers", server);
        }
        Choice::Disable => {
            add_name(&mut root, "disabledMcpjsonServers", server)?;
            remove_name(&mut root, "enabledMcpjsonServers", server);
        }
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text =
        serde_json::to_string_pretty(&Value::Object(root)).map_err(std::io::Error::other)?;
    text.push('\n');
    let tmp = file.with_extension(format!("json.tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, file)
}

fn add_name(root: &mut Map<String, Value>, key: &str, name: &str) -> std::io::Result<()> {
    let list = root
        .entry(key)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| std::io::Error::other(format!("`{key}` is not a list; not changed")))?;
    if !list.iter().any(|v| v.as_str() == Some(name)) {
        list.push(Value::String(name.to_string()));
    }
    Ok(())
}

fn remove_name(root: &mut Map<String, Value>, key: &str, name: &str) {
    if let Some(list) = root.get_mut(key).and_then(Value::as_array_mut) {
        list.retain(|v| v.as_str() != Some(name));
    }
}
