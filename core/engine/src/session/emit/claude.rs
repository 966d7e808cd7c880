//! The Claude dialect: the line shapes of the reference CLI, which the Claude Agent SDKs
//! read. The base the other dialects start from.

use dcl_protocol::{
    AssistantMessage, Extra, Message, MessageContent, SystemSubtype, ToolProgressMessage,
    UserMessage,
};

use super::event::Event;
use super::{new_uuid, now_iso, result};

/// `systemPrompt: ""` asks for no system prompt at all (the reference's reading).
pub(super) const EMPTY_SYSTEM_PROMPT_IS_NONE: bool = true;

/// The model catalogue's entry for the configured default: value and display name.
pub(super) const DEFAULT_MODEL_ENTRY: (&str, &str) = ("default", "Default");

/// `system/init` opens each turn; the `initialize` answer needs none before it.
pub(super) const INIT_BEFORE_INITIALIZE_ANSWER: bool = false;

/// The catalogue lists models by name and effort only.
pub(super) const DESCRIBES_MODEL_LIMITS: bool = false;

/// `tool_progress` is a stream-json line; text and json output have no place for it.
pub(super) fn reads_tool_progress(stream_json: bool) -> bool {
    stream_json
}

/// The one line `event` becomes, if any.
pub(super) fn render(event: Event<'_>, stream_json: bool) -> Option<Message> {
    match event {
        Event::AssistantBlock { uuid, payload } => Some(Message::Assistant(AssistantMessage {
            message: *payload,
            parent_tool_use_id: dcl_protocol::parent_tool_use_id_null(),
            session_id: String::new(),
            uuid,
            error: None,
            extra: Extra::new(),
        })),
        // The result travels in the conversation's `user` line, and the usage in `result`.
        Event::ToolResult { .. } | Event::TurnUsage { .. } => None,
        Event::TurnResult(summary) => Some(Message::Result(result::message(*summary))),
        Event::ToolProgress {
            tool_use_id,
            tool_name,
            parent_tool_use_id,
            elapsed_seconds,
        } => reads_tool_progress(stream_json).then(|| {
            Message::ToolProgress(ToolProgressMessage {
                tool_use_id,
                tool_name,
                parent_tool_use_id,
                elapsed_time_seconds: elapsed_seconds,
                session_id: String::new(),
                uuid: String::new(),
                extra: Extra::new(),
            })
        }),
        Event::Init(init) => Some(init.into_message()),
        Event::UserBlocks {
            uuid,
            content,
            tool_use_result,
        } => {
            let mut line = UserMessage::new(MessageContent::Blocks(content.to_vec()));
            line.timestamp = Some(now_iso());
            line.uuid = Some(uuid);
            line.tool_use_result = tool_use_result;
            Some(Message::User(line))
        }
        Event::SubagentPrompt { prompt } => {
            let mut line = UserMessage::new(MessageContent::Text(prompt.to_string()));
            line.uuid = Some(new_uuid());
            Some(Message::User(line))
        }
        Event::PromptReplay { uuid, message } => {
            // The host's own line, with everything it sent, marked as the replay.
            let mut echo = message.clone();
            echo.uuid = Some(uuid.to_string());
            echo.session_id = None;
            echo.timestamp = Some(now_iso());
            echo.is_replay = Some(true);
            Some(Message::User(echo))
        }
        Event::ApiError(error) => Some(Message::Assistant(result::api_error(error))),
    }
}

#[cfg(test)]
mod tests {
    use dcl_protocol::{ToolResultContent, Usage, UserMessage};
    use serde_json::json;

    use super::super::Dialect;
    use super::super::event::Event;
    use super::super::event::samples::{self, types, wire};
    use crate::options;

    fn claude(stream_json: bool) -> Dialect {
        Dialect::new(options::Dialect::Claude, stream_json, false)
    }

    #[test]
    fn an_assistant_block_is_one_assistant_line_and_nothing_else() {
        let lines = claude(true).lines(samples::text_block());
        assert_eq!(types(&lines), ["assistant"]);
        let line = &wire(&lines)[0];
        assert_eq!(line["uuid"], "u-1");
        assert_eq!(line["message"]["content"][0]["text"], "hello");
        assert_eq!(line["parent_tool_use_id"], serde_json::Value::Null);
        assert_eq!(
            types(&claude(true).lines(samples::tool_use_block())),
            ["assistant"]
        );
    }

    #[test]
    fn tool_results_and_usage_add_no_line() {
        let content = ToolResultContent::Text("out".into());
        assert!(
            claude(true)
                .lines(samples::tool_result(&content))
                .is_empty()
        );
        assert!(
            claude(true)
                .lines(samples::usage(&Usage::default()))
                .is_empty()
        );
    }

    #[test]
    fn the_result_and_init_carry_no_qoder_fields() {
        let result = wire(&claude(true).lines(samples::result()));
        assert_eq!(result.len(), 1);
        assert_eq!(result[0]["type"], "result");
        assert!(result[0].get("total_credits").is_none());
        assert_eq!(result[0]["origin"]["kind"], "prompt");
        let init = wire(&claude(true).lines(samples::init()));
        assert_eq!(init[0]["subtype"], "init");
        assert!(init[0].get("capabilities").is_none());
    }

    #[test]
    fn dcls_user_lines_carry_their_uuid_time_and_tool_result() {
        let content = [dcl_protocol::ContentBlock::text(
            "[Request interrupted by user]",
        )];
        let lines = claude(false).lines(samples::user_blocks(&content));
        assert_eq!(types(&lines), ["user"]);
        let line = &wire(&lines)[0];
        assert_eq!(line["uuid"], "u-2");
        assert_eq!(
            line["message"]["content"][0]["text"],
            "[Request interrupted by user]"
        );
        assert_eq!(line["tool_use_result"]["stdout"], "out");
        assert!(line["timestamp"].is_string());
        assert_eq!(line["parent_tool_use_id"], serde_json::Value::Null);
        let prompt = wire(&claude(true).lines(Event::SubagentPrompt { prompt: "find it" }));
        assert_eq!(prompt[0]["message"]["content"], "find it");
        assert!(prompt[0]["uuid"].is_string() && prompt[0].get("timestamp").is_none());
    }

    #[test]
    fn a_replayed_prompt_is_the_hosts_line_marked_as_replay() {
        let host: UserMessage = serde_json::from_value(json!({
            "type": "user",
            "message": {"role": "user", "content": "hi"},
            "session_id": "the host's",
            "priority": "later",
        }))
        .expect("a user line");
        let lines = claude(true).lines(Event::PromptReplay {
            uuid: "p-1",
            message: &host,
        });
        let line = &wire(&lines)[0];
        assert_eq!(
            (&line["uuid"], &line["isReplay"]),
            (&json!("p-1"), &json!(true))
        );
        assert_eq!(line["priority"], "later");
        // The emitter stamps the session's own id.
        assert!(line.get("session_id").is_none());
    }

    #[test]
    fn an_api_error_is_a_synthetic_assistant_line() {
        let error = dcl_model::ModelError::Http {
            status: 400,
            message: "bad".into(),
            retry_after: None,
        };
        let lines = claude(true).lines(samples::api_error(&error));
        assert_eq!(types(&lines), ["assistant"]);
        let line = &wire(&lines)[0];
        assert_eq!(line["error"], "invalid_request");
        assert_eq!(line["message"]["model"], "<synthetic>");
        assert_eq!(line["message"]["content"][0]["text"], error.to_string());
        assert_eq!(line["message"]["usage"]["service_tier"], "standard");
    }

    #[test]
    fn tool_progress_is_a_stream_json_line() {
        let lines = claude(true).lines(samples::progress());
        assert_eq!(types(&lines), ["tool_progress"]);
        assert_eq!(wire(&lines)[0]["elapsed_time_seconds"], 5.0);
        assert!(claude(true).reports_tool_progress());
        assert!(claude(false).lines(samples::progress()).is_empty());
        assert!(!claude(false).reports_tool_progress());
    }

    #[test]
    fn answers_what_is_not_a_line() {
        let d = claude(true);
        assert!(d.empty_system_prompt_is_none());
        assert!(!d.init_before_initialize_answer());
        assert_eq!(d.default_model_entry(), ("default", "Default"));
        assert!(!d.describes_model_limits());
        let answer = d.initialize_response(Default::default());
        assert!(answer.capabilities.is_none());
    }
}
