//! The conversation so far as typed events: what a front end shows of a resumed session
//! before its first turn, without reading the transcript's file format itself.

use std::collections::HashMap;

use dcl_events::{AgentEvent, Item, ItemBody, ToolStatus};
use dcl_protocol::{ContentBlock, KnownBlock};

use super::conversation::{Entry, Item as ConvItem, UserOrigin};
use super::emit::agent;

/// Each prompt, answer text, thinking block and tool call (with its result) of `items`,
/// in order, as completed items. Notes dcl added (continuations, compaction summaries)
/// are left out, as the live stream leaves them out.
pub(crate) fn events(items: &[ConvItem]) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    // Tool calls waiting for their result, by tool-use id: the index of their start.
    let mut calls: HashMap<String, usize> = HashMap::new();
    for item in items.iter().filter(|i| !i.excluded) {
        match &item.entry {
            Entry::User {
                content,
                origin: UserOrigin::Prompt,
                ..
            } => {
                let content = agent::content(content);
                if !content.is_empty() {
                    out.push(AgentEvent::ItemCompleted {
                        item: Item::new(item.uuid.clone(), ItemBody::UserMessage { content }),
                    });
                }
            }
            Entry::User {
                content,
                origin: UserOrigin::ToolResult { .. },
                ..
            } => {
                for r in content.iter().filter_map(ContentBlock::as_tool_result) {
                    let Some(at) = calls.remove(&r.tool_use_id) else {
                        continue;
                    };
                    let AgentEvent::ItemStarted { item: started } = &out[at] else {
                        continue;
                    };
                    let mut done = started.clone();
                    if let ItemBody::ToolCall(call) = &mut done.body {
                        call.status = if r.is_error == Some(true) {
                            ToolStatus::Failed
                        } else {
                            ToolStatus::Completed
                        };
                        call.content = r
                            .content
                            .as_ref()
                            .map(agent::result_content)
                            .unwrap_or_default();
                    }
                    out.push(AgentEvent::ItemCompleted { item: done });
                }
            }
            Entry::User { .. } => {}
            Entry::Assistant { message } => {
                for (i, block) in message.content.iter().enumerate() {
                    let id = format!("{}/{i}", item.uuid);
                    let ContentBlock::Known(known) = block else {
                        continue;
                    };
                    let body = match known {
                        KnownBlock::Text(t) => ItemBody::AgentText {
                            text: t.text.clone(),
                        },
                        KnownBlock::Thinking(t) => ItemBody::Thinking {
                            text: t.thinking.clone(),
                        },
                        KnownBlock::ToolUse(tu) => {
                            calls.insert(tu.id.clone(), out.len());
                            out.push(AgentEvent::ItemStarted {
                                item: agent::tool_call_item(&tu.id, &tu.name, &tu.input),
                            });
                            continue;
                        }
                        _ => continue,
                    };
                    out.push(AgentEvent::ItemCompleted {
                        item: Item::new(id, body),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::session::conversation::{Conversation, NewItem};
    use dcl_protocol::{AssistantPayload, Extra, ToolResultBlock, ToolResultContent};
    use serde_json::json;

    fn assistant(blocks: Vec<ContentBlock>) -> Entry {
        Entry::Assistant {
            message: Box::new(AssistantPayload {
                id: "m".into(),
                kind: "message".into(),
                role: "assistant".into(),
                model: "mock-model".into(),
                content: blocks,
                stop_reason: None,
                stop_sequence: None,
                usage: None,
                extra: Extra::new(),
            }),
        }
    }

    #[test]
    fn a_turn_with_a_tool_call_becomes_its_items() {
        let mut c = Conversation::new();
        let mut add = |uuid: &str, entry| {
            c.record(NewItem {
                uuid: uuid.into(),
                prompt_uuid: "p".into(),
                entry,
            });
        };
        add(
            "p",
            Entry::User {
                content: vec![ContentBlock::text("list it")],
                origin: UserOrigin::Prompt,
                as_text: true,
            },
        );
        add(
            "a1",
            assistant(vec![ContentBlock::tool_use(
                "t1",
                "Bash",
                json!({"command": "ls"}),
            )]),
        );
        add(
            "r1",
            Entry::User {
                content: vec![ContentBlock::Known(KnownBlock::ToolResult(
                    ToolResultBlock {
                        tool_use_id: "t1".into(),
                        content: Some(ToolResultContent::Text("a.txt".into())),
                        is_error: None,
                        extra: Extra::new(),
                    },
                ))],
                origin: UserOrigin::ToolResult {
                    tool_use_result: None,
                },
                as_text: false,
            },
        );
        add(
            "n",
            Entry::User {
                content: vec![ContentBlock::text("go on")],
                origin: UserOrigin::Continuation,
                as_text: false,
            },
        );
        add("a2", assistant(vec![ContentBlock::text("Done.")]));
        let events = events(c.items());
        let shape: Vec<String> = events
            .iter()
            .map(|e| match e {
                AgentEvent::ItemStarted { item } | AgentEvent::ItemCompleted { item } => {
                    match &item.body {
                        ItemBody::UserMessage { content } => {
                            format!("prompt {}", dcl_events::ContentBlock::joined_text(content))
                        }
                        ItemBody::AgentText { text } => format!("text {text}"),
                        ItemBody::ToolCall(c) => format!(
                            "call {} {:?} {}",
                            item.id,
                            c.status,
                            dcl_events::ContentBlock::joined_text(&c.content)
                        ),
                        other => format!("{other:?}"),
                    }
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            shape,
            [
                "prompt list it",
                "call t1 Pending ",
                "call t1 Completed a.txt",
                "text Done."
            ]
        );
    }
}
