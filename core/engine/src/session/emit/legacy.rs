//! The legacy lines (`text`, `tool_start`, `tool_result`, `usage`) that dcl's first
//! scripts read. Not a dialect of their own: an extra line just before the Claude or Qoder
//! line of the same moment, for hosts that announce no SDK (docs/protocol.md "legacy lines"). The
//! emitter stamps `session_id` and `uuid`.

use dcl_protocol::{
    Extra, LegacyTextMessage, LegacyToolResultMessage, LegacyToolStartMessage, LegacyUsageMessage,
    Message,
};

use super::event::Event;

/// The legacy line `event` adds, if any.
pub(super) fn line(event: &Event<'_>) -> Option<Message> {
    match event {
        Event::AssistantBlock { payload, .. } => {
            let block = payload.content.first()?;
            if let Some(text) = block.as_text() {
                Some(Message::Text(LegacyTextMessage {
                    text: text.to_string(),
                    session_id: String::new(),
                    uuid: String::new(),
                    extra: Extra::new(),
                }))
            } else {
                block.as_tool_use().map(|tu| {
                    Message::ToolStart(LegacyToolStartMessage {
                        tool_use_id: tu.id.clone(),
                        name: tu.name.clone(),
                        input: tu.input.clone(),
                        session_id: String::new(),
                        uuid: String::new(),
                        extra: Extra::new(),
                    })
                })
            }
        }
        Event::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => Some(Message::ToolResult(LegacyToolResultMessage {
            tool_use_id: tool_use_id.to_string(),
            content: content.to_text(),
            is_error: *is_error,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        })),
        Event::TurnUsage {
            usage,
            total_cost_usd,
        } => Some(Message::Usage(LegacyUsageMessage {
            usage: (*usage).clone(),
            total_cost_usd: *total_cost_usd,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        })),
        // The first scripts read no user lines and no synthetic failure reply.
        Event::TurnResult(_)
        | Event::ToolProgress { .. }
        | Event::Init(_)
        | Event::UserBlocks { .. }
        | Event::SubagentPrompt { .. }
        | Event::PromptReplay { .. }
        | Event::ApiError(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use dcl_protocol::{ToolResultContent, Usage};

    use super::super::Dialect;
    use super::super::event::samples::{self, types, wire};
    use crate::options::{self, OutputFormat, SessionOptions};

    fn with_legacy(base: options::Dialect) -> Dialect {
        Dialect::new(base, true, true)
    }

    #[test]
    fn each_block_gets_its_legacy_line_before_the_assistant_line() {
        let d = with_legacy(options::Dialect::Claude);
        let text = d.lines(samples::text_block());
        assert_eq!(types(&text), ["text", "assistant"]);
        assert_eq!(wire(&text)[0]["text"], "hello");
        let call = d.lines(samples::tool_use_block());
        assert_eq!(types(&call), ["tool_start", "assistant"]);
        let start = &wire(&call)[0];
        assert_eq!(start["tool_use_id"], "tu_1");
        assert_eq!(start["name"], "Read");
        assert_eq!(start["input"]["file_path"], "/a");
    }

    #[test]
    fn tool_results_and_usage_are_legacy_lines_only() {
        let d = with_legacy(options::Dialect::Claude);
        let content = ToolResultContent::Text("out".into());
        let result = d.lines(samples::tool_result(&content));
        assert_eq!(types(&result), ["tool_result"]);
        assert_eq!(wire(&result)[0]["content"], "out");
        assert_eq!(wire(&result)[0]["is_error"], false);
        let usage = d.lines(samples::usage(&Usage::default()));
        assert_eq!(types(&usage), ["usage"]);
        assert_eq!(wire(&usage)[0]["total_cost_usd"], 0.5);
    }

    #[test]
    fn results_progress_init_user_lines_and_api_errors_have_none() {
        let d = with_legacy(options::Dialect::Claude);
        assert_eq!(types(&d.lines(samples::result())), ["result"]);
        assert_eq!(types(&d.lines(samples::progress())), ["tool_progress"]);
        assert_eq!(types(&d.lines(samples::init())), ["system"]);
        let content = [dcl_protocol::ContentBlock::text("x")];
        assert_eq!(types(&d.lines(samples::user_blocks(&content))), ["user"]);
        let error = dcl_model::ModelError::connection("reset");
        assert_eq!(types(&d.lines(samples::api_error(&error))), ["assistant"]);
    }

    #[test]
    fn qoder_with_legacy_lines_keeps_qoders_shape() {
        let d = with_legacy(options::Dialect::Qoder);
        assert_eq!(
            types(&d.lines(samples::text_block())),
            ["text", "assistant"]
        );
        assert_eq!(wire(&d.lines(samples::result()))[0]["total_credits"], 0);
        assert!(d.lines(samples::progress()).is_empty());
    }

    #[test]
    fn on_by_default_in_stream_json_only() {
        let lines = |opts: SessionOptions| {
            types(&Dialect::of(&opts).lines(samples::usage(&Usage::default())))
        };
        assert_eq!(lines(SessionOptions::default()), ["usage"]);
        let off = SessionOptions {
            legacy_events: Some(false),
            ..SessionOptions::default()
        };
        assert!(lines(off).is_empty());
        let text = SessionOptions {
            output_format: Some(OutputFormat::Text),
            legacy_events: Some(true),
            ..SessionOptions::default()
        };
        assert!(lines(text).is_empty());
    }
}
