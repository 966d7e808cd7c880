//! What a turn or the session tells its host: the conversation's lines, and the points
//! where the dialects' lines differ. Named for what happened; [`super::Dialect::render`]
//! decides the lines.

use dcl_model::ModelError;
use dcl_protocol::{
    AssistantPayload, ContentBlock, SystemInit, ToolResultContent, Usage, UserMessage,
};
use serde_json::Value;

use super::result::TurnSummary;

#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// The model finished one content block of its reply; `payload` holds that block
    /// alone, and `uuid` is the one the conversation records it under.
    AssistantBlock {
        uuid: String,
        payload: Box<AssistantPayload>,
    },
    /// A tool call's result goes back to the model. The conversation's `user` line carries
    /// it in every dialect; this is the moment a dialect may say more.
    ToolResult {
        tool_use_id: &'a str,
        content: &'a ToolResultContent,
        is_error: bool,
    },
    /// The turn's token usage is final (its result follows, after any transcript frames).
    TurnUsage {
        usage: &'a Usage,
        /// The session's cost so far.
        total_cost_usd: f64,
    },
    /// The turn ended so.
    TurnResult(Box<TurnSummary>),
    /// A user line dcl adds to the conversation (a tool call's result, an interrupt's
    /// marker), recorded under `uuid`; `tool_use_result` is the tool's own account of it.
    UserBlocks {
        uuid: String,
        content: &'a [ContentBlock],
        tool_use_result: Option<Value>,
    },
    /// A subagent's prompt, opening its nested transcript (`forwardSubagentText`).
    SubagentPrompt { prompt: &'a str },
    /// The host's prompt `message`, echoed back under `uuid` (`replayUserMessages`).
    PromptReplay {
        uuid: &'a str,
        message: &'a UserMessage,
    },
    /// A model request failed and the turn ends on it: the reply the model never gave.
    ApiError(&'a ModelError),
    /// A tool call is still running after `elapsed_seconds`.
    ToolProgress {
        tool_use_id: String,
        tool_name: String,
        /// The Agent call whose subagent runs the tool (`None` on the main thread).
        parent_tool_use_id: Option<String>,
        elapsed_seconds: f64,
    },
    /// The session says what it is: model, tools, servers (`system/init`).
    Init(Box<SystemInit>),
}

/// One sample of each event, for the dialects' tests.
#[cfg(test)]
pub(super) mod samples {
    use dcl_protocol::{
        AssistantPayload, ContentBlock, Extra, Message, SystemInit, TerminalReason,
        ToolResultContent, Usage,
    };
    use serde_json::{Value, json};

    use super::super::result::{Ending, TurnSummary};
    use super::Event;

    pub fn block(block: ContentBlock) -> Event<'static> {
        Event::AssistantBlock {
            uuid: "u-1".into(),
            payload: Box::new(AssistantPayload {
                id: "msg_1".into(),
                kind: "message".into(),
                role: "assistant".into(),
                model: "mock-model".into(),
                content: vec![block],
                stop_reason: None,
                stop_sequence: None,
                usage: None,
                extra: Extra::new(),
            }),
        }
    }

    pub fn text_block() -> Event<'static> {
        block(ContentBlock::text("hello"))
    }

    pub fn tool_use_block() -> Event<'static> {
        block(ContentBlock::tool_use(
            "tu_1",
            "Read",
            json!({"file_path": "/a"}),
        ))
    }

    pub fn tool_result(content: &ToolResultContent) -> Event<'_> {
        Event::ToolResult {
            tool_use_id: "tu_1",
            content,
            is_error: false,
        }
    }

    pub fn usage(usage: &Usage) -> Event<'_> {
        Event::TurnUsage {
            usage,
            total_cost_usd: 0.5,
        }
    }

    /// A result that already carries an extra field of its own.
    pub fn result() -> Event<'static> {
        Event::TurnResult(Box::new(TurnSummary {
            ending: Ending::success(Some("done".into()), TerminalReason::Completed),
            duration_ms: 1,
            duration_api_ms: 1,
            num_turns: 1,
            stop_reason: None,
            total_cost_usd: 0.0,
            usage: Usage::default(),
            model_usage: Vec::new(),
            permission_denials: Vec::new(),
            structured_output: None,
            deferred_tool_use: None,
            origin: Some(json!({"kind": "prompt"})),
        }))
    }

    pub fn user_blocks(content: &[ContentBlock]) -> Event<'_> {
        Event::UserBlocks {
            uuid: "u-2".into(),
            content,
            tool_use_result: Some(json!({"stdout": "out"})),
        }
    }

    pub fn api_error(error: &dcl_model::ModelError) -> Event<'_> {
        Event::ApiError(error)
    }

    pub fn progress() -> Event<'static> {
        Event::ToolProgress {
            tool_use_id: "tu_1".into(),
            tool_name: "Bash".into(),
            parent_tool_use_id: None,
            elapsed_seconds: 5.0,
        }
    }

    pub fn init() -> Event<'static> {
        Event::Init(Box::new(SystemInit::unstamped("/work", "mock-model")))
    }

    /// Each line as the wire carries it.
    pub fn wire(lines: &[Message]) -> Vec<Value> {
        lines
            .iter()
            .map(|m| serde_json::to_value(m).expect("serializable"))
            .collect()
    }

    /// Each line's `type`.
    pub fn types(lines: &[Message]) -> Vec<String> {
        wire(lines)
            .iter()
            .map(|v| v["type"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}
