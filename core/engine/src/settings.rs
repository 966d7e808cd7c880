//! Settings files, merged in precedence order: user (`~/.dcl/settings.json`) → project
//! (`.dcl/settings.json`) → local (`.dcl/settings.local.json`) → flag (`--settings` and
//! `apply_flag_settings`). Later layers win; objects merge key by key.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// One source of settings, as `get_settings` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub source: &'static str,
    pub path: Option<PathBuf>,
    pub settings: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub layers: Vec<Layer>,
}

/// The file sources, in precedence order.
pub const FILE_SOURCES: &[&str] = &["user", "project", "local"];

impl Settings {
    /// Loads the enabled file sources (all when `sources` is `None`; `Some([])` loads none)
    /// and the `--settings` value (inline JSON or a path, relative to `cwd`).
    pub fn load(
        home: Option<&Path>,
        cwd: &Path,
        sources: Option<&[String]>,
        flag: Option<&str>,
    ) -> Result<Settings, String> {
        let enabled = |s: &str| sources.is_none_or(|list| list.iter().any(|x| x.trim() == s));
        let mut layers = Vec::new();
        let candidates: [(&'static str, Option<PathBuf>); 3] = [
            ("user", home.map(|h| h.join(".dcl/settings.json"))),
            ("project", Some(cwd.join(".dcl/settings.json"))),
            ("local", Some(cwd.join(".dcl/settings.local.json"))),
        ];
        for (source, path) in candidates {
            let Some(path) = path else { continue };
            if !enabled(source) || !path.is_file() {
                continue;
            }
            let mut settings = read_object(&path)?;
            if source == "project" {
                untrusted_project_layer(&mut settings, &path);
            }
            layers.push(Layer {
                source,
                path: Some(path),
                settings,
            });
        }
        let mut flag_layer = Map::new();
        let mut flag_path = None;
        if let Some(arg) = flag.map(str::trim).filter(|a| !a.is_empty()) {
            if arg.starts_with('{') {
                flag_layer = parse_object(arg).map_err(|e| format!("--settings: {e}"))?;
            } else {
                let p = cwd.join(arg);
                flag_layer = read_object(&p)?;
                flag_path = Some(p);
            }
        }
        layers.push(Layer {
            source: "flag",
            path: flag_path,
            settings: flag_layer,
        });
        Ok(Settings { layers })
    }

    /// All layers merged.
    pub fn effective(&self) -> Map<String, Value> {
        let mut out = Map::new();
        for l in &self.layers {
            merge(&mut out, &l.settings);
        }
        out
    }

    /// A value by dotted path in the merged settings.
    pub fn get(&self, dotted: &str) -> Option<Value> {
        let eff = Value::Object(self.effective());
        let mut cur = &eff;
        for part in dotted.split('.') {
            cur = cur.get(part)?;
        }
        Some(cur.clone())
    }

    pub fn get_str(&self, dotted: &str) -> Option<String> {
        self.get(dotted)
            .and_then(|v| v.as_str().map(str::to_string))
    }

    pub fn get_strings(&self, dotted: &str) -> Vec<String> {
        self.get(dotted)
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    /// Sets a dotted key in the flag layer (what `apply_flag_settings` changes).
    pub fn set_flag(&mut self, dotted: &str, value: Value) {
        let layer = match self.layers.iter_mut().find(|l| l.source == "flag") {
            Some(l) => l,
            None => {
                self.layers.push(Layer {
                    source: "flag",
                    path: None,
                    settings: Map::new(),
                });
                let last = self.layers.len() - 1;
                &mut self.layers[last]
            }
        };
        let mut cur = &mut layer.settings;
        let parts: Vec<&str> = dotted.split('.').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            let entry = cur
                .entry(part.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            match entry {
                Value::Object(m) => cur = m,
                _ => return,
            }
        }
        if let Some(last) = parts.last() {
            if value.is_null() {
                cur.remove(*last);
            } else {
                cur.insert(last.to_string(), value);
            }
        }
    }
}

// --- trusted layers (permissions helper): keep this function and its one call ---
/// A committed project layer cannot grant itself power (bypassPermissions, start-up
/// `env`): what it tried is dropped with a warning.
fn untrusted_project_layer(settings: &mut Map<String, Value>, path: &Path) {
    for w in crate::permissions::trusted::filter_project_layer(settings) {
        tracing::warn!("{}: {w}", path.display());
    }
}
// --- end trusted layers ---

fn read_object(path: &Path) -> Result<Map<String, Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read settings file {}: {e}", path.display()))?;
    parse_object(&text).map_err(|e| format!("settings file {}: {e}", path.display()))
}

fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("settings must be a JSON object".into()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

/// Deep merge: objects merge by key, anything else is replaced.
fn merge(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layers_merge_in_precedence_order() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".dcl")).unwrap();
        std::fs::create_dir_all(cwd.path().join(".dcl")).unwrap();
        std::fs::write(
            home.path().join(".dcl/settings.json"),
            r#"{"model":"a","permissions":{"allow":["Read"]}}"#,
        )
        .unwrap();
        std::fs::write(cwd.path().join(".dcl/settings.json"), r#"{"model":"b"}"#).unwrap();
        std::fs::write(
            cwd.path().join(".dcl/settings.local.json"),
            r#"{"permissions":{"deny":["Bash"]}}"#,
        )
        .unwrap();
        let s = Settings::load(
            Some(home.path()),
            cwd.path(),
            None,
            Some(r#"{"effortLevel":"high"}"#),
        )
        .unwrap();
        let sources: Vec<_> = s.layers.iter().map(|l| l.source).collect();
        assert_eq!(sources, vec!["user", "project", "local", "flag"]);
        assert_eq!(s.get_str("model").as_deref(), Some("b"));
        assert_eq!(s.get_strings("permissions.allow"), vec!["Read"]);
        assert_eq!(s.get_strings("permissions.deny"), vec!["Bash"]);
        assert_eq!(s.get_str("effortLevel").as_deref(), Some("high"));
    }

    #[test]
    fn setting_sources_filter_and_empty_means_none() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".dcl")).unwrap();
        std::fs::write(home.path().join(".dcl/settings.json"), r#"{"model":"a"}"#).unwrap();
        let none: Vec<String> = vec![];
        let s = Settings::load(Some(home.path()), cwd.path(), Some(&none), None).unwrap();
        assert_eq!(s.get_str("model"), None);
        let s = Settings::load(
            Some(home.path()),
            cwd.path(),
            Some(&["user".to_string()]),
            None,
        )
        .unwrap();
        assert_eq!(s.get_str("model").as_deref(), Some("a"));
    }

    #[test]
    fn bad_files_are_clear_errors_and_flags_set_dotted_keys() {
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(cwd.path().join(".dcl")).unwrap();
        std::fs::write(cwd.path().join(".dcl/settings.json"), "{nope").unwrap();
        let err = Settings::load(None, cwd.path(), None, None).unwrap_err();
        assert!(err.contains("settings.json"), "{err}");
        let mut s = Settings::load(None, tempfile::tempdir().unwrap().path(), None, None).unwrap();
        s.set_flag("permissions.defaultMode", json!("plan"));
        assert_eq!(
            s.get_str("permissions.defaultMode").as_deref(),
            Some("plan")
        );
    }
}
