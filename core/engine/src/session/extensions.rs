//! The session's side of skills, custom slash commands and plugins: where they are read
//! from (the homes and project folders by `--setting-sources`, `--plugin-dir`, the
//! settings), what `system/init` and the `initialize` answer list, and `reload_plugins`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use dcl_mcp::ServerConfig;
use dcl_protocol::{AgentInfo, Extra, ReloadPluginsResponse, SlashCommandInfo};

use super::mcp::mcp_server_status;
use super::services::SessionCore;
use crate::agents::AgentCatalog;
use crate::extensions::{self, ExtensionSources, Extensions, SharedExtensions};
use crate::options::SessionOptions;
use dcl_policy::settings::Settings;

/// The scope plugin MCP servers are listed under.
const PLUGIN_SCOPE: &str = "plugin";

/// Reads the session's extensions when it opens.
pub(crate) fn open(
    opts: &SessionOptions,
    homes: &dcl_store::Homes,
    cwd: &Path,
    settings: &Settings,
    user: bool,
    project: bool,
) -> SharedExtensions {
    let resolve = |p: &PathBuf| {
        if p.is_absolute() {
            p.clone()
        } else {
            cwd.join(p)
        }
    };
    let mut plugin_dirs: Vec<(PathBuf, bool)> = opts
        .plugin_dirs
        .iter()
        .map(|p| (resolve(p), true))
        .collect();
    plugin_dirs.extend(opts.plugin_dirs_no_mcp.iter().map(|p| (resolve(p), false)));
    let sources = ExtensionSources {
        user_folders: if user {
            homes
                .user_folders()
                .into_iter()
                .map(Path::to_path_buf)
                .collect()
        } else {
            Vec::new()
        },
        project_folders: if project {
            homes.project_folders(cwd)
        } else {
            Vec::new()
        },
        plugin_dirs,
        ..ExtensionSources::default()
    }
    .with_settings(settings, cwd);
    Arc::new(RwLock::new(Extensions::load(sources)))
}

/// `initialize.skills`: the main session offers only these skills (`[]`: none).
pub(crate) fn restrict_skills(core: &SessionCore, allowed: Vec<String>) {
    match core.services.extensions.write() {
        Ok(mut g) => g.restrict_skills(allowed),
        Err(poisoned) => poisoned.into_inner().restrict_skills(allowed),
    }
}

/// Adds the plugins' agents (`plugin:name`) to `catalog`; returns what could not be read.
pub(crate) fn add_plugin_agents(catalog: &mut AgentCatalog, ext: &Extensions) -> Vec<String> {
    ext.plugin_agent_dirs()
        .iter()
        .flat_map(|(plugin, dir)| catalog.add_plugin_dir(plugin, dir))
        .collect()
}

/// The plugins' MCP servers, for the session's MCP manager.
pub(crate) fn plugin_servers(ext: &Extensions) -> BTreeMap<String, (ServerConfig, String)> {
    ext.mcp_servers
        .iter()
        .map(|(n, c)| (n.clone(), (c.clone(), PLUGIN_SCOPE.to_string())))
        .collect()
}

/// The built-in commands: name and description, for `system/init.slash_commands` and the
/// `initialize` answer's `commands`.
const BUILTIN_COMMANDS: &[(&str, &str)] = &[
    ("clear", "Clear conversation history and free up context"),
    (
        "compact",
        "Free up context by summarizing the conversation so far",
    ),
    (
        "cost",
        "Show the total cost and duration of the current session",
    ),
    ("context", "Show current context usage"),
];

/// The `initialize` answer's `commands`.
fn builtin_command_infos() -> Vec<dcl_protocol::SlashCommandInfo> {
    BUILTIN_COMMANDS
        .iter()
        .map(|(n, d)| dcl_protocol::SlashCommandInfo::new(*n, *d))
        .collect()
}

/// Built-in commands, then custom commands and skills (a built-in name wins).
pub(crate) fn command_infos(core: &SessionCore) -> Vec<SlashCommandInfo> {
    let mut out = builtin_command_infos();
    let custom = extensions::read(&core.services.extensions, Extensions::command_infos);
    out.extend(
        custom
            .into_iter()
            .filter(|c| !BUILTIN_COMMANDS.iter().any(|(n, _)| *n == c.name)),
    );
    out
}

/// `system/init.slash_commands`.
pub(crate) fn command_names(core: &SessionCore) -> Vec<String> {
    command_infos(core).into_iter().map(|c| c.name).collect()
}

pub(crate) fn agent_infos(catalog: &AgentCatalog) -> Vec<AgentInfo> {
    catalog
        .iter()
        .map(|a| AgentInfo {
            name: a.name.clone(),
            description: a.description.clone(),
            model: a.model.clone(),
            extra: Extra::new(),
        })
        .collect()
}

/// `reload_plugins`: reads skills, commands and plugins again, adds the plugins' agents,
/// starts MCP servers a plugin added, and answers the seed's
/// `{commands, agents, plugins, mcpServers, error_count}`.
pub(crate) async fn reload(core: Arc<SessionCore>) -> ReloadPluginsResponse {
    let services = &core.services;
    let fresh = extensions::read(&services.extensions, Extensions::reloaded);
    let mut errors = fresh.warnings.len();
    let agent_warnings = core
        .state
        .with(|s| add_plugin_agents(Arc::make_mut(&mut s.agents), &fresh));
    for w in &agent_warnings {
        tracing::warn!("{w}");
    }
    errors += agent_warnings.len();
    let known: Vec<String> = services.mcp.status().into_iter().map(|s| s.name).collect();
    let added: BTreeMap<String, (ServerConfig, String)> = if services.opts.strict_mcp_config {
        BTreeMap::new()
    } else {
        plugin_servers(&fresh)
            .into_iter()
            .filter(|(n, _)| !known.contains(n))
            .collect()
    };
    match services.extensions.write() {
        Ok(mut g) => *g = fresh,
        Err(poisoned) => *poisoned.into_inner() = fresh,
    }
    if !added.is_empty() {
        services.mcp.start_scoped(added).await;
    }
    ReloadPluginsResponse {
        commands: command_infos(&core),
        agents: core.state.with(|s| agent_infos(&s.agents)),
        plugins: extensions::read(&services.extensions, Extensions::plugin_infos),
        mcp_servers: services
            .mcp
            .status()
            .into_iter()
            .map(mcp_server_status)
            .collect(),
        error_count: errors as u64,
        extra: Extra::new(),
    }
}
