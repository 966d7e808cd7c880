//! Trusted layers: a repository's committed project settings (`.dcl/settings.json`,
//! `.claude/settings.json`) come with the code, so they cannot grant themselves power.
//! They cannot turn on bypassPermissions, and cannot set environment variables that
//! change what every shell runs at start-up. User, local, flag and host settings can.

use serde_json::{Map, Value};

/// `env` keys a project layer may not set.
pub const STARTUP_ENV: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
];

/// Removes what a project layer may not set from `settings`; returns one warning per
/// removed value (the caller logs or reports them).
pub fn filter_project_layer(settings: &mut Map<String, Value>) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(Value::Object(perms)) = settings.get_mut("permissions") {
        let bypass = perms
            .get("defaultMode")
            .and_then(Value::as_str)
            .and_then(|m| super::PermissionMode::parse(m).ok())
            == Some(super::PermissionMode::BypassPermissions);
        if bypass {
            perms.remove("defaultMode");
            warnings.push(
                "project settings cannot set permissions.defaultMode to bypassPermissions; ignored"
                    .to_string(),
            );
        }
    }
    if let Some(Value::Object(env)) = settings.get_mut("env") {
        for key in STARTUP_ENV {
            let present: Vec<String> = env
                .keys()
                .filter(|k| k.eq_ignore_ascii_case(key))
                .cloned()
                .collect();
            for k in present {
                env.remove(&k);
                warnings.push(format!("project settings cannot set env.{k}; ignored"));
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn project_layers_cannot_grant_themselves_power() {
        let mut s = json!({
            "permissions": {"defaultMode": "bypassPermissions", "allow": ["Read"]},
            "env": {"BASH_ENV": "./x.sh", "LD_PRELOAD": "/x.so", "EDITOR": "vi"},
            "model": "sonnet"
        })
        .as_object()
        .cloned()
        .unwrap();
        let w = filter_project_layer(&mut s);
        assert_eq!(w.len(), 3);
        assert_eq!(
            Value::Object(s),
            json!({"permissions": {"allow": ["Read"]}, "env": {"EDITOR": "vi"}, "model": "sonnet"})
        );
        let mut ok = json!({"permissions": {"defaultMode": "acceptEdits"}})
            .as_object()
            .cloned()
            .unwrap();
        assert!(filter_project_layer(&mut ok).is_empty());
        assert_eq!(ok["permissions"]["defaultMode"], "acceptEdits");
    }
}
