//! The control lines between dcl and its host, as dcl sends them: the answer to each of
//! the host's requests, dcl's own requests to the host, and their withdrawal. Every
//! dialect sends them alike. The actor, the control handlers and the host channel say
//! what to answer or ask; reading the host's lines stays with them.

use std::fmt::Display;

use dcl_events::{AgentEvent, NoticeLevel};
use dcl_protocol::{
    ControlCancelRequest, ControlRequestEnvelope, ControlResponse, ControlResponseEnvelope, Extra,
    Message,
};
use serde_json::Value;

use super::Emitter;

impl Emitter {
    /// Answers the host's control request `request_id`: `Ok` with its payload (if any),
    /// `Err` with why it failed.
    pub(crate) fn control_answer(
        &self,
        request_id: String,
        answer: Result<Option<Value>, impl Display>,
    ) {
        let response = match answer {
            Ok(payload) => ControlResponse::success(request_id, payload),
            Err(e) => {
                let error = e.to_string();
                // An events front end reads no control responses: a request it made by a
                // command that failed (a bad mode, a rewind the checkpoints refuse)
                // reaches it as an error notice.
                self.agent(|| AgentEvent::notice(NoticeLevel::Error, error.clone()));
                ControlResponse::error(request_id, error)
            }
        };
        self.emit(Message::ControlResponse(ControlResponseEnvelope {
            response,
            extra: Extra::new(),
        }));
    }

    /// Asks the host `request` (an approval, a hook, an MCP call) under `request_id`.
    pub(crate) fn host_request(&self, request_id: &str, request: Value) {
        self.agent(|| {
            super::agent::host_request(request_id, &request, |id| self.open_tool_call(id))
        });
        if self.wants_events()
            && request.get("tool_name").and_then(Value::as_str) == Some("AskUserQuestion")
        {
            // The answer command carries the answers only; the tool needs the questions.
            let input = request.get("input").cloned().unwrap_or(Value::Null);
            self.asked(request_id, input);
        }
        self.emit(Message::ControlRequest(ControlRequestEnvelope {
            request_id: request_id.to_string(),
            request,
            extra: Extra::new(),
        }));
    }

    /// Nobody waits for the answer to `request_id` any more: the host may drop it.
    pub(crate) fn host_request_withdrawn(&self, request_id: String) {
        self.agent(|| AgentEvent::RequestWithdrawn {
            request_id: request_id.clone(),
        });
        self.emit(Message::ControlCancelRequest(ControlCancelRequest {
            request_id,
            extra: Extra::new(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Outbound, Outbox, Streams};
    use super::*;

    fn drain(outbox: &Outbox) -> (Vec<Value>, Vec<AgentEvent>) {
        let (mut lines, mut events) = (Vec::new(), Vec::new());
        while let Some(o) = outbox.try_pop() {
            match o {
                Outbound::Line(m) => lines.push(serde_json::to_value(&*m).expect("json")),
                Outbound::Event(e) => events.push(*e),
                Outbound::End => {}
            }
        }
        (lines, events)
    }

    #[test]
    fn an_answer_is_a_control_response_and_a_failure_also_a_notice() {
        let outbox = Outbox::new(8);
        let e = Emitter::new(outbox.clone(), "sid".into()).with_streams(Streams::BOTH);
        e.control_answer("r-1".into(), Ok::<_, String>(Some(json!({"a": 1}))));
        e.control_answer("r-2".into(), Err("Already initialized"));
        let (lines, events) = drain(&outbox);
        assert_eq!(lines[0]["type"], "control_response");
        assert_eq!(
            lines[0]["response"],
            json!({"subtype": "success", "request_id": "r-1", "response": {"a": 1}})
        );
        assert_eq!(lines[0]["session_id"], "sid");
        assert_eq!(
            lines[1]["response"],
            json!({"subtype": "error", "request_id": "r-2", "error": "Already initialized"})
        );
        assert!(
            matches!(&events[..], [AgentEvent::Notice { .. }]),
            "{events:?}"
        );
    }

    #[test]
    fn a_request_and_its_withdrawal_name_one_id() {
        let outbox = Outbox::new(8);
        let e = Emitter::new(outbox.clone(), "sid".into());
        e.host_request("q-1", json!({"subtype": "can_use_tool"}));
        e.host_request_withdrawn("q-1".into());
        let (lines, _) = drain(&outbox);
        assert_eq!(lines[0]["type"], "control_request");
        assert_eq!(lines[0]["request_id"], "q-1");
        assert_eq!(lines[0]["request"]["subtype"], "can_use_tool");
        assert_eq!(lines[1]["type"], "control_cancel_request");
        assert_eq!(lines[1]["request_id"], "q-1");
    }
}
