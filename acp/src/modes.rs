//! dcl's permission modes as ACP session modes, its models as the `model` config option,
//! and slash commands as ACP commands.

use dcl_bridge::events::SessionDescription;
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

/// `available_commands_update` from the session's commands.
pub fn available_commands(description: &SessionDescription) -> Value {
    let commands: Vec<Value> = description
        .commands
        .iter()
        .map(|c| {
            let mut cmd = json!({"name": c.name, "description": c.description});
            if !c.argument_hint.is_empty() {
                cmd["input"] = json!({"hint": c.argument_hint});
            }
            cmd
        })
        .collect();
    json!({"sessionUpdate": "available_commands_update", "availableCommands": commands})
}

/// The `model` config option from the session's models, `current` selected (an unknown
/// current value reads as `default`, the configured model).
pub fn model_option(description: &SessionDescription, current: &str) -> Option<Value> {
    let options: Vec<Value> = description
        .models
        .iter()
        .map(|m| {
            let mut o = json!({"value": m.value, "name": m.display_name});
            if !m.description.is_empty() {
                o["description"] = json!(m.description);
            }
            o
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

    use dcl_bridge::events::{CommandInfo, ModelChoice};

    #[test]
    fn commands_with_a_hint_take_input() {
        let d = SessionDescription {
            commands: vec![CommandInfo {
                name: "review".into(),
                description: "Review a PR".into(),
                argument_hint: "<pr>".into(),
            }],
            ..SessionDescription::default()
        };
        let u = available_commands(&d);
        assert_eq!(u["availableCommands"][0]["input"]["hint"], "<pr>");
    }

    #[test]
    fn models_become_a_select() {
        let model = |value: &str, name: &str| ModelChoice {
            value: value.into(),
            display_name: name.into(),
            description: String::new(),
        };
        let init = SessionDescription {
            models: vec![
                model("default", "Default"),
                model("mock-model", "Mock model"),
            ],
            ..SessionDescription::default()
        };
        let o = model_option(&init, "mock-model").expect("option");
        assert_eq!(o["currentValue"], "mock-model");
        assert_eq!(o["options"][1]["name"], "Mock model");
        assert_eq!(
            model_option(&init, "other").expect("option")["currentValue"],
            "default"
        );
        assert!(model_option(&SessionDescription::default(), "x").is_none());
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
