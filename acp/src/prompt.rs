//! An ACP prompt (content blocks) as the content of a dcl prompt command.

use dcl_bridge::events::{ContentBlock, ImageSource};
use serde_json::Value;

/// The prompt content for the ACP prompt blocks (their JSON): text as is, images as
/// images, a resource link as a link, an embedded text resource as a resource. What
/// cannot be passed on is refused.
pub fn to_content(blocks: &[Value]) -> Result<Vec<ContentBlock>, String> {
    let mut out = Vec::new();
    for b in blocks {
        let s = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
        match s("type").as_deref() {
            Some("text") => out.push(ContentBlock::text(s("text").unwrap_or_default())),
            Some("image") => match (s("data"), s("mimeType")) {
                (Some(data), Some(media_type)) => out.push(ContentBlock::Image {
                    source: ImageSource::Base64 { media_type, data },
                }),
                _ => match s("uri") {
                    Some(url) => out.push(ContentBlock::Image {
                        source: ImageSource::Url { url },
                    }),
                    None => return Err("an image block needs data and mimeType, or a uri".into()),
                },
            },
            Some("resource_link") => out.push(ContentBlock::ResourceLink {
                uri: s("uri").unwrap_or_default(),
                name: s("name"),
                mime_type: s("mimeType"),
            }),
            Some("resource") => {
                let r = b.get("resource").cloned().unwrap_or(Value::Null);
                let r_s = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
                let uri = r_s("uri").unwrap_or_default();
                let mime = r_s("mimeType");
                if let Some(text) = r_s("text") {
                    out.push(ContentBlock::Resource {
                        uri,
                        text,
                        mime_type: mime,
                    });
                } else {
                    match (r_s("blob"), mime) {
                        (Some(data), Some(media_type)) if media_type.starts_with("image/") => out
                            .push(ContentBlock::Image {
                                source: ImageSource::Base64 { media_type, data },
                            }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_user_content() {
        let c = to_content(&[
            json!({"type": "text", "text": "look"}),
            json!({"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"}),
            json!({"type": "resource", "resource": {"uri": "file:///b.rs", "text": "fn b(){}"}}),
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
        ])
        .expect("content");
        let c = serde_json::to_value(&c).expect("json");
        assert_eq!(c[1]["type"], "resource_link");
        assert_eq!(c[1]["uri"], "file:///a.rs");
        assert_eq!(c[2]["text"], "fn b(){}");
        assert_eq!(c[3]["source"]["media_type"], "image/png");
    }

    #[test]
    fn unsupported_blocks_are_refused() {
        assert!(
            to_content(&[json!({"type": "audio", "data": "x", "mimeType": "audio/wav"})]).is_err()
        );
        assert!(to_content(&[]).is_err());
    }
}
