//! The turn as one call's tool sees it ([`TurnHandle`]): its progress lines, the input the
//! model proposed, leaving plan mode, a question for the host and a child turn. One link
//! per call; it owns what it needs of the turn, so a tool holds it without borrowing the
//! turn's internals.

use dcl_protocol::{CanUseToolRequest, CanUseToolTag, Extra, PermissionDecision, ToolUseBlock};
use serde_json::Value;

use super::{interactive, subagent};
use crate::session::emit::Event;
use crate::session::host::HostError;
use dcl_tool_api::{BoxFuture, ChildTurn, HostQuestion, TurnError, TurnEvent, TurnHandle};

pub(super) struct TurnLink {
    parent: subagent::Parent,
    /// The call, as the model proposed it.
    call: ToolUseBlock,
}

impl TurnLink {
    pub fn new(parent: subagent::Parent, call: ToolUseBlock) -> Self {
        TurnLink { parent, call }
    }
}

impl TurnHandle for TurnLink {
    fn emit(&self, event: TurnEvent) {
        match event {
            TurnEvent::Progress { elapsed_seconds } => {
                let emitter = &self.parent.emitter;
                emitter.event(Event::ToolProgress {
                    tool_use_id: self.call.id.clone(),
                    tool_name: self.call.name.clone(),
                    parent_tool_use_id: emitter.parent_tool_use_id().map(str::to_string),
                    elapsed_seconds,
                });
                emitter.agent(|| dcl_events::AgentEvent::ItemDelta {
                    item_id: self.call.id.clone(),
                    delta: dcl_events::ItemDelta::ToolProgress { elapsed_seconds },
                });
            }
        }
    }

    fn proposed_input(&self) -> Value {
        self.call.input.clone()
    }

    fn end_plan_mode(&self) -> bool {
        interactive::end_plan_mode(&self.parent.core, &self.parent.emitter)
    }

    fn ask_host<'a>(&'a self, question: HostQuestion) -> BoxFuture<'a, Result<Value, TurnError>> {
        Box::pin(async move {
            let services = &self.parent.core.services;
            if !services.can_ask_host() {
                return Err(TurnError::Unavailable("asking the host"));
            }
            let request = CanUseToolRequest {
                subtype: CanUseToolTag::CanUseTool,
                tool_name: question.tool_name.clone(),
                display_name: question.tool_name,
                input: question.input.clone(),
                tool_use_id: question.tool_use_id,
                description: question.description,
                permission_suggestions: Vec::new(),
                blocked_path: None,
                decision_reason_type: None,
                extra: Extra::new(),
            };
            let request = serde_json::to_value(&request)
                .map_err(|e| TurnError::Failed(format!("could not build the question: {e}")))?;
            let answer = services
                .host
                .request(&services.emitter, request, &self.parent.cancel)
                .await
                .map_err(|e| match e {
                    HostError::Cancelled => TurnError::Interrupted,
                    other => TurnError::Failed(other.to_string()),
                })?;
            match serde_json::from_value::<PermissionDecision>(answer) {
                // `{}` means "as it is".
                Ok(PermissionDecision::Allow { updated_input, .. }) => Ok(updated_input
                    .filter(|u| u.as_object().is_none_or(|o| !o.is_empty()))
                    .unwrap_or(question.input)),
                Ok(PermissionDecision::Deny { message, .. }) => {
                    Err(TurnError::Refused(if message.is_empty() {
                        "The user denied this tool use.".to_string()
                    } else {
                        message
                    }))
                }
                Err(e) => Err(TurnError::Failed(format!(
                    "the host's answer was not understood: {e}"
                ))),
            }
        })
    }

    fn run_child<'a>(&'a self, child: ChildTurn) -> BoxFuture<'a, Result<String, TurnError>> {
        Box::pin(subagent::run(&self.parent, &self.call.id, child))
    }
}
