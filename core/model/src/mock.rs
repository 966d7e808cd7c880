//! The built-in mock model (`--model mock-model`): offline, deterministic, and exercised
//! through the *same* path as the HTTP client. Each call renders real Messages-API SSE
//! text, streams it as bytes and decodes it with [`super::anthropic::event_stream`], so the
//! decoder, the accumulator and the engine see exactly what a server would send.
//!
//! # Built-in rules
//!
//! The *prompt* is the last text block of the latest user message that has text (not
//! only tool_results). If the last message is a user message holding tool_result blocks, the
//! call continues after tools:
//!
//! - prompt contains `what time is it` → text `Tool said: <last tool_result text>`;
//! - otherwise → text `Done. The tool result had N chars.` (N = Unicode scalar values of
//!   the last tool_result's text).
//!
//! Otherwise the first trigger found in this order decides:
//!
//! | trigger in the prompt | answer |
//! |---|---|
//! | `FAKE_ERR400` | HTTP 400 `fake: prompt is invalid` |
//! | `FAKE_ERR529` | HTTP 529 `Overloaded`, on every call |
//! | `FAKE_TOOL <name> <json>` | tool_use of `<name>` with `<json>` (rest of the line, sent verbatim: invalid JSON tests the engine's handling; empty means `{}`) |
//! | `FAKE_WRITE <path>` | tool_use `Write {"file_path": <path>, "content": "hello\n"}` |
//! | `FAKE_TOUCH` | tool_use `Bash {"command": "touch made.txt && echo made", "description": "Create made.txt"}` |
//! | `FAKE_BASH` | text `I'll run it.` + tool_use `Bash {"command": "echo hi", "description": "Print hi"}` |
//! | `FAKE_READ <path>` | tool_use `Read {"file_path": <path>}` |
//! | `FAKE_PAR <path>` | text `Reading two files.` + tool_use `Read` + tool_use `Bash {"command": "echo second", "description": "Echo"}` in one message |
//! | `FAKE_THINK` | thinking `Let me think briefly.` (signature `fakesig`) + text `Thought about it.` |
//! | `FAKE_SLOW` | text `w0 w1 … w39`, one word per delta, 100 ms apart |
//! | `FAKE_EXITPLAN` | tool_use `ExitPlanMode {"plan": "1. Create hello.txt\n2. Done"}` |
//! | `FAKE_HISTORY` | text `Prompts seen: <p1> \| <p2> \| …`: each user message's prompt (its last text block) in the history, this one last |
//! | a `StructuredOutput` tool is offered (`--json-schema`) | tool_use `StructuredOutput` with an example instance of its schema |
//! | `what time is it` (any case) | tool_use id `time-1`, `mcp__app__server_time`, input `{}` |
//! | anything else | text `Hello from the fake model.` |
//!
//! A missing `<path>` defaults to `hello.txt` (WRITE) or `README.md` (READ, PAR).
//! Tool-use ids are `toolu_mock_<n>`, counting per client; message ids `msg_mock_<hex>`.
//!
//! Usage is real accounting: `input_tokens` = ⌈chars / 4⌉ of the system prompt, the
//! messages' JSON and the tools' JSON; `output_tokens` = ⌈chars / 4⌉ of what was generated
//! (in `message_delta`, with `output_tokens: 1` in `message_start`, as the API does).
//!
//! # Script files
//!
//! [`MockClient::from_script`] plays scripted turns instead of the rules, one per model
//! call, in order:
//!
//! ```json
//! {"turns": [
//!   {"content": [{"type": "text", "text": "Hello!"}]},
//!   {"content": [{"type": "thinking", "thinking": "Hmm.", "signature": "sig"},
//!                {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}],
//!    "stop_reason": "tool_use"},
//!   {"error": {"status": 529, "message": "Overloaded", "retry_after": 1}},
//!   {"delay_ms": 2000, "content": [{"type": "text", "text": "late"}]},
//!   {"content": [{"type": "text", "text": "partial"}],
//!    "stream_error": {"type": "overloaded_error", "message": "Overloaded"}}
//! ]}
//! ```
//!
//! - `content`: Messages-API content blocks. `text`, `thinking` (a missing `signature`
//!   becomes `mocksig`) and `tool_use` (`id` optional: `toolu_mock_<n>` is generated;
//!   `input` optional, `{}`; an `input` that is a *string* is streamed verbatim as the
//!   input JSON, so it may be invalid on purpose) are streamed in deltas; any other block
//!   is sent whole in its `content_block_start`.
//! - `stop_reason`: default `tool_use` when the content has a tool_use, else `end_turn`.
//! - `error`: the call fails with `ModelError::Http{status, message, retry_after}`.
//! - `delay_ms`: wait this long first (cancellable), to simulate a slow model.
//! - `stream_error`: after the content, an SSE `error` event instead of `message_stop`.
//!
//! When the turns run out, every further call fails with
//! `ModelError::Config("mock script exhausted after N turns")`.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use dcl_protocol::ContentBlock;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{BoxFuture, EventStream, ModelClient, ModelError, ModelRequest, Role, anthropic, sse};

const HELLO: &str = "Hello from the fake model.";
const SLOW_WORDS: usize = 40;
const DEFAULT_SLOW_DELAY: Duration = Duration::from_millis(100);

/// The mock model. Cheap to create; share one per session so tool ids stay unique.
#[derive(Debug)]
pub struct MockClient {
    next_tool_id: AtomicU64,
    slow_delay: Duration,
    script: Option<Script>,
}

#[derive(Debug)]
struct Script {
    turns: Vec<ScriptTurn>,
    next: Mutex<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    turns: Vec<ScriptTurn>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    #[serde(default)]
    content: Option<Vec<Value>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    error: Option<ScriptError>,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    stream_error: Option<ScriptStreamError>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptError {
    status: u16,
    #[serde(default)]
    message: String,
    #[serde(default)]
    retry_after: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptStreamError {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    message: String,
}

/// One block the mock will stream.
#[derive(Debug, Clone, PartialEq)]
enum Planned {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    /// `input` is the exact JSON text to stream (may be invalid on purpose).
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
    /// Sent whole in `content_block_start`.
    Raw(Value),
}

/// What one call does.
#[derive(Debug, Clone, Default)]
struct Plan {
    blocks: Vec<Planned>,
    stop_reason: Option<String>,
    delay: Duration,
    /// Delay before each text delta (FAKE_SLOW); text is then sent one word per delta.
    word_delay: Option<Duration>,
    stream_error: Option<(String, String)>,
}

/// What one call does: stream a plan, or fail (after an optional cancellable delay) before
/// any event, as an HTTP error does.
#[derive(Debug)]
enum Outcome {
    Stream(Plan),
    Fail { delay: Duration, error: ModelError },
}

impl Default for MockClient {
    fn default() -> Self {
        Self::new()
    }
}

impl MockClient {
    /// The mock with its built-in rules.
    pub fn new() -> Self {
        MockClient {
            next_tool_id: AtomicU64::new(1),
            slow_delay: DEFAULT_SLOW_DELAY,
            script: None,
        }
    }

    /// Loads a script file (format in the module docs).
    pub fn from_script(path: impl AsRef<Path>) -> Result<Self, ModelError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            ModelError::Config(format!("cannot read mock script {}: {e}", path.display()))
        })?;
        Self::from_script_str(&text).map_err(|e| match e {
            ModelError::Config(m) => {
                ModelError::Config(format!("mock script {}: {m}", path.display()))
            }
            other => other,
        })
    }

    /// Parses a script given as JSON text.
    pub fn from_script_str(json: &str) -> Result<Self, ModelError> {
        let file: ScriptFile = serde_json::from_str(json)
            .map_err(|e| ModelError::Config(format!("invalid mock script: {e}")))?;
        for (i, turn) in file.turns.iter().enumerate() {
            validate_turn(turn).map_err(|m| ModelError::Config(format!("turn {i}: {m}")))?;
        }
        Ok(MockClient {
            script: Some(Script {
                turns: file.turns,
                next: Mutex::new(0),
            }),
            ..Self::new()
        })
    }

    /// Pause between FAKE_SLOW words (default 100 ms); tests shorten it.
    pub fn with_slow_delay(mut self, delay: Duration) -> Self {
        self.slow_delay = delay;
        self
    }

    fn tool_id(&self) -> String {
        format!(
            "toolu_mock_{}",
            self.next_tool_id.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Picks what to do for `req`: a plan to stream, or an HTTP-like error.
    fn plan(&self, req: &ModelRequest) -> Outcome {
        match &self.script {
            Some(script) => self.script_plan(script),
            None => self.rule_plan(req).unwrap_or_else(|error| Outcome::Fail {
                delay: Duration::ZERO,
                error,
            }),
        }
    }

    fn script_plan(&self, script: &Script) -> Outcome {
        let index = {
            // A poisoned lock only means another call panicked; the counter is still sound.
            let mut next = script.next.lock().unwrap_or_else(|e| e.into_inner());
            let i = *next;
            if i < script.turns.len() {
                *next += 1;
            }
            i
        };
        let Some(turn) = script.turns.get(index) else {
            return Outcome::Fail {
                delay: Duration::ZERO,
                error: ModelError::Config(format!(
                    "mock script exhausted after {} turns",
                    script.turns.len()
                )),
            };
        };
        let delay = Duration::from_millis(turn.delay_ms.unwrap_or(0));
        if let Some(e) = &turn.error {
            return Outcome::Fail {
                delay,
                error: ModelError::Http {
                    status: e.status,
                    message: e.message.clone(),
                    retry_after: e.retry_after,
                },
            };
        }
        let blocks = turn
            .content
            .iter()
            .flatten()
            .map(|v| self.script_block(v))
            .collect();
        Outcome::Stream(Plan {
            blocks,
            stop_reason: turn.stop_reason.clone(),
            delay,
            word_delay: None,
            stream_error: turn
                .stream_error
                .as_ref()
                .map(|e| (e.kind.clone(), e.message.clone())),
        })
    }

    fn script_block(&self, v: &Value) -> Planned {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        match v.get("type").and_then(Value::as_str) {
            Some("text") => Planned::Text(s("text").unwrap_or_default()),
            Some("thinking") => Planned::Thinking {
                thinking: s("thinking").unwrap_or_default(),
                signature: s("signature").unwrap_or_else(|| "mocksig".into()),
            },
            Some("tool_use") => Planned::ToolUse {
                id: s("id").unwrap_or_else(|| self.tool_id()),
                name: s("name").unwrap_or_default(),
                input: match v.get("input") {
                    None | Some(Value::Null) => "{}".into(),
                    Some(Value::String(raw)) => raw.clone(),
                    Some(other) => other.to_string(),
                },
            },
            _ => Planned::Raw(v.clone()),
        }
    }

    fn rule_plan(&self, req: &ModelRequest) -> Result<Outcome, ModelError> {
        let prompt = prompt_text(req);
        let lower = prompt.to_lowercase();
        let text = |t: &str| Planned::Text(t.to_string());
        let tool = |name: &str, input: Value| Planned::ToolUse {
            id: self.tool_id(),
            name: name.to_string(),
            input: input.to_string(),
        };
        let plan = |blocks: Vec<Planned>| {
            Outcome::Stream(Plan {
                blocks,
                ..Plan::default()
            })
        };

        if let Some(result) = last_tool_result_text(req) {
            let answer = if lower.contains("what time is it") {
                format!("Tool said: {result}")
            } else {
                format!(
                    "Done. The tool result had {} chars.",
                    result.chars().count()
                )
            };
            return Ok(plan(vec![Planned::Text(answer)]));
        }

        if prompt.contains("FAKE_ERR400") {
            return Err(ModelError::Http {
                status: 400,
                message: "fake: prompt is invalid".into(),
                retry_after: None,
            });
        }
        if prompt.contains("FAKE_ERR529") {
            return Err(ModelError::Http {
                status: 529,
                message: "Overloaded".into(),
                retry_after: None,
            });
        }
        if let Some(rest) = rest_of_line(&prompt, "FAKE_TOOL") {
            let (name, input) = match rest.split_once(char::is_whitespace) {
                Some((n, j)) => (n, j.trim()),
                None => (rest, ""),
            };
            if name.is_empty() {
                return Ok(plan(vec![text("FAKE_TOOL needs a tool name.")]));
            }
            let input = if input.is_empty() { "{}" } else { input };
            return Ok(plan(vec![Planned::ToolUse {
                id: self.tool_id(),
                name: name.to_string(),
                input: input.to_string(),
            }]));
        }
        if prompt.contains("FAKE_WRITE") {
            let path = argument(&prompt, "FAKE_WRITE").unwrap_or("hello.txt");
            return Ok(plan(vec![tool(
                "Write",
                json!({"file_path": path, "content": "hello\n"}),
            )]));
        }
        if prompt.contains("FAKE_TOUCH") {
            return Ok(plan(vec![tool(
                "Bash",
                json!({"command": "touch made.txt && echo made", "description": "Create made.txt"}),
            )]));
        }
        if prompt.contains("FAKE_BASH") {
            return Ok(plan(vec![
                text("I'll run it."),
                tool(
                    "Bash",
                    json!({"command": "echo hi", "description": "Print hi"}),
                ),
            ]));
        }
        if prompt.contains("FAKE_READ") {
            let path = argument(&prompt, "FAKE_READ").unwrap_or("README.md");
            return Ok(plan(vec![tool("Read", json!({"file_path": path}))]));
        }
        if prompt.contains("FAKE_PAR") {
            let path = argument(&prompt, "FAKE_PAR").unwrap_or("README.md");
            return Ok(plan(vec![
                text("Reading two files."),
                tool("Read", json!({"file_path": path})),
                tool(
                    "Bash",
                    json!({"command": "echo second", "description": "Echo"}),
                ),
            ]));
        }
        if prompt.contains("FAKE_THINK") {
            return Ok(plan(vec![
                Planned::Thinking {
                    thinking: "Let me think briefly.".into(),
                    signature: "fakesig".into(),
                },
                text("Thought about it."),
            ]));
        }
        if prompt.contains("FAKE_SLOW") {
            let words: Vec<String> = (0..SLOW_WORDS).map(|i| format!("w{i}")).collect();
            return Ok(Outcome::Stream(Plan {
                blocks: vec![Planned::Text(words.join(" "))],
                word_delay: Some(self.slow_delay),
                ..Plan::default()
            }));
        }
        if prompt.contains("FAKE_EXITPLAN") {
            return Ok(plan(vec![tool(
                "ExitPlanMode",
                json!({"plan": "1. Create hello.txt\n2. Done"}),
            )]));
        }
        if prompt.contains("FAKE_HISTORY") {
            // What the conversation holds, for tests of what a rewind or a compaction left.
            let seen: Vec<String> = req
                .messages
                .iter()
                .filter(|m| m.role == Role::User)
                .filter_map(|m| {
                    m.content
                        .iter()
                        .rev()
                        .filter_map(ContentBlock::as_text)
                        .find(|t| !t.trim().is_empty())
                        .map(str::to_string)
                })
                .collect();
            return Ok(plan(vec![Planned::Text(format!(
                "Prompts seen: {}",
                seen.join(" | ")
            ))]));
        }
        if let Some(schema) = req
            .tools
            .iter()
            .find(|t| t.name() == "StructuredOutput")
            .map(|t| t.input_schema())
        {
            // A structured-output session: answer with an instance of the schema.
            return Ok(plan(vec![tool("StructuredOutput", example_for(schema))]));
        }
        if lower.contains("what time is it") {
            return Ok(plan(vec![Planned::ToolUse {
                id: "time-1".into(),
                name: "mcp__app__server_time".into(),
                input: "{}".into(),
            }]));
        }
        Ok(plan(vec![text(HELLO)]))
    }
}

/// What is wrong with one turn of a mock script.
#[derive(Debug, thiserror::Error)]
enum BadTurn {
    #[error("has both `content` and `error`")]
    ContentAndError,
    #[error("needs `content` or `error`")]
    NeitherContentNorError,
    #[error("content block {0} has no `type`")]
    UntypedBlock(usize),
    #[error("{kind} block {index} needs a string `{field}`")]
    MissingString {
        kind: String,
        index: usize,
        field: &'static str,
    },
}

fn validate_turn(turn: &ScriptTurn) -> Result<(), BadTurn> {
    match (&turn.content, &turn.error) {
        (Some(_), Some(_)) => return Err(BadTurn::ContentAndError),
        (None, None) => return Err(BadTurn::NeitherContentNorError),
        _ => {}
    }
    for (i, block) in turn.content.iter().flatten().enumerate() {
        let Some(kind) = block.get("type").and_then(Value::as_str) else {
            return Err(BadTurn::UntypedBlock(i));
        };
        let need_str = |k: &'static str| -> Result<(), BadTurn> {
            match block.get(k) {
                Some(Value::String(_)) => Ok(()),
                _ => Err(BadTurn::MissingString {
                    kind: kind.to_string(),
                    index: i,
                    field: k,
                }),
            }
        };
        match kind {
            "text" => need_str("text")?,
            "thinking" => need_str("thinking")?,
            "tool_use" => need_str("name")?,
            _ => {}
        }
    }
    Ok(())
}

/// A small value that satisfies `schema` (first enum value, required and optional
/// properties filled), so structured-output sessions work offline.
fn example_for(schema: &Value) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let mut out = serde_json::Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    out.insert(k.clone(), example_for(sub));
                }
            }
            Value::Object(out)
        }
        "array" => json!([example_for(schema.get("items").unwrap_or(&Value::Null))]),
        "integer" | "number" => json!(1),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!("example"),
    }
}

/// The prompt: the last text block of the latest user message that has text. An
/// interrupted turn leaves its prompt in the same (merged) user message as the next one,
/// so only the newest block counts.
fn prompt_text(req: &ModelRequest) -> String {
    req.messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .find_map(|m| {
            m.content
                .iter()
                .rev()
                .filter_map(ContentBlock::as_text)
                .find(|t| !t.trim().is_empty())
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// When the last message is a user message with tool_results: the last result's text.
fn last_tool_result_text(req: &ModelRequest) -> Option<String> {
    let last = req.messages.last().filter(|m| m.role == Role::User)?;
    let result = last
        .content
        .iter()
        .rev()
        .find_map(ContentBlock::as_tool_result)?;
    Some(
        result
            .content
            .as_ref()
            .map(|c| c.to_text())
            .unwrap_or_default(),
    )
}

/// The whitespace-delimited word after `trigger`.
fn argument<'a>(prompt: &'a str, trigger: &str) -> Option<&'a str> {
    let (_, after) = prompt.split_once(trigger)?;
    after.split_whitespace().next()
}

/// The rest of the line after `trigger`, trimmed.
fn rest_of_line<'a>(prompt: &'a str, trigger: &str) -> Option<&'a str> {
    let (_, after) = prompt.split_once(trigger)?;
    Some(after.lines().next().unwrap_or("").trim())
}

/// Tokens as the mock counts them: a quarter of the characters, rounded up.
pub fn approx_tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

/// Input tokens of a request: system prompt, messages and tool specs, as JSON text.
pub fn request_tokens(req: &ModelRequest) -> u64 {
    let system = req.system.as_deref().map_or(0, |s| s.chars().count());
    let json_chars = |v: Result<String, serde_json::Error>| v.map_or(0, |s| s.chars().count());
    let messages = json_chars(serde_json::to_string(&req.messages));
    // Each definition's size is counted once, not serialized again for every request.
    let tools = if req.tools.is_empty() {
        0
    } else {
        crate::ToolSpec::list_json_size(&req.tools).chars
    };
    approx_tokens(system + messages + tools).max(1)
}

fn output_tokens(blocks: &[Planned]) -> u64 {
    let chars: usize = blocks
        .iter()
        .map(|b| match b {
            Planned::Text(t) => t.chars().count(),
            Planned::Thinking { thinking, .. } => thinking.chars().count(),
            Planned::ToolUse { name, input, .. } => name.chars().count() + input.chars().count(),
            Planned::Raw(v) => v.to_string().chars().count(),
        })
        .sum();
    approx_tokens(chars).max(1)
}

/// `event: <name>\ndata: <json>\n\n`
fn sse_event(data: &Value) -> String {
    let name = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    format!("event: {name}\ndata: {data}\n\n")
}

/// Splits text into deltas of `words` words each (whitespace stays with the word before).
fn word_chunks(text: &str, words: usize) -> Vec<String> {
    let pieces: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
    pieces
        .chunks(words.max(1))
        .map(|c| c.concat())
        .filter(|c| !c.is_empty())
        .collect()
}

/// Splits JSON text in about three pieces on char boundaries, after an empty first delta
/// (the API opens every tool input that way).
fn json_chunks(json: &str) -> Vec<String> {
    let chars: Vec<char> = json.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    let mut out = vec![String::new()];
    out.extend(chars.chunks(size).map(|c| c.iter().collect::<String>()));
    out
}

/// Renders the SSE body of `plan`, as `(pause before, bytes)` pieces.
fn render(plan: &Plan, model: &str, input_tokens: u64) -> Vec<(Duration, String)> {
    let mut out: Vec<(Duration, String)> = Vec::new();
    let mut push = |pause: Duration, v: Value| out.push((pause, sse_event(&v)));
    let id = format!("msg_mock_{}", uuid::Uuid::new_v4().simple());
    push(
        plan.delay,
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        }}),
    );
    push(Duration::ZERO, json!({"type": "ping"}));
    for (index, block) in plan.blocks.iter().enumerate() {
        let delta = |d: Value| json!({"type": "content_block_delta", "index": index, "delta": d});
        match block {
            Planned::Text(text) => {
                push(
                    Duration::ZERO,
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}),
                );
                let (words, pause) = match plan.word_delay {
                    Some(d) => (1, d),
                    None => (2, Duration::ZERO),
                };
                for chunk in word_chunks(text, words) {
                    push(pause, delta(json!({"type": "text_delta", "text": chunk})));
                }
            }
            Planned::Thinking {
                thinking,
                signature,
            } => {
                push(
                    Duration::ZERO,
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                );
                for chunk in word_chunks(thinking, 2) {
                    push(
                        Duration::ZERO,
                        delta(json!({"type": "thinking_delta", "thinking": chunk})),
                    );
                }
                push(
                    Duration::ZERO,
                    delta(json!({"type": "signature_delta", "signature": signature})),
                );
            }
            Planned::ToolUse { id, name, input } => {
                push(
                    Duration::ZERO,
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                );
                for chunk in json_chunks(input) {
                    push(
                        Duration::ZERO,
                        delta(json!({"type": "input_json_delta", "partial_json": chunk})),
                    );
                }
            }
            Planned::Raw(v) => {
                push(
                    Duration::ZERO,
                    json!({"type": "content_block_start", "index": index, "content_block": v}),
                );
            }
        }
        push(
            Duration::ZERO,
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    if let Some((kind, message)) = &plan.stream_error {
        push(
            Duration::ZERO,
            json!({"type": "error", "error": {"type": kind, "message": message}}),
        );
        return out;
    }
    let has_tool = plan
        .blocks
        .iter()
        .any(|b| matches!(b, Planned::ToolUse { .. }));
    let stop_reason = plan
        .stop_reason
        .clone()
        .unwrap_or_else(|| if has_tool { "tool_use" } else { "end_turn" }.to_string());
    push(
        Duration::ZERO,
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": output_tokens(&plan.blocks)}}),
    );
    push(Duration::ZERO, json!({"type": "message_stop"}));
    out
}

/// The SSE pieces as a byte stream, sleeping before each piece as planned.
fn byte_stream(
    pieces: Vec<(Duration, String)>,
) -> impl futures::Stream<Item = Result<Bytes, ModelError>> + Send + 'static {
    futures::stream::unfold(pieces.into_iter(), |mut it| async move {
        let (pause, text) = it.next()?;
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        Some((Ok(Bytes::from(text)), it))
    })
}

impl MockClient {
    async fn run(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ModelError> {
        if cancel.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let plan = match self.plan(&request) {
            Outcome::Stream(plan) => plan,
            Outcome::Fail { delay, error } => {
                if !delay.is_zero() {
                    tokio::select! {
                        _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                        _ = tokio::time::sleep(delay) => {}
                    }
                }
                return Err(error);
            }
        };
        let pieces = render(&plan, &request.model, request_tokens(&request));
        let events = anthropic::event_stream(Box::pin(byte_stream(pieces)));
        Ok(sse::with_cancel(events, cancel))
    }
}

impl ModelClient for MockClient {
    fn stream<'a>(
        &'a self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, ModelError>> {
        Box::pin(self.run(request, cancel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_and_json_chunks_reassemble() {
        let t = "Hello from the fake model.";
        let c = word_chunks(t, 2);
        assert_eq!(c, ["Hello from ", "the fake ", "model."]);
        assert_eq!(c.concat(), t);
        let j = r#"{"file_path":"/tmp/é.txt","content":"hello\n"}"#;
        let c = json_chunks(j);
        assert_eq!(c[0], "");
        assert!(c.len() >= 3);
        assert_eq!(c.concat(), j);
        assert_eq!(json_chunks("{}").concat(), "{}");
    }

    #[test]
    fn arguments() {
        assert_eq!(
            argument("please FAKE_WRITE /a/b.txt now", "FAKE_WRITE"),
            Some("/a/b.txt")
        );
        assert_eq!(argument("FAKE_WRITE", "FAKE_WRITE"), None);
        assert_eq!(
            rest_of_line("x FAKE_TOOL Edit {\"a\": 1}\nmore", "FAKE_TOOL"),
            Some("Edit {\"a\": 1}")
        );
    }

    #[test]
    fn script_validation() {
        assert!(MockClient::from_script_str(r#"{"turns":[{}]}"#).is_err());
        assert!(MockClient::from_script_str(r#"{"turns":[{"contnt":[]}]}"#).is_err());
        assert!(
            MockClient::from_script_str(r#"{"turns":[{"content":[{"type":"text"}]}]}"#).is_err()
        );
        assert!(MockClient::from_script_str(r#"{"turns":[]}"#).is_ok());
    }
}
