//! The tool environment: what Bash, background shells and hook commands run with. It
//! is dcl's environment (the process's own, overlaid with the session's) filtered by the
//! session's [`ToolEnvironment`] — never dcl's credentials, by default no variable whose
//! name contains KEY/SECRET/TOKEN/PASSWORD — and whatever a tool prints has the
//! withheld values scrubbed, so a key cannot reach the model even if a file holds it.

use std::collections::BTreeMap;
use std::ffi::OsString;

pub use dcl_shell::environment::{
    CREDENTIALS, REDACTED, ToolEnvironment, ToolEnvironmentError, is_secret_name, redact_settings,
    redact_text,
};

use super::ToolContext;

/// dcl's environment as a child would inherit it: the process's variables with the
/// session's on top.
pub fn dcl_environment(session: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut base: BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    base.extend(session.iter().map(|(k, v)| (k.clone(), v.clone())));
    base
}

/// The complete environment of a tool process started for `ctx`.
pub fn for_tools(ctx: &ToolContext) -> BTreeMap<String, String> {
    ctx.shell
        .tool_environment()
        .apply(&dcl_environment(&ctx.env))
}

/// The process's variables whose name or value is not UTF-8, as a tool process started for
/// `ctx` gets them (see [`ToolEnvironment::non_utf8_process_vars`]).
pub fn non_utf8_for_tools(ctx: &ToolContext) -> Vec<(OsString, OsString)> {
    ctx.shell.tool_environment().non_utf8_process_vars(&ctx.env)
}

/// The values a tool's output must not show.
pub fn withheld_secrets(ctx: &ToolContext) -> Vec<String> {
    ctx.shell
        .tool_environment()
        .withheld_secrets(&dcl_environment(&ctx.env))
}

/// `text` with every withheld value replaced by `[redacted]`.
pub fn scrub(ctx: &ToolContext, text: &str) -> String {
    redact_text(text, &withheld_secrets(ctx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    #[test]
    fn session_secrets_are_withheld_and_scrubbed() {
        let mut ctx = ToolContext::new(PathBuf::from("/"));
        ctx.env = Arc::new(BTreeMap::from([
            (
                "ANTHROPIC_API_KEY".to_string(),
                "sk-ant-test-123456".to_string(),
            ),
            ("DCL_ENV_TEST_PLAIN".to_string(), "visible".to_string()),
        ]));
        let env = for_tools(&ctx);
        assert!(!env.contains_key("ANTHROPIC_API_KEY"));
        assert_eq!(
            env.get("DCL_ENV_TEST_PLAIN").map(String::as_str),
            Some("visible")
        );
        assert_eq!(scrub(&ctx, "k=sk-ant-test-123456"), "k=[redacted]");
        ctx.shell.set_tool_environment(
            ToolEnvironment::from_settings(Some(
                &serde_json::json!({"exclude": ["DCL_ENV_TEST_*"]}),
            ))
            .unwrap(),
        );
        assert!(!for_tools(&ctx).contains_key("DCL_ENV_TEST_PLAIN"));
    }
}
