//! Session options: JSON in the vocabulary of the CLI flags (`--permission-mode` is
//! `permissionMode`), validated once here for the CLI and every binding.
//!
//! Environment defaults are resolved here too, from the options' own `env` map (never
//! from the process environment), by [`SessionOptions::from_json`] /
//! [`SessionOptions::from_value`] and [`SessionOptions::resolved`]. So an in-process
//! session and the CLI given the same environment behave the same: the CLI only turns
//! argv into options JSON and passes its environment as `env`. Keys and base URLs are
//! not options-level defaults: which variable applies depends on the model, so
//! `model::providers` resolves them per model, from the same `env` map.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which client dialect to speak (`QODER_AGENT_SDK_ENTRYPOINT` in `env` means Qoder).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Claude,
    Qoder,
}

/// How output is framed; only `stream-json` sessions speak the control protocol.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum OutputFormat {
    Text,
    Json,
    #[default]
    StreamJson,
}

/// Everything a session is opened with. Unknown keys are rejected so typos surface.
/// Its JSON Schema (`dcl_bridge::options_schema`) is the one vocabulary every binding's
/// options type is generated from or checked against.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionOptions {
    /// Working directory; relative paths in tools resolve against it. Default: process cwd.
    pub cwd: Option<PathBuf>,
    /// Model id or alias (`DCL_MODEL`; else the settings' `model`, else the provider's
    /// default, both resolved by the session).
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
    /// Thinking budget (`MAX_THINKING_TOKENS`; the option wins).
    pub max_thinking_tokens: Option<u32>,
    #[serde(default)]
    pub add_dirs: Vec<PathBuf>,
    #[serde(default)]
    pub include_partial_messages: bool,
    #[serde(default)]
    pub replay_user_messages: bool,
    /// `--include-hook-events`: stream `system/hook_started`, `hook_progress` and
    /// `hook_response` for every settings-file command hook (stream-json).
    #[serde(default)]
    pub include_hook_events: bool,
    /// Emit the legacy `text` / `tool_start` / `tool_result` / `usage` lines (default on;
    /// `DCL_NO_LEGACY_EVENTS` set turns them off).
    pub legacy_events: Option<bool>,
    pub output_format: Option<OutputFormat>,
    /// `true` for `-p` with text/json output: an "ask" becomes a deny.
    #[serde(default)]
    pub non_interactive: bool,
    pub session_id: Option<String>,
    pub json_schema: Option<Value>,
    /// Path of a mock-model script (`DCL_MOCK_SCRIPT`).
    pub mock_script: Option<PathBuf>,
    #[serde(default)]
    pub dialect: Dialect,
    /// Environment seen by this session (keys, base URLs) and given to tools' children.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Seconds to wait for a host answer (permission, hook) before denying. Default 300
    /// (`DCL_HOST_TIMEOUT_SECS`).
    pub host_timeout_secs: Option<f64>,
    /// Longest input line a front end reads, in bytes; a longer one is discarded while it
    /// is read, with an error. Default 64 MiB (`DCL_MAX_LINE_BYTES`).
    pub max_line_bytes: Option<u64>,
    /// Capacity of the session's input queue, in lines (`DCL_INPUT_QUEUE`).
    pub input_queue: Option<usize>,
    /// Output lines waiting for the front end before producers pause
    /// (`DCL_OUTBOX_LINES`).
    pub outbox_lines: Option<usize>,
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
    /// `--resume <id>`: continue that session (its history, totals, model and mode).
    pub resume: Option<String>,
    /// `--continue`: continue the newest session of this directory.
    #[serde(default)]
    pub continue_conversation: bool,
    /// `--fork-session`: a resumed session goes on under a new session id.
    #[serde(default)]
    pub fork_session: bool,
    /// `--resume-session-at <uuid>`: resume the chain only up to this entry.
    pub resume_session_at: Option<String>,
    /// `--resume-drops-turn <uuid>`: the prompt of the one turn the resume may drop.
    pub resume_drops_turn: Option<String>,
    /// `--session-mirror`: emit `transcript_mirror` frames before each result.
    #[serde(default)]
    pub session_mirror: bool,
    /// `--session-store <url>` (else the settings' `sessionStore`): `postgres://…`,
    /// `redis://…`, `rediss://…`, `file:/dir`, or `file:` (local transcripts only, the
    /// default). Holds credentials: never logged (see `Debug`).
    pub session_store: Option<String>,
    /// `--data-dir`: dcl home (else `DCL_CONFIG_DIR`, else `~/.dcl`).
    pub data_dir: Option<PathBuf>,
    /// `false` (`--no-session-persistence`) writes no transcript.
    pub persist_session: Option<bool>,
    /// `--agents`: subagent definitions `{name: {description, prompt, tools?, model?…}}`.
    pub agents: Option<serde_json::Map<String, Value>>,
    /// `--agent`: the agent the main thread runs as.
    pub agent: Option<String>,
    /// Record file checkpoints so `rewind_files` can undo edits (`--enable-file-checkpointing`).
    #[serde(default)]
    pub enable_file_checkpointing: bool,
    /// `--sandbox`: Bash and background shells run in the OS sandbox, as the settings'
    /// `sandbox.enabled: true` asks (either one turns it on).
    #[serde(default)]
    pub sandbox: bool,
    /// `--plugin-dir`s: plugin folders to load (relative to `cwd`).
    #[serde(default)]
    pub plugin_dirs: Vec<PathBuf>,
    /// `--plugin-dir-no-mcp`s: plugin folders loaded without their MCP servers.
    #[serde(default)]
    pub plugin_dirs_no_mcp: Vec<PathBuf>,
    /// Flags that were accepted for compatibility but have no effect yet; each is
    /// reported to the host as a warning.
    #[serde(default)]
    pub ignored_flags: Vec<String>,
    /// `--managed-settings`: policy settings (inline JSON or a path) above every layer.
    pub managed_settings: Option<String>,
    /// `--await-initialize`: the front end opens the session only when `initialize` has
    /// arrived, with what it delivers (`settings`, `mcpServers`, …) folded in.
    #[serde(default)]
    pub await_initialize: bool,
    /// `--await-claim`: a prewarmed spare; the session the host uses opens at
    /// `claim_session`, with the claim's cwd, env and options.
    #[serde(default)]
    pub await_claim: bool,
    /// The `initialize` fields already folded into these options (by
    /// [`crate::delivery::absorb_initialize`]), answered as applied.
    #[serde(default)]
    pub delivered_in_initialize: Vec<String>,
}

/// How a front end reads a settings value given as a flag (`--settings` JSON or a path),
/// before it folds `initialize` fields into the options.
pub use dcl_policy::settings::read_flag_value;
/// Whether a project `.mcp.json` server may start (`dcl mcp list|get` decide as a session does).
pub use dcl_policy::settings::{McpjsonDecision, Settings};
/// The user's home from an environment (`HOME`; the profile folder on Windows).
pub use dcl_store::home::user_home;

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
    /// `message` is anything displayable: a text, or the typed error of what refused the
    /// option (its text is what the host sees).
    pub fn new(option: impl Into<String>, message: impl std::fmt::Display) -> Self {
        OptionsError {
            option: Some(option.into()),
            message: message.to_string(),
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

/// The environment variables behind option defaults, each read only by
/// [`SessionOptions::resolved`].
pub mod env_vars {
    /// Set (to anything): speak the Qoder dialect.
    pub const QODER_ENTRYPOINT: &str = "QODER_AGENT_SDK_ENTRYPOINT";
    /// Set by every Claude-protocol SDK (`sdk-py`, `sdk-ts`, `sdk-java`, `sdk-go`, …).
    pub const CLAUDE_ENTRYPOINT: &str = "CLAUDE_CODE_ENTRYPOINT";
    /// Seconds to wait for a host answer.
    pub const HOST_TIMEOUT_SECS: &str = "DCL_HOST_TIMEOUT_SECS";
    /// Set (to anything): no legacy lines.
    pub const NO_LEGACY_EVENTS: &str = "DCL_NO_LEGACY_EVENTS";
    pub const MODEL: &str = "DCL_MODEL";
    pub const MOCK_SCRIPT: &str = "DCL_MOCK_SCRIPT";
    /// Turns thinking on like `--max-thinking-tokens`.
    pub const MAX_THINKING_TOKENS: &str = "MAX_THINKING_TOKENS";
    pub const MAX_LINE_BYTES: &str = "DCL_MAX_LINE_BYTES";
    pub const INPUT_QUEUE: &str = "DCL_INPUT_QUEUE";
    pub const OUTBOX_LINES: &str = "DCL_OUTBOX_LINES";
}

/// Host answers are waited for this long unless told otherwise.
pub const DEFAULT_HOST_TIMEOUT_SECS: f64 = 300.0;
/// Input lines longer than this are discarded unless told otherwise.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 64 * 1024 * 1024;

impl SessionOptions {
    /// Parses options JSON and resolves environment defaults (see [`Self::resolved`]);
    /// an error names the offending key (`serde_path_to_error` keeps the path serde
    /// alone loses).
    pub fn from_json(json: &str) -> Result<Self, OptionsError> {
        let value: Value = serde_json::from_str(json).map_err(|e| OptionsError {
            option: None,
            message: format!("invalid session options: {e}"),
        })?;
        Self::from_value(value)
    }

    /// [`Self::from_json`] for an already-parsed value (what the CLI builds from argv).
    pub fn from_value(value: Value) -> Result<Self, OptionsError> {
        // An explicit `"dialect": "claude"` must win over the environment; the typed
        // field cannot tell it from the default, the JSON can.
        let explicit_dialect = value.get("dialect").is_some_and(|d| !d.is_null());
        let parsed = Self::deserialize_value(value)?;
        parsed.resolve(explicit_dialect)
    }

    /// Every option the caller left unset that has an environment default, filled in
    /// from `self.env` (the one place these variables are read): the dialect, the host
    /// timeout, legacy lines, the model, the mock script, the thinking budget, the input
    /// line limit and queue, the outbox size. Set options win; an unparsable value is an
    /// error naming the variable. Fixed defaults (300 s, 64 MiB, legacy lines on) are not
    /// filled in, so resolving again after more variables join `env` (a settings file's
    /// `env` block) still fills what is unset; readers apply the `DEFAULT_*` constants.
    /// `Dialect::Claude` counts as unset here (use the JSON path to force Claude against
    /// `QODER_AGENT_SDK_ENTRYPOINT`).
    pub fn resolved(self) -> Result<Self, OptionsError> {
        let explicit_dialect = self.dialect != Dialect::Claude;
        self.resolve(explicit_dialect)
    }

    fn resolve(mut self, explicit_dialect: bool) -> Result<Self, OptionsError> {
        // Windows has no HOME of its own: the session's (its settings, transcripts,
        // checkpoints, `~` in rules, and what tools get) is the user's profile folder.
        if cfg!(windows)
            && !self.env.contains_key("HOME")
            && let Some(home) = dcl_store::home::user_home(|k| {
                self.env.get(k).cloned().or_else(|| std::env::var(k).ok())
            })
        {
            self.env
                .insert("HOME".into(), home.to_string_lossy().into_owned());
        }
        let env = &self.env;
        if !explicit_dialect && env.contains_key(env_vars::QODER_ENTRYPOINT) {
            self.dialect = Dialect::Qoder;
        }
        if self.host_timeout_secs.is_none() {
            self.host_timeout_secs =
                env_number(env, env_vars::HOST_TIMEOUT_SECS, "hostTimeoutSecs")?;
        }
        if let Some(secs) = self.host_timeout_secs
            && !(secs.is_finite() && secs >= 0.0)
        {
            return Err(OptionsError::new(
                "hostTimeoutSecs",
                format!("host timeout {secs}: expected a non-negative number of seconds"),
            ));
        }
        // docs/protocol.md "legacy lines": every SDK of the protocol announces itself with an
        // entrypoint variable and strict ones stop at a `type` they do not know; old
        // scripts set neither.
        if self.legacy_events.is_none()
            && [
                env_vars::NO_LEGACY_EVENTS,
                env_vars::CLAUDE_ENTRYPOINT,
                env_vars::QODER_ENTRYPOINT,
            ]
            .iter()
            .any(|k| env.contains_key(*k))
        {
            self.legacy_events = Some(false);
        }
        // docs/protocol.md: `auto`, `default` and `""` name the configured default model, which
        // starts with `DCL_MODEL` (then the settings, then the provider's default).
        if self
            .model
            .as_deref()
            .map(str::trim)
            .is_some_and(|m| matches!(m, "" | "auto" | "default"))
        {
            self.model = None;
        }
        if self.model.is_none() {
            self.model = env_text(env, env_vars::MODEL).map(str::to_string);
        }
        if self.mock_script.is_none() {
            self.mock_script = env_text(env, env_vars::MOCK_SCRIPT).map(PathBuf::from);
        }
        if self.max_thinking_tokens.is_none() {
            self.max_thinking_tokens =
                env_number(env, env_vars::MAX_THINKING_TOKENS, "maxThinkingTokens")?;
        }
        if self.max_line_bytes.is_none() {
            self.max_line_bytes = env_number(env, env_vars::MAX_LINE_BYTES, "maxLineBytes")?;
        }
        if self.max_line_bytes == Some(0) {
            return Err(OptionsError::new(
                "maxLineBytes",
                "the input line limit must be at least 1 byte",
            ));
        }
        if self.input_queue.is_none() {
            self.input_queue = env_number(env, env_vars::INPUT_QUEUE, "inputQueue")?;
        }
        if self.input_queue == Some(0) {
            return Err(OptionsError::new(
                "inputQueue",
                "the input queue must hold at least 1 line",
            ));
        }
        if self.outbox_lines.is_none() {
            self.outbox_lines = env_number(env, env_vars::OUTBOX_LINES, "outboxLines")?;
        }
        if self.outbox_lines == Some(0) {
            return Err(OptionsError::new(
                "outboxLines",
                "the outbox must hold at least 1 line",
            ));
        }
        Ok(self)
    }

    fn deserialize_value(value: Value) -> Result<Self, OptionsError> {
        serde_path_to_error::deserialize(value).map_err(|e| {
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

/// A variable's trimmed value; unset and blank are the same (`DCL_MODEL=` means none).
fn env_text<'a>(env: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    env.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn env_number<T: std::str::FromStr>(
    env: &BTreeMap<String, String>,
    key: &str,
    option: &str,
) -> Result<Option<T>, OptionsError> {
    match env_text(env, key) {
        None => Ok(None),
        Some(text) => text.parse().map(Some).map_err(|_| {
            OptionsError::new(
                option,
                format!("{key}={text:?} in the environment: expected a number"),
            )
        }),
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

    fn with_env(pairs: &[(&str, &str)]) -> serde_json::Value {
        let env: BTreeMap<&str, &str> = pairs.iter().copied().collect();
        serde_json::json!({ "env": env })
    }

    #[test]
    fn environment_defaults_fill_unset_options() {
        let opts = SessionOptions::from_value(with_env(&[
            ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py"),
            ("DCL_HOST_TIMEOUT_SECS", "2.5"),
            ("DCL_NO_LEGACY_EVENTS", "1"),
            ("DCL_MODEL", " mock-model "),
            ("DCL_MOCK_SCRIPT", "/tmp/script.json"),
            ("MAX_THINKING_TOKENS", "8000"),
            ("DCL_MAX_LINE_BYTES", "1024"),
            ("DCL_INPUT_QUEUE", "7"),
            ("DCL_OUTBOX_LINES", "9"),
        ]))
        .unwrap();
        assert_eq!(opts.dialect, Dialect::Qoder);
        assert_eq!(opts.host_timeout_secs, Some(2.5));
        assert_eq!(opts.legacy_events, Some(false));
        assert_eq!(opts.model.as_deref(), Some("mock-model"));
        assert_eq!(opts.mock_script, Some(PathBuf::from("/tmp/script.json")));
        assert_eq!(opts.max_thinking_tokens, Some(8000));
        assert_eq!(opts.max_line_bytes, Some(1024));
        assert_eq!(opts.input_queue, Some(7));
        assert_eq!(opts.outbox_lines, Some(9));
    }

    #[test]
    fn auto_and_default_models_mean_the_configured_default() {
        for name in ["auto", "default", "", " auto "] {
            let mut v = with_env(&[("DCL_MODEL", "mock-model")]);
            v["model"] = serde_json::json!(name);
            let opts = SessionOptions::from_value(v).unwrap();
            assert_eq!(opts.model.as_deref(), Some("mock-model"), "{name:?}");
            // Without DCL_MODEL the session resolves settings, then the provider default.
            let opts = SessionOptions::from_value(serde_json::json!({ "model": name })).unwrap();
            assert_eq!(opts.model, None, "{name:?}");
        }
        let mut v = with_env(&[("DCL_MODEL", "mock-model")]);
        v["model"] = serde_json::json!("opus");
        assert_eq!(
            SessionOptions::from_value(v).unwrap().model.as_deref(),
            Some("opus")
        );
    }

    #[test]
    fn an_sdk_entrypoint_turns_the_legacy_lines_off() {
        for var in ["CLAUDE_CODE_ENTRYPOINT", "QODER_AGENT_SDK_ENTRYPOINT"] {
            let opts = SessionOptions::from_value(with_env(&[(var, "sdk-java")])).unwrap();
            assert_eq!(opts.legacy_events, Some(false), "{var}");
        }
        // Old scripts set neither: the lines stay on (None reads as on).
        assert_eq!(SessionOptions::from_json("{}").unwrap().legacy_events, None);
        // An explicit choice wins over the entrypoint.
        let mut v = with_env(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-go")]);
        v["legacyEvents"] = serde_json::json!(true);
        assert_eq!(
            SessionOptions::from_value(v).unwrap().legacy_events,
            Some(true)
        );
    }

    #[test]
    fn without_environment_the_defaults_are_dcls() {
        let opts = SessionOptions::from_json("{}").unwrap();
        assert_eq!(opts.dialect, Dialect::Claude);
        assert_eq!(opts.host_timeout_secs, None);
        assert_eq!(opts.legacy_events, None);
        assert_eq!(opts.model, None);
        assert_eq!(opts.mock_script, None);
        assert_eq!(opts.max_thinking_tokens, None);
        assert_eq!(opts.max_line_bytes, None);
        assert_eq!(opts.input_queue, None);
        assert_eq!(opts.outbox_lines, None);
        // Resolving twice changes nothing.
        assert_eq!(opts.clone().resolved().unwrap(), opts);
    }

    #[test]
    fn resolving_again_fills_from_variables_added_later() {
        let mut opts = SessionOptions::from_value(with_env(&[("DCL_MODEL", "a")])).unwrap();
        // As when a settings file's `env` block joins the environment.
        opts.env.insert("DCL_MODEL".into(), "b".into());
        opts.env.insert("DCL_HOST_TIMEOUT_SECS".into(), "7".into());
        let opts = opts.resolved().unwrap();
        assert_eq!(opts.model.as_deref(), Some("a"), "set stays set");
        assert_eq!(opts.host_timeout_secs, Some(7.0));
    }

    #[test]
    fn set_options_win_over_the_environment() {
        let mut value = with_env(&[
            ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-ts"),
            ("DCL_HOST_TIMEOUT_SECS", "2"),
            ("DCL_NO_LEGACY_EVENTS", "1"),
            ("DCL_MODEL", "env-model"),
            ("MAX_THINKING_TOKENS", "8000"),
        ]);
        let extra = serde_json::json!({
            "dialect": "claude",
            "hostTimeoutSecs": 9,
            "legacyEvents": true,
            "model": "flag-model",
            "maxThinkingTokens": 0,
        });
        for (k, v) in extra.as_object().unwrap() {
            value[k] = v.clone();
        }
        let opts = SessionOptions::from_value(value).unwrap();
        assert_eq!(opts.dialect, Dialect::Claude);
        assert_eq!(opts.host_timeout_secs, Some(9.0));
        assert_eq!(opts.legacy_events, Some(true));
        assert_eq!(opts.model.as_deref(), Some("flag-model"));
        assert_eq!(opts.max_thinking_tokens, Some(0));
    }

    #[test]
    fn typed_options_resolve_the_same_way() {
        let mut opts = SessionOptions::default();
        opts.env
            .insert("QODER_AGENT_SDK_ENTRYPOINT".into(), "sdk-py".into());
        opts.env.insert("MAX_THINKING_TOKENS".into(), "4096".into());
        let opts = opts.resolved().unwrap();
        assert_eq!(opts.dialect, Dialect::Qoder);
        assert_eq!(opts.max_thinking_tokens, Some(4096));
    }

    #[test]
    fn bad_environment_values_name_the_variable_and_the_option() {
        for (key, option) in [
            ("DCL_HOST_TIMEOUT_SECS", "hostTimeoutSecs"),
            ("MAX_THINKING_TOKENS", "maxThinkingTokens"),
            ("DCL_MAX_LINE_BYTES", "maxLineBytes"),
            ("DCL_INPUT_QUEUE", "inputQueue"),
            ("DCL_OUTBOX_LINES", "outboxLines"),
        ] {
            let e = SessionOptions::from_value(with_env(&[(key, "lots")])).unwrap_err();
            assert_eq!(e.option.as_deref(), Some(option), "{e:?}");
            assert!(e.message.contains(key), "{e:?}");
        }
        let e = SessionOptions::from_value(with_env(&[("DCL_MAX_LINE_BYTES", "0")])).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("maxLineBytes"), "{e:?}");
        let e = SessionOptions::from_json(r#"{"hostTimeoutSecs": -1}"#).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("hostTimeoutSecs"), "{e:?}");
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
