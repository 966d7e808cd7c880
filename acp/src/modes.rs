//! dcl's permission modes as ACP session modes, its models as the `model` config option,
//! and slash commands as ACP commands.

use serde_json::{Value, json};

const MODES: &[(&str, &str, &str)] = &[
    (
        "default",
        "Default",
        "Asks before edits and commands the rules do not allow",
    ),
    (
        "acceptEdits",
        "Accept Edits",
        "Edits in the working directory are allowed",
    ),
    ("plan", "Plan", "Explores and plans; no edits or commands"),
    (
        "dontAsk",
        "Don't Ask",
        "Denies what the rules do not allow, without asking",
    ),
    (
        "bypassPermissions",
        "Bypass Permissions",
        "Allows everything the rules do not deny",
    ),
];

pub fn is_mode(id: &str) -> bool {
    MODES.iter().any(|(m, _, _)| *m == id)
}

/// The `modes` of a session/new answer.
pub fn state(current: &str) -> Value {
    let available: Vec<Value> = MODES
        .iter()
        .map(|(id, name, description)| json!({"id": id, "name": name, "description": description}))
        .collect();
    json!({"currentModeId": current, "availableModes": available})
}

/// `available_commands_update` from the `commands` of dcl's initialize answer.
pub fn available_commands(init: &Value) -> Value {
    let commands: Vec<Value> = init
        .get("commands")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|c| {
                    let name = c.get("name")?.as_str()?;
                    let mut cmd = json!({
                        "name": name,
                        "description": c.get("description").and_then(Value::as_str).unwrap_or(""),
                    });
                    if let Some(hint) = c
                        .get("argumentHint")
                        .and_then(Value::as_str)
                        .filter(|h| !h.is_empty())
                    {
                        cmd["input"] = json!({"hint": hint});
                    }
                    Some(cmd)
                })
                .collect()
        })
        .unwrap_or_default();
    json!({"sessionUpdate": "available_commands_update", "availableCommands": commands})
}

/// The `model` config option from the `models` of dcl's initialize answer, `current`
/// selected (an unknown current value reads as `default`, the configured model).
pub fn model_option(init: &Value, current: &str) -> Option<Value> {
    let models = init.get("models")?.as_array()?;
    let options: Vec<Value> = models
        .iter()
        .filter_map(|m| {
            let value = m.get("value")?.as_str()?;
            Some(json!({
                "value": value,
                "name": m.get("displayName").and_then(Value::as_str).unwrap_or(value),
                "description": m.get("description").and_then(Value::as_str),
            }))
        })
        .collect();
    if options.is_empty() {
        return None;
    }
    let known = options.iter().any(|o| o["value"] == current);
    Some(json!({
        "id": MODEL_CONFIG,
        "name": "Model",
        "category": "model",
        "type": "select",
        "currentValue": if known { current } else { "default" },
        "options": options,
    }))
}

pub const MODEL_CONFIG: &str = "model";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_become_a_select() {
        let init = json!({"models": [{"value": "default", "displayName": "Default"},
            {"value": "mock-model", "displayName": "Mock model"}]});
        let o = model_option(&init, "mock-model").expect("option");
        assert_eq!(o["currentValue"], "mock-model");
        assert_eq!(o["options"][1]["name"], "Mock model");
        assert_eq!(
            model_option(&init, "other").expect("option")["currentValue"],
            "default"
        );
        assert!(model_option(&json!({}), "x").is_none());
        // The crate's type takes it (its lists skip items they cannot read).
        let answer: agent_client_protocol::v1::schema::NewSessionResponse =
            serde_json::from_value(json!({"sessionId": "s", "configOptions": [o.clone()]}))
                .expect("answer");
        assert_eq!(
            serde_json::to_value(&answer).expect("json")["configOptions"][0]["id"],
            "model"
        );
        let typed: agent_client_protocol::v1::schema::SessionConfigOption =
            serde_json::from_value(o).expect("a valid config option");
        assert_eq!(serde_json::to_value(&typed).expect("json")["id"], "model");
    }
}
