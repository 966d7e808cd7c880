//! Builders for Anthropic Messages SSE bodies, as the real API streams them.
//!
//! ```
//! use dcl_test_support::sse::{SseMessage, sse_text};
//! let body = SseMessage::new()
//!     .text("Let me look.")
//!     .tool_use("toolu_1", "Read", serde_json::json!({"file_path": "a.txt"}))
//!     .build();
//! assert!(body.contains("event: message_stop"));
//! assert!(sse_text("hi").contains("text_delta"));
//! ```

use serde_json::{Value, json};

/// `event: <type>\ndata: <json>\n\n` for one event (the name is the data's `type`).
pub fn sse_event(data: &Value) -> String {
    let name = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

/// An SSE `error` event, as the API sends mid-stream (`overloaded_error`, `api_error`).
pub fn sse_error(kind: &str, message: &str) -> String {
    sse_event(&json!({"type": "error", "error": {"type": kind, "message": message}}))
}

/// A whole message with one text block.
pub fn sse_text(text: &str) -> String {
    SseMessage::new().text(text).build()
}

/// A whole message with one tool_use block (stop_reason `tool_use`).
pub fn sse_tool_use(id: &str, name: &str, input: Value) -> String {
    SseMessage::new().tool_use(id, name, input).build()
}

/// A whole message: thinking with its signature, then text.
pub fn sse_thinking(thinking: &str, signature: &str, text: &str) -> String {
    SseMessage::new()
        .thinking(thinking, signature)
        .text(text)
        .build()
}

#[derive(Debug, Clone)]
enum Block {
    Text(Vec<String>),
    Thinking(Vec<String>, String),
    ToolUse(String, String, Vec<String>),
    Raw(Value),
}

/// A message to stream, block by block.
#[derive(Debug, Clone)]
pub struct SseMessage {
    id: String,
    model: String,
    input_tokens: u64,
    output_tokens: u64,
    blocks: Vec<Block>,
    stop_reason: Option<String>,
    ping: bool,
    error_at_end: Option<(String, String)>,
    omit_stop: bool,
}

impl Default for SseMessage {
    fn default() -> Self {
        Self::new()
    }
}

impl SseMessage {
    pub fn new() -> Self {
        SseMessage {
            id: "msg_fake_1".into(),
            model: "claude-fake".into(),
            input_tokens: 100,
            output_tokens: 10,
            blocks: Vec::new(),
            stop_reason: None,
            ping: true,
            error_at_end: None,
            omit_stop: false,
        }
    }

    pub fn id(mut self, id: &str) -> Self {
        self.id = id.into();
        self
    }

    pub fn model(mut self, model: &str) -> Self {
        self.model = model.into();
        self
    }

    /// `input_tokens` goes in `message_start`, `output_tokens` in `message_delta`.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.input_tokens = input_tokens;
        self.output_tokens = output_tokens;
        self
    }

    /// A text block, streamed in word-sized deltas.
    pub fn text(self, text: &str) -> Self {
        let chunks = split_words(text);
        self.text_chunks(&chunks.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// A text block streamed as exactly these deltas.
    pub fn text_chunks(mut self, chunks: &[&str]) -> Self {
        self.blocks
            .push(Block::Text(chunks.iter().map(|s| s.to_string()).collect()));
        self
    }

    /// A thinking block with a `signature_delta`.
    pub fn thinking(mut self, thinking: &str, signature: &str) -> Self {
        self.blocks
            .push(Block::Thinking(split_words(thinking), signature.into()));
        self
    }

    /// A tool_use whose input JSON is streamed in several `input_json_delta`s.
    pub fn tool_use(self, id: &str, name: &str, input: Value) -> Self {
        let json = input.to_string();
        let chars: Vec<char> = json.chars().collect();
        let size = chars.len().div_ceil(4).max(1);
        let mut chunks = vec![String::new()];
        chunks.extend(chars.chunks(size).map(|c| c.iter().collect::<String>()));
        let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
        self.tool_use_raw(id, name, &refs)
    }

    /// A tool_use streamed as exactly these `partial_json` pieces (may be invalid JSON).
    pub fn tool_use_raw(mut self, id: &str, name: &str, partial_json: &[&str]) -> Self {
        self.blocks.push(Block::ToolUse(
            id.into(),
            name.into(),
            partial_json.iter().map(|s| s.to_string()).collect(),
        ));
        self
    }

    /// A block sent whole in its `content_block_start` (e.g. `redacted_thinking`).
    pub fn raw_block(mut self, block: Value) -> Self {
        self.blocks.push(Block::Raw(block));
        self
    }

    /// Default: `tool_use` when there is a tool_use block, else `end_turn`.
    pub fn stop_reason(mut self, reason: &str) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    pub fn no_ping(mut self) -> Self {
        self.ping = false;
        self
    }

    /// End with an SSE `error` event instead of `message_delta`/`message_stop`.
    pub fn error_at_end(mut self, kind: &str, message: &str) -> Self {
        self.error_at_end = Some((kind.into(), message.into()));
        self
    }

    /// Leave out `message_stop` (a stream that just ends).
    pub fn without_message_stop(mut self) -> Self {
        self.omit_stop = true;
        self
    }

    pub fn build(&self) -> String {
        let mut out = String::new();
        out += &sse_event(&json!({"type": "message_start", "message": {
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}));
        if self.ping {
            out += &sse_event(&json!({"type": "ping"}));
        }
        for (index, block) in self.blocks.iter().enumerate() {
            let delta = |d: Value| {
                sse_event(&json!({"type": "content_block_delta", "index": index, "delta": d}))
            };
            let start = |b: Value| {
                sse_event(
                    &json!({"type": "content_block_start", "index": index, "content_block": b}),
                )
            };
            match block {
                Block::Text(chunks) => {
                    out += &start(json!({"type": "text", "text": ""}));
                    for c in chunks {
                        out += &delta(json!({"type": "text_delta", "text": c}));
                    }
                }
                Block::Thinking(chunks, sig) => {
                    out += &start(json!({"type": "thinking", "thinking": "", "signature": ""}));
                    for c in chunks {
                        out += &delta(json!({"type": "thinking_delta", "thinking": c}));
                    }
                    out += &delta(json!({"type": "signature_delta", "signature": sig}));
                }
                Block::ToolUse(id, name, chunks) => {
                    out += &start(json!({"type": "tool_use", "id": id, "name": name, "input": {}}));
                    for c in chunks {
                        out += &delta(json!({"type": "input_json_delta", "partial_json": c}));
                    }
                }
                Block::Raw(v) => out += &start(v.clone()),
            }
            out += &sse_event(&json!({"type": "content_block_stop", "index": index}));
        }
        if let Some((kind, message)) = &self.error_at_end {
            out += &sse_error(kind, message);
            return out;
        }
        let has_tool = self.blocks.iter().any(|b| matches!(b, Block::ToolUse(..)));
        let reason = self
            .stop_reason
            .clone()
            .unwrap_or_else(|| if has_tool { "tool_use" } else { "end_turn" }.to_string());
        out += &sse_event(&json!({"type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": null},
            "usage": {"output_tokens": self.output_tokens}}));
        if !self.omit_stop {
            out += &sse_event(&json!({"type": "message_stop"}));
        }
        out
    }
}

/// Words with their trailing whitespace, so the pieces concatenate to the text.
fn split_words(text: &str) -> Vec<String> {
    text.split_inclusive(char::is_whitespace)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_complete_stream() {
        let body = SseMessage::new()
            .thinking("a b", "sig")
            .text("hello world")
            .tool_use("t1", "Bash", json!({"command": "ls"}))
            .build();
        let types: Vec<String> = body
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .map(str::to_string)
            .collect();
        assert_eq!(types.first().map(String::as_str), Some("message_start"));
        assert_eq!(types.last().map(String::as_str), Some("message_stop"));
        assert!(body.contains(r#""stop_reason":"tool_use""#));
        // Every data line is valid JSON.
        for l in body.lines().filter_map(|l| l.strip_prefix("data: ")) {
            serde_json::from_str::<Value>(l).unwrap();
        }
    }
}
