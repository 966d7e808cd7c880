//! `dcl auth status [--json]`, answered as the reference CLI's is: ACP adapters
//! (claude-agent-acp) run it to show who pays for the turns. dcl has no account login, so
//! the answer is about model keys in the environment.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The variables that hold a first-party key, in the reference's order of precedence.
const KEY_SOURCES: &[&str] = &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "DCL_API_KEY"];

/// The status for `env`, and whether someone is logged in (the exit code: 0 or 1).
pub fn status(env: &BTreeMap<String, String>) -> (Value, bool) {
    let set = |k: &str| env.get(k).is_some_and(|v| !v.is_empty() && v != "0");
    let provider = if set("CLAUDE_CODE_USE_BEDROCK") {
        "bedrock"
    } else if set("CLAUDE_CODE_USE_VERTEX") {
        "vertex"
    } else if set("CLAUDE_CODE_USE_FOUNDRY") {
        "foundry"
    } else {
        "firstParty"
    };
    let source = KEY_SOURCES.iter().find(|k| set(k));
    let mut out = json!({
        "loggedIn": source.is_some(),
        "authMethod": if source.is_some() { "api_key" } else if provider != "firstParty" { "third_party" } else { "none" },
        "apiProvider": provider,
    });
    if let Some(k) = source {
        out["apiKeySource"] = json!(k);
    }
    let ok = source.is_some() || provider != "firstParty";
    (out, ok)
}

/// The text `dcl auth status` prints without `--json`.
pub fn text(status: &Value) -> String {
    match status.get("apiKeySource").and_then(Value::as_str) {
        Some(k) => format!("Logged in using an API key ({k})"),
        None => match status.get("apiProvider").and_then(Value::as_str) {
            Some(p) if p != "firstParty" => format!("Using {p} credentials from the environment"),
            _ => "Not logged in. Set ANTHROPIC_API_KEY (or the provider's key).".into(),
        },
    }
}

/// Whether `argv` (after the program name) is `auth status`, possibly after the global
/// `--settings <value>` the adapters put first.
pub fn is_auth_status(argv: &[String]) -> bool {
    let rest = match argv.first().map(String::as_str) {
        Some("--settings") => argv.get(2..).unwrap_or(&[]),
        _ => argv,
    };
    rest.len() >= 2 && rest[0] == "auth" && rest[1] == "status"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn key_in_the_environment_is_logged_in() {
        let (s, ok) = status(&env(&[("ANTHROPIC_API_KEY", "sk-x")]));
        assert!(ok);
        assert_eq!(s["loggedIn"], true);
        assert_eq!(s["apiKeySource"], "ANTHROPIC_API_KEY");
        assert!(text(&s).contains("ANTHROPIC_API_KEY"));
    }

    #[test]
    fn nothing_is_not_logged_in() {
        let (s, ok) = status(&env(&[("ANTHROPIC_API_KEY", "")]));
        assert!(!ok);
        assert_eq!(s["loggedIn"], false);
        assert_eq!(s["authMethod"], "none");
        assert!(s.get("apiKeySource").is_none());
    }

    #[test]
    fn third_party_backend() {
        let (s, ok) = status(&env(&[("CLAUDE_CODE_USE_BEDROCK", "1")]));
        assert!(ok);
        assert_eq!(s["apiProvider"], "bedrock");
    }

    #[test]
    fn argv_shapes() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_auth_status(&v(&["auth", "status", "--json"])));
        assert!(is_auth_status(&v(&["--settings", "{}", "auth", "status"])));
        assert!(!is_auth_status(&v(&["-p", "auth status"])));
        assert!(!is_auth_status(&v(&["auth"])));
    }
}
