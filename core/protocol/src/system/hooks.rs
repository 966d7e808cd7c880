//! Hook lines: `hook_started`, `hook_progress`, `hook_response`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;
use crate::vocab::{HookEventName, HookOutcome};

/// `system/hook_started` (with `--include-hook-events`): a command hook began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookStarted {
    pub hook_id: String,
    /// `Event:subject` (`PreToolUse:Bash`, `SessionStart:startup`) or the event alone.
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/hook_progress` (with `--include-hook-events`): a running hook's output so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookProgress {
    pub hook_id: String,
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub stdout: String,
    pub stderr: String,
    /// Both streams, stdout first.
    pub output: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/hook_response` (with `--include-hook-events`): a hook ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookResponse {
    pub hook_id: String,
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub output: String,
    pub stdout: String,
    pub stderr: String,
    /// Absent when the hook was killed (timeout, cancel) or never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[schemars(with = "HookOutcome")]
    pub outcome: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SystemHookStarted {
    /// A hook `hook_id` (`hook_name` is `Event:subject`, e.g. `PreToolUse:Bash`) started.
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
    ) -> Self {
        SystemHookStarted {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemHookProgress {
    /// A running hook's output so far (`output` is both streams, stdout first).
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
        stdout: impl Into<String>,
        stderr: impl Into<String>,
    ) -> Self {
        let (stdout, stderr) = (stdout.into(), stderr.into());
        SystemHookProgress {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            output: format!("{stdout}{stderr}"),
            stdout,
            stderr,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemHookResponse {
    /// A hook ended with `outcome`; `exit_code` is `None` when it was killed or never ran.
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
        stdout: impl Into<String>,
        stderr: impl Into<String>,
        exit_code: Option<i64>,
        outcome: HookOutcome,
    ) -> Self {
        let (stdout, stderr) = (stdout.into(), stderr.into());
        SystemHookResponse {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            output: format!("{stdout}{stderr}"),
            stdout,
            stderr,
            exit_code,
            outcome: outcome.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}
