//! The outbound side of a session: every line gets the session id and its own uuid.

use dcl_protocol::{Extra, Message, SystemMessage};
use serde_json::{Map, Value};
use tokio::sync::mpsc;

/// What the session hands to its front end.
#[derive(Debug)]
pub enum Outbound {
    Line(Box<Message>),
    /// The session is over; nothing follows.
    End,
}

#[derive(Clone)]
pub struct Emitter {
    tx: mpsc::UnboundedSender<Outbound>,
    session_id: String,
}

pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Emitter {
    pub fn new(tx: mpsc::UnboundedSender<Outbound>, session_id: String) -> Self {
        Emitter { tx, session_id }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Sends one line, stamping `session_id` and a fresh `uuid` where they are missing.
    pub fn emit(&self, mut message: Message) {
        let sid = self.session_id.clone();
        match &mut message {
            Message::User(m) => {
                m.session_id.get_or_insert(sid);
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::Assistant(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::System(m) => {
                m.session_id.get_or_insert(sid);
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::Result(m) => {
                m.session_id = sid;
                m.uuid.get_or_insert_with(new_uuid);
            }
            Message::StreamEvent(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::PromptSuggestion(m) => {
                m.session_id = sid;
                if m.uuid.is_empty() {
                    m.uuid = new_uuid();
                }
            }
            Message::ControlRequest(m) => stamp(&mut m.extra, sid),
            Message::ControlResponse(m) => stamp(&mut m.extra, sid),
            Message::ControlCancelRequest(m) => stamp(&mut m.extra, sid),
            Message::KeepAlive(extra) => stamp(extra, sid),
            Message::Text(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::ToolStart(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::ToolResult(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
            Message::Usage(m) => stamp_fields(&mut m.session_id, &mut m.uuid, sid),
        }
        // A closed receiver means the front end is gone; there is nobody left to tell.
        let _ = self.tx.send(Outbound::Line(Box::new(message)));
    }

    /// A `system` line with the given subtype and fields.
    pub fn system(&self, subtype: &str, fields: Map<String, Value>) {
        self.emit(Message::System(SystemMessage {
            subtype: subtype.to_string(),
            session_id: None,
            uuid: None,
            fields,
        }));
    }

    pub fn end(&self) {
        let _ = self.tx.send(Outbound::End);
    }
}

fn stamp_fields(session_id: &mut String, uuid: &mut String, sid: String) {
    if session_id.is_empty() {
        *session_id = sid;
    }
    if uuid.is_empty() {
        *uuid = new_uuid();
    }
}

fn stamp(extra: &mut Extra, sid: String) {
    extra.entry("session_id").or_insert(Value::String(sid));
    extra
        .entry("uuid")
        .or_insert_with(|| Value::String(new_uuid()));
}
