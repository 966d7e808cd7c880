//! Session options: JSON in the vocabulary of the CLI flags (`--permission-mode` is
//! `permissionMode`), validated once here for the CLI and every binding.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which client dialect to speak; read from the environment by front ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Claude,
    Qoder,
}

/// How output is framed; only `stream-json` sessions speak the control protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputFormat {
    Text,
    Json,
    #[default]
    StreamJson,
}

/// Everything a session is opened with. Unknown keys are rejected so typos surface.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionOptions {
    /// Working directory; relative paths in tools resolve against it. Default: process cwd.
    pub cwd: Option<PathBuf>,
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    /// `anthropic` (default) or `openai`.
    pub api_format: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// `None`: default prompt. `Some("")`: Claude dialect means no prompt at all.
    pub system_prompt: Option<String>,
    pub append_system_prompt: Option<String>,
    pub permission_mode: Option<String>,
    /// `stdio` sends approvals to the host; absent in stream-json mode means the same.
    pub permission_prompt_tool: Option<String>,
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    /// Restricts the built-in tool set (`--tools`); `Some([])` means none.
    pub tools: Option<Vec<String>>,
    pub max_turns: Option<u32>,
    pub max_thinking_tokens: Option<u32>,
    #[serde(default)]
    pub add_dirs: Vec<PathBuf>,
    #[serde(default)]
    pub include_partial_messages: bool,
    #[serde(default)]
    pub replay_user_messages: bool,
    /// Emit the legacy `text` / `tool_start` / `tool_result` / `usage` lines.
    pub legacy_events: Option<bool>,
    pub output_format: Option<OutputFormat>,
    /// `true` for `-p` with text/json output: an "ask" becomes a deny.
    #[serde(default)]
    pub non_interactive: bool,
    pub session_id: Option<String>,
    pub json_schema: Option<Value>,
    /// Path of a mock-model script (also `DCL_MOCK_SCRIPT`).
    pub mock_script: Option<PathBuf>,
    #[serde(default)]
    pub dialect: Dialect,
    /// Environment seen by this session (keys, base URLs) and given to tools' children.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Seconds to wait for a host answer (permission, hook) before denying. Default 300.
    pub host_timeout_secs: Option<f64>,
    /// `--settings`: inline JSON or a path (relative to `cwd`).
    pub settings: Option<String>,
    /// `--setting-sources user,project,local`; `Some([])` loads no settings files.
    pub setting_sources: Option<Vec<String>>,
    /// Stop a turn once the session's cost reaches this many USD.
    pub max_budget_usd: Option<f64>,
    /// `low` | `medium` | `high` | `max` (or `xhigh`); maps to a thinking budget.
    pub effort: Option<String>,
    /// `--mcp-config` values (inline JSON or paths), in order.
    #[serde(default)]
    pub mcp_config: Vec<String>,
    /// Use only `--mcp-config` servers, not the configured ones.
    #[serde(default)]
    pub strict_mcp_config: bool,
    /// `--agents`: subagent definitions `{name: {description, prompt, tools?, model?…}}`.
    pub agents: Option<serde_json::Map<String, Value>>,
    /// `--agent`: the agent the main thread runs as.
    pub agent: Option<String>,
    /// Flags that were accepted for compatibility but have no effect yet; each is
    /// reported to the host as a warning.
    #[serde(default)]
    pub ignored_flags: Vec<String>,
}

/// Keys and the environment carry secrets: `Debug` shows neither.
impl std::fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOptions")
            .field("cwd", &self.cwd)
            .field("model", &self.model)
            .field("api_format", &self.api_format)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("permission_mode", &self.permission_mode)
            .field("output_format", &self.output_format)
            .field("dialect", &self.dialect)
            .field("env", &format_args!("[{} variables]", self.env.len()))
            .finish_non_exhaustive()
    }
}

/// Options that cannot open a session: which option (camelCase, as in the JSON) and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct OptionsError {
    pub option: Option<String>,
    pub message: String,
}

impl OptionsError {
    pub fn new(option: impl Into<String>, message: impl Into<String>) -> Self {
        OptionsError {
            option: Some(option.into()),
            message: message.into(),
        }
    }
}

impl From<String> for OptionsError {
    fn from(message: String) -> Self {
        OptionsError {
            option: None,
            message,
        }
    }
}

impl SessionOptions {
    /// Parses options JSON; an error names the offending key (`serde_path_to_error` keeps
    /// the path serde alone loses).
    pub fn from_json(json: &str) -> Result<Self, OptionsError> {
        let de = &mut serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let option = if path == "." || path == "?" || path.is_empty() {
                // An unknown key is reported at the object level; serde names it in the text.
                unknown_field(&inner.to_string())
            } else {
                Some(path)
            };
            OptionsError {
                option,
                message: format!("invalid session options: {inner}"),
            }
        })
    }
}

fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_option() {
        let e = SessionOptions::from_json(r#"{"maxTurns": "three"}"#).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("maxTurns"), "{e:?}");
        let e = SessionOptions::from_json(r#"{"modle": "x"}"#).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("modle"), "{e:?}");
        assert!(e.message.contains("unknown field"), "{e:?}");
        let e = SessionOptions::from_json("{").unwrap_err();
        assert_eq!(e.option, None, "{e:?}");
    }

    #[test]
    fn debug_output_hides_secrets() {
        let mut opts = SessionOptions {
            api_key: Some("sk-very-secret".into()),
            ..Default::default()
        };
        opts.env
            .insert("ANTHROPIC_API_KEY".into(), "sk-env-secret".into());
        let shown = format!("{opts:?}");
        assert!(
            !shown.contains("sk-very-secret") && !shown.contains("sk-env-secret"),
            "{shown}"
        );
    }
}
