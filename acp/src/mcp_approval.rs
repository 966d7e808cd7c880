//! A project's `.mcp.json` server the settings neither approve nor disable: dcl asks
//! (`mcp_server_approval`) before starting it, and `dcl acp` asks the editor through
//! `session/request_permission`. "Always" is answered `always: true`, so dcl records the
//! name in the project's local settings (`enabledMcpjsonServers`) as the reference does;
//! anything but an allow (reject, cancelled, no answer) leaves the server stopped.

use serde_json::{Value, json};

pub const SUBTYPE: &str = "mcp_server_approval";

const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT_ONCE: &str = "reject_once";

/// The `session/request_permission` params for dcl's approval request.
pub fn request(session_id: &str, approval: &Value) -> Value {
    let name = approval
        .get("server_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let config = approval.get("config").cloned().unwrap_or(json!({}));
    json!({
        "sessionId": session_id,
        "toolCall": {
            "toolCallId": format!("mcp-server-approval:{name}"),
            "title": format!("Start the MCP server `{name}` of this project's .mcp.json?"),
            "kind": "execute",
            "status": "pending",
            "rawInput": {"server_name": name, "scope": "project", "config": config},
        },
        "options": [
            {"optionId": ALLOW_ALWAYS, "name": "Always allow in this project", "kind": "allow_always"},
            {"optionId": ALLOW_ONCE, "name": "Allow for this session", "kind": "allow_once"},
            {"optionId": REJECT_ONCE, "name": "Do not start it", "kind": "reject_once"},
        ],
    })
}

/// dcl's answer for the client's `outcome` (the response's JSON).
pub fn answer(outcome: &Value) -> Value {
    let selected = match outcome.get("outcome").and_then(Value::as_str) {
        Some("selected") => outcome.get("optionId").and_then(Value::as_str),
        _ => None,
    };
    match selected {
        Some(ALLOW_ALWAYS) => json!({"approved": true, "always": true}),
        Some(ALLOW_ONCE) => json!({"approved": true}),
        _ => json!({"approved": false}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(id: &str) -> Value {
        json!({"outcome": "selected", "optionId": id})
    }

    #[test]
    fn asks_with_three_options_naming_the_server() {
        let r = request(
            "s",
            &json!({"subtype": SUBTYPE, "server_name": "planted", "scope": "project",
                "config": {"command": "sh"}}),
        );
        assert_eq!(r["options"].as_array().map(Vec::len), Some(3));
        assert!(
            r["toolCall"]["title"]
                .as_str()
                .is_some_and(|t| t.contains("planted"))
        );
        assert_eq!(r["toolCall"]["rawInput"]["config"]["command"], "sh");
    }

    #[test]
    fn only_an_allow_approves() {
        assert_eq!(answer(&pick(ALLOW_ONCE)), json!({"approved": true}));
        assert_eq!(answer(&pick(ALLOW_ALWAYS))["always"], true);
        assert_eq!(answer(&pick(REJECT_ONCE))["approved"], false);
        assert_eq!(answer(&json!({"outcome": "cancelled"}))["approved"], false);
        assert_eq!(answer(&pick("something_else"))["approved"], false);
    }
}
