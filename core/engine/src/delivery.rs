//! Options an SDK delivers inside `initialize` instead of on argv (the newest TS SDK sends
//! external `mcpServers`, `settings`, `disallowedTools`, `managedSettings` and `plugins`
//! this way, launching dcl with `--await-initialize`, so secrets in a server's `env` or
//! headers never reach the command line). A front end that waits for `initialize` folds
//! them into the session's options before the session is built, so they act exactly as
//! their flags would: settings layers, sandbox, hooks, tool lists and MCP servers alike.

use std::path::PathBuf;

use dcl_protocol::InitializeRequest;
use serde_json::{Map, Value};

use crate::options::{OptionsError, SessionOptions};

/// The `initialize` fields this module folds into options, as the request names them.
pub const DELIVERABLE: &[&str] = &[
    "settings",
    "disallowedTools",
    "managedSettings",
    "mcpServers",
    "plugins",
];

/// Folds what `init` delivers into `opts` and records each field in
/// `opts.delivered_in_initialize`. Validates everything before changing anything, so a bad
/// field leaves `opts` as it was.
pub fn absorb_initialize(
    opts: &mut SessionOptions,
    init: &InitializeRequest,
) -> Result<(), OptionsError> {
    let settings = match &init.settings {
        Some(delivered) => Some(merged_flag_settings(opts, delivered)?),
        None => None,
    };
    let plugins = match &init.plugins {
        Some(list) => Some(local_plugins(list)?),
        None => None,
    };
    let mut delivered = Vec::new();
    if let Some(s) = settings {
        opts.settings = Some(s);
        delivered.push("settings");
    }
    if let Some(rules) = &init.disallowed_tools {
        opts.disallowed_tools.extend(rules.iter().cloned());
        delivered.push("disallowedTools");
    }
    if let Some(managed) = &init.managed_settings {
        opts.managed_settings = Some(Value::Object(managed.clone()).to_string());
        delivered.push("managedSettings");
    }
    if let Some(servers) = &init.mcp_servers {
        // The same shape `--mcp-config` takes, so parsing and validation are shared.
        let mut config = Map::new();
        config.insert("mcpServers".into(), Value::Object(servers.clone()));
        opts.mcp_config.push(Value::Object(config).to_string());
        delivered.push("mcpServers");
    }
    if let Some((with_mcp, without_mcp)) = plugins {
        opts.plugin_dirs.extend(with_mcp);
        opts.plugin_dirs_no_mcp.extend(without_mcp);
        delivered.push("plugins");
    }
    for d in delivered {
        if !opts.delivered_in_initialize.iter().any(|x| x == d) {
            opts.delivered_in_initialize.push(d.to_string());
        }
    }
    Ok(())
}

/// The flag layer with the delivered settings on top of `--settings` (inline or a file).
fn merged_flag_settings(
    opts: &SessionOptions,
    delivered: &Map<String, Value>,
) -> Result<String, OptionsError> {
    let cwd = opts.cwd.clone().unwrap_or_default();
    let (mut base, _) =
        dcl_policy::settings::read_flag_value("--settings", opts.settings.as_deref(), &cwd)
            .map_err(|e| OptionsError::new("settings", e.to_string()))?;
    // The host's settings win key by key, as a later layer would.
    dcl_policy::settings::merge_into(&mut base, delivered);
    Ok(Value::Object(base).to_string())
}

type PluginDirs = (Vec<PathBuf>, Vec<PathBuf>);

/// `[{type: "local", path, skipMcpDiscovery?}]` → (with MCP, without MCP).
fn local_plugins(list: &[Value]) -> Result<PluginDirs, OptionsError> {
    let mut with_mcp = Vec::new();
    let mut without_mcp = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let bad =
            |why: &str| OptionsError::new("plugins", format!("initialize.plugins[{i}]: {why}"));
        let kind = p.get("type").and_then(Value::as_str);
        if kind != Some("local") {
            return Err(bad("only {type: \"local\", path} plugins are supported"));
        }
        let path = p
            .get("path")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad("path must be a non-empty string"))?;
        if p.get("skipMcpDiscovery").and_then(Value::as_bool) == Some(true) {
            without_mcp.push(PathBuf::from(path));
        } else {
            with_mcp.push(PathBuf::from(path));
        }
    }
    Ok((with_mcp, without_mcp))
}

/// The `*_applied` answer for one delivered field: `Some(true)` when folded in before the
/// session was built, `None` when the request did not carry it.
pub fn applied(opts: &SessionOptions, field: &str, carried: bool) -> Option<bool> {
    carried.then(|| opts.delivered_in_initialize.iter().any(|d| d == field))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn init(v: Value) -> InitializeRequest {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_field_is_folded_in_as_its_flag_would_be() {
        let mut opts = SessionOptions {
            settings: Some(r#"{"model":"a","env":{"X":"1"}}"#.into()),
            disallowed_tools: vec!["Write".into()],
            ..SessionOptions::default()
        };
        absorb_initialize(
            &mut opts,
            &init(json!({
                "subtype": "initialize",
                "settings": {"model": "b", "env": {"Y": "2"}},
                "disallowedTools": ["Bash(rm:*)"],
                "managedSettings": {"permissions": {"deny": ["WebFetch"]}},
                "mcpServers": {"s": {"command": "x", "env": {"TOKEN": "t"}}},
                "plugins": [{"type": "local", "path": "/p"},
                            {"type": "local", "path": "/q", "skipMcpDiscovery": true}]
            })),
        )
        .unwrap();
        let settings: Value = serde_json::from_str(opts.settings.as_deref().unwrap()).unwrap();
        assert_eq!(settings, json!({"model": "b", "env": {"X": "1", "Y": "2"}}));
        assert_eq!(opts.disallowed_tools, ["Write", "Bash(rm:*)"]);
        assert_eq!(
            serde_json::from_str::<Value>(opts.managed_settings.as_deref().unwrap()).unwrap(),
            json!({"permissions": {"deny": ["WebFetch"]}})
        );
        assert_eq!(
            serde_json::from_str::<Value>(&opts.mcp_config[0]).unwrap(),
            json!({"mcpServers": {"s": {"command": "x", "env": {"TOKEN": "t"}}}})
        );
        assert_eq!(opts.plugin_dirs, [PathBuf::from("/p")]);
        assert_eq!(opts.plugin_dirs_no_mcp, [PathBuf::from("/q")]);
        assert_eq!(opts.delivered_in_initialize, DELIVERABLE);
        assert_eq!(applied(&opts, "mcpServers", true), Some(true));
        assert_eq!(applied(&opts, "mcpServers", false), None);
    }

    #[test]
    fn a_bad_field_changes_nothing() {
        let mut opts = SessionOptions::default();
        let before = opts.clone();
        let err = absorb_initialize(
            &mut opts,
            &init(json!({"subtype": "initialize",
                "disallowedTools": ["Write"],
                "plugins": [{"type": "github", "path": "x"}]})),
        )
        .unwrap_err();
        assert!(err.message.contains("plugins[0]"), "{err}");
        assert!(opts == before);
        let mut opts = SessionOptions {
            settings: Some("{not json".into()),
            ..SessionOptions::default()
        };
        let err = absorb_initialize(
            &mut opts,
            &init(json!({"subtype": "initialize", "settings": {"model": "m"}})),
        )
        .unwrap_err();
        assert_eq!(err.option.as_deref(), Some("settings"));
    }

    #[test]
    fn nothing_carried_means_nothing_answered() {
        let mut opts = SessionOptions::default();
        absorb_initialize(&mut opts, &init(json!({"subtype": "initialize"}))).unwrap();
        assert!(opts.delivered_in_initialize.is_empty());
        assert_eq!(applied(&opts, "settings", false), None);
    }
}
