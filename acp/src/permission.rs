//! dcl's permission requests (typed) <-> `session/request_permission` to the client.
//!
//! "Always" answers carry `updatedPermissions`, so dcl applies and writes the rule where
//! the reference CLI's "don't ask again" does: dcl's own suggestions (a rule for the
//! command in `localSettings`, or accept-edits for the session for file edits), else a
//! rule for the tool in `localSettings`.

use dcl_bridge::events::{PermissionDecision, PermissionRequest};
use serde_json::{Value, json};

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";
pub const REJECT_ALWAYS: &str = "reject_always";

/// The `session/request_permission` params for a permission request.
pub fn request(session_id: &str, asked: &PermissionRequest) -> Value {
    let call = &asked.tool_call;
    json!({
        "sessionId": session_id,
        "toolCall": {
            "toolCallId": asked.tool_call_id,
            "title": call.title,
            "kind": call.kind,
            "rawInput": call.raw_input,
        },
        "options": [
            {"optionId": ALLOW_ALWAYS, "name": "Always Allow", "kind": "allow_always"},
            {"optionId": ALLOW_ONCE, "name": "Allow", "kind": "allow_once"},
            {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
            {"optionId": REJECT_ALWAYS, "name": "Always Reject", "kind": "reject_always"},
        ],
    })
}

/// The decision for the client's `outcome` (the response's JSON); a cancelled request
/// (the turn is being stopped) denies and interrupts.
pub fn answer(asked: &PermissionRequest, outcome: &Value) -> PermissionDecision {
    let selected = match outcome.get("outcome").and_then(Value::as_str) {
        Some("selected") => outcome.get("optionId").and_then(Value::as_str),
        _ => None,
    };
    let deny = |message: &str, interrupt: bool| PermissionDecision::Deny {
        message: message.to_string(),
        interrupt,
        updated_permissions: None,
    };
    match selected {
        Some(ALLOW_ONCE) => PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: None,
        },
        Some(ALLOW_ALWAYS) => PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: Some(always_rules(asked, "allow")),
        },
        Some(REJECT_ALWAYS) => PermissionDecision::Deny {
            message: "The user rejected this tool use and asked not to be asked again.".into(),
            interrupt: false,
            updated_permissions: Some(always_rules(asked, "deny")),
        },
        Some(REJECT_ONCE) => deny("The user rejected this tool use.", false),
        // Cancelled (or an option we never offered): the turn is being stopped.
        _ => deny("Interrupted by user", true),
    }
}

/// The mode an answer switches the session to (an "always" for edits), if any.
pub fn new_mode(decision: &PermissionDecision) -> Option<String> {
    let PermissionDecision::Allow {
        updated_permissions: Some(Value::Array(updates)),
        ..
    } = decision
    else {
        return None;
    };
    updates
        .iter()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("setMode"))
        .and_then(|p| p.get("mode").and_then(Value::as_str))
        .map(str::to_string)
}

/// What an "always" answer records.
pub fn always_rules(asked: &PermissionRequest, behavior: &str) -> Value {
    let suggestions: Vec<Value> = asked
        .suggestions
        .as_ref()
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
    let name = asked.tool_call.name.as_str();
    if behavior == "allow" && asked.tool_call.kind == dcl_bridge::events::ToolKind::Edit {
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
    use dcl_bridge::events::ToolCall;

    fn asked(name: &str, input: Value, suggestions: Value) -> PermissionRequest {
        PermissionRequest {
            request_id: "r1".into(),
            tool_call_id: "t1".into(),
            tool_call: ToolCall::describe(name, input),
            reason: None,
            suggestions: Some(suggestions),
            blocked_path: None,
        }
    }

    fn bash() -> PermissionRequest {
        asked(
            "Bash",
            json!({"command": "touch x"}),
            json!([
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch x"}],
                 "behavior": "allow", "destination": "localSettings"},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}]),
        )
    }

    fn pick(id: &str) -> Value {
        json!({"outcome": "selected", "optionId": id})
    }

    fn json_of(d: &PermissionDecision) -> Value {
        serde_json::to_value(d).expect("json")
    }

    #[test]
    fn request_offers_four_options() {
        let r = request("s", &bash());
        assert_eq!(r["toolCall"]["kind"], "execute");
        assert_eq!(r["toolCall"]["toolCallId"], "t1");
        assert_eq!(r["options"].as_array().map(Vec::len), Some(4));
    }

    #[test]
    fn answers() {
        assert_eq!(
            json_of(&answer(&bash(), &pick(ALLOW_ONCE)))["behavior"],
            "allow"
        );
        let always = json_of(&answer(&bash(), &pick(ALLOW_ALWAYS)));
        assert_eq!(
            always["updated_permissions"][0]["rules"][0]["ruleContent"],
            "touch x"
        );
        assert_eq!(
            always["updated_permissions"].as_array().map(Vec::len),
            Some(1)
        );
        let never = json_of(&answer(&bash(), &pick(REJECT_ALWAYS)));
        assert_eq!(never["behavior"], "deny");
        assert_eq!(never["updated_permissions"][0]["behavior"], "deny");
        let once = json_of(&answer(&bash(), &pick(REJECT_ONCE)));
        assert_eq!(once["behavior"], "deny");
        assert!(once.get("updated_permissions").is_none());
        let cancelled = json_of(&answer(&bash(), &json!({"outcome": "cancelled"})));
        assert_eq!(cancelled["interrupt"], true);
    }

    #[test]
    fn always_for_an_edit_accepts_edits() {
        let write = asked(
            "Write",
            json!({"file_path": "/a", "content": ""}),
            json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]),
        );
        let a = answer(&write, &pick(ALLOW_ALWAYS));
        assert_eq!(new_mode(&a).as_deref(), Some("acceptEdits"));
        assert_eq!(new_mode(&answer(&bash(), &pick(ALLOW_ONCE))), None);
    }
}
