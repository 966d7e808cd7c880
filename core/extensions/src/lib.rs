//! What a session loads from folders besides settings: skills, custom slash commands and
//! plugins (which bring commands, agents, skills, hooks and MCP servers of their own).
//! Read when the session opens and again on `reload_plugins`. Also the other files a
//! session reads its extensions from: subagent definitions (`agents`) and memory files
//! (`memory`). A crate of its own because none of it needs a running session: the engine
//! reads these when it builds one.

pub mod agents;
pub mod commands;
pub mod derived_spec;
pub mod memory;
pub mod plugins;
pub mod skills;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use dcl_mcp::ServerConfig;
use dcl_protocol::{PluginInfo, SlashCommandInfo};
use serde::Deserialize;
use serde_json::{Map, Value};

pub use commands::{CommandCatalog, CommandSpec};
pub use plugins::Plugin;
pub use skills::{SkillCatalog, SkillSpec};

/// Where a skill or command came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    User,
    Project,
    Plugin { name: String, root: PathBuf },
}

impl Origin {
    /// A plugin's items are named `plugin:name`, as the reference lists them.
    pub fn qualify(&self, name: &str) -> String {
        match self {
            Origin::Plugin { name: p, .. } => format!("{p}:{name}"),
            _ => name.to_string(),
        }
    }

    /// `${CLAUDE_PLUGIN_ROOT}` in a plugin's text is its root.
    pub fn substitute(&self, text: &str) -> String {
        match self {
            Origin::Plugin { root, .. } => {
                let root = root.display().to_string();
                plugins::ROOT_VARS.iter().fold(text.to_string(), |t, var| {
                    t.replace(&format!("${{{var}}}"), &root)
                })
            }
            _ => text.to_string(),
        }
    }
}

/// `Read, Grep`, `Bash(git add:*) Bash(git status:*)` or a YAML list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum NameList {
    Text(String),
    List(Vec<String>),
}

impl NameList {
    pub(crate) fn names(self) -> Vec<String> {
        match self {
            NameList::Text(t) => split_top_level(&t),
            NameList::List(l) => l.into_iter().flat_map(|s| split_top_level(&s)).collect(),
        }
    }
}

/// Splits at commas and blanks outside parentheses, so `Bash(git add:*)` stays whole.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Fills `$ARGUMENTS` with `args` and `$1`, `$2`… with its words (quoted as a shell
/// would); a body that uses neither gets the arguments appended, as the reference does.
pub fn expand_arguments(body: &str, args: &str) -> String {
    let args = args.trim();
    let words = shell_words::split(args)
        .unwrap_or_else(|_| args.split_whitespace().map(str::to_string).collect());
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = tail;
            continue;
        }
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<usize>() {
            Ok(n) if n > 0 => {
                out.push_str(words.get(n - 1).map_or("", String::as_str));
                used = true;
                rest = &after[digits..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

/// The reference runs `` !`cmd` `` lines of a command or skill body and inlines `@file`s;
/// dcl sends the body as written, and says so.
pub(crate) fn body_notes(path: &Path, body: &str) -> Vec<String> {
    let shell = body.contains("!`");
    let file = body
        .split_whitespace()
        .any(|w| w.len() > 1 && w.starts_with('@') && !w[1..].starts_with('@'));
    match (shell, file) {
        (false, false) => Vec::new(),
        _ => vec![format!(
            "{}: {} not expanded; the model reads the text as written",
            path.display(),
            match (shell, file) {
                (true, true) => "!`command` lines and @file references are",
                (true, false) => "!`command` lines are",
                _ => "@file references are",
            }
        )],
    }
}

/// Where a session looks, fixed when it opens.
#[derive(Debug, Clone, Default)]
pub struct ExtensionSources {
    /// User folders (client home, dcl home) when the `user` source is on.
    pub user_folders: Vec<PathBuf>,
    /// Project folders (`.claude/` or `.qoder/`, then `.dcl/`) when `project` is on.
    pub project_folders: Vec<PathBuf>,
    /// `--plugin-dir`s and `--plugin-dir-no-mcp`s: (path, with MCP servers).
    pub plugin_dirs: Vec<(PathBuf, bool)>,
    /// The settings' `pluginDirs` (resolved against the working directory).
    pub settings_plugin_dirs: Vec<PathBuf>,
    /// The settings' `enabledPlugins` (`{"name" | "name@marketplace": bool}`).
    pub enabled_plugins: Map<String, Value>,
    /// `initialize.skills`: the only skills the session offers (`None`: all of them).
    pub skill_allowlist: Option<Vec<String>>,
}

impl ExtensionSources {
    /// The settings' plugin keys: `pluginDirs` (a path or a list, relative to `cwd`) and
    /// `enabledPlugins`.
    pub fn with_settings(mut self, settings: &dcl_policy::settings::Settings, cwd: &Path) -> Self {
        let dirs = match settings.get("pluginDirs") {
            Some(Value::String(s)) => vec![s],
            _ => settings.get_strings("pluginDirs"),
        };
        self.settings_plugin_dirs = dirs.into_iter().map(|d| cwd.join(d)).collect();
        if let Some(Value::Object(m)) = settings.get("enabledPlugins") {
            self.enabled_plugins = m;
        }
        self
    }
}

/// Everything loaded from the sources.
#[derive(Debug, Clone, Default)]
pub struct Extensions {
    pub sources: ExtensionSources,
    pub skills: SkillCatalog,
    pub commands: CommandCatalog,
    pub plugins: Vec<Plugin>,
    /// The plugins' `hooks/hooks.json`, merged in plugin order: the session's hook runner
    /// runs them after the settings' hooks.
    pub command_hooks: dcl_policy::permissions::command_hooks::CommandHooks,
    pub mcp_servers: BTreeMap<String, ServerConfig>,
    /// What could not be read (each also logged); counted as `reload_plugins.error_count`.
    pub warnings: Vec<String>,
    /// What was read but is not acted on (each said to the host at `initialize`).
    pub not_acted_on: Vec<String>,
    /// Plugin folders that did not load, as `system/init.plugin_errors` lists them
    /// (`{plugin, type, message, path}`).
    pub plugin_errors: Vec<Value>,
}

/// The session's extensions, shared with the Skill tool and re-read on `reload_plugins`.
pub type SharedExtensions = Arc<RwLock<Extensions>>;

/// Reads `shared` without caring whether a writer panicked (the data is only replaced
/// whole, never left half-written).
pub fn read<T>(shared: &SharedExtensions, f: impl FnOnce(&Extensions) -> T) -> T {
    match shared.read() {
        Ok(g) => f(&g),
        Err(poisoned) => f(&poisoned.into_inner()),
    }
}

impl Extensions {
    pub fn load(sources: ExtensionSources) -> Extensions {
        let mut ext = Extensions {
            sources,
            ..Extensions::default()
        };
        ext.load_plugins();
        let mut plugin_hooks = Map::new();
        for plugin in ext.plugins.clone() {
            let origin = Origin::Plugin {
                name: plugin.name.clone(),
                root: plugin.root.clone(),
            };
            for dir in plugin.dirs("skills") {
                ext.skills.add_dir(&dir, &origin, &mut ext.warnings);
            }
            for dir in plugin.dirs("commands") {
                ext.commands.add_dir(&dir, &origin, &mut ext.warnings);
            }
            match plugin.hooks() {
                Ok(h) => {
                    for (event, list) in h {
                        if let Value::Array(list) = list {
                            plugins::merge_hooks(&mut plugin_hooks, &event, list);
                        }
                    }
                }
                Err(e) => ext.warnings.push(e.to_string()),
            }
            match plugin.mcp_servers() {
                Ok(s) => ext.mcp_servers.extend(s),
                Err(e) => ext.warnings.push(e.to_string()),
            }
        }
        let folders: Vec<(PathBuf, Origin)> = ext
            .sources
            .user_folders
            .iter()
            .map(|f| (f.clone(), Origin::User))
            .chain(
                ext.sources
                    .project_folders
                    .iter()
                    .map(|f| (f.clone(), Origin::Project)),
            )
            .collect();
        for (folder, origin) in folders {
            ext.skills
                .add_dir(&folder.join("skills"), &origin, &mut ext.warnings);
            ext.commands
                .add_dir(&folder.join("commands"), &origin, &mut ext.warnings);
        }
        ext.not_acted_on.extend(
            ext.skills
                .iter()
                .flat_map(|s| s.unsupported.iter().cloned())
                .chain(
                    ext.commands
                        .iter()
                        .flat_map(|c| c.unsupported.iter().cloned()),
                ),
        );
        let (hooks, hook_warnings) =
            dcl_policy::permissions::command_hooks::CommandHooks::from_settings(Some(
                &Value::Object(plugin_hooks),
            ));
        ext.command_hooks = hooks;
        ext.warnings.extend(hook_warnings);
        if let Some(allowed) = &ext.sources.skill_allowlist {
            ext.skills.retain(allowed);
        }
        for w in ext.warnings.iter().chain(&ext.not_acted_on) {
            tracing::warn!("{w}");
        }
        ext
    }

    /// Offers only the skills named (`initialize.skills`), now and after a reload.
    pub fn restrict_skills(&mut self, allowed: Vec<String>) {
        self.skills.retain(&allowed);
        self.sources.skill_allowlist = Some(allowed);
    }

    /// Reads the sources again (`reload_plugins`).
    pub fn reloaded(&self) -> Extensions {
        Extensions::load(self.sources.clone())
    }

    fn load_plugins(&mut self) {
        let mut wanted: Vec<(PathBuf, &str, bool)> = self
            .sources
            .plugin_dirs
            .iter()
            .map(|(p, mcp)| (p.clone(), "flag", *mcp))
            .collect();
        wanted.extend(
            self.sources
                .settings_plugin_dirs
                .iter()
                .map(|p| (p.clone(), "settings", true)),
        );
        for (index, (dir, source, with_mcp)) in wanted.into_iter().enumerate() {
            match Plugin::open(&dir, source, with_mcp) {
                Ok(p) if !self.enabled(&p.name) => {
                    tracing::debug!("plugin {} is turned off by enabledPlugins", p.name);
                }
                Ok(p) => {
                    // The same plugin named twice (flag and settings) loads once.
                    if !self.plugins.iter().any(|q| q.root == p.root) {
                        self.plugins.push(p);
                    }
                }
                Err(e) => {
                    let e = e.to_string();
                    self.plugin_errors.push(serde_json::json!({
                        "plugin": format!("inline[{index}]"),
                        "type": if dir.exists() { "manifest-validation-error" } else { "path-not-found" },
                        "message": e,
                        "path": dir.display().to_string(),
                    }));
                    self.warnings.push(e);
                }
            }
        }
        // dcl installs nothing: a marketplace plugin turned on in settings must be given
        // as a folder to load.
        for (key, on) in &self.sources.enabled_plugins {
            let name = key.split('@').next().unwrap_or(key);
            if on.as_bool() == Some(true) && !self.plugins.iter().any(|p| p.name == name) {
                self.not_acted_on.push(format!(
                    "enabledPlugins: {key} is not loaded: dcl installs no marketplace plugins; give its folder with --plugin-dir or the settings' pluginDirs"
                ));
            }
        }
    }

    fn enabled(&self, name: &str) -> bool {
        !self
            .sources
            .enabled_plugins
            .iter()
            .any(|(key, on)| key.split('@').next() == Some(name) && on.as_bool() == Some(false))
    }

    /// The plugins' `agents/` folders, with the plugin that owns each.
    pub fn plugin_agent_dirs(&self) -> Vec<(String, PathBuf)> {
        self.plugins
            .iter()
            .flat_map(|p| p.dirs("agents").into_iter().map(|d| (p.name.clone(), d)))
            .collect()
    }

    /// The plugins as `system/init.plugins` and `reload_plugins` list them.
    pub fn plugin_infos(&self) -> Vec<PluginInfo> {
        self.plugins
            .iter()
            .map(|p| {
                let mut extra = dcl_protocol::Extra::new();
                // The manifest's version, verbatim, as the SDKs' init types have it.
                if let Some(v) = p.manifest.get("version").filter(|v| v.is_string()) {
                    extra.insert("version".into(), v.clone());
                }
                PluginInfo {
                    name: p.name.clone(),
                    path: p.root.display().to_string(),
                    source: Some(p.source.clone()),
                    extra,
                }
            })
            .collect()
    }

    /// Custom commands and skills, as `/name` entries (`initialize.commands`).
    pub fn command_infos(&self) -> Vec<SlashCommandInfo> {
        let mut out: Vec<SlashCommandInfo> = self
            .commands
            .iter()
            .map(|c| {
                let mut info = SlashCommandInfo::new(c.name.clone(), c.description.clone());
                info.argument_hint = c.argument_hint.clone();
                info
            })
            .collect();
        out.extend(
            self.skills
                .iter()
                .filter(|s| self.commands.get(&s.name).is_none())
                .map(|s| SlashCommandInfo::new(s.name.clone(), s.description.clone())),
        );
        out
    }

    /// Names for `system/init.slash_commands`: custom commands, then skills.
    pub fn command_names(&self) -> Vec<String> {
        self.command_infos().into_iter().map(|c| c.name).collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn arguments_fill_placeholders_or_are_appended() {
        assert_eq!(
            expand_arguments("Fix $1 then $2.", "a \"b c\""),
            "Fix a then b c."
        );
        assert_eq!(expand_arguments("All: $ARGUMENTS!", " x y "), "All: x y!");
        assert_eq!(
            expand_arguments("$3 missing, $0 and $ kept", "a"),
            " missing, $0 and $ kept"
        );
        assert_eq!(expand_arguments("Plain.", "x"), "Plain.\n\nARGUMENTS: x");
        assert_eq!(expand_arguments("Plain.", ""), "Plain.");
        // As in the reference, `$5` is always the fifth argument (here none).
        assert_eq!(expand_arguments("cost $$5", ""), "cost $");
    }

    #[test]
    fn plugin_hooks_are_ready_to_run_in_plugin_order() {
        let dir = tempfile::tempdir().unwrap();
        let kit = dir.path().join("kit");
        write(
            &kit.join("hooks/hooks.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "p"}, {"type": "command", "command": "q"}]}]}}"#,
        );
        let sources = ExtensionSources {
            plugin_dirs: vec![(kit, true)],
            ..ExtensionSources::default()
        };
        let ext = Extensions::load(sources.clone());
        assert!(ext.warnings.is_empty(), "{:?}", ext.warnings);
        assert!(ext.not_acted_on.is_empty(), "{:?}", ext.not_acted_on);
        let stop = ext.command_hooks.matching("Stop", None);
        let commands: Vec<&str> = stop.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(commands, vec!["p", "q"]);
        assert!(
            Extensions::default()
                .command_hooks
                .matching("Stop", None)
                .is_empty()
        );
        drop(sources);
    }

    #[test]
    fn shell_lines_and_file_references_are_noted() {
        let p = Path::new("/c/x.md");
        assert!(body_notes(p, "Status: !`git status`")[0].contains("!`command`"));
        assert!(body_notes(p, "Review @src/main.rs please")[0].contains("@file"));
        assert!(body_notes(p, "mail me at a@b.c, or @ alone").is_empty());
    }

    #[test]
    fn tool_lists_keep_parenthesised_blanks() {
        let l = NameList::Text("Bash(git add:*) Bash(git status:*), Read".into()).names();
        assert_eq!(l, vec!["Bash(git add:*)", "Bash(git status:*)", "Read"]);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn homes_projects_and_plugins_load_with_precedence_and_switches() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("home/.claude");
        let project = dir.path().join("proj/.dcl");
        write(&user.join("commands/hi.md"), "user hi");
        write(&project.join("commands/hi.md"), "project hi");
        write(
            &user.join("skills/pdf/SKILL.md"),
            "---\ndescription: pdfs\n---\nUse it.",
        );
        let kit = dir.path().join("kit");
        write(
            &kit.join(".claude-plugin/plugin.json"),
            r#"{"name": "kit"}"#,
        );
        write(
            &kit.join("commands/review.md"),
            "Review ${CLAUDE_PLUGIN_ROOT}",
        );
        write(
            &kit.join("agents/helper.md"),
            "---\ndescription: d\n---\nHelp.",
        );
        let off = dir.path().join("off");
        write(
            &off.join(".claude-plugin/plugin.json"),
            r#"{"name": "off"}"#,
        );
        let mut enabled = Map::new();
        enabled.insert("off@market".into(), Value::Bool(false));
        enabled.insert("remote@market".into(), Value::Bool(true));
        let ext = Extensions::load(ExtensionSources {
            user_folders: vec![user],
            project_folders: vec![project],
            plugin_dirs: vec![(kit.clone(), true), (dir.path().join("nope"), true)],
            settings_plugin_dirs: vec![off, kit.clone()],
            enabled_plugins: enabled,
            ..ExtensionSources::default()
        });
        assert_eq!(ext.commands.get("hi").unwrap().body, "project hi");
        let root = std::fs::canonicalize(&kit).unwrap();
        assert_eq!(
            ext.commands.get("review").unwrap().body,
            format!("Review {}", root.display())
        );
        assert_eq!(ext.plugins.len(), 1);
        assert_eq!(ext.plugin_infos()[0].name, "kit");
        assert_eq!(ext.plugin_agent_dirs().len(), 1);
        assert_eq!(ext.command_names(), vec!["hi", "kit:review", "pdf"]);
        assert_eq!(
            ext.warnings.len(),
            1,
            "the missing folder: {:?}",
            ext.warnings
        );
        assert_eq!(ext.plugin_errors.len(), 1);
        assert_eq!(ext.plugin_errors[0]["type"], "path-not-found");
        assert_eq!(ext.plugin_errors[0]["plugin"], "inline[1]");
        assert_eq!(
            ext.not_acted_on.len(),
            1,
            "the marketplace plugin: {:?}",
            ext.not_acted_on
        );
        let mut again = ext.reloaded();
        assert_eq!(again.command_names(), ext.command_names());
        again.restrict_skills(vec![]);
        assert!(again.skills.is_empty());
        assert!(
            again.reloaded().skills.is_empty(),
            "the allowlist survives a reload"
        );
    }
}
