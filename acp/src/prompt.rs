//! An ACP prompt (content blocks) as a stream-json user message.

use serde_json::{Value, json};

/// The stream-json `content` of a user message for the ACP prompt blocks (their JSON):
/// text as is, images as base64 image blocks, a resource link as a mention of it, an
/// embedded text resource as a `<context>` block. What cannot be passed on is refused.
pub fn to_user_content(blocks: &[Value]) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for b in blocks {
        let s = |k: &str| b.get(k).and_then(Value::as_str);
        match s("type") {
            Some("text") => out.push(json!({"type": "text", "text": s("text").unwrap_or("")})),
            Some("image") => match (s("data"), s("mimeType")) {
                (Some(data), Some(mime)) => out.push(json!({"type": "image", "source":
                    {"type": "base64", "media_type": mime, "data": data}})),
                _ => match s("uri") {
                    Some(uri) => {
                        out.push(json!({"type": "image", "source": {"type": "url", "url": uri}}))
                    }
                    None => return Err("an image block needs data and mimeType, or a uri".into()),
                },
            },
            Some("resource_link") => {
                let uri = s("uri").unwrap_or("");
                let name = s("name").unwrap_or(uri);
                out.push(json!({"type": "text", "text": format!("[@{name}]({uri})")}));
            }
            Some("resource") => {
                let r = b.get("resource").cloned().unwrap_or(Value::Null);
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or("");
                if let Some(text) = r.get("text").and_then(Value::as_str) {
                    out.push(json!({"type": "text",
                        "text": format!("<context ref=\"{uri}\">\n{text}\n</context>")}));
                } else {
                    let mime = r.get("mimeType").and_then(Value::as_str).unwrap_or("");
                    match r.get("blob").and_then(Value::as_str) {
                        Some(blob) if mime.starts_with("image/") => out
                            .push(json!({"type": "image",
                            "source": {"type": "base64", "media_type": mime, "data": blob}})),
                        _ => {
                            return Err(format!(
                                "embedded resource {uri:?}: only text and images can be passed to the model"
                            ));
                        }
                    }
                }
            }
            Some(other) => return Err(format!("{other} content is not supported by dcl acp")),
            None => return Err("a prompt block without a type".into()),
        }
    }
    if out.is_empty() {
        return Err("the prompt is empty".into());
    }
    Ok(out)
}

/// The stream-json line of a user message with `content`.
pub fn user_line(content: Vec<Value>) -> String {
    json!({"type": "user", "message": {"role": "user", "content": content},
        "parent_tool_use_id": null})
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_user_content() {
        let c = to_user_content(&[
            json!({"type": "text", "text": "look"}),
            json!({"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"}),
            json!({"type": "resource", "resource": {"uri": "file:///b.rs", "text": "fn b(){}"}}),
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
        ])
        .expect("content");
        assert_eq!(c[1]["text"], "[@a.rs](file:///a.rs)");
        assert!(
            c[2]["text"]
                .as_str()
                .is_some_and(|t| t.contains("fn b(){}"))
        );
        assert_eq!(c[3]["source"]["media_type"], "image/png");
    }

    #[test]
    fn unsupported_blocks_are_refused() {
        assert!(
            to_user_content(&[json!({"type": "audio", "data": "x", "mimeType": "audio/wav"})])
                .is_err()
        );
        assert!(to_user_content(&[]).is_err());
    }
}
