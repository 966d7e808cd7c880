//! The environment commands run with (Bash, background shells, hook commands, MCP stdio
//! servers): never dcl's own credentials, and by default no variable whose name looks
//! like a secret. Lives here, not in the engine, because both the engine and dcl-mcp
//! spawn commands and dcl-mcp cannot depend on the engine.
//!
//! Settings shape (`toolEnvironment`): `{"inherit": bool, "exclude": [names],
//! "includeOnly": [names], "set": {name: value}}`. `inherit: false` starts from nothing;
//! `includeOnly` keeps only the names listed; `exclude` drops more names (`*` wildcards);
//! `set` adds values last (and is the one way to hand a tool a secret-looking variable).

use std::collections::BTreeMap;

use serde::Deserialize;

/// dcl's own credentials: never passed to a tool, whatever the settings say.
pub const CREDENTIALS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "DCL_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
    "QODER_PERSONAL_ACCESS_TOKEN",
    "QODER_AUTH_TOKEN",
    "QODER_SDK_AUTH_PAYLOAD_FILE",
    "CLAUDE_CODE_OAUTH_TOKEN",
];

/// Name fragments that mark a variable as secret (compared case-insensitively).
const SECRET_MARKERS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Whether a variable name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKERS.iter().any(|m| upper.contains(m))
}

/// A `toolEnvironment` settings block that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("toolEnvironment: {0}")]
pub struct ToolEnvironmentError(String);

/// How the tool environment is made from dcl's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolEnvironment {
    /// `false`: start from an empty environment (plus `PATH`, `HOME`, `USER`, `LANG`,
    /// `TERM`, `SHELL`, `TMPDIR`, which a shell needs). Default `true`.
    #[serde(default)]
    pub inherit: Option<bool>,
    /// Names (or `PREFIX*` patterns) never passed.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// When set, only these names (or patterns) pass — secret-looking ones included,
    /// since naming them is the opt-in; dcl's own credentials still never do.
    #[serde(default)]
    pub include_only: Option<Vec<String>>,
    /// Values set last.
    #[serde(default)]
    pub set: BTreeMap<String, String>,
}

/// What a non-inheriting environment still keeps.
const BASICS: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR",
];

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

impl ToolEnvironment {
    /// Parses the settings block (`None` or `null`: the defaults).
    pub fn from_settings(value: Option<&serde_json::Value>) -> Result<Self, ToolEnvironmentError> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(ToolEnvironment::default()),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|e| ToolEnvironmentError(e.to_string()))
            }
        }
    }

    /// Whether `name` passes from dcl's environment to a tool.
    pub fn passes(&self, name: &str) -> bool {
        if CREDENTIALS.contains(&name) {
            return false;
        }
        if self.exclude.iter().any(|p| matches(p, name)) {
            return false;
        }
        if let Some(only) = &self.include_only {
            return only.iter().any(|p| matches(p, name));
        }
        if self.inherit == Some(false) && !BASICS.contains(&name) {
            return false;
        }
        !is_secret_name(name)
    }

    /// The environment a tool process gets from `base` (dcl's environment: the process's
    /// own overlaid with the session's).
    pub fn apply(&self, base: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = base
            .iter()
            .filter(|(k, _)| self.passes(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in &self.set {
            out.insert(k.clone(), v.clone());
        }
        out
    }

    /// The process's variables whose name or value is not UTF-8, which the string maps
    /// cannot hold: a tool process gets them unchanged, under this policy by name, unless
    /// `env` (the rest of its environment) or `set` names the variable (those win).
    pub fn non_utf8_process_vars(
        &self,
        env: &BTreeMap<String, String>,
    ) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        std::env::vars_os()
            .filter(|(k, v)| k.to_str().is_none() || v.to_str().is_none())
            .filter(|(k, _)| {
                let name = k.to_string_lossy();
                !env.contains_key(name.as_ref())
                    && !self.set.contains_key(name.as_ref())
                    && self.passes(&name)
            })
            .collect()
    }

    /// The values a tool must never see, to scrub from any text it produces or that
    /// reaches a log: the values of every withheld secret-looking variable of `base`
    /// (short values are skipped; they would redact ordinary words).
    pub fn withheld_secrets(&self, base: &BTreeMap<String, String>) -> Vec<String> {
        let mut out: Vec<String> = base
            .iter()
            .filter(|(k, v)| {
                (CREDENTIALS.contains(&k.as_str()) || is_secret_name(k))
                    && v.len() >= MIN_SECRET_LEN
                    && self.set.get(*k) != Some(*v)
                    && !self.passes(k)
            })
            .map(|(_, v)| v.clone())
            .collect();
        // Longest first, so a secret containing another is replaced whole.
        out.sort_by_key(|v| std::cmp::Reverse(v.len()));
        out.dedup();
        out
    }
}

/// Values shorter than this are not treated as secrets when redacting text.
pub const MIN_SECRET_LEN: usize = 8;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// `text` with every occurrence of each secret replaced.
pub fn redact_text(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if s.len() >= MIN_SECRET_LEN && out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out
}

/// A settings value with the value of every secret-looking key replaced (for
/// `get_settings` and logs): `env.ANTHROPIC_API_KEY`, `apiKey`, `toolEnvironment.set.X_TOKEN`…
pub fn redact_settings(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_secret_name(k) && (v.is_string() || v.is_number()) {
                        Value::String(REDACTED.into())
                    } else if k == "headers" {
                        redact_headers(v)
                    } else {
                        redact_settings(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_settings).collect()),
        other => other.clone(),
    }
}

/// HTTP headers carry credentials under names like `Authorization`.
fn redact_headers(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let secret = is_secret_name(k)
                        || k.eq_ignore_ascii_case("authorization")
                        || k.eq_ignore_ascii_case("cookie");
                    let v = if secret && v.is_string() {
                        serde_json::Value::String(REDACTED.into())
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => redact_settings(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> BTreeMap<String, String> {
        [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("ANTHROPIC_API_KEY", "sk-ant-very-secret"),
            ("GITHUB_TOKEN", "ghp_abcdefgh12345"),
            ("MY_PASSWORD", "hunter2hunter2"),
            ("EDITOR", "vi"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn credentials_and_secret_names_are_withheld_by_default() {
        let env = ToolEnvironment::default().apply(&base());
        assert_eq!(
            env.keys().collect::<Vec<_>>(),
            vec!["EDITOR", "HOME", "PATH"]
        );
    }

    #[test]
    fn settings_change_the_defaults_but_never_pass_dcl_credentials() {
        let t = ToolEnvironment::from_settings(Some(&json!({
            "includeOnly": ["PATH", "GITHUB_TOKEN", "ANTHROPIC_API_KEY"],
            "set": {"X": "1"}
        })))
        .unwrap();
        let env = t.apply(&base());
        assert_eq!(
            env.keys().collect::<Vec<_>>(),
            vec!["GITHUB_TOKEN", "PATH", "X"]
        );
        let t = ToolEnvironment::from_settings(Some(&json!({"inherit": false}))).unwrap();
        assert_eq!(
            t.apply(&base()).keys().collect::<Vec<_>>(),
            vec!["HOME", "PATH"]
        );
        let t = ToolEnvironment::from_settings(Some(&json!({"exclude": ["ED*"]}))).unwrap();
        assert!(!t.apply(&base()).contains_key("EDITOR"));
        assert!(ToolEnvironment::from_settings(Some(&json!({"inherits": true}))).is_err());
    }

    #[test]
    fn withheld_values_are_redacted_from_text() {
        let secrets = ToolEnvironment::default().withheld_secrets(&base());
        let text = "key=sk-ant-very-secret token ghp_abcdefgh12345 vi";
        let red = redact_text(text, &secrets);
        assert_eq!(red, "key=[redacted] token [redacted] vi");
    }

    #[test]
    fn settings_values_of_secret_keys_are_redacted() {
        let v = json!({
            "env": {"ANTHROPIC_API_KEY": "sk-x", "EDITOR": "vi"},
            "apiKeyHelper": "/bin/helper",
            "mcpServers": {"a": {"headers": {"Authorization": "Bearer t"}}},
            "model": "sonnet"
        });
        let r = redact_settings(&v);
        assert_eq!(r["env"]["ANTHROPIC_API_KEY"], "[redacted]");
        assert_eq!(r["env"]["EDITOR"], "vi");
        assert_eq!(r["apiKeyHelper"], "[redacted]");
        assert_eq!(
            r["mcpServers"]["a"]["headers"]["Authorization"],
            "[redacted]"
        );
        assert_eq!(r["model"], "sonnet");
    }
}
