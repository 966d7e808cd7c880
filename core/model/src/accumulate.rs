//! Builds the assistant message from stream events.
//!
//! The engine emits one assistant line per content block as soon as that block's
//! `content_block_stop` arrives (tool approval may start before the message ends), so
//! [`Accumulator::push`] hands back each block the moment it completes, and
//! [`Accumulator::finish`] gives the whole turn with its stop reason and usage.

use std::collections::BTreeMap;

use dcl_protocol::{ContentBlock, Extra, ToolUseBlock, Usage};
use serde_json::Value;

use super::ModelError;
use super::events::{Delta, MessageStart, StreamEvent};

/// A tool_use whose streamed input was not a JSON object. The block itself carries `{}`
/// as input (the API accepts nothing else when the conversation is sent back); the engine
/// should not run the tool but answer with [`InvalidToolInput::tool_result_text`] as an
/// error tool_result, so the model can correct itself.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidToolInput {
    pub tool_use_id: String,
    pub tool_name: String,
    /// The concatenated `input_json_delta` text, exactly as received.
    pub raw_json: String,
    /// Why it was refused (the JSON parser's message, or "not an object").
    pub error: String,
}

impl InvalidToolInput {
    /// Text for the error tool_result answering this call.
    pub fn tool_result_text(&self) -> String {
        format!(
            "Error: the input for tool {} is not a valid JSON object ({}). Input received: {}",
            self.tool_name, self.error, self.raw_json
        )
    }
}

/// A content block that just received its `content_block_stop`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletedBlock {
    /// The block's `index` in the message.
    pub index: usize,
    pub block: ContentBlock,
    /// Set for a tool_use whose input could not be parsed.
    pub invalid_input: Option<InvalidToolInput>,
}

/// The finished assistant message of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantTurn {
    pub id: String,
    pub model: String,
    /// Blocks in index order.
    pub content: Vec<ContentBlock>,
    pub stop_reason: Option<String>,
    pub stop_sequence: Option<String>,
    /// `message_start` usage with `message_delta` usage merged in (final output_tokens).
    pub usage: Usage,
    /// tool_use blocks whose input was not valid JSON, in index order.
    pub invalid_tool_inputs: Vec<InvalidToolInput>,
}

impl AssistantTurn {
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.content.iter().filter_map(ContentBlock::as_tool_use)
    }

    /// All text blocks joined by newlines (the `result` of a turn).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The parse failure for this tool_use id, if its input was invalid.
    pub fn invalid_input(&self, tool_use_id: &str) -> Option<&InvalidToolInput> {
        self.invalid_tool_inputs
            .iter()
            .find(|i| i.tool_use_id == tool_use_id)
    }
}

/// A block between its `content_block_start` and `content_block_stop`.
#[derive(Debug, Clone)]
enum OpenBlock {
    Text {
        text: String,
        extra: Extra,
    },
    Thinking {
        thinking: String,
        signature: String,
        extra: Extra,
    },
    ToolUse {
        id: String,
        name: String,
        /// The input given in `content_block_start` (normally `{}`), used when no
        /// `input_json_delta` follows.
        start_input: Value,
        json: String,
        saw_json: bool,
        extra: Extra,
    },
    /// Block types dcl does not model (server tools, redacted thinking, …): kept as the
    /// start JSON, with streamed input JSON applied to its `input` field.
    Other {
        value: Value,
        json: String,
    },
}

impl OpenBlock {
    fn kind(&self) -> &'static str {
        match self {
            OpenBlock::Text { .. } => "text",
            OpenBlock::Thinking { .. } => "thinking",
            OpenBlock::ToolUse { .. } => "tool_use",
            OpenBlock::Other { .. } => "other",
        }
    }

    fn from_start(start: &Value) -> OpenBlock {
        let Some(obj) = start.as_object() else {
            return OpenBlock::Other {
                value: start.clone(),
                json: String::new(),
            };
        };
        let str_of = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        // Extra fields are kept so nothing is lost, except nulls (`"citations": null`)
        // which would only add noise when the conversation is sent back.
        let extra_without = |keys: &[&str]| -> Extra {
            obj.iter()
                .filter(|(k, v)| !keys.contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        match obj.get("type").and_then(Value::as_str) {
            Some("text") => OpenBlock::Text {
                text: str_of("text"),
                extra: extra_without(&["type", "text"]),
            },
            Some("thinking") => OpenBlock::Thinking {
                thinking: str_of("thinking"),
                signature: str_of("signature"),
                extra: extra_without(&["type", "thinking", "signature"]),
            },
            Some("tool_use") => OpenBlock::ToolUse {
                id: str_of("id"),
                name: str_of("name"),
                start_input: obj.get("input").cloned().unwrap_or(Value::Null),
                json: String::new(),
                saw_json: false,
                extra: extra_without(&["type", "id", "name", "input"]),
            },
            _ => OpenBlock::Other {
                value: start.clone(),
                json: String::new(),
            },
        }
    }

    /// The block as it stands; for a partial turn (interrupt) or at its stop.
    fn to_block(&self, index: usize) -> (ContentBlock, Option<InvalidToolInput>) {
        match self {
            OpenBlock::Text { text, extra } => (
                ContentBlock::Known(dcl_protocol::KnownBlock::Text(dcl_protocol::TextBlock {
                    text: text.clone(),
                    extra: extra.clone(),
                })),
                None,
            ),
            OpenBlock::Thinking {
                thinking,
                signature,
                extra,
            } => (
                ContentBlock::Known(dcl_protocol::KnownBlock::Thinking(
                    dcl_protocol::ThinkingBlock {
                        thinking: thinking.clone(),
                        signature: signature.clone(),
                        extra: extra.clone(),
                    },
                )),
                None,
            ),
            OpenBlock::ToolUse {
                id,
                name,
                start_input,
                json,
                saw_json,
                extra,
            } => {
                let (input, invalid) = if *saw_json {
                    parse_tool_input(json)
                } else if start_input.is_object() {
                    (start_input.clone(), None)
                } else {
                    (Value::Object(Default::default()), None)
                };
                let invalid = invalid.map(|error| InvalidToolInput {
                    tool_use_id: id.clone(),
                    tool_name: name.clone(),
                    raw_json: json.clone(),
                    error,
                });
                let block = ContentBlock::Known(dcl_protocol::KnownBlock::ToolUse(ToolUseBlock {
                    id: id.clone(),
                    name: name.clone(),
                    input,
                    extra: extra.clone(),
                }));
                if block.as_tool_use().is_some_and(|t| t.id.is_empty()) {
                    tracing::warn!(index, "tool_use block without an id");
                }
                (block, invalid)
            }
            OpenBlock::Other { value, json } => {
                let mut value = value.clone();
                if !json.trim().is_empty()
                    && let (Some(obj), Ok(input)) =
                        (value.as_object_mut(), serde_json::from_str::<Value>(json))
                {
                    obj.insert("input".into(), input);
                }
                let block =
                    serde_json::from_value(value.clone()).unwrap_or(ContentBlock::Other(value));
                (block, None)
            }
        }
    }
}

/// Parses concatenated `input_json_delta`s: empty means `{}`; anything that is not a JSON
/// object is refused with a reason (the input stays `{}`).
fn parse_tool_input(json: &str) -> (Value, Option<String>) {
    if json.trim().is_empty() {
        return (Value::Object(Default::default()), None);
    }
    match serde_json::from_str::<Value>(json) {
        Ok(v @ Value::Object(_)) => (v, None),
        Ok(_) => (
            Value::Object(Default::default()),
            Some("the input is JSON but not an object".into()),
        ),
        Err(e) => (Value::Object(Default::default()), Some(e.to_string())),
    }
}

/// Folds the events of one model call into an [`AssistantTurn`].
#[derive(Debug, Default)]
pub struct Accumulator {
    start: Option<MessageStart>,
    usage: Usage,
    open: BTreeMap<usize, OpenBlock>,
    done: BTreeMap<usize, CompletedBlock>,
    stop_reason: Option<String>,
    stop_sequence: Option<String>,
    stopped: bool,
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one event; returns the block a `content_block_stop` completed. Events out of
    /// protocol order (a delta for a block never started, a text delta into a tool_use, an
    /// event before `message_start`) are `ModelError::Stream`; an `error` event is too.
    pub fn push(&mut self, ev: &StreamEvent) -> Result<Option<CompletedBlock>, ModelError> {
        if let StreamEvent::Error { error } = ev {
            return Err(ModelError::api_stream_error(&error.kind, &error.message));
        }
        if matches!(ev, StreamEvent::Ping) {
            return Ok(None);
        }
        if let StreamEvent::MessageStart { message } = ev {
            if self.start.is_some() {
                return Err(ModelError::Stream("a second message_start".into()));
            }
            self.usage = message.usage.clone();
            self.start = Some(message.clone());
            return Ok(None);
        }
        if self.start.is_none() {
            return Err(ModelError::stream(format!(
                "{} before message_start",
                event_name(ev)
            )));
        }
        if self.stopped {
            return Err(ModelError::stream(format!(
                "{} after message_stop",
                event_name(ev)
            )));
        }
        match ev {
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                if self.open.contains_key(index) || self.done.contains_key(index) {
                    return Err(ModelError::stream(format!(
                        "content block {index} started twice"
                    )));
                }
                self.open
                    .insert(*index, OpenBlock::from_start(content_block));
                Ok(None)
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let Some(block) = self.open.get_mut(index) else {
                    return Err(ModelError::stream(format!(
                        "delta for content block {index}, which is not open"
                    )));
                };
                apply_delta(block, *index, delta)?;
                Ok(None)
            }
            StreamEvent::ContentBlockStop { index } => {
                let Some(block) = self.open.remove(index) else {
                    return Err(ModelError::stream(format!(
                        "content_block_stop for block {index}, which is not open"
                    )));
                };
                let (block, invalid_input) = block.to_block(*index);
                let completed = CompletedBlock {
                    index: *index,
                    block,
                    invalid_input,
                };
                self.done.insert(*index, completed.clone());
                Ok(Some(completed))
            }
            StreamEvent::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stop_reason.clone_from(&delta.stop_reason);
                }
                if delta.stop_sequence.is_some() {
                    self.stop_sequence.clone_from(&delta.stop_sequence);
                }
                if let Some(u) = usage {
                    merge_usage(&mut self.usage, u);
                }
                Ok(None)
            }
            StreamEvent::MessageStop => {
                self.stopped = true;
                Ok(None)
            }
            StreamEvent::MessageStart { .. } | StreamEvent::Ping | StreamEvent::Error { .. } => {
                Ok(None) // handled above
            }
        }
    }

    /// `message.id` from `message_start` (assistant lines carry it per block).
    pub fn message_id(&self) -> Option<&str> {
        self.start.as_ref().map(|m| m.id.as_str())
    }

    /// `message.model` from `message_start`.
    pub fn model(&self) -> Option<&str> {
        self.start.as_ref().map(|m| m.model.as_str())
    }

    /// Usage from `message_start` (what per-block assistant lines show).
    pub fn start_usage(&self) -> Option<&Usage> {
        self.start.as_ref().map(|m| &m.usage)
    }

    /// Usage so far (start usage merged with any `message_delta`).
    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// Whether `message_stop` was seen.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Everything received so far, in index order: completed blocks and the text and
    /// thinking of open ones (a half-streamed tool_use is left out: its input is
    /// unusable). For an interrupted turn, whose partial text is still reported.
    pub fn partial_content(&self) -> Vec<ContentBlock> {
        let mut all: BTreeMap<usize, ContentBlock> = self
            .done
            .iter()
            .map(|(i, c)| (*i, c.block.clone()))
            .collect();
        for (i, b) in &self.open {
            if matches!(b, OpenBlock::Text { .. } | OpenBlock::Thinking { .. }) {
                all.insert(*i, b.to_block(*i).0);
            }
        }
        all.into_values().collect()
    }

    /// The finished turn. Fails if `message_start` never came or a block was left open.
    pub fn finish(self) -> Result<AssistantTurn, ModelError> {
        let Some(start) = self.start else {
            return Err(ModelError::Stream(
                "the stream ended without message_start".into(),
            ));
        };
        if let Some((index, b)) = self.open.iter().next() {
            return Err(ModelError::stream(format!(
                "{} content block {index} was never closed",
                b.kind()
            )));
        }
        let mut content = Vec::with_capacity(self.done.len());
        let mut invalid_tool_inputs = Vec::new();
        for (_, c) in self.done {
            content.push(c.block);
            invalid_tool_inputs.extend(c.invalid_input);
        }
        Ok(AssistantTurn {
            id: start.id,
            model: start.model,
            content,
            stop_reason: self.stop_reason,
            stop_sequence: self.stop_sequence,
            usage: self.usage,
            invalid_tool_inputs,
        })
    }
}

fn apply_delta(block: &mut OpenBlock, index: usize, delta: &Delta) -> Result<(), ModelError> {
    match (block, delta) {
        (OpenBlock::Text { text, .. }, Delta::TextDelta { text: t }) => text.push_str(t),
        (OpenBlock::Text { extra, .. }, Delta::CitationsDelta { citation }) => {
            let list = extra
                .entry("citations")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = list {
                items.push(citation.clone());
            }
        }
        (OpenBlock::Thinking { thinking, .. }, Delta::ThinkingDelta { thinking: t }) => {
            thinking.push_str(t)
        }
        (OpenBlock::Thinking { signature, .. }, Delta::SignatureDelta { signature: s }) => {
            signature.push_str(s)
        }
        (OpenBlock::ToolUse { json, saw_json, .. }, Delta::InputJsonDelta { partial_json }) => {
            json.push_str(partial_json);
            *saw_json = true;
        }
        (OpenBlock::Other { json, .. }, Delta::InputJsonDelta { partial_json }) => {
            json.push_str(partial_json)
        }
        // Unknown block kinds may get deltas we cannot place; they are not worth failing on.
        (OpenBlock::Other { .. }, _) => {}
        (b, d) => {
            return Err(ModelError::stream(format!(
                "{} for a {} block (index {index})",
                delta_name(d),
                b.kind()
            )));
        }
    }
    Ok(())
}

/// `message_delta` usage is cumulative: its output_tokens is final; other counts replace
/// the start's only when the delta reports them (older API versions send only output).
fn merge_usage(base: &mut Usage, delta: &Usage) {
    base.output_tokens = delta.output_tokens;
    if delta.input_tokens > 0 {
        base.input_tokens = delta.input_tokens;
    }
    if delta.cache_creation_input_tokens > 0 {
        base.cache_creation_input_tokens = delta.cache_creation_input_tokens;
    }
    if delta.cache_read_input_tokens > 0 {
        base.cache_read_input_tokens = delta.cache_read_input_tokens;
    }
    for (k, v) in &delta.extra {
        if !v.is_null() {
            base.extra.insert(k.clone(), v.clone());
        }
    }
}

fn event_name(ev: &StreamEvent) -> &'static str {
    match ev {
        StreamEvent::MessageStart { .. } => "message_start",
        StreamEvent::ContentBlockStart { .. } => "content_block_start",
        StreamEvent::ContentBlockDelta { .. } => "content_block_delta",
        StreamEvent::ContentBlockStop { .. } => "content_block_stop",
        StreamEvent::MessageDelta { .. } => "message_delta",
        StreamEvent::MessageStop => "message_stop",
        StreamEvent::Ping => "ping",
        StreamEvent::Error { .. } => "error",
    }
}

fn delta_name(d: &Delta) -> &'static str {
    match d {
        Delta::TextDelta { .. } => "text_delta",
        Delta::ThinkingDelta { .. } => "thinking_delta",
        Delta::SignatureDelta { .. } => "signature_delta",
        Delta::InputJsonDelta { .. } => "input_json_delta",
        Delta::CitationsDelta { .. } => "citations_delta",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{ApiErrorBody, MessageDeltaBody};
    use serde_json::json;

    fn start(input: u64) -> StreamEvent {
        StreamEvent::MessageStart {
            message: MessageStart {
                id: "msg_1".into(),
                model: "claude-x".into(),
                usage: Usage {
                    input_tokens: input,
                    output_tokens: 1,
                    cache_read_input_tokens: 3,
                    ..Default::default()
                },
                extra: Default::default(),
            },
        }
    }

    fn block_start(index: usize, v: Value) -> StreamEvent {
        StreamEvent::ContentBlockStart {
            index,
            content_block: v,
        }
    }

    fn delta(index: usize, d: Delta) -> StreamEvent {
        StreamEvent::ContentBlockDelta { index, delta: d }
    }

    fn json_delta(index: usize, s: &str) -> StreamEvent {
        delta(
            index,
            Delta::InputJsonDelta {
                partial_json: s.into(),
            },
        )
    }

    fn stop(index: usize) -> StreamEvent {
        StreamEvent::ContentBlockStop { index }
    }

    fn msg_delta(reason: &str, output: u64) -> StreamEvent {
        StreamEvent::MessageDelta {
            delta: MessageDeltaBody {
                stop_reason: Some(reason.into()),
                stop_sequence: None,
            },
            usage: Some(Usage {
                output_tokens: output,
                ..Default::default()
            }),
        }
    }

    #[test]
    fn builds_text_thinking_and_tool_use() {
        let mut acc = Accumulator::new();
        let events = vec![
            start(42),
            StreamEvent::Ping,
            block_start(0, json!({"type":"thinking","thinking":"","signature":""})),
            delta(
                0,
                Delta::ThinkingDelta {
                    thinking: "Let me ".into(),
                },
            ),
            delta(
                0,
                Delta::ThinkingDelta {
                    thinking: "think.".into(),
                },
            ),
            delta(
                0,
                Delta::SignatureDelta {
                    signature: "sig".into(),
                },
            ),
            stop(0),
            block_start(1, json!({"type":"text","text":"","citations":null})),
            delta(1, Delta::TextDelta { text: "Hi ".into() }),
            delta(
                1,
                Delta::TextDelta {
                    text: "there".into(),
                },
            ),
            stop(1),
            block_start(
                2,
                json!({"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}),
            ),
            json_delta(2, ""),
            json_delta(2, "{\"command\": \"ec"),
            json_delta(2, "ho hi\"}"),
            stop(2),
            msg_delta("tool_use", 17),
            StreamEvent::MessageStop,
        ];
        let mut completed = Vec::new();
        for ev in &events {
            if let Some(c) = acc.push(ev).unwrap() {
                completed.push(c);
            }
        }
        assert_eq!(completed.len(), 3);
        assert_eq!(
            completed[0].block,
            ContentBlock::thinking("Let me think.", "sig")
        );
        assert_eq!(completed[1].block, ContentBlock::text("Hi there"));
        assert_eq!(
            completed[2].block,
            ContentBlock::tool_use("toolu_1", "Bash", json!({"command":"echo hi"}))
        );
        assert!(completed.iter().all(|c| c.invalid_input.is_none()));
        assert_eq!(acc.message_id(), Some("msg_1"));
        assert_eq!(acc.start_usage().map(|u| u.output_tokens), Some(1));
        let turn = acc.finish().unwrap();
        assert_eq!(turn.id, "msg_1");
        assert_eq!(turn.model, "claude-x");
        assert_eq!(turn.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(turn.usage.input_tokens, 42);
        assert_eq!(turn.usage.output_tokens, 17);
        assert_eq!(turn.usage.cache_read_input_tokens, 3);
        assert_eq!(turn.content.len(), 3);
        assert_eq!(turn.tool_uses().count(), 1);
        assert_eq!(turn.text(), "Hi there");
    }

    #[test]
    fn tool_use_without_deltas_has_empty_object_input() {
        let mut acc = Accumulator::new();
        acc.push(&start(1)).unwrap();
        acc.push(&block_start(
            0,
            json!({"type":"tool_use","id":"time-1","name":"mcp__app__server_time","input":{}}),
        ))
        .unwrap();
        let c = acc.push(&stop(0)).unwrap().unwrap();
        assert_eq!(
            c.block,
            ContentBlock::tool_use("time-1", "mcp__app__server_time", json!({}))
        );
        // Only whitespace in the deltas: also `{}`.
        acc.push(&block_start(
            1,
            json!({"type":"tool_use","id":"t2","name":"X","input":{}}),
        ))
        .unwrap();
        acc.push(&json_delta(1, "  ")).unwrap();
        let c = acc.push(&stop(1)).unwrap().unwrap();
        assert_eq!(c.block.as_tool_use().unwrap().input, json!({}));
        assert!(c.invalid_input.is_none());
    }

    #[test]
    fn invalid_tool_json_is_kept_and_marked_not_panicking() {
        for raw in ["{\"a\": ", "[1, 2]", "nul", "\"str\""] {
            let mut acc = Accumulator::new();
            acc.push(&start(1)).unwrap();
            acc.push(&block_start(
                0,
                json!({"type":"tool_use","id":"t1","name":"Write","input":{}}),
            ))
            .unwrap();
            acc.push(&json_delta(0, raw)).unwrap();
            let c = acc.push(&stop(0)).unwrap().unwrap();
            let bad = c.invalid_input.clone().expect("marked invalid");
            assert_eq!(bad.raw_json, raw);
            assert_eq!(bad.tool_use_id, "t1");
            assert!(bad.tool_result_text().contains(raw));
            assert_eq!(c.block.as_tool_use().unwrap().input, json!({}));
            acc.push(&msg_delta("tool_use", 3)).unwrap();
            acc.push(&StreamEvent::MessageStop).unwrap();
            let turn = acc.finish().unwrap();
            assert_eq!(turn.invalid_tool_inputs, vec![bad]);
            assert!(turn.invalid_input("t1").is_some());
        }
    }

    #[test]
    fn protocol_violations_are_errors() {
        let mut acc = Accumulator::new();
        assert!(acc.push(&stop(0)).is_err(), "before message_start");
        acc.push(&start(1)).unwrap();
        assert!(
            acc.push(&delta(0, Delta::TextDelta { text: "x".into() }))
                .is_err()
        );
        acc.push(&block_start(0, json!({"type":"text","text":""})))
            .unwrap();
        assert!(
            acc.push(&block_start(0, json!({"type":"text","text":""})))
                .is_err()
        );
        assert!(acc.push(&json_delta(0, "{}")).is_err(), "json into text");
        assert!(acc.push(&stop(5)).is_err());
        let err = acc
            .push(&StreamEvent::Error {
                error: ApiErrorBody {
                    kind: "overloaded_error".into(),
                    message: "Overloaded".into(),
                },
            })
            .unwrap_err();
        assert!(err.is_retryable());
        // A block left open fails finish.
        assert!(acc.finish().is_err());
        assert!(Accumulator::new().finish().is_err());
    }

    #[test]
    fn partial_content_includes_open_text() {
        let mut acc = Accumulator::new();
        acc.push(&start(1)).unwrap();
        acc.push(&block_start(0, json!({"type":"text","text":""})))
            .unwrap();
        acc.push(&delta(0, Delta::TextDelta { text: "w0 ".into() }))
            .unwrap();
        acc.push(&delta(0, Delta::TextDelta { text: "w1 ".into() }))
            .unwrap();
        assert_eq!(acc.partial_content(), vec![ContentBlock::text("w0 w1 ")]);
        assert!(!acc.is_stopped());
    }

    #[test]
    fn unknown_blocks_are_kept() {
        let mut acc = Accumulator::new();
        acc.push(&start(1)).unwrap();
        acc.push(&block_start(
            0,
            json!({"type":"redacted_thinking","data":"abc"}),
        ))
        .unwrap();
        let c = acc.push(&stop(0)).unwrap().unwrap();
        assert!(matches!(
            c.block,
            ContentBlock::Known(dcl_protocol::KnownBlock::RedactedThinking(_))
        ));
        acc.push(&block_start(
            1,
            json!({"type":"server_tool_use","id":"s1","name":"web_search","input":{}}),
        ))
        .unwrap();
        acc.push(&json_delta(1, "{\"query\":\"x\"}")).unwrap();
        let c = acc.push(&stop(1)).unwrap().unwrap();
        assert_eq!(
            serde_json::to_value(&c.block).unwrap(),
            json!({"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"x"}})
        );
    }

    #[test]
    fn usage_merge_prefers_reported_delta_counts() {
        let mut acc = Accumulator::new();
        acc.push(&start(10)).unwrap();
        acc.push(&StreamEvent::MessageDelta {
            delta: MessageDeltaBody::default(),
            usage: Some(Usage {
                input_tokens: 12,
                output_tokens: 5,
                ..Default::default()
            }),
        })
        .unwrap();
        let turn = acc.finish().unwrap();
        assert_eq!(turn.usage.input_tokens, 12);
        assert_eq!(turn.usage.output_tokens, 5);
        assert_eq!(turn.usage.cache_read_input_tokens, 3);
        assert_eq!(turn.stop_reason, None);
    }
}
