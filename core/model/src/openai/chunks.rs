//! The streamed `chat.completion.chunk`s (or one whole completion) as the Messages-API
//! events every client yields; see the table in [`super`].

use bytes::Bytes;
use dcl_protocol::Usage;
use futures::Stream;
use serde_json::{Map, Value, json};

use crate::events::{MessageDeltaBody, MessageStart};
use crate::sse::{self, EventMapper, SseEvent, snippet};
use crate::{Delta, ErrorKind, ErrorText, EventStream, ModelError, StreamEvent};

/// Prefix of the signatures [`synthetic_signature`] makes, so they can be told apart
/// from real ones (an Anthropic endpoint would refuse them).
pub const SYNTHETIC_SIGNATURE_PREFIX: &str = "dcl-synthetic:";

/// A signature for a thinking block whose provider gives none: a stable 128-bit
/// FNV-1a hash of the text, prefixed with [`SYNTHETIC_SIGNATURE_PREFIX`].
pub fn synthetic_signature(thinking: &str) -> String {
    fn fnv1a(bytes: &[u8], basis: u64) -> u64 {
        let mut h = basis;
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }
    let a = fnv1a(thinking.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let b = fnv1a(thinking.as_bytes(), 0x84222325_cbf29ce4);
    format!("{SYNTHETIC_SIGNATURE_PREFIX}{a:016x}{b:016x}")
}

/// `finish_reason` → Messages-API `stop_reason`.
pub fn map_finish_reason(reason: &str) -> String {
    match reason {
        "stop" | "eos" | "end_turn" => "end_turn",
        "tool_calls" | "function_call" | "tool_use" => "tool_use",
        "length" | "max_tokens" => "max_tokens",
        "content_filter" => "refusal",
        other => other,
    }
    .to_string()
}

/// Chat Completions `usage` → Messages-API usage (input excludes cached tokens).
pub fn map_usage(u: &Value) -> Usage {
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64);
    let prompt = n("/prompt_tokens")
        .or_else(|| n("/input_tokens"))
        .unwrap_or(0);
    let cached = n("/prompt_tokens_details/cached_tokens")
        .or_else(|| n("/prompt_cache_hit_tokens"))
        .or_else(|| n("/input_tokens_details/cached_tokens"))
        .unwrap_or(0)
        .min(prompt);
    let output = n("/completion_tokens")
        .or_else(|| n("/output_tokens"))
        .unwrap_or(0);
    Usage {
        input_tokens: prompt - cached,
        output_tokens: output,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
        ..Usage::default()
    }
}

#[derive(Debug, Clone)]
struct ToolSlot {
    /// The call's `index` in the chunks (or one we assigned).
    key: u64,
    id: String,
    name: String,
    /// Argument text received before the block could start (no name yet).
    pending: String,
    block: Option<usize>,
    closed: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Open {
    None,
    Text(usize),
    Thinking(usize, String),
    Tool(u64),
}

/// Converts `chat.completion.chunk`s into Messages-API stream events (see the module
/// docs). Feed it each SSE `data:` with [`push_data`](Self::push_data), and call
/// [`finish`](Self::finish) at the end of the body.
#[derive(Debug)]
pub struct ChunkConverter {
    model: String,
    started: bool,
    next_index: usize,
    open: Open,
    tools: Vec<ToolSlot>,
    any_tool: bool,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl ChunkConverter {
    /// `model` is reported in `message_start` when the chunks name none.
    pub fn new(model: impl Into<String>) -> Self {
        ChunkConverter {
            model: model.into(),
            started: false,
            next_index: 0,
            open: Open::None,
            tools: Vec::new(),
            any_tool: false,
            finish_reason: None,
            usage: None,
            done: false,
        }
    }

    /// Whether the message is complete (`[DONE]` or [`finish`](Self::finish) was seen).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// One SSE `data:` payload: a chunk, `[DONE]`, or an error object.
    pub fn push_data(&mut self, data: &str) -> Result<Vec<StreamEvent>, ModelError> {
        let data = data.trim();
        if self.done || data.is_empty() {
            return Ok(Vec::new());
        }
        if data == "[DONE]" {
            return self.finish(true);
        }
        let value: Value = serde_json::from_str(data).map_err(|e| {
            ModelError::stream(format!(
                "malformed JSON in a chat.completion.chunk: {e}; data: {}",
                snippet(data)
            ))
        })?;
        if !value.is_object() {
            return Err(ModelError::stream(format!(
                "a chat.completion.chunk that is not a JSON object: {}",
                snippet(data)
            )));
        }
        self.push_chunk(&value)
    }

    /// One parsed chunk.
    pub fn push_chunk(&mut self, chunk: &Value) -> Result<Vec<StreamEvent>, ModelError> {
        let mut out = Vec::new();
        if self.done {
            return Ok(out);
        }
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(err));
        }
        self.ensure_started(chunk, &mut out);
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(map_usage(u));
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue; // n > 1 is never requested
            }
            // Streaming chunks carry `delta`; a whole completion carries `message`.
            let delta = choice
                .get("delta")
                .or_else(|| choice.get("message"))
                .filter(|d| d.is_object());
            if let Some(delta) = delta {
                self.push_delta(delta, &mut out)?;
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_string());
            }
        }
        Ok(out)
    }

    fn push_delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        for key in ["reasoning_content", "reasoning"] {
            if let Some(t) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                self.thinking(t, out);
                break;
            }
        }
        if let Some(t) = content_text(delta.get("content")).filter(|t| !t.is_empty()) {
            self.text(&t, out);
        }
        if let Some(t) = delta
            .get("refusal")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            self.text(t, out);
        }
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        for (pos, call) in calls.into_iter().flatten().enumerate() {
            self.tool_delta(call, pos, out)?;
        }
        // The legacy single `function_call` delta.
        if let Some(fc) = delta.get("function_call").filter(|f| f.is_object()) {
            let call = json!({"index": 0, "function": fc});
            self.tool_delta(&call, 0, out)?;
        }
        Ok(())
    }

    /// Ends the message. `saw_done` is false when the body simply ended: that is a broken
    /// stream unless a `finish_reason` came first.
    pub fn finish(&mut self, saw_done: bool) -> Result<Vec<StreamEvent>, ModelError> {
        let mut out = Vec::new();
        if self.done {
            return Ok(out);
        }
        if !saw_done && self.finish_reason.is_none() {
            return Err(ModelError::Connection(
                "stream ended before the final chunk (no finish_reason, no [DONE])".into(),
            ));
        }
        self.done = true;
        self.ensure_started(&Value::Null, &mut out);
        self.close_open(&mut out);
        // Calls whose name never came are still shown (the engine answers them).
        for i in 0..self.tools.len() {
            if self.tools[i].block.is_none() {
                self.start_tool(i, &mut out);
                self.close_open(&mut out);
            }
        }
        let mut reason = self
            .finish_reason
            .as_deref()
            .map(map_finish_reason)
            .unwrap_or_else(|| "end_turn".into());
        if self.any_tool && reason == "end_turn" {
            reason = "tool_use".into(); // some servers say `stop` after tool calls
        }
        out.push(StreamEvent::MessageDelta {
            delta: MessageDeltaBody {
                stop_reason: Some(reason),
                stop_sequence: None,
            },
            usage: Some(self.usage.clone().unwrap_or_default()),
        });
        out.push(StreamEvent::MessageStop);
        Ok(out)
    }

    fn ensure_started(&mut self, chunk: &Value, out: &mut Vec<StreamEvent>) {
        if self.started {
            return;
        }
        self.started = true;
        let id = chunk
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("chatcmpl-dcl-{}", uuid::Uuid::new_v4().simple()));
        let model = chunk
            .get("model")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.model)
            .to_string();
        let mut extra = Map::new();
        extra.insert("type".into(), json!("message"));
        extra.insert("role".into(), json!("assistant"));
        extra.insert("content".into(), json!([]));
        out.push(StreamEvent::MessageStart {
            message: MessageStart {
                id,
                model,
                usage: Usage::default(),
                extra,
            },
        });
    }

    fn new_index(&mut self) -> usize {
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    fn close_open(&mut self, out: &mut Vec<StreamEvent>) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => {}
            Open::Text(index) => out.push(StreamEvent::ContentBlockStop { index }),
            Open::Thinking(index, text) => {
                out.push(StreamEvent::ContentBlockDelta {
                    index,
                    delta: Delta::SignatureDelta {
                        signature: synthetic_signature(&text),
                    },
                });
                out.push(StreamEvent::ContentBlockStop { index });
            }
            Open::Tool(key) => {
                if let Some(slot) = self.tools.iter_mut().find(|s| s.key == key) {
                    slot.closed = true;
                    if let Some(index) = slot.block {
                        out.push(StreamEvent::ContentBlockStop { index });
                    }
                }
            }
        }
    }

    fn thinking(&mut self, t: &str, out: &mut Vec<StreamEvent>) {
        let index = match &mut self.open {
            Open::Thinking(index, text) => {
                text.push_str(t);
                *index
            }
            _ => {
                self.close_open(out);
                let index = self.new_index();
                out.push(StreamEvent::ContentBlockStart {
                    index,
                    content_block: json!({"type": "thinking", "thinking": "", "signature": ""}),
                });
                self.open = Open::Thinking(index, t.to_string());
                index
            }
        };
        out.push(StreamEvent::ContentBlockDelta {
            index,
            delta: Delta::ThinkingDelta {
                thinking: t.to_string(),
            },
        });
    }

    fn text(&mut self, t: &str, out: &mut Vec<StreamEvent>) {
        let index = match self.open {
            Open::Text(index) => index,
            _ => {
                self.close_open(out);
                let index = self.new_index();
                out.push(StreamEvent::ContentBlockStart {
                    index,
                    content_block: json!({"type": "text", "text": ""}),
                });
                self.open = Open::Text(index);
                index
            }
        };
        out.push(StreamEvent::ContentBlockDelta {
            index,
            delta: Delta::TextDelta {
                text: t.to_string(),
            },
        });
    }

    /// Opens the tool_use block of slot `i` (closing whatever is open) and flushes the
    /// arguments that arrived before it could start.
    fn start_tool(&mut self, i: usize, out: &mut Vec<StreamEvent>) {
        self.close_open(out);
        let index = self.new_index();
        let slot = &mut self.tools[i];
        if slot.id.is_empty() {
            slot.id = format!("call_{}", uuid::Uuid::new_v4().simple());
        }
        slot.block = Some(index);
        self.any_tool = true;
        out.push(StreamEvent::ContentBlockStart {
            index,
            content_block: json!({"type": "tool_use", "id": slot.id, "name": slot.name, "input": {}}),
        });
        let pending = std::mem::take(&mut slot.pending);
        if !pending.is_empty() {
            out.push(StreamEvent::ContentBlockDelta {
                index,
                delta: Delta::InputJsonDelta {
                    partial_json: pending,
                },
            });
        }
        self.open = Open::Tool(slot.key);
    }

    fn tool_delta(
        &mut self,
        call: &Value,
        pos: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ModelError> {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let key = match call.get("index").and_then(Value::as_u64) {
            Some(k) => k,
            // Servers that leave `index` out: a new id is a new call; no id continues the
            // current one (or is the `pos`-th of this chunk).
            None => match id {
                Some(id) => match self.tools.iter().find(|s| s.id == id) {
                    Some(s) => s.key,
                    None => self.tools.iter().map(|s| s.key + 1).max().unwrap_or(0),
                },
                None => match &self.open {
                    Open::Tool(k) => *k,
                    _ => pos as u64,
                },
            },
        };
        let i = match self.tools.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                self.tools.push(ToolSlot {
                    key,
                    id: String::new(),
                    name: String::new(),
                    pending: String::new(),
                    block: None,
                    closed: false,
                });
                self.tools.len() - 1
            }
        };
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let args = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Object(_)) => v.to_string(), // some servers send an object
            _ => String::new(),
        };
        let has_anything = id.is_some() || name.is_some() || !args.is_empty();
        let slot = &mut self.tools[i];
        if slot.closed {
            if !has_anything {
                return Ok(());
            }
            return Err(ModelError::stream(format!(
                "tool call {key} ({}) received more data after another block started; interleaved tool-call streams are not supported",
                slot.name
            )));
        }
        if let Some(id) = id
            && slot.id.is_empty()
        {
            slot.id = id.to_string();
        }
        if let Some(name) = name
            && slot.name.is_empty()
        {
            slot.name = name.to_string();
        }
        match slot.block {
            None => {
                slot.pending.push_str(&args);
                if !slot.name.is_empty() {
                    self.start_tool(i, out);
                }
            }
            Some(index) => {
                if self.open != Open::Tool(key) {
                    // Started but not current cannot happen (starting closes others), but
                    // never stream into a block that is not the open one.
                    return Err(ModelError::stream(format!(
                        "tool call {key} is not the open block"
                    )));
                }
                if !args.is_empty() {
                    out.push(StreamEvent::ContentBlockDelta {
                        index,
                        delta: Delta::InputJsonDelta { partial_json: args },
                    });
                }
            }
        }
        Ok(())
    }
}

/// `content` of a delta: a string, or (some servers) a list of text parts.
fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// An error object inside the stream → `ModelError::Stream("<type or code>: <message>")`,
/// of the kind its type or code says ([`ErrorKind::from_api_error_type`]).
fn stream_error(err: &Value) -> ModelError {
    if let Some(s) = err.as_str() {
        return ModelError::api_stream_error("error", s);
    }
    let fields: Vec<String> = ["type", "code"]
        .iter()
        .filter_map(|k| match err.get(*k) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    let label = fields.first().map_or("error", String::as_str);
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the API sent an error without a message");
    // Servers put the telling word in either field (`type: server_error, code: overloaded`).
    let kind = fields
        .iter()
        .map(|f| ErrorKind::from_api_error_type(f))
        .find(|k| *k != ErrorKind::Stream)
        .unwrap_or(ErrorKind::Stream);
    ModelError::Stream(ErrorText::new(kind, format!("{label}: {message}")))
}

/// A whole (non-streamed) completion as events; an error body as a stream error.
pub(super) fn completion_to_events(
    text: &str,
    model: &str,
) -> Vec<Result<StreamEvent, ModelError>> {
    let mut conv = ChunkConverter::new(model);
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return vec![Err(ModelError::stream(format!(
                "expected an SSE stream but got malformed JSON: {e}; data: {}",
                snippet(text)
            )))];
        }
    };
    let result = conv.push_chunk(&value).and_then(|mut evs| {
        if conv.finish_reason.is_none() {
            conv.finish_reason = Some("stop".into());
        }
        evs.extend(conv.finish(true)?);
        Ok(evs)
    });
    match result {
        Ok(evs) => evs.into_iter().map(Ok).collect(),
        Err(e) => vec![Err(e)],
    }
}

/// The chunk stream's [`EventMapper`]: every event's `data:` is a chunk, `[DONE]`, or an
/// error object.
impl EventMapper for ChunkConverter {
    fn event(&mut self, ev: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        out.extend(self.push_data(&ev.data)?);
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        out.extend(self.finish(false)?);
        Ok(())
    }

    /// A server that keeps the connection open (or drops it) after the last chunk: the
    /// message is complete once its `finish_reason` came.
    fn broken(&mut self, error: ModelError, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        if self.finish_reason.is_none() {
            return Err(error);
        }
        out.extend(self.finish(false)?);
        Ok(())
    }
}

/// Decodes a byte stream of Chat Completions SSE into Messages-API events. The stream
/// ends after `message_stop` or after the first error; a body that ends before a
/// `finish_reason` ends with `ModelError::Connection`.
pub fn chunk_event_stream<S>(bytes: S, model: String) -> EventStream
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    sse::decode(Box::pin(bytes), ChunkConverter::new(model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulate::Accumulator;
    use dcl_protocol::{ContentBlock, KnownBlock};
    use futures::StreamExt;

    fn chunk(delta: Value) -> String {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-x",
               "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
        .to_string()
    }

    fn finish_chunk(reason: &str) -> String {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-x",
               "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
        .to_string()
    }

    fn usage_chunk() -> String {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-x",
               "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 30,
               "total_tokens": 150, "prompt_tokens_details": {"cached_tokens": 20}}})
        .to_string()
    }

    fn convert(datas: &[String]) -> Result<Vec<StreamEvent>, ModelError> {
        let mut c = ChunkConverter::new("req-model");
        let mut out = Vec::new();
        for d in datas {
            out.extend(c.push_data(d)?);
        }
        out.extend(c.finish(false)?);
        Ok(out)
    }

    fn kinds(events: &[StreamEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| {
                let v = serde_json::to_value(e).unwrap();
                let t = v["type"].as_str().unwrap().to_string();
                match v["delta"]["type"].as_str() {
                    Some(d) => format!("{t}:{d}"),
                    None => match v["content_block"]["type"].as_str() {
                        Some(b) => format!("{t}:{b}"),
                        None => t,
                    },
                }
            })
            .collect()
    }

    fn accumulate(events: &[StreamEvent]) -> crate::accumulate::AssistantTurn {
        let mut acc = Accumulator::new();
        for e in events {
            acc.push(e).unwrap();
        }
        acc.finish().unwrap()
    }

    #[test]
    fn text_stream_becomes_a_text_block() {
        let events = convert(&[
            chunk(json!({"role": "assistant", "content": ""})),
            chunk(json!({"content": "Hel"})),
            chunk(json!({"content": "lo"})),
            finish_chunk("stop"),
            usage_chunk(),
            "[DONE]".into(),
        ])
        .unwrap();
        assert_eq!(
            kinds(&events),
            [
                "message_start",
                "content_block_start:text",
                "content_block_delta:text_delta",
                "content_block_delta:text_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        let turn = accumulate(&events);
        assert_eq!(turn.id, "chatcmpl-1");
        assert_eq!(turn.model, "gpt-x");
        assert_eq!(turn.text(), "Hello");
        assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!(turn.usage.input_tokens, 100);
        assert_eq!(turn.usage.cache_read_input_tokens, 20);
        assert_eq!(turn.usage.output_tokens, 30);
    }

    #[test]
    fn reasoning_then_text_then_parallel_tools() {
        let events = convert(&[
            chunk(json!({"role": "assistant", "reasoning_content": "Think "})),
            chunk(json!({"reasoning_content": "hard."})),
            chunk(json!({"content": "Two calls."})),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                "function": {"name": "Read", "arguments": ""}}]}),
            ),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"file_pa"}}]})),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "th\": \"a\"}"}}]})),
            chunk(
                json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                "function": {"name": "Bash", "arguments": "{\"command\""}}]}),
            ),
            chunk(json!({"tool_calls": [{"index": 1, "function": {"arguments": ": \"ls\"}"}}]})),
            finish_chunk("tool_calls"),
            usage_chunk(),
            "[DONE]".into(),
        ])
        .unwrap();
        assert_eq!(
            kinds(&events),
            [
                "message_start",
                "content_block_start:thinking",
                "content_block_delta:thinking_delta",
                "content_block_delta:thinking_delta",
                "content_block_delta:signature_delta",
                "content_block_stop",
                "content_block_start:text",
                "content_block_delta:text_delta",
                "content_block_stop",
                "content_block_start:tool_use",
                "content_block_delta:input_json_delta",
                "content_block_delta:input_json_delta",
                "content_block_stop",
                "content_block_start:tool_use",
                "content_block_delta:input_json_delta",
                "content_block_delta:input_json_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        let turn = accumulate(&events);
        assert_eq!(turn.stop_reason.as_deref(), Some("tool_use"));
        let sig = match &turn.content[0] {
            ContentBlock::Known(KnownBlock::Thinking(t)) => {
                assert_eq!(t.thinking, "Think hard.");
                t.signature.clone()
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(sig, synthetic_signature("Think hard."));
        assert!(sig.starts_with(SYNTHETIC_SIGNATURE_PREFIX));
        let tools: Vec<_> = turn.tool_uses().collect();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].id, "call_a");
        assert_eq!(tools[0].input, json!({"file_path": "a"}));
        assert_eq!(tools[1].name, "Bash");
        assert_eq!(tools[1].input, json!({"command": "ls"}));
        assert!(turn.invalid_tool_inputs.is_empty());
    }

    #[test]
    fn finish_reasons_map() {
        assert_eq!(map_finish_reason("stop"), "end_turn");
        assert_eq!(map_finish_reason("tool_calls"), "tool_use");
        assert_eq!(map_finish_reason("function_call"), "tool_use");
        assert_eq!(map_finish_reason("length"), "max_tokens");
        assert_eq!(map_finish_reason("content_filter"), "refusal");
        assert_eq!(map_finish_reason("weird"), "weird");
        let events = convert(&[chunk(json!({"content": "cut"})), finish_chunk("length")]).unwrap();
        assert_eq!(
            accumulate(&events).stop_reason.as_deref(),
            Some("max_tokens")
        );
        // `stop` after tool calls (some local servers) is still tool_use.
        let events = convert(&[
            chunk(json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "X", "arguments": "{}"}}]})),
            finish_chunk("stop"),
            "[DONE]".into(),
        ])
        .unwrap();
        assert_eq!(accumulate(&events).stop_reason.as_deref(), Some("tool_use"));
    }

    #[test]
    fn usage_conventions() {
        let u = map_usage(&json!({"prompt_tokens": 50, "completion_tokens": 5,
            "prompt_cache_hit_tokens": 30, "prompt_cache_miss_tokens": 20}));
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens, u.output_tokens),
            (20, 30, 5)
        );
        let u = map_usage(&json!({"prompt_tokens": 5, "completion_tokens": 1,
            "prompt_tokens_details": {"cached_tokens": 99}}));
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens),
            (0, 5),
            "never negative"
        );
        let u = map_usage(&json!({}));
        assert_eq!(u, Usage::default());
    }

    #[test]
    fn broken_and_odd_streams() {
        // The body ends without finish_reason or [DONE]: a connection error.
        let err = convert(&[chunk(json!({"content": "half"}))]).unwrap_err();
        assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
        // Malformed JSON.
        let err = convert(&["{\"choices\": [".into()]).unwrap_err();
        assert!(err.to_string().contains("malformed JSON"), "{err}");
        // An error object mid-stream.
        let err = convert(&[
            json!({"error": {"message": "Overloaded", "type": "overloaded_error"}}).to_string(),
        ])
        .unwrap_err();
        assert_eq!(
            err,
            ModelError::api_stream_error("overloaded_error", "Overloaded")
        );
        assert!(err.is_retryable());
        // The telling word may be in `code`; the text says the type.
        let err = convert(
            &[json!({"error": {"message": "busy", "type": "server_error",
            "code": "overloaded"}})
            .to_string()],
        )
        .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Overloaded);
        assert_eq!(err.to_string(), "API stream error: server_error: busy");
        let err = convert(&[
            json!({"error": {"message": "nope", "type": "invalid_request_error"}}).to_string(),
        ])
        .unwrap_err();
        assert!(!err.is_retryable());
        // [DONE] alone: an empty message.
        let events = convert(&["[DONE]".into()]).unwrap();
        assert_eq!(
            kinds(&events),
            ["message_start", "message_delta", "message_stop"]
        );
        let turn = accumulate(&events);
        assert!(turn.content.is_empty());
        assert!(turn.id.starts_with("chatcmpl-dcl-"));
        assert_eq!(turn.model, "req-model");
        // Anything after [DONE] is ignored.
        let mut c = ChunkConverter::new("m");
        c.push_data("[DONE]").unwrap();
        assert!(c.push_data("garbage").unwrap().is_empty());
    }

    #[test]
    fn interleaved_tool_calls_are_refused_clearly() {
        let err = convert(&[
            chunk(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "X", "arguments": "{"}}]})),
            chunk(json!({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "Y", "arguments": "{"}}]})),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]})),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("interleaved"), "{err}");
    }

    #[test]
    fn whole_tool_calls_without_index_and_late_names() {
        // Ollama-style: complete calls in one chunk, no index, arguments as an object.
        let events = convert(&[
            chunk(json!({"tool_calls": [
                {"id": "c1", "function": {"name": "A", "arguments": {"x": 1}}},
                {"id": "c2", "function": {"name": "B", "arguments": "{\"y\":2}"}}]})),
            finish_chunk("tool_calls"),
        ])
        .unwrap();
        let turn = accumulate(&events);
        let tools: Vec<_> = turn.tool_uses().collect();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].input, json!({"x": 1}));
        assert_eq!(tools[1].id, "c2");
        assert_eq!(tools[1].input, json!({"y": 2}));
        // Arguments before the name, and a missing id.
        let events = convert(&[
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\""}}]})),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"name": "N", "arguments": ":1}"}}]})),
            finish_chunk("tool_calls"),
        ])
        .unwrap();
        let turn = accumulate(&events);
        let t = turn.tool_uses().next().unwrap();
        assert_eq!(t.name, "N");
        assert!(t.id.starts_with("call_"));
        assert_eq!(t.input, json!({"a": 1}));
        // Invalid JSON arguments reach the accumulator's invalid-input path.
        let events = convert(&[
            chunk(json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "N", "arguments": "{oops"}}]})),
            finish_chunk("tool_calls"),
        ])
        .unwrap();
        let turn = accumulate(&events);
        assert_eq!(turn.invalid_tool_inputs.len(), 1);
        assert_eq!(turn.invalid_tool_inputs[0].raw_json, "{oops");
    }

    #[test]
    fn non_streamed_completion_is_converted() {
        let text = json!({"id": "chatcmpl-9", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": "Sure.", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "A", "arguments": "{}"}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}})
        .to_string();
        let events: Vec<StreamEvent> = completion_to_events(&text, "m")
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let turn = accumulate(&events);
        assert_eq!(turn.text(), "Sure.");
        assert_eq!(turn.tool_uses().count(), 1);
        assert_eq!(turn.usage.input_tokens, 10);
        let err = completion_to_events("{\"error\": {\"message\": \"nope\"}}", "m");
        assert!(matches!(&err[0], Err(ModelError::Stream(m)) if m.contains("nope")));
    }

    #[tokio::test]
    async fn bytes_split_anywhere_decode_the_same() {
        let body = format!(
            "data: {}\n\ndata: {}\n\n: keep-alive\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
            chunk(json!({"role": "assistant", "content": "h\u{e9}llo \u{1F600}"})),
            chunk(json!({"content": " world"})),
            finish_chunk("stop"),
            usage_chunk()
        );
        let run = |pieces: Vec<Vec<u8>>| async move {
            let s = futures::stream::iter(pieces.into_iter().map(|p| Ok(Bytes::from(p))));
            chunk_event_stream(s, "m".into())
                .collect::<Vec<_>>()
                .await
                .into_iter()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
        };
        let whole = run(vec![body.as_bytes().to_vec()]).await;
        assert_eq!(accumulate(&whole).text(), "h\u{e9}llo \u{1F600} world");
        for i in (0..body.len()).step_by(3) {
            let (a, b) = body.as_bytes().split_at(i);
            assert_eq!(
                run(vec![a.to_vec(), b.to_vec()]).await,
                whole,
                "split at {i}"
            );
        }
        // A body cut before the end is a connection error as the last item.
        let cut = &body.as_bytes()[..body.len() / 3];
        let s = futures::stream::iter(vec![Ok(Bytes::copy_from_slice(cut))]);
        let items: Vec<_> = chunk_event_stream(s, "m".into()).collect().await;
        assert!(matches!(items.last(), Some(Err(ModelError::Connection(_)))));
    }

    #[tokio::test]
    async fn a_connection_that_breaks_after_finish_reason_still_completes() {
        let body = format!(
            "data: {}\n\ndata: {}\n\n",
            chunk(json!({"content": "done"})),
            finish_chunk("stop")
        );
        let s = futures::stream::iter(vec![
            Ok(Bytes::from(body)),
            Err(ModelError::Connection(
                "no data from the API for 1 s".into(),
            )),
        ]);
        let events: Vec<StreamEvent> = chunk_event_stream(s, "m".into())
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let turn = accumulate(&events);
        assert_eq!(turn.text(), "done");
        assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
    }

    #[test]
    fn signatures_are_stable_and_distinct() {
        assert_eq!(synthetic_signature("a"), synthetic_signature("a"));
        assert_ne!(synthetic_signature("a"), synthetic_signature("b"));
        assert_eq!(
            synthetic_signature("").len(),
            SYNTHETIC_SIGNATURE_PREFIX.len() + 32
        );
    }
}
