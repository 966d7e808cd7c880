//! dcl's permission modes as ACP session modes, and slash commands as ACP commands.

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
