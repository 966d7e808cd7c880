//! MCP tool-result content → Anthropic Messages content blocks.

use serde_json::{Value, json};

/// Converts MCP content blocks (as JSON) to Anthropic `tool_result` content blocks:
/// `text` → text; `image` → base64 image; an embedded text resource → its text; an embedded
/// image blob → image; other blobs, audio and resource links → a short text note.
/// When there is no content but `structuredContent`, that JSON becomes the text.
pub fn to_anthropic_blocks(content: &[Value], structured: Option<&Value>) -> Vec<Value> {
    let mut out: Vec<Value> = content.iter().map(block).collect();
    if out.is_empty()
        && let Some(s) = structured.filter(|s| !s.is_null())
    {
        out.push(text(s.to_string()));
    }
    out
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

fn image(mime: &str, data: &str) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
}

fn str_field<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn block(c: &Value) -> Value {
    match str_field(c, "type") {
        "text" => text(str_field(c, "text")),
        "image" => image(str_field(c, "mimeType"), str_field(c, "data")),
        "audio" => text(format!(
            "[audio content ({}) omitted]",
            str_field(c, "mimeType")
        )),
        "resource" => {
            let r = c.get("resource").unwrap_or(&Value::Null);
            let uri = str_field(r, "uri");
            let mime = str_field(r, "mimeType");
            if let Some(t) = r.get("text").and_then(Value::as_str) {
                text(t)
            } else if let Some(blob) = r.get("blob").and_then(Value::as_str) {
                if mime.starts_with("image/") {
                    image(mime, blob)
                } else {
                    text(format!(
                        "[binary resource {uri} ({}) omitted]",
                        if mime.is_empty() {
                            "unknown type"
                        } else {
                            mime
                        }
                    ))
                }
            } else {
                text(format!("[resource {uri}]"))
            }
        }
        "resource_link" => {
            let uri = str_field(c, "uri");
            let name = str_field(c, "name");
            let desc = c.get("description").and_then(Value::as_str);
            match desc {
                Some(d) => text(format!("[resource link: {name} ({uri}): {d}]")),
                None => text(format!("[resource link: {name} ({uri})]")),
            }
        }
        _ => text(c.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_each_kind() {
        let blocks = to_anthropic_blocks(
            &[
                json!({"type":"text","text":"hi","annotations":{"audience":["user"]}}),
                json!({"type":"image","data":"AAA=","mimeType":"image/png"}),
                json!({"type":"resource","resource":{"uri":"file:///a","text":"body"}}),
                json!({"type":"resource","resource":{"uri":"file:///b","blob":"QQ==","mimeType":"image/gif"}}),
                json!({"type":"resource","resource":{"uri":"file:///c","blob":"QQ=="}}),
                json!({"type":"resource_link","uri":"file:///d","name":"d"}),
                json!({"type":"audio","data":"x","mimeType":"audio/wav"}),
            ],
            None,
        );
        assert_eq!(blocks[0], json!({"type":"text","text":"hi"}));
        assert_eq!(
            blocks[1],
            json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA="}})
        );
        assert_eq!(blocks[2], json!({"type":"text","text":"body"}));
        assert_eq!(blocks[3]["source"]["media_type"], "image/gif");
        assert!(blocks[4]["text"].as_str().unwrap().contains("file:///c"));
        assert!(blocks[5]["text"].as_str().unwrap().contains("file:///d"));
        assert!(blocks[6]["text"].as_str().unwrap().contains("audio/wav"));
        let s = to_anthropic_blocks(&[], Some(&json!({"n": 1})));
        assert_eq!(s, vec![json!({"type":"text","text":"{\"n\":1}"})]);
    }
}
