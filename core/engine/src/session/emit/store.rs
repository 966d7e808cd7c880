//! What the session's stores tell the host before a result (and before a fork's
//! `initialize` answer): a session store's trouble as `system/mirror_error` lines, then
//! the entries committed since, as `transcript_mirror` frames (`--session-mirror`).

use dcl_protocol::{Extra, Message, SystemMessage, TranscriptMirrorMessage};
use dcl_store::remote::sync::StoreWarning;
use serde_json::Value;

use super::Emitter;

/// The stores' news since they were last asked, in the order it goes out.
#[derive(Debug, Default)]
pub(crate) struct StoreFrames {
    /// The session store's trouble.
    pub warnings: Vec<StoreWarning>,
    /// The mirror's frames, as `dcl_store::MirrorSink` hands them out.
    pub mirror: Vec<Value>,
}

impl Emitter {
    pub(crate) fn store_frames(&self, frames: StoreFrames) {
        for w in frames.warnings {
            let mut fields = Extra::new();
            fields.insert("error".into(), Value::String(w.error));
            fields.insert("key".into(), w.key.unwrap_or(Value::Null));
            self.emit(Message::System(SystemMessage {
                subtype: "mirror_error".into(),
                // Stamped by `emit`, as every line.
                session_id: None,
                uuid: None,
                fields,
            }));
        }
        for f in frames.mirror {
            // A frame without its file or entries has nothing a host could store.
            let (Some(file_path), Some(entries)) = (
                f.get("filePath").and_then(Value::as_str),
                f.get("entries").and_then(Value::as_array),
            ) else {
                continue;
            };
            self.emit(Message::TranscriptMirror(TranscriptMirrorMessage {
                file_path: file_path.to_string(),
                entries: entries.clone(),
                extra: Extra::new(),
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Outbound, Outbox};
    use super::*;

    #[test]
    fn warnings_then_frames_and_a_frame_missing_its_file_is_dropped() {
        let outbox = Outbox::new(8);
        let e = Emitter::new(outbox.clone(), "sid".into());
        e.store_frames(StoreFrames {
            warnings: vec![StoreWarning {
                error: "down".into(),
                key: None,
            }],
            mirror: vec![
                json!({"entries": []}),
                json!({"filePath": "/t.jsonl", "entries": [{"n": 1}]}),
            ],
        });
        let lines: Vec<Value> = std::iter::from_fn(|| outbox.try_pop())
            .filter_map(|o| match o {
                Outbound::Line(m) => Some(serde_json::to_value(&*m).expect("json")),
                _ => None,
            })
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            (&lines[0]["subtype"], &lines[0]["error"], &lines[0]["key"]),
            (&json!("mirror_error"), &json!("down"), &Value::Null)
        );
        assert_eq!(lines[0]["session_id"], "sid");
        assert_eq!(lines[1]["type"], "transcript_mirror");
        assert_eq!(lines[1]["filePath"], "/t.jsonl");
        assert_eq!(lines[1]["entries"], json!([{"n": 1}]));
    }
}
