//! `can_use_tool` from dcl <-> `session/request_permission` to the client.
//!
//! "Always" answers carry `updatedPermissions`, so dcl applies and writes the rule where
//! the reference CLI's "don't ask again" does: dcl's own suggestions (a rule for the
//! command in `localSettings`, or accept-edits for the session for file edits), else a
//! rule for the tool in `localSettings`.

use serde_json::{Value, json};

use crate::from_stream_json::{kind, title};

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";
pub const REJECT_ALWAYS: &str = "reject_always";

/// The `session/request_permission` params for a `can_use_tool` request.
pub fn request(session_id: &str, can_use_tool: &Value) -> Value {
    let name = can_use_tool
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("tool");
    let input = can_use_tool.get("input").cloned().unwrap_or(json!({}));
    let id = can_use_tool
        .get("tool_use_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    let path = input
        .get("file_path")
        .and_then(Value::as_str)
        .map(str::to_string);
    json!({
        "sessionId": session_id,
        "toolCall": {
            "toolCallId": id,
            "title": title(name, &input, path.as_deref()),
            "kind": kind(name),
            "rawInput": input,
        },
        "options": [
            {"optionId": ALLOW_ALWAYS, "name": "Always Allow", "kind": "allow_always"},
            {"optionId": ALLOW_ONCE, "name": "Allow", "kind": "allow_once"},
            {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
            {"optionId": REJECT_ALWAYS, "name": "Always Reject", "kind": "reject_always"},
        ],
    })
}

/// The answer to `can_use_tool` for the client's `outcome` (the response's JSON); a
/// cancelled request (the turn is being stopped) denies and interrupts.
pub fn answer(can_use_tool: &Value, outcome: &Value) -> Value {
    let input = can_use_tool.get("input").cloned().unwrap_or(json!({}));
    let selected = match outcome.get("outcome").and_then(Value::as_str) {
        Some("selected") => outcome.get("optionId").and_then(Value::as_str),
        _ => None,
    };
    match selected {
        Some(ALLOW_ONCE) => json!({"behavior": "allow", "updatedInput": input}),
        Some(ALLOW_ALWAYS) => json!({"behavior": "allow", "updatedInput": input,
            "updatedPermissions": always_rules(can_use_tool, "allow")}),
        Some(REJECT_ALWAYS) => json!({"behavior": "deny",
            "message": "The user rejected this tool use and asked not to be asked again.",
            "updatedPermissions": always_rules(can_use_tool, "deny")}),
        Some(REJECT_ONCE) => {
            json!({"behavior": "deny", "message": "The user rejected this tool use."})
        }
        // Cancelled (or an option we never offered): the turn is being stopped.
        _ => json!({"behavior": "deny", "message": "Interrupted by user", "interrupt": true}),
    }
}

/// What an "always" answer records.
fn always_rules(can_use_tool: &Value, behavior: &str) -> Value {
    let suggestions: Vec<Value> = can_use_tool
        .get("permission_suggestions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let rules: Vec<Value> = suggestions
        .iter()
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("addRules"))
        .map(|s| {
            let mut s = s.clone();
            s["behavior"] = json!(behavior);
            s
        })
        .collect();
    if !rules.is_empty() {
        return json!(rules);
    }
    let name = can_use_tool
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if behavior == "allow" && kind(name) == "edit" {
        let modes: Vec<&Value> = suggestions
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) == Some("setMode"))
            .collect();
        if !modes.is_empty() {
            return json!(modes);
        }
    }
    json!([{"type": "addRules", "rules": [{"toolName": name}], "behavior": behavior,
        "destination": "localSettings"}])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash() -> Value {
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "tool_use_id": "t1",
            "input": {"command": "touch x"},
            "permission_suggestions": [
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch x"}],
                 "behavior": "allow", "destination": "localSettings"},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}]})
    }

    fn pick(id: &str) -> Value {
        json!({"outcome": "selected", "optionId": id})
    }

    #[test]
    fn request_offers_four_options() {
        let r = request("s", &bash());
        assert_eq!(r["toolCall"]["kind"], "execute");
        assert_eq!(r["options"].as_array().map(Vec::len), Some(4));
    }

    #[test]
    fn answers() {
        assert_eq!(answer(&bash(), &pick(ALLOW_ONCE))["behavior"], "allow");
        let always = answer(&bash(), &pick(ALLOW_ALWAYS));
        assert_eq!(
            always["updatedPermissions"][0]["rules"][0]["ruleContent"],
            "touch x"
        );
        assert_eq!(
            always["updatedPermissions"].as_array().map(Vec::len),
            Some(1)
        );
        let never = answer(&bash(), &pick(REJECT_ALWAYS));
        assert_eq!(never["behavior"], "deny");
        assert_eq!(never["updatedPermissions"][0]["behavior"], "deny");
        assert_eq!(answer(&bash(), &pick(REJECT_ONCE))["behavior"], "deny");
        let cancelled = answer(&bash(), &json!({"outcome": "cancelled"}));
        assert_eq!(cancelled["interrupt"], true);
    }

    #[test]
    fn always_for_an_edit_accepts_edits() {
        let write = json!({"tool_name": "Write", "input": {"file_path": "/a"},
            "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]});
        let a = answer(&write, &pick(ALLOW_ALWAYS));
        assert_eq!(a["updatedPermissions"][0]["mode"], "acceptEdits");
    }
}
