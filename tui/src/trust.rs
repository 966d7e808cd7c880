//! The trust question for a project not yet trusted, asked once as the reference asks it,
//! and recorded where the reference records it (`projects.<dir>.hasTrustDialogAccepted`
//! in `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`), which dcl's settings read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The client's trust record file for this environment.
pub fn record_path(env: &BTreeMap<String, String>, qoder: bool) -> Option<PathBuf> {
    let (var, file) = if qoder {
        ("QODER_CONFIG_DIR", ".qoder.json")
    } else {
        ("CLAUDE_CONFIG_DIR", ".claude.json")
    };
    match env.get(var) {
        Some(dir) => Some(Path::new(dir).join(file)),
        None => dcl_bridge::options::user_home(|k| env.get(k).cloned()).map(|h| h.join(file)),
    }
}

/// Whether `cwd` is (inside) a directory the record says the user trusted.
pub fn is_trusted(record: &Path, cwd: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(record) else {
        return false;
    };
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let cwd = real(cwd);
    root.get("projects")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| p["hasTrustDialogAccepted"].as_bool() == Some(true))
        .any(|(dir, _)| Path::new(dir).is_absolute() && cwd.starts_with(real(Path::new(dir))))
}

/// Records that the user trusts `cwd`, keeping everything else in the file; written to a
/// temporary file and renamed, so a crash leaves the old file or the new one.
pub fn record(record: &Path, cwd: &Path) -> std::io::Result<()> {
    let mut root = match std::fs::read_to_string(record) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(std::io::Error::other(format!(
                    "{} is not a JSON object; not changed",
                    record.display()
                )));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(e),
    };
    let key = std::fs::canonicalize(cwd)
        .unwrap_or_else(|_| cwd.to_path_buf())
        .display()
        .to_string();
    let projects = root
        .entry("projects")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| std::io::Error::other("`projects` is not an object"))?;
    let entry = projects.entry(key).or_insert_with(|| json!({}));
    if let Some(o) = entry.as_object_mut() {
        o.insert("hasTrustDialogAccepted".into(), Value::Bool(true));
    }
    let text = serde_json::to_string_pretty(&Value::Object(root)).map_err(std::io::Error::other)?;
    let tmp = record.with_extension(format!("json.tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, record)
}
