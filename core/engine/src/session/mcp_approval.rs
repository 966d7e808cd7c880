//! The servers of the project's `.mcp.json` start only when approved — a file the
//! repository ships must not be code execution on the user's machine. Approved by the
//! settings (`enableAllProjectMcpServers`, `enabledMcpjsonServers`; a name in
//! `disabledMcpjsonServers` never starts), else by the host: dcl's own
//! `control_request{subtype:"mcp_server_approval", server_name, scope, config}`, approved
//! only by the answer `{"approved": true}` (an error answer — what an SDK that does not
//! know the subtype sends — no answer within the host timeout, or any other answer is a
//! no). `{"approved": true, "always": true}` also records the name in the project's local
//! settings' `enabledMcpjsonServers`, as the reference does when its user approves a
//! server for good, so later sessions start it unasked. Without a host to ask (print mode) such a server does not start, and a warning
//! names the setting that would start it. Servers the caller passed (`--mcp-config`, the
//! SDK's `mcpServers`) and the user's own (`dcl mcp add` user and local scopes, plugins)
//! need no approval. A server not started is listed as `disabled`. The host is asked from
//! `session::mcp` (`ask_host_to_start`).

use std::collections::BTreeMap;

use dcl_mcp::{Scope, ServerConfig};
use serde_json::{Value, json};

use dcl_policy::settings::{
    DISABLED_MCPJSON_SERVERS, ENABLE_ALL_PROJECT_MCP_SERVERS, ENABLED_MCPJSON_SERVERS,
    McpjsonApproval, McpjsonDecision,
};

pub(crate) type Servers = BTreeMap<String, (ServerConfig, String)>;

/// The control request subtype dcl asks its host with.
pub const APPROVAL_SUBTYPE: &str = "mcp_server_approval";

/// The configured servers, by what happens to them at start-up.
#[derive(Default)]
pub(crate) struct Sorted {
    pub start: Servers,
    pub ask: Servers,
    pub held: Servers,
}

/// Sorts the configured servers: only the project's need approval; those the settings
/// neither approve nor disable are asked about when `can_ask`, else held with a warning.
pub(crate) fn sort(servers: Servers, approval: &McpjsonApproval, can_ask: bool) -> Sorted {
    let mut out = Sorted::default();
    for (name, server) in servers {
        if server.1 != Scope::Project.as_str() {
            tracing::debug!("MCP server {name:?} ({} scope): starts", server.1);
            out.start.insert(name, server);
            continue;
        }
        let decision = approval.decide(&name);
        tracing::debug!("project MCP server {name:?}: {decision:?} by the settings");
        match decision {
            McpjsonDecision::Approved => {
                out.start.insert(name, server);
            }
            McpjsonDecision::Disabled => {
                tracing::debug!("project MCP server {name:?} is in {DISABLED_MCPJSON_SERVERS}");
                out.held.insert(name, server);
            }
            McpjsonDecision::Unknown if can_ask => {
                out.ask.insert(name, server);
            }
            McpjsonDecision::Unknown => {
                tracing::warn!(
                    "MCP server {name:?} of the project's .mcp.json was not started: it is not \
                     approved. To start it, add \"{name}\" to {ENABLED_MCPJSON_SERVERS} (or set \
                     {ENABLE_ALL_PROJECT_MCP_SERVERS}: true) in your user or local settings"
                );
                out.held.insert(name, server);
            }
        }
    }
    out
}

/// The request that asks the host whether `name` may start.
pub(crate) fn request(name: &str, config: &ServerConfig) -> Value {
    json!({
        "subtype": APPROVAL_SUBTYPE,
        "server_name": name,
        "scope": Scope::Project.as_str(),
        "config": config.to_json_redacted(),
    })
}

/// Only an explicit yes approves.
pub(crate) fn approved(answer: &Value) -> bool {
    answer.get("approved") == Some(&Value::Bool(true))
}

/// An approval the host asked to remember (`always: true` beside `approved: true`).
pub(crate) fn remembered(answer: &Value) -> bool {
    approved(answer) && answer.get("always") == Some(&Value::Bool(true))
}

/// Adds `name` to `enabledMcpjsonServers` of the settings file at `path` (the project's
/// local settings), keeping what the file holds.
pub(crate) fn remember(
    path: &std::path::Path,
    name: &str,
) -> Result<(), dcl_policy::permissions::host_decision::UpdateError> {
    dcl_policy::permissions::host_decision::edit_settings_file(path, |obj| {
        let list = obj
            .entry(ENABLED_MCPJSON_SERVERS)
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        if let Value::Array(names) = list
            && !names.iter().any(|n| n.as_str() == Some(name))
        {
            names.push(Value::String(name.to_string()));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers() -> Servers {
        let stdio = |c: &str| ServerConfig::Stdio {
            command: c.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        };
        [
            ("mine", "user"),
            ("local", "local"),
            ("passed", "dynamic"),
            ("a", "project"),
            ("b", "project"),
        ]
        .into_iter()
        .map(|(n, scope)| (n.to_string(), (stdio(n), scope.to_string())))
        .collect()
    }

    fn names(s: &Servers) -> Vec<&str> {
        s.keys().map(String::as_str).collect()
    }

    #[test]
    fn only_project_servers_wait_for_approval() {
        let none = McpjsonApproval::default();
        let asked = sort(servers(), &none, true);
        assert_eq!(names(&asked.start), ["local", "mine", "passed"]);
        assert_eq!(names(&asked.ask), ["a", "b"]);
        assert!(asked.held.is_empty());
        let print = sort(servers(), &none, false);
        assert_eq!(names(&print.start), ["local", "mine", "passed"]);
        assert!(print.ask.is_empty());
        assert_eq!(names(&print.held), ["a", "b"]);
    }

    #[test]
    fn settings_approve_and_disabled_wins() {
        let by_name = McpjsonApproval {
            enabled: vec!["a".into()],
            ..Default::default()
        };
        let s = sort(servers(), &by_name, false);
        assert!(s.start.contains_key("a") && s.held.contains_key("b"));
        let all_but_b = McpjsonApproval {
            enable_all: true,
            enabled: vec!["b".into()],
            disabled: vec!["b".into()],
        };
        let s = sort(servers(), &all_but_b, true);
        assert!(s.start.contains_key("a"));
        assert_eq!(names(&s.held), ["b"]);
        assert!(s.ask.is_empty());
    }

    #[test]
    fn only_an_explicit_yes_approves() {
        assert!(approved(&json!({"approved": true})));
        for no in [
            json!({}),
            json!({"approved": false}),
            json!({"approved": "true"}),
            json!({"behavior": "allow"}),
        ] {
            assert!(!approved(&no), "{no}");
        }
        let r = request(
            "a",
            &ServerConfig::Stdio {
                command: "x".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
        );
        assert_eq!(r["subtype"], APPROVAL_SUBTYPE);
        assert_eq!(r["server_name"], "a");
        assert_eq!(r["scope"], "project");
        assert_eq!(r["config"]["command"], "x");
    }

    #[test]
    fn always_is_remembered_only_with_a_yes() {
        assert!(remembered(&json!({"approved": true, "always": true})));
        assert!(!remembered(&json!({"approved": true})));
        assert!(!remembered(&json!({"approved": false, "always": true})));
    }

    #[test]
    fn remembering_adds_the_name_once_and_keeps_the_rest() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join(".dcl/settings.local.json");
        std::fs::create_dir_all(dir.path().join(".dcl")).expect("mkdir");
        std::fs::write(&path, r#"{"permissions": {"allow": ["Read"]}}"#).expect("write");
        remember(&path, "planted").expect("remember");
        remember(&path, "planted").expect("again");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v[ENABLED_MCPJSON_SERVERS], json!(["planted"]));
        assert_eq!(v["permissions"]["allow"], json!(["Read"]));
    }
}
