//! The Qoder dialect: Claude's lines with what the Qoder Agent SDK adds or leaves out.

use dcl_protocol::{InitializeResponse, Message, SystemSubtype};
use serde_json::json;

use super::event::Event;
use super::{claude, result};

/// What dcl's Qoder dialect advertises (`system/init.capabilities` and the `initialize`
/// answer's); only what is implemented.
pub(super) const CAPABILITIES: &[&str] = &[
    "interrupt_receipt_v1",
    "interrupt_cancel_queued_v1",
    // A fork's entries reach the session store and leave as `transcript_mirror` frames
    // before the `initialize` answer (`Persistence::fork_barrier`).
    "session_store_fork_barrier_v1",
];

/// `systemPrompt: ""` reads as unset here: the default prompt stays (Claude reads it as
/// no prompt at all).
pub(super) const EMPTY_SYSTEM_PROMPT_IS_NONE: bool = false;

/// The Qoder samples ask for `auto`.
pub(super) const DEFAULT_MODEL_ENTRY: (&str, &str) = ("auto", "Auto");

/// The Qoder SDK reads `system/init` before the `initialize` answer, not only per turn.
pub(super) const INIT_BEFORE_INITIALIZE_ANSWER: bool = true;

/// Qoder's catalogue entries say whether each model is usable now, its context window and
/// how thinking is set (`isEnabled`, `context_config`, `thinking_config`).
pub(super) const DESCRIBES_MODEL_LIMITS: bool = true;

/// The Qoder SDK does not know the `tool_progress` line.
pub(super) const READS_TOOL_PROGRESS: bool = false;

/// The one line `event` becomes, if any.
pub(super) fn render(event: Event<'_>, stream_json: bool) -> Option<Message> {
    match event {
        Event::TurnResult(summary) => {
            let mut result = result::message(*summary);
            // The Qoder SDK's result carries the credits a turn used; dcl bills none.
            result
                .extra
                .shift_insert(0, "total_credits".into(), json!(0));
            // Only the Claude TS SDK reads why a session could not start.
            result.startup_failure_reason = None;
            Some(Message::Result(result))
        }
        Event::Init(init) => Some(init.with_qoder(capabilities()).into_message()),
        Event::ToolProgress { .. } if !READS_TOOL_PROGRESS => None,
        other => claude::render(other, stream_json),
    }
}

/// The `initialize` answer with Qoder's `capabilities`.
pub(super) fn initialize_response(response: InitializeResponse) -> InitializeResponse {
    response.with_capabilities(capabilities())
}

fn capabilities() -> Vec<String> {
    CAPABILITIES.iter().map(|c| c.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use dcl_protocol::{ToolResultContent, Usage};

    use super::super::Dialect;
    use super::super::event::samples::{self, types, wire};
    use super::CAPABILITIES;
    use crate::options;

    fn qoder() -> Dialect {
        Dialect::new(options::Dialect::Qoder, true, false)
    }

    #[test]
    fn the_result_carries_total_credits_first() {
        let lines = qoder().lines(samples::result());
        let result = &wire(&lines)[0];
        assert_eq!(result["total_credits"], 0);
        let extra: Vec<&String> = result
            .as_object()
            .expect("an object")
            .keys()
            .skip_while(|k| *k != "total_credits")
            .collect();
        assert_eq!(extra, ["total_credits", "origin"]);
    }

    #[test]
    fn no_tool_progress_even_in_stream_json() {
        assert!(qoder().lines(samples::progress()).is_empty());
        assert!(!qoder().reports_tool_progress());
    }

    #[test]
    fn init_and_initialize_advertise_the_capabilities() {
        let init = &wire(&qoder().lines(samples::init()))[0];
        assert_eq!(init["capabilities"], serde_json::json!(CAPABILITIES));
        assert!(init["protocol_version"].is_string());
        let answer = qoder().initialize_response(Default::default());
        assert_eq!(
            serde_json::json!(answer.capabilities),
            serde_json::json!(CAPABILITIES)
        );
        assert!(qoder().init_before_initialize_answer());
    }

    #[test]
    fn everything_else_is_claudes_line() {
        let claude = Dialect::new(options::Dialect::Claude, true, false);
        let content = ToolResultContent::Text("out".into());
        let usage = Usage::default();
        assert_eq!(
            wire(&qoder().lines(samples::text_block())),
            wire(&claude.lines(samples::text_block()))
        );
        assert_eq!(
            types(&qoder().lines(samples::tool_use_block())),
            ["assistant"]
        );
        assert!(qoder().lines(samples::tool_result(&content)).is_empty());
        assert!(qoder().lines(samples::usage(&usage)).is_empty());
    }

    #[test]
    fn answers_what_is_not_a_line() {
        let d = qoder();
        assert!(!d.empty_system_prompt_is_none());
        assert_eq!(d.default_model_entry(), ("auto", "Auto"));
        assert!(d.describes_model_limits());
        assert_eq!(Dialect::qoder_sdk(), d);
    }
}
