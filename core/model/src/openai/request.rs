//! The Chat Completions request, mapped from the engine's Messages-API [`ModelRequest`].

use dcl_protocol::{ContentBlock, KnownBlock, ToolResultContent};
use serde_json::{Value, json};

use crate::{ModelRequest, Role};

/// Whether `model` is one of OpenAI's own (they take `max_completion_tokens`).
fn is_openai_model(model: &str) -> bool {
    crate::providers::provider_for_model(model).is_some_and(|p| p.id == "openai")
}

/// OpenAI reasoning models, which take `reasoning_effort`.
fn is_openai_reasoning_model(model: &str) -> bool {
    let m = model.trim().to_ascii_lowercase();
    is_openai_model(&m)
        && !m.contains("-chat")
        && (m.starts_with("gpt-5")
            || m.starts_with("o1")
            || m.starts_with("o3")
            || m.starts_with("o4"))
}

/// Qwen models with switchable thinking (DashScope's `enable_thinking`).
fn is_qwen_hybrid_thinking(model: &str) -> bool {
    let m = model.trim().to_ascii_lowercase();
    ["qwen3", "qwen-plus", "qwen-turbo", "qwen-flash"]
        .iter()
        .any(|p| m.starts_with(p))
}

/// Whether [`request_body`] passes a thinking budget on for `model` (as `reasoning_effort`
/// or Qwen's `thinking_budget`); elsewhere it is dropped.
pub fn takes_thinking(model: &str) -> bool {
    is_openai_reasoning_model(model) || is_qwen_hybrid_thinking(model)
}

/// `reasoning_effort` for a thinking budget.
pub fn reasoning_effort(budget_tokens: u32) -> &'static str {
    match budget_tokens {
        0..=4_096 => "low",
        4_097..=16_384 => "medium",
        _ => "high",
    }
}

/// The JSON body of a streamed Chat Completions request.
///
/// - `system` → a leading `system` message;
/// - user text and images → a `user` message (a plain string when it is only text, else
///   `text` / `image_url` parts, images as `data:` URLs); PDF documents → `file` parts;
/// - `tool_result` blocks → one `role: "tool"` message each with its `tool_call_id`,
///   placed before the rest of that user message (images returned by a tool follow in a
///   `user` message, since tool messages carry text only); an error result's text starts
///   with `Error:`;
/// - assistant text → `content`; `tool_use` → `tool_calls` (arguments as a JSON string);
///   thinking blocks are not sent back;
/// - tools → `{type: "function", function: {name, description, parameters}}`;
/// - `max_tokens` → `max_completion_tokens` for OpenAI's models, `max_tokens` otherwise;
/// - a thinking budget → `reasoning_effort` for OpenAI reasoning models, `enable_thinking`
///   and `thinking_budget` for Qwen's hybrid models, nothing elsewhere.
pub fn request_body(req: &ModelRequest) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    if let Some(system) = req.system.as_ref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &req.messages {
        match m.role {
            Role::User => user_messages(&m.content, &mut messages),
            Role::Assistant => {
                if let Some(msg) = assistant_message(&m.content) {
                    messages.push(msg);
                }
            }
        }
    }
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if is_openai_model(&req.model) {
        body["max_completion_tokens"] = json!(req.max_tokens);
    } else {
        body["max_tokens"] = json!(req.max_tokens);
    }
    if !req.tools.is_empty() {
        body["tools"] = Value::Array(
            req.tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name(),
                        "description": t.description(),
                        "parameters": t.input_schema(),
                    }})
                })
                .collect(),
        );
    }
    if let Some(t) = req.thinking {
        if is_openai_reasoning_model(&req.model) {
            body["reasoning_effort"] = json!(reasoning_effort(t.budget_tokens));
        } else if is_qwen_hybrid_thinking(&req.model) {
            body["enable_thinking"] = json!(true);
            body["thinking_budget"] = json!(t.budget_tokens);
        }
    }
    body
}

/// `data:` URL (or plain URL) of an image source.
fn image_url(source: &Value) -> Option<String> {
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let media = source
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or("image/png");
            let data = source.get("data").and_then(Value::as_str)?;
            Some(format!("data:{media};base64,{data}"))
        }
        Some("url") => source
            .get("url")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

fn image_part(source: &Value) -> Option<Value> {
    image_url(source).map(|url| json!({"type": "image_url", "image_url": {"url": url}}))
}

fn document_part(source: &Value) -> Option<Value> {
    match source.get("type").and_then(Value::as_str) {
        Some("text") => source
            .get("data")
            .and_then(Value::as_str)
            .map(|t| json!({"type": "text", "text": t})),
        Some("base64") => {
            let media = source
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or("application/pdf");
            let data = source.get("data").and_then(Value::as_str)?;
            Some(json!({"type": "file", "file": {
                "filename": "document.pdf",
                "file_data": format!("data:{media};base64,{data}"),
            }}))
        }
        Some("url") => source
            .get("url")
            .and_then(Value::as_str)
            .map(|u| json!({"type": "text", "text": format!("[document: {u}]")})),
        _ => None,
    }
}

/// Text of a tool result, and the image parts it carries.
fn tool_result_parts(content: Option<&ToolResultContent>) -> (String, Vec<Value>) {
    match content {
        None => (String::new(), Vec::new()),
        Some(ToolResultContent::Text(t)) => (t.clone(), Vec::new()),
        Some(ToolResultContent::Blocks(blocks)) => {
            let mut texts = Vec::new();
            let mut images = Vec::new();
            for b in blocks {
                match b {
                    ContentBlock::Known(KnownBlock::Text(t)) => texts.push(t.text.clone()),
                    ContentBlock::Known(KnownBlock::Image(img)) => {
                        images.extend(image_part(&img.source));
                    }
                    _ => {}
                }
            }
            (texts.join("\n"), images)
        }
    }
}

/// A user message's blocks as Chat messages: its tool results first (each a `tool`
/// message), then the rest as one `user` message.
fn user_messages(blocks: &[ContentBlock], out: &mut Vec<Value>) {
    let mut parts: Vec<Value> = Vec::new();
    let mut tool_images: Vec<Value> = Vec::new();
    for b in blocks {
        match b {
            ContentBlock::Known(KnownBlock::Text(t)) if !t.text.is_empty() => {
                parts.push(json!({"type": "text", "text": t.text}));
            }
            ContentBlock::Known(KnownBlock::Image(img)) => parts.extend(image_part(&img.source)),
            ContentBlock::Known(KnownBlock::Document(doc)) => {
                parts.extend(document_part(&doc.source))
            }
            ContentBlock::Known(KnownBlock::ToolResult(tr)) => {
                let (mut text, images) = tool_result_parts(tr.content.as_ref());
                if tr.is_error == Some(true) && !text.trim_start().starts_with("Error") {
                    text = format!("Error: {text}");
                }
                if text.trim().is_empty() {
                    text = if images.is_empty() {
                        "(no output)".into()
                    } else {
                        "(images follow)".into()
                    };
                }
                tool_images.extend(images);
                out.push(json!({"role": "tool", "tool_call_id": tr.tool_use_id, "content": text}));
            }
            // Thinking, tool_use and unknown blocks have no place in a user message.
            _ => {}
        }
    }
    if !tool_images.is_empty() {
        let mut with_images =
            vec![json!({"type": "text", "text": "Images returned by the tool calls above:"})];
        with_images.extend(tool_images);
        with_images.append(&mut parts);
        parts = with_images;
    }
    if parts.is_empty() {
        return;
    }
    let all_text = parts
        .iter()
        .all(|p| p.get("type").and_then(Value::as_str) == Some("text"));
    let content = if all_text {
        // A plain string is what every compatible server accepts.
        Value::String(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
}

/// An assistant message's blocks as one Chat message; `None` when nothing is left to
/// send (thinking only).
fn assistant_message(blocks: &[ContentBlock]) -> Option<Value> {
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for b in blocks {
        match b {
            ContentBlock::Known(KnownBlock::Text(t)) => text.push_str(&t.text),
            ContentBlock::Known(KnownBlock::ToolUse(tu)) => tool_calls.push(json!({
                "id": tu.id,
                "type": "function",
                "function": {"name": tu.name, "arguments": tu.input.to_string()},
            })),
            _ => {}
        }
    }
    if text.is_empty() && tool_calls.is_empty() {
        return None;
    }
    let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
    if !tool_calls.is_empty() {
        msg["tool_calls"] = Value::Array(tool_calls);
    }
    Some(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ApiMessage, ThinkingConfig, ToolSpec};
    use dcl_protocol::{DocumentBlock, Extra, ImageBlock};

    fn sample_request() -> ModelRequest {
        ModelRequest {
            model: "gpt-4.1".into(),
            system: Some("be brief".into()),
            messages: vec![
                ApiMessage {
                    role: Role::User,
                    content: vec![
                        ContentBlock::text("look"),
                        ContentBlock::Known(KnownBlock::Image(ImageBlock {
                            source: json!({"type": "base64", "media_type": "image/jpeg", "data": "QUJD"}),
                            extra: Extra::new(),
                        })),
                    ],
                },
                ApiMessage {
                    role: Role::Assistant,
                    content: vec![
                        ContentBlock::thinking("hmm", "sig"),
                        ContentBlock::text("Running."),
                        ContentBlock::tool_use("call_1", "Bash", json!({"command": "ls"})),
                        ContentBlock::tool_use("call_2", "Read", json!({"file_path": "x"})),
                    ],
                },
                ApiMessage {
                    role: Role::User,
                    content: vec![
                        ContentBlock::tool_result(
                            "call_1",
                            ToolResultContent::Text("a\nb".into()),
                            None,
                        ),
                        ContentBlock::tool_result(
                            "call_2",
                            ToolResultContent::Text("no such file".into()),
                            Some(true),
                        ),
                        ContentBlock::text("and now?"),
                    ],
                },
            ],
            tools: vec![ToolSpec::new("Bash", "run", json!({"type": "object"}))],
            max_tokens: 1000,
            thinking: Some(ThinkingConfig {
                budget_tokens: 2000,
            }),
        }
    }

    #[test]
    fn body_has_the_chat_completions_shape() {
        let body = request_body(&sample_request());
        assert_eq!(
            body,
            json!({
                "model": "gpt-4.1",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": [
                        {"type": "text", "text": "look"},
                        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}}]},
                    {"role": "assistant", "content": "Running.", "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}},
                        {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"x\"}"}}]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"},
                    {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
                    {"role": "user", "content": "and now?"},
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "max_completion_tokens": 1000,
                "tools": [{"type": "function", "function": {"name": "Bash", "description": "run", "parameters": {"type": "object"}}}],
            }),
            "gpt-4.1 takes no reasoning_effort"
        );
    }

    #[test]
    fn thinking_and_token_fields_per_model() {
        let mut req = sample_request();
        req.model = "o4-mini".into();
        let body = request_body(&req);
        assert_eq!(body["reasoning_effort"], "low");
        req.thinking = Some(ThinkingConfig {
            budget_tokens: 30_000,
        });
        req.model = "gpt-5".into();
        assert_eq!(request_body(&req)["reasoning_effort"], "high");
        req.model = "deepseek-reasoner".into();
        let body = request_body(&req);
        assert!(body.get("reasoning_effort").is_none());
        assert_eq!(body["max_tokens"], 1000);
        assert!(body.get("max_completion_tokens").is_none());
        req.model = "qwen3-coder-plus".into();
        let body = request_body(&req);
        assert_eq!(body["enable_thinking"], true);
        assert_eq!(body["thinking_budget"], 30_000);
        req.model = "qwen-max".into();
        assert!(request_body(&req).get("enable_thinking").is_none());
    }

    #[test]
    fn tool_images_documents_and_empty_messages() {
        let req = ModelRequest {
            model: "local".into(),
            system: None,
            messages: vec![
                ApiMessage {
                    role: Role::User,
                    content: vec![ContentBlock::Known(KnownBlock::Document(DocumentBlock {
                        source: json!({"type": "base64", "media_type": "application/pdf", "data": "UERG"}),
                        extra: Extra::new(),
                    }))],
                },
                ApiMessage {
                    role: Role::Assistant,
                    content: vec![ContentBlock::thinking("only thinking", "s")],
                },
                ApiMessage {
                    role: Role::Assistant,
                    content: vec![ContentBlock::tool_use("c", "Shot", json!({}))],
                },
                ApiMessage {
                    role: Role::User,
                    content: vec![ContentBlock::tool_result(
                        "c",
                        ToolResultContent::Blocks(vec![ContentBlock::Known(KnownBlock::Image(
                            ImageBlock {
                                source: json!({"type": "url", "url": "https://x/y.png"}),
                                extra: Extra::new(),
                            },
                        ))]),
                        None,
                    )],
                },
            ],
            tools: vec![],
            max_tokens: 10,
            thinking: None,
        };
        let body = request_body(&req);
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 4, "{body:#}");
        assert_eq!(msgs[0]["content"][0]["type"], "file");
        assert_eq!(msgs[1]["content"], Value::Null);
        assert_eq!(msgs[1]["tool_calls"][0]["function"]["arguments"], "{}");
        assert_eq!(
            msgs[2],
            json!({"role": "tool", "tool_call_id": "c", "content": "(images follow)"})
        );
        assert_eq!(msgs[3]["content"][1]["image_url"]["url"], "https://x/y.png");
        assert!(body.get("tools").is_none());
    }
}
