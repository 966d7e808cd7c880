//! A model reply as typed items: agent text and thinking items that open with their
//! block, grow by deltas and complete with it; a tool call item started once the model
//! has given its whole input (and, for `TodoWrite`, the plan it sets).

use dcl_events::{AgentEvent, Item, ItemBody, ItemDelta, PlanEntry};
use dcl_protocol::{ContentBlock, KnownBlock};

use super::TurnContext;
use crate::session::emit::agent;
use dcl_model::{Delta, StreamEvent};

/// The reply's open item, when the session produces events.
pub(super) struct StreamItems {
    on: bool,
    msg_id: String,
    /// The text or thinking block being streamed: its index and item id.
    open: Option<(usize, String)>,
}

impl StreamItems {
    pub fn new(ctx: &TurnContext, msg_id: &str) -> Self {
        StreamItems {
            on: ctx.emitter.wants_events(),
            msg_id: msg_id.to_string(),
            open: None,
        }
    }

    /// What `event` of the model stream starts or adds.
    pub fn on_event(&mut self, ctx: &TurnContext, event: &StreamEvent) {
        if !self.on {
            return;
        }
        match event {
            StreamEvent::MessageStart { message } => self.msg_id.clone_from(&message.id),
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                let body = match content_block.get("type").and_then(|t| t.as_str()) {
                    Some("text") => ItemBody::AgentText {
                        text: String::new(),
                    },
                    Some("thinking") => ItemBody::Thinking {
                        text: String::new(),
                    },
                    _ => return,
                };
                let id = format!("{}/{index}", self.msg_id);
                self.open = Some((*index, id.clone()));
                ctx.emitter.agent(|| AgentEvent::ItemStarted {
                    item: Item::new(id, body),
                });
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let Some((open, id)) = &self.open else { return };
                let delta = match delta {
                    Delta::TextDelta { text } => ItemDelta::Text { text: text.clone() },
                    Delta::ThinkingDelta { thinking } => ItemDelta::Thinking {
                        text: thinking.clone(),
                    },
                    _ => return,
                };
                if open == index {
                    ctx.emitter.agent(|| AgentEvent::ItemDelta {
                        item_id: id.clone(),
                        delta,
                    });
                }
            }
            _ => {}
        }
    }

    /// The block at `index` is complete (`None`: the open text, cut short by a cancel).
    pub fn on_block(&mut self, ctx: &TurnContext, index: Option<usize>, block: &ContentBlock) {
        if !self.on {
            return;
        }
        let ContentBlock::Known(known) = block else {
            return;
        };
        let body = match known {
            KnownBlock::Text(t) => ItemBody::AgentText {
                text: t.text.clone(),
            },
            KnownBlock::Thinking(t) => ItemBody::Thinking {
                text: t.thinking.clone(),
            },
            KnownBlock::ToolUse(tu) => {
                let item = agent::tool_call_item(&tu.id, &tu.name, &tu.input);
                ctx.emitter.session().open_call(&item);
                ctx.emitter.agent(|| AgentEvent::ItemStarted { item });
                if tu.name == "TodoWrite" {
                    ctx.emitter.agent(|| AgentEvent::PlanUpdated {
                        entries: PlanEntry::from_todos(&tu.input),
                        parent_tool_call_id: None,
                    });
                }
                return;
            }
            _ => return,
        };
        let id = match self.open.take() {
            Some((open, id)) if index.is_none_or(|i| i == open) => id,
            // A block that was never streamed as started (a provider without block
            // starts): started and completed at once.
            other => {
                self.open = other;
                let id = format!("{}/{}", self.msg_id, index.unwrap_or_default());
                let started = Item::new(id.clone(), body.clone());
                ctx.emitter
                    .agent(|| AgentEvent::ItemStarted { item: started });
                id
            }
        };
        ctx.emitter.agent(|| AgentEvent::ItemCompleted {
            item: Item::new(id, body),
        });
    }
}
