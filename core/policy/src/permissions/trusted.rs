//! Trusted layers: a repository's committed project settings (`.dcl/settings.json`,
//! `.claude/settings.json`) come with the code, so they cannot grant themselves power.
//! They cannot turn on bypassPermissions, and cannot set environment variables that
//! change what every shell runs at start-up. User, local, flag and host settings can.
//! Their command hooks run only in a project a user or flag layer trusts.

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

/// The settings key (user and flag layers only) listing the project directories whose
/// committed settings may run command hooks; relative entries are taken against the cwd.
pub const TRUSTED_PROJECTS: &str = "trustedProjects";

/// Whether `cwd` is (inside) a directory one of `layers` lists under `trustedProjects`.
/// Pass only layers the repository cannot write (user, flag).
pub fn project_is_trusted<'a>(
    layers: impl IntoIterator<Item = &'a Map<String, Value>>,
    cwd: &std::path::Path,
) -> bool {
    let real_cwd = super::paths::resolve_real(cwd);
    layers.into_iter().any(|l| {
        l.get(TRUSTED_PROJECTS)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|d| !d.trim().is_empty())
            .any(|d| real_cwd.starts_with(super::paths::resolve_real(&cwd.join(d))))
    })
}

/// Whether the client's trust record (`{"projects": {"<absolute path>":
/// {"hasTrustDialogAccepted": true}}}`) accepts `cwd`: the folder itself or one it is in.
/// A missing or unreadable record trusts nothing.
pub fn recorded_trust(record: &std::path::Path, cwd: &std::path::Path) -> bool {
    let Ok(text) = std::fs::read_to_string(record) else {
        return false;
    };
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(&text) else {
        tracing::warn!(
            "{}: not a JSON object; its trust records are ignored",
            record.display()
        );
        return false;
    };
    let real_cwd = super::paths::resolve_real(cwd);
    root.get("projects")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| p.get("hasTrustDialogAccepted").and_then(Value::as_bool) == Some(true))
        .map(|(dir, _)| std::path::Path::new(dir))
        .filter(|dir| dir.is_absolute())
        .any(|dir| real_cwd.starts_with(super::paths::resolve_real(dir)))
}

/// Removes a project layer's `hooks` (an untrusted project); the warning, if any were.
pub fn drop_untrusted_hooks(settings: &mut Map<String, Value>) -> Option<String> {
    // Plugin folders carry hooks and MCP servers of their own: the same code-running power.
    let mut dropped = Vec::new();
    for key in ["hooks", "pluginDirs"] {
        if let Some(v) = settings.shift_remove(key) {
            let empty = match &v {
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Null => true,
                _ => false,
            };
            if !empty {
                dropped.push(key);
            }
        }
    }
    // Allow rules grant what would otherwise be asked: a repository's own file cannot grant
    // it (the reference asks there too). Deny and ask rules only restrict, so they stay.
    if let Some(Value::Object(perms)) = settings.get_mut("permissions")
        && perms
            .shift_remove("allow")
            .is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()))
    {
        dropped.push("permissions.allow");
    }
    (!dropped.is_empty()).then(|| {
        format!(
            "project settings' {} not used: this project is not trusted (list it in `{TRUSTED_PROJECTS}` of your user settings or --settings to use them)",
            dropped.join(" and ")
        )
    })
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

    #[test]
    fn an_untrusted_project_layer_loses_its_allow_rules_and_keeps_deny_and_ask() {
        let mut s =
            json!({"permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"], "ask": ["Edit"]}})
                .as_object()
                .cloned()
                .unwrap();
        let w = drop_untrusted_hooks(&mut s).unwrap_or_default();
        assert!(w.contains("permissions.allow"), "{w}");
        assert_eq!(
            Value::Object(s),
            json!({"permissions": {"deny": ["Read(./.env)"], "ask": ["Edit"]}})
        );
        // Twin: a layer with no allow rules is left alone and nothing is said.
        let mut quiet = json!({"permissions": {"deny": ["Bash(rm:*)"]}})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(drop_untrusted_hooks(&mut quiet), None);
        assert_eq!(quiet["permissions"]["deny"][0], "Bash(rm:*)");
    }

    #[test]
    fn project_hooks_need_a_trusting_user_or_flag_layer() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("repo");
        std::fs::create_dir_all(cwd.join("sub")).unwrap();
        let layer = |v: Value| v.as_object().cloned().unwrap();
        let none = layer(json!({"model": "x"}));
        let other = layer(json!({"trustedProjects": [dir.path().join("elsewhere")]}));
        let this = layer(json!({"trustedProjects": [cwd]}));
        let dot = layer(json!({"trustedProjects": ["."]}));
        assert!(!project_is_trusted([&none, &other], &cwd));
        assert!(project_is_trusted([&none, &this], &cwd));
        assert!(project_is_trusted([&this], &cwd.join("sub")));
        assert!(project_is_trusted([&dot], &cwd));
        let mut s = layer(json!({"hooks": {"Stop": []}, "model": "m"}));
        assert!(drop_untrusted_hooks(&mut s).is_some());
        assert_eq!(Value::Object(s), json!({"model": "m"}));
        let mut s = layer(json!({"model": "m"}));
        assert!(drop_untrusted_hooks(&mut s).is_none());
    }
}
