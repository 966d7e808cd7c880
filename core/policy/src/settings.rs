//! Settings files, merged in precedence order (docs/protocol.md "dcl home", "client home", "project
//! folders"): user (the client home's `settings.json` — `~/.claude` or `$CLAUDE_CONFIG_DIR`,
//! Qoder `~/.qoder` — then dcl home's) → project (`.claude/settings.json`, Qoder
//! `.qoder/settings.json`, then `.dcl/settings.json`) → local (the same folders'
//! `settings.local.json`) → flag (`--settings` and `apply_flag_settings`). Later layers win;
//! objects merge key by key, so `.dcl/` wins over the client's folder where both set a key.
//! Each file read is its own layer, so `get_settings` lists every one.

use std::path::{Path, PathBuf};

use dcl_store::Homes;
use serde_json::{Map, Value};

/// One source of settings, as `get_settings` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// `user`, `project`, `local`, `flag` or `managed`.
    pub source: &'static str,
    pub path: Option<PathBuf>,
    pub settings: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub layers: Vec<Layer>,
    /// The folders that may hold `agents/`, `commands/`, `skills/`, `output-styles/`,
    /// lowest precedence first (user folders, then project folders).
    pub folders: Vec<PathBuf>,
}

/// The file sources, in precedence order.
pub const FILE_SOURCES: &[&str] = &["user", "project", "local"];

/// The output styles every session has.
pub const BUILT_IN_OUTPUT_STYLES: &[&str] = &["default", "Explanatory", "Learning"];

/// Where the file layers are, lowest precedence first within each source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsPaths {
    /// User `settings.json` files: the client home's, then dcl home's.
    pub user_files: Vec<PathBuf>,
    /// User folders (client home, dcl home).
    pub user_folders: Vec<PathBuf>,
    /// Project folders: the client's (`.claude/`, Qoder `.qoder/`), then `.dcl/`.
    pub project_folders: Vec<PathBuf>,
    /// The client's own trust records (`~/.claude.json`, or `.claude.json` in
    /// `CLAUDE_CONFIG_DIR`; Qoder `~/.qoder.json` / `$QODER_CONFIG_DIR/.qoder.json`).
    pub trust_records: Vec<PathBuf>,
}

impl SettingsPaths {
    /// The layers of a session with these homes in `cwd`.
    pub fn from_homes(homes: &Homes, cwd: &Path) -> SettingsPaths {
        SettingsPaths {
            user_files: homes.user_settings_files(),
            user_folders: homes
                .user_folders()
                .into_iter()
                .map(Path::to_path_buf)
                .collect(),
            project_folders: homes.project_folders(cwd),
            trust_records: client_trust_record(homes).into_iter().collect(),
        }
    }

    /// The Claude-dialect layers under a user's home: `~/.claude`, `~/.dcl`, and the
    /// project's `.claude/` and `.dcl/`.
    pub fn under_home(home: Option<&Path>, cwd: &Path) -> SettingsPaths {
        let user_folders: Vec<PathBuf> = home
            .map(|h| vec![h.join(".claude"), h.join(".dcl")])
            .unwrap_or_default();
        SettingsPaths {
            user_files: user_folders
                .iter()
                .map(|f| f.join("settings.json"))
                .collect(),
            user_folders,
            project_folders: vec![cwd.join(".claude"), cwd.join(".dcl")],
            trust_records: home.map(|h| h.join(".claude.json")).into_iter().collect(),
        }
    }

    fn candidates(&self) -> Vec<(&'static str, PathBuf)> {
        let mut out: Vec<(&'static str, PathBuf)> = self
            .user_files
            .iter()
            .map(|p| ("user", p.clone()))
            .collect();
        out.extend(
            self.project_folders
                .iter()
                .map(|f| ("project", f.join("settings.json"))),
        );
        out.extend(
            self.project_folders
                .iter()
                .map(|f| ("local", f.join("settings.local.json"))),
        );
        out
    }
}

/// Why the settings layers could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read settings file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A settings file that is not a JSON object.
    #[error("settings file {}: {source}", path.display())]
    File {
        path: PathBuf,
        source: SettingsTextError,
    },
    /// Inline JSON given to `--settings` or `--managed-settings` (the flag names it).
    #[error("{flag}: {source}")]
    Inline {
        flag: &'static str,
        source: SettingsTextError,
    },
}

/// Why a settings text is not a settings object.
#[derive(Debug, thiserror::Error)]
pub enum SettingsTextError {
    #[error("settings must be a JSON object")]
    NotAnObject,
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl Settings {
    /// Loads the enabled file sources (all when `sources` is `None`; `Some([])` loads none)
    /// under a user's `home` (see [`SettingsPaths::under_home`]) and the `--settings` value
    /// (inline JSON or a path, relative to `cwd`).
    pub fn load(
        home: Option<&Path>,
        cwd: &Path,
        sources: Option<&[String]>,
        flag: Option<&str>,
    ) -> Result<Settings, SettingsError> {
        Self::load_from(&SettingsPaths::under_home(home, cwd), cwd, sources, flag)
    }

    /// [`Settings::load`] with the layer files given explicitly (from the session's
    /// [`Homes`]: `--data-dir`, `DCL_CONFIG_DIR`, `CLAUDE_CONFIG_DIR`, the dialect).
    pub fn load_from(
        paths: &SettingsPaths,
        cwd: &Path,
        sources: Option<&[String]>,
        flag: Option<&str>,
    ) -> Result<Settings, SettingsError> {
        let enabled = |s: &str| sources.is_none_or(|list| list.iter().any(|x| x.trim() == s));
        let mut layers = Vec::new();
        for (source, path) in paths.candidates() {
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
        let (flag_layer, flag_path) = read_flag_value("--settings", flag, cwd)?;
        layers.push(Layer {
            source: "flag",
            path: flag_path,
            settings: flag_layer,
        });
        // An SDK host that names the project layer has chosen to load that project; the
        // client's own trust dialog record says the user accepted it.
        let chosen = sources.is_some_and(|list| list.iter().any(|x| x.trim() == "project"));
        let recorded = paths
            .trust_records
            .iter()
            .any(|r| crate::permissions::trusted::recorded_trust(r, cwd));
        trusted_layers(&mut layers, cwd, chosen || recorded);
        untrusted_mcpjson_approvals(&mut layers, cwd, chosen || recorded);
        // Kept for the session's life: at its size (often the flag layer alone), not the
        // four a first push reserves.
        layers.shrink_to_fit();
        let mut folders = paths.user_folders.clone();
        folders.extend(paths.project_folders.iter().cloned());
        Ok(Settings { layers, folders })
    }

    /// Adds the managed (policy) layer — `--managed-settings` or `initialize.managedSettings`,
    /// inline JSON or a path relative to `cwd` — above every other layer, so nothing a
    /// user, project or `apply_flag_settings` sets can override it.
    pub fn with_managed(
        mut self,
        managed: Option<&str>,
        cwd: &Path,
    ) -> Result<Settings, SettingsError> {
        if managed.is_none_or(|a| a.trim().is_empty()) {
            return Ok(self);
        }
        let (settings, path) = read_flag_value("--managed-settings", managed, cwd)?;
        self.layers.push(Layer {
            source: "managed",
            path,
            settings,
        });
        Ok(self)
    }

    /// The command hooks of every layer, lowest precedence first: hooks add up across
    /// layers (the reference runs them all) rather than a later layer's list replacing
    /// an earlier one's. Returns what could not be used as warnings.
    pub fn command_hooks(&self) -> (crate::permissions::command_hooks::CommandHooks, Vec<String>) {
        use crate::permissions::command_hooks::CommandHooks;
        let mut all = CommandHooks::default();
        let mut warnings = Vec::new();
        for layer in &self.layers {
            let (hooks, w) = CommandHooks::from_settings(layer.settings.get("hooks"));
            let at = layer
                .path
                .as_ref()
                .map_or_else(|| layer.source.to_string(), |p| p.display().to_string());
            warnings.extend(w.into_iter().map(|w| format!("{at}: {w}")));
            all.extend(hooks);
        }
        (all, warnings)
    }

    /// Every settings file that was read, in precedence order.
    pub fn files_read(&self) -> Vec<&Path> {
        self.layers
            .iter()
            .filter_map(|l| l.path.as_deref())
            .collect()
    }

    /// The `outputStyle` setting (`default` when unset or not a string).
    pub fn output_style(&self) -> String {
        self.get_str("outputStyle")
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "default".to_string())
    }

    /// The `<name>/` subfolders (e.g. `output-styles`, `agents`, `commands`, `skills`) of
    /// every settings folder that exists, lowest precedence first.
    pub fn folder_dirs(&self, name: &str) -> Vec<PathBuf> {
        self.folders
            .iter()
            .map(|f| f.join(name))
            .filter(|d| d.is_dir())
            .collect()
    }

    /// Built-in output styles, then custom ones (`output-styles/*.md`, by file stem; a
    /// later folder's file replaces an earlier one of the same name).
    pub fn available_output_styles(&self) -> Vec<String> {
        let mut out: Vec<String> = BUILT_IN_OUTPUT_STYLES
            .iter()
            .map(|s| s.to_string())
            .collect();
        for dir in self.folder_dirs("output-styles") {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<String> = read
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect();
            names.sort();
            for n in names {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
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

// --- sandbox (issue 10) ---
impl Settings {
    /// The merged `sandbox` block; `--sandbox` (`flag`) turns it on as `enabled: true` does.
    pub fn sandbox(
        &self,
        flag: bool,
    ) -> Result<dcl_sandbox::SandboxSettings, dcl_sandbox::SettingsError> {
        let mut s = dcl_sandbox::SandboxSettings::from_value(self.get("sandbox").as_ref())?;
        s.enabled |= flag;
        Ok(s)
    }
}

/// The sandbox for a session in `cwd` with `write_dirs` (`--add-dir`s, relative ones
/// against `cwd`), or `None` when it is off. The deny list is read against the home
/// directory tool processes get (`HOME` in `tool_env`).
pub fn open_sandbox(
    settings: dcl_sandbox::SandboxSettings,
    cwd: &Path,
    write_dirs: &[std::path::PathBuf],
    tool_env: impl FnOnce() -> std::collections::BTreeMap<String, String>,
) -> Result<Option<std::sync::Arc<dcl_sandbox::Sandbox>>, dcl_sandbox::SandboxError> {
    if !settings.enabled {
        return Ok(None);
    }
    let dirs: Vec<std::path::PathBuf> = write_dirs.iter().map(|d| cwd.join(d)).collect();
    // The tools' environment (the process's variables, filtered) only when a sandbox is on:
    // building it was ~4% of every session's start-up.
    let home = tool_env().get("HOME").map(std::path::PathBuf::from);
    dcl_sandbox::Sandbox::new(settings, cwd, &dirs, home.as_deref())
        .map(|s| Some(std::sync::Arc::new(s)))
}
// --- end sandbox ---

// --- trusted layers (permissions helper): keep this function and its one call ---
/// A committed project layer cannot grant itself power (bypassPermissions, start-up
/// `env`): what it tried is dropped with a warning.
fn untrusted_project_layer(settings: &mut Map<String, Value>, path: &Path) {
    for w in crate::permissions::trusted::filter_project_layer(settings) {
        tracing::warn!("{}: {w}", path.display());
    }
}

/// Command hooks in a committed project layer run code on the user's machine, so they
/// run only in a project a user or flag layer trusts (`trustedProjects`); otherwise
/// they are dropped with a warning.
fn trusted_layers(layers: &mut [Layer], cwd: &Path, trusted_elsewhere: bool) {
    if trusted_elsewhere || trusted_by_layers(layers, cwd) {
        return;
    }
    for l in layers.iter_mut().filter(|l| l.source == "project") {
        if let Some(w) = crate::permissions::trusted::drop_untrusted_hooks(&mut l.settings) {
            let at = l.path.as_ref().map(|p| p.display().to_string());
            tracing::warn!("{}: {w}", at.unwrap_or_default());
        }
    }
}
/// Whether a user or flag layer lists the project under `trustedProjects`.
fn trusted_by_layers(layers: &[Layer], cwd: &Path) -> bool {
    crate::permissions::trusted::project_is_trusted(
        layers
            .iter()
            .filter(|l| matches!(l.source, "user" | "flag"))
            .map(|l| &l.settings),
        cwd,
    )
}
// --- end trusted layers ---

// --- project MCP server approval (mcpenv helper) ---
/// Settings key: `true` starts every server of the project's `.mcp.json`.
pub const ENABLE_ALL_PROJECT_MCP_SERVERS: &str = "enableAllProjectMcpServers";
/// Settings key: the project's `.mcp.json` servers approved by name.
pub const ENABLED_MCPJSON_SERVERS: &str = "enabledMcpjsonServers";
/// Settings key: the project's `.mcp.json` servers never started (wins over the others).
pub const DISABLED_MCPJSON_SERVERS: &str = "disabledMcpjsonServers";

/// What the settings say about one server of the project's `.mcp.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpjsonDecision {
    Approved,
    Disabled,
    /// Neither: the user must be asked (and is not asked, in print mode: not started).
    Unknown,
}

/// The approval keys of every layer: the name lists are joined across layers (a name
/// disabled anywhere stays disabled); `enableAllProjectMcpServers` is the top layer's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpjsonApproval {
    pub enable_all: bool,
    pub enabled: Vec<String>,
    pub disabled: Vec<String>,
}

impl McpjsonApproval {
    pub fn decide(&self, server: &str) -> McpjsonDecision {
        if self.disabled.iter().any(|n| n == server) {
            McpjsonDecision::Disabled
        } else if self.enable_all || self.enabled.iter().any(|n| n == server) {
            McpjsonDecision::Approved
        } else {
            McpjsonDecision::Unknown
        }
    }
}

impl Settings {
    /// The approval of the project's `.mcp.json` servers (see [`McpjsonApproval`]).
    pub fn mcpjson_approval(&self) -> McpjsonApproval {
        let mut out = McpjsonApproval::default();
        let names = |l: &Layer, key: &str| -> Vec<String> {
            l.settings
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        for l in &self.layers {
            if let Some(all) = l
                .settings
                .get(ENABLE_ALL_PROJECT_MCP_SERVERS)
                .and_then(Value::as_bool)
            {
                out.enable_all = all;
            }
            out.enabled.extend(names(l, ENABLED_MCPJSON_SERVERS));
            out.disabled.extend(names(l, DISABLED_MCPJSON_SERVERS));
        }
        out
    }
}

/// A committed project layer that is not trusted cannot approve the servers of the same
/// repository's `.mcp.json` (that would make writing two files code execution): its
/// approving keys are dropped with a warning. `disabledMcpjsonServers` only restricts, so
/// it stays.
fn untrusted_mcpjson_approvals(layers: &mut [Layer], cwd: &Path, trusted_elsewhere: bool) {
    if trusted_elsewhere || trusted_by_layers(layers, cwd) {
        return;
    }
    for l in layers.iter_mut().filter(|l| l.source == "project") {
        for key in [ENABLE_ALL_PROJECT_MCP_SERVERS, ENABLED_MCPJSON_SERVERS] {
            if l.settings.remove(key).is_some() {
                let at = l.path.as_ref().map(|p| p.display().to_string());
                tracing::warn!(
                    "{}: an untrusted project's settings cannot approve its own MCP servers \
                     ({key}); ignored",
                    at.unwrap_or_default()
                );
            }
        }
    }
}
// --- end project MCP server approval ---

/// A settings flag's value (`--settings`, `--managed-settings`): inline JSON when it starts
/// with `{`, else a file relative to `cwd` (returned too). Absent or blank is empty.
pub fn read_flag_value(
    flag: &'static str,
    value: Option<&str>,
    cwd: &Path,
) -> Result<(Map<String, Value>, Option<PathBuf>), SettingsError> {
    match value.map(str::trim).filter(|a| !a.is_empty()) {
        None => Ok((Map::new(), None)),
        Some(inline) if inline.starts_with('{') => parse_object(inline)
            .map(|m| (m, None))
            .map_err(|source| SettingsError::Inline { flag, source }),
        Some(file) => {
            let p = cwd.join(file);
            Ok((read_object(&p)?, Some(p)))
        }
    }
}

fn read_object(path: &Path) -> Result<Map<String, Value>, SettingsError> {
    let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_object(&text).map_err(|source| SettingsError::File {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_object(text: &str) -> Result<Map<String, Value>, SettingsTextError> {
    match serde_json::from_str::<Value>(text)? {
        Value::Object(m) => Ok(m),
        _ => Err(SettingsTextError::NotAnObject),
    }
}

/// Where the client records that the user trusted a folder.
fn client_trust_record(homes: &Homes) -> Option<PathBuf> {
    let file = match homes.dialect {
        dcl_store::Dialect::Qoder => ".qoder.json",
        dcl_store::Dialect::Claude => ".claude.json",
    };
    let home = homes.client_home.as_ref()?;
    if homes.client_home_explicit {
        Some(home.join(file))
    } else {
        home.parent().map(|h| h.join(file))
    }
}

/// Deep merge of `from` over `into`, as a later settings layer merges.
pub fn merge_into(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    merge(into, from);
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
        let err = Settings::load(None, cwd.path(), None, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("settings.json"), "{err}");
        let mut s = Settings::load(None, tempfile::tempdir().unwrap().path(), None, None).unwrap();
        s.set_flag("permissions.defaultMode", json!("plan"));
        assert_eq!(
            s.get_str("permissions.defaultMode").as_deref(),
            Some("plan")
        );
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reference_cli_folders_are_layers_below_dcl_ones() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let (h, c) = (home.path(), cwd.path());
        write(
            &h.join(".claude/settings.json"),
            r#"{"model":"claude-user","outputStyle":"Learning","env":{"A":"1"}}"#,
        );
        write(&h.join(".dcl/settings.json"), r#"{"model":"dcl-user"}"#);
        write(
            &c.join(".claude/settings.json"),
            r#"{"permissions":{"allow":["Read"],"deny":["Bash"]},"effortLevel":"low"}"#,
        );
        write(&c.join(".dcl/settings.json"), r#"{"effortLevel":"high"}"#);
        write(
            &c.join(".claude/settings.local.json"),
            r#"{"permissions":{"deny":["Write"]}}"#,
        );
        write(
            &c.join(".dcl/settings.local.json"),
            r#"{"includeCoAuthoredBy":false}"#,
        );
        let s = Settings::load(Some(h), c, None, None).unwrap();
        let sources: Vec<_> = s.layers.iter().map(|l| l.source).collect();
        assert_eq!(
            sources,
            [
                "user", "user", "project", "project", "local", "local", "flag"
            ]
        );
        assert_eq!(
            s.files_read(),
            [
                h.join(".claude/settings.json"),
                h.join(".dcl/settings.json"),
                c.join(".claude/settings.json"),
                c.join(".dcl/settings.json"),
                c.join(".claude/settings.local.json"),
                c.join(".dcl/settings.local.json"),
            ]
        );
        // dcl home over client home, .dcl/ over .claude/, local over project.
        assert_eq!(s.get_str("model").as_deref(), Some("dcl-user"));
        assert_eq!(s.get_str("effortLevel").as_deref(), Some("high"));
        // The project is not trusted: its allow rules are dropped, its deny rules stay.
        assert!(s.get_strings("permissions.allow").is_empty());
        assert_eq!(s.get_strings("permissions.deny"), ["Write"]);
        assert_eq!(s.get_str("env.A").as_deref(), Some("1"));
        assert_eq!(s.output_style(), "Learning");

        // --setting-sources project: only the project files.
        let s = Settings::load(Some(h), c, Some(&["project".to_string()]), None).unwrap();
        assert_eq!(
            s.files_read(),
            [
                c.join(".claude/settings.json"),
                c.join(".dcl/settings.json")
            ]
        );
        assert_eq!(s.output_style(), "default");
        // A host that names the project layer trusts it: its allow rules apply.
        assert_eq!(s.get_strings("permissions.allow"), ["Read"]);
    }

    #[test]
    fn homes_choose_the_client_folders_and_config_dirs() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let cwd = r.join("w");
        write(
            &r.join("cfg/settings.json"),
            r#"{"model":"from-claude-config-dir"}"#,
        );
        write(
            &r.join("u/.qoder/settings.json"),
            r#"{"model":"qoder-user"}"#,
        );
        write(
            &cwd.join(".qoder/settings.json"),
            r#"{"effortLevel":"medium"}"#,
        );
        write(
            &cwd.join(".claude/settings.json"),
            r#"{"effortLevel":"ignored-under-qoder"}"#,
        );
        let env = |pairs: Vec<(&'static str, String)>| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
        };
        let u = r.join("u").to_string_lossy().into_owned();
        let claude = Homes::resolve(
            None,
            env(vec![
                ("HOME", u.clone()),
                (
                    "CLAUDE_CONFIG_DIR",
                    r.join("cfg").to_string_lossy().into_owned(),
                ),
            ]),
            &cwd,
        );
        let s = Settings::load_from(&SettingsPaths::from_homes(&claude, &cwd), &cwd, None, None)
            .unwrap();
        assert_eq!(
            s.get_str("model").as_deref(),
            Some("from-claude-config-dir")
        );
        assert_eq!(
            s.get_str("effortLevel").as_deref(),
            Some("ignored-under-qoder")
        );

        let qoder = Homes::resolve(
            None,
            env(vec![
                ("HOME", u),
                ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py".into()),
            ]),
            &cwd,
        );
        let s = Settings::load_from(&SettingsPaths::from_homes(&qoder, &cwd), &cwd, None, None)
            .unwrap();
        assert_eq!(s.get_str("model").as_deref(), Some("qoder-user"));
        assert_eq!(s.get_str("effortLevel").as_deref(), Some("medium"));
    }

    #[test]
    fn output_styles_are_built_in_and_from_every_folder() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        write(
            &home.path().join(".claude/output-styles/Terse.md"),
            "---\nname: Terse\n---\nBe terse.",
        );
        write(&cwd.path().join(".dcl/output-styles/Pirate.md"), "Arr.");
        write(
            &cwd.path().join(".dcl/output-styles/notes.txt"),
            "not a style",
        );
        let s = Settings::load(Some(home.path()), cwd.path(), None, None).unwrap();
        assert_eq!(
            s.available_output_styles(),
            ["default", "Explanatory", "Learning", "Terse", "Pirate"]
        );
        assert_eq!(s.folder_dirs("output-styles").len(), 2);
    }
    #[test]
    fn mcpjson_approval_joins_the_layers_and_an_untrusted_project_cannot_approve() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        write(
            &home.path().join(".dcl/settings.json"),
            r#"{"disabledMcpjsonServers":["off"],"enabledMcpjsonServers":["mine"]}"#,
        );
        write(
            &cwd.path().join(".dcl/settings.json"),
            r#"{"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["planted"],
                "disabledMcpjsonServers":["also-off"]}"#,
        );
        let flag = r#"{"enabledMcpjsonServers":["off","given"]}"#;
        let s = Settings::load(Some(home.path()), cwd.path(), None, Some(flag)).unwrap();
        let a = s.mcpjson_approval();
        assert!(
            !a.enable_all,
            "the untrusted project layer approved everything"
        );
        assert_eq!(a.decide("planted"), McpjsonDecision::Unknown);
        assert_eq!(a.decide("mine"), McpjsonDecision::Approved);
        assert_eq!(a.decide("given"), McpjsonDecision::Approved);
        // Disabled anywhere wins, the project's own restriction included.
        assert_eq!(a.decide("off"), McpjsonDecision::Disabled);
        assert_eq!(a.decide("also-off"), McpjsonDecision::Disabled);

        // A project the user trusts may approve its own servers.
        let trusting = format!(
            r#"{{"trustedProjects":[{}]}}"#,
            serde_json::to_string(&cwd.path()).unwrap()
        );
        let s = Settings::load(Some(home.path()), cwd.path(), None, Some(&trusting)).unwrap();
        let a = s.mcpjson_approval();
        assert!(a.enable_all);
        assert_eq!(a.decide("planted"), McpjsonDecision::Approved);
        assert_eq!(a.decide("also-off"), McpjsonDecision::Disabled);
    }
}
