//! [`SessionDescription`]: what a front end shows of a session before its first turn —
//! the mode it starts in, the models it may switch to, the commands it may run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A session as it is now (after the settings: a `permissions.defaultMode` is the mode).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionDescription {
    pub session_id: String,
    pub model: String,
    pub permission_mode: String,
    /// The models [`crate::SessionCommand::SetModel`] takes, the default's spelling first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelChoice>,
    /// Slash commands, skills and plugin commands the prompt may start with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<CommandInfo>,
}

/// One model a session may switch to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelChoice {
    /// What `set_model` takes (`default`, an alias, a model id).
    pub value: String,
    pub display_name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// One slash command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInfo {
    /// Without the slash.
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// What the command takes after its name (`<file>`), if it says.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub argument_hint: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fields_are_left_out_and_read_back() {
        let d = SessionDescription {
            session_id: "s".into(),
            model: "m".into(),
            permission_mode: "default".into(),
            models: vec![],
            commands: vec![CommandInfo {
                name: "review".into(),
                description: String::new(),
                argument_hint: "<pr>".into(),
            }],
        };
        let v = serde_json::to_value(&d).expect("json");
        assert!(v.get("models").is_none());
        assert!(v["commands"][0].get("description").is_none());
        assert_eq!(v["commands"][0]["argument_hint"], "<pr>");
        let back: SessionDescription = serde_json::from_value(v).expect("read back");
        assert_eq!(back, d);
    }
}
