//! `session/update` as a projection of dcl's typed events ([`AgentEvent`]): one
//! [`Projection`] per session remembers what it has sent of each open item (the text
//! streamed so far, the tool calls announced), so an item's completion sends only what
//! the client has not seen.
//!
//! Updates are JSON (`update` objects of `session/update`); the caller turns them into
//! the crate's typed notifications, which checks their shape.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use dcl_bridge::events::{
    AgentEvent, ContentBlock, Diff, Item, ItemBody, ItemDelta, PlanEntry, PlanEntryStatus,
    StopReason, ToolCall, ToolStatus,
};
use serde_json::{Map, Value, json};

/// What was sent of an open item.
struct Open {
    /// Text and thinking: the bytes of its text sent so far.
    sent: usize,
    /// A subagent's item: its prose stays inside its tool call.
    nested: bool,
    /// A `Write`'s file before it ran, for the diff.
    old_text: Option<String>,
}

pub struct Projection {
    cwd: PathBuf,
    open: HashMap<String, Open>,
    /// The session's cost so far (the last `Usage` event), sent with `usage_update`.
    cost_usd: Option<f64>,
}

impl Projection {
    pub fn new(cwd: PathBuf) -> Self {
        Projection {
            cwd,
            open: HashMap::new(),
            cost_usd: None,
        }
    }

    /// The updates one event gives. `replaying`: a saved conversation is read back
    /// (`session/load`), so the user's own messages are sent too.
    pub fn updates(&mut self, event: &AgentEvent, replaying: bool) -> Vec<Value> {
        match event {
            AgentEvent::ItemStarted { item } => self.started(item).into_iter().collect(),
            AgentEvent::ItemDelta { item_id, delta } => {
                self.delta(item_id, delta).into_iter().collect()
            }
            AgentEvent::ItemCompleted { item } => self.completed(item, replaying),
            AgentEvent::PlanUpdated {
                entries,
                parent_tool_call_id: None,
            } => vec![plan(entries)],
            AgentEvent::SessionConfigured {
                permission_mode: Some(mode),
                ..
            } => vec![json!({"sessionUpdate": "current_mode_update", "currentModeId": mode})],
            AgentEvent::Usage { total_cost_usd, .. } => {
                self.cost_usd = Some(*total_cost_usd);
                Vec::new()
            }
            AgentEvent::ContextUsage {
                used_tokens,
                context_window,
            } => vec![self.usage_update(*used_tokens, *context_window)],
            _ => Vec::new(),
        }
    }

    /// How full the context is after a turn, and what the session has cost.
    fn usage_update(&self, used: u64, size: u64) -> Value {
        let mut update = json!({"sessionUpdate": "usage_update", "used": used, "size": size});
        if let Some(cost) = self.cost_usd {
            update["cost"] = json!({"amount": cost, "currency": "USD"});
        }
        update
    }

    fn started(&mut self, item: &Item) -> Option<Value> {
        let nested = item.parent_tool_call_id.is_some();
        match &item.body {
            ItemBody::AgentText { text } | ItemBody::Thinking { text } => {
                self.open.insert(
                    item.id.clone(),
                    Open {
                        sent: text.len(),
                        nested,
                        old_text: None,
                    },
                );
                (!nested && !text.is_empty()).then(|| text_chunk(&item.body, text))
            }
            ItemBody::ToolCall(call) if call.name == "TodoWrite" => {
                // Its plan comes as `plan_updated`; the call itself is not shown.
                None
            }
            ItemBody::ToolCall(call) => {
                let old_text = match (call.name.as_str(), call.diff.first()) {
                    ("Write", Some(d)) => std::fs::read_to_string(self.absolute(&d.path)).ok(),
                    _ => None,
                };
                let update = self.tool_call(item, call, old_text.as_deref());
                self.open.insert(
                    item.id.clone(),
                    Open {
                        sent: 0,
                        nested,
                        old_text,
                    },
                );
                Some(update)
            }
            _ => None,
        }
    }

    fn delta(&mut self, id: &str, delta: &ItemDelta) -> Option<Value> {
        let open = self.open.get_mut(id)?;
        match delta {
            ItemDelta::Text { text } | ItemDelta::Thinking { text } => {
                open.sent += text.len();
                if open.nested {
                    return None;
                }
                let kind = match delta {
                    ItemDelta::Text { .. } => "agent_message_chunk",
                    _ => "agent_thought_chunk",
                };
                Some(chunk(kind, text))
            }
            ItemDelta::ToolStatus { status } => Some(json!({
                "sessionUpdate": "tool_call_update",
                "toolCallId": id,
                "status": status_name(*status),
            })),
            _ => None,
        }
    }

    fn completed(&mut self, item: &Item, replaying: bool) -> Vec<Value> {
        let nested = item.parent_tool_call_id.is_some();
        match &item.body {
            ItemBody::AgentText { text } | ItemBody::Thinking { text } => {
                let sent = self.open.remove(&item.id).map_or(0, |o| o.sent);
                // What streamed is a prefix of the whole; the rest (if any) is sent now.
                let rest = text.get(sent..).unwrap_or("");
                if nested || rest.is_empty() {
                    return Vec::new();
                }
                vec![text_chunk(&item.body, rest)]
            }
            ItemBody::UserMessage { content } if replaying && !nested => content
                .iter()
                .filter_map(ContentBlock::as_text)
                .map(|t| chunk("user_message_chunk", t))
                .collect(),
            ItemBody::ToolCall(call) if call.name == "TodoWrite" => {
                self.open.remove(&item.id);
                Vec::new()
            }
            ItemBody::ToolCall(call) => {
                let old_text = self.open.remove(&item.id).and_then(|o| o.old_text);
                vec![self.tool_result(&item.id, call, old_text.as_deref())]
            }
            _ => Vec::new(),
        }
    }

    fn tool_call(&self, item: &Item, call: &ToolCall, old_text: Option<&str>) -> Value {
        let mut update = Map::new();
        update.insert("sessionUpdate".into(), json!("tool_call"));
        update.insert("toolCallId".into(), json!(item.id));
        update.insert("title".into(), json!(call.title));
        update.insert("kind".into(), json!(call.kind));
        update.insert("status".into(), json!(status_name(call.status)));
        update.insert("rawInput".into(), call.raw_input.clone());
        if !call.locations.is_empty() {
            let locations: Vec<Value> = call
                .locations
                .iter()
                .map(|l| {
                    let mut v = json!({"path": self.absolute(&l.path)});
                    if let Some(line) = l.line {
                        v["line"] = json!(line);
                    }
                    v
                })
                .collect();
            update.insert("locations".into(), json!(locations));
        }
        let diffs = self.diffs(call, old_text);
        if !diffs.is_empty() {
            update.insert("content".into(), json!(diffs));
        }
        if let Some(parent) = &item.parent_tool_call_id {
            update.insert("_meta".into(), json!({"dcl": {"parentToolCallId": parent}}));
        }
        Value::Object(update)
    }

    fn tool_result(&self, id: &str, call: &ToolCall, old_text: Option<&str>) -> Value {
        let failed = call.status == ToolStatus::Failed;
        let mut content = if failed {
            Vec::new()
        } else {
            self.diffs(call, old_text)
        };
        let text = ContentBlock::joined_text(&call.content);
        if !text.is_empty() {
            let shown = if call.name == "Bash" && !failed {
                format!("```\n{text}\n```")
            } else {
                text
            };
            content.push(json!({"type": "content", "content": {"type": "text", "text": shown}}));
        }
        let status = match call.status {
            ToolStatus::Failed => "failed",
            _ => "completed",
        };
        json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": status,
            "content": content,
        })
    }

    /// ACP `diff` content for every file the call changes.
    fn diffs(&self, call: &ToolCall, old_text: Option<&str>) -> Vec<Value> {
        call.diff
            .iter()
            .map(|Diff { path, old_text: old, new_text }| {
                let old = old.as_deref().or(old_text);
                json!({"type": "diff", "path": self.absolute(path), "oldText": old, "newText": new_text})
            })
            .collect()
    }

    fn absolute(&self, path: &str) -> String {
        let p = Path::new(path);
        if p.is_absolute() {
            path.to_string()
        } else {
            self.cwd.join(p).display().to_string()
        }
    }
}

fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

fn text_chunk(body: &ItemBody, text: &str) -> Value {
    match body {
        ItemBody::Thinking { .. } => chunk("agent_thought_chunk", text),
        _ => chunk("agent_message_chunk", text),
    }
}

fn status_name(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Pending => "pending",
        ToolStatus::InProgress => "in_progress",
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
    }
}

fn plan(entries: &[PlanEntry]) -> Value {
    let entries: Vec<Value> = entries
        .iter()
        .map(|e| {
            let status = match e.status {
                PlanEntryStatus::Pending => "pending",
                PlanEntryStatus::InProgress => "in_progress",
                PlanEntryStatus::Completed => "completed",
            };
            json!({"content": e.content, "priority": "medium", "status": status})
        })
        .collect();
    json!({"sessionUpdate": "plan", "entries": entries})
}

/// The ACP `stopReason` of a turn's end, or the error the prompt is answered with.
pub fn stop_reason(
    reason: StopReason,
    errors: &[String],
    cancelled: bool,
) -> Result<&'static str, String> {
    if cancelled {
        return Ok("cancelled");
    }
    Ok(match reason {
        StopReason::EndTurn => "end_turn",
        StopReason::MaxTokens => "max_tokens",
        StopReason::MaxTurns => "max_turn_requests",
        StopReason::Refusal => "refusal",
        StopReason::Cancelled => "cancelled",
        StopReason::Error => {
            return Err(errors
                .first()
                .cloned()
                .unwrap_or_else(|| "the turn failed".into()));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> Projection {
        Projection::new(PathBuf::from("/w"))
    }

    fn started(item: Item) -> AgentEvent {
        AgentEvent::ItemStarted { item }
    }

    fn completed(item: Item) -> AgentEvent {
        AgentEvent::ItemCompleted { item }
    }

    fn text(id: &str, t: &str) -> Item {
        Item::new(id, ItemBody::AgentText { text: t.into() })
    }

    #[test]
    fn streamed_text_is_not_sent_twice() {
        let mut pr = p();
        assert!(pr.updates(&started(text("m/0", "")), false).is_empty());
        let delta = AgentEvent::ItemDelta {
            item_id: "m/0".into(),
            delta: ItemDelta::Text { text: "Hel".into() },
        };
        assert_eq!(pr.updates(&delta, false)[0]["content"]["text"], "Hel");
        let u = pr.updates(&completed(text("m/0", "Hello")), false);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0]["content"]["text"], "lo");
        // Not streamed at all: sent whole at its completion.
        let u = pr.updates(&completed(text("m/1", "Hi")), false);
        assert_eq!(u[0]["sessionUpdate"], "agent_message_chunk");
        assert_eq!(u[0]["content"]["text"], "Hi");
    }

    #[test]
    fn context_use_is_a_usage_update_with_the_cost_so_far() {
        let mut pr = p();
        let context = AgentEvent::ContextUsage {
            used_tokens: 1200,
            context_window: 200_000,
        };
        // No cost known yet: the update has none.
        let u = pr.updates(&context, false);
        assert_eq!(
            u,
            [json!({"sessionUpdate": "usage_update", "used": 1200, "size": 200_000})]
        );
        let usage = AgentEvent::Usage {
            usage: Default::default(),
            total_cost_usd: 0.25,
        };
        assert!(pr.updates(&usage, false).is_empty());
        let u = pr.updates(&context, false);
        assert_eq!(u[0]["cost"], json!({"amount": 0.25, "currency": "USD"}));
    }

    #[test]
    fn thinking_is_a_thought_chunk() {
        let item = Item::new("t", ItemBody::Thinking { text: "hmm".into() });
        let u = p().updates(&completed(item), false);
        assert_eq!(u[0]["sessionUpdate"], "agent_thought_chunk");
    }

    #[test]
    fn subagent_prose_stays_inside_but_its_calls_show() {
        let mut pr = p();
        let prose = text("s/0", "inner").within(Some("task1".into()));
        assert!(pr.updates(&started(prose.clone()), false).is_empty());
        assert!(pr.updates(&completed(prose), false).is_empty());
        let call = Item::new(
            "c",
            ItemBody::ToolCall(ToolCall::describe("Read", json!({"file_path": "a"}))),
        )
        .within(Some("task1".into()));
        let u = pr.updates(&started(call), false);
        assert_eq!(u[0]["_meta"]["dcl"]["parentToolCallId"], "task1");
    }

    #[test]
    fn edit_call_and_result_carry_the_diff() {
        let mut pr = p();
        let input = json!({"file_path": "a.txt", "old_string": "x", "new_string": "y"});
        let call = ToolCall::describe("Edit", input);
        let item = Item::new("tu1", ItemBody::ToolCall(call.clone()));
        let u = pr.updates(&started(item), false);
        assert_eq!(u[0]["kind"], "edit");
        assert_eq!(u[0]["status"], "pending");
        assert_eq!(u[0]["locations"][0]["path"], "/w/a.txt");
        assert_eq!(u[0]["content"][0]["newText"], "y");
        let done = ToolCall {
            status: ToolStatus::Completed,
            content: vec![ContentBlock::text("ok")],
            ..call.clone()
        };
        let u = pr.updates(
            &completed(Item::new("tu1", ItemBody::ToolCall(done))),
            false,
        );
        assert_eq!(u[0]["sessionUpdate"], "tool_call_update");
        assert_eq!(u[0]["status"], "completed");
        assert_eq!(u[0]["content"][0]["type"], "diff");
        assert_eq!(u[0]["content"][1]["content"]["text"], "ok");
        let failed = ToolCall {
            status: ToolStatus::Failed,
            content: vec![ContentBlock::text("denied")],
            ..call
        };
        let u = pr.updates(
            &completed(Item::new("tu2", ItemBody::ToolCall(failed))),
            false,
        );
        assert_eq!(u[0]["status"], "failed");
        assert_eq!(u[0]["content"][0]["type"], "content");
    }

    #[test]
    fn running_status_is_an_update() {
        let delta = AgentEvent::ItemDelta {
            item_id: "c".into(),
            delta: ItemDelta::ToolStatus {
                status: ToolStatus::InProgress,
            },
        };
        let mut pr = p();
        assert!(pr.updates(&delta, false).is_empty(), "unknown item");
        let call = ToolCall::describe("Bash", json!({"command": "ls"}));
        pr.updates(&started(Item::new("c", ItemBody::ToolCall(call))), false);
        assert_eq!(pr.updates(&delta, false)[0]["status"], "in_progress");
    }

    #[test]
    fn todowrite_is_a_plan_only() {
        let mut pr = p();
        let input =
            json!({"todos": [{"content": "a", "status": "in_progress", "activeForm": "A"}]});
        let call = ToolCall::describe("TodoWrite", input.clone());
        assert!(
            pr.updates(&started(Item::new("t", ItemBody::ToolCall(call))), false)
                .is_empty()
        );
        let plan = AgentEvent::PlanUpdated {
            entries: PlanEntry::from_todos(&input),
            parent_tool_call_id: None,
        };
        let u = pr.updates(&plan, false);
        assert_eq!(u[0]["sessionUpdate"], "plan");
        assert_eq!(u[0]["entries"][0]["status"], "in_progress");
    }

    #[test]
    fn user_text_only_when_replaying() {
        let item = Item::new(
            "u",
            ItemBody::UserMessage {
                content: vec![ContentBlock::text("hello")],
            },
        );
        assert!(p().updates(&completed(item.clone()), false).is_empty());
        assert_eq!(
            p().updates(&completed(item), true)[0]["sessionUpdate"],
            "user_message_chunk"
        );
    }

    #[test]
    fn mode_change_is_a_mode_update() {
        let e = AgentEvent::SessionConfigured {
            model: None,
            permission_mode: Some("plan".into()),
        };
        assert_eq!(p().updates(&e, false)[0]["currentModeId"], "plan");
    }

    #[test]
    fn stop_reasons() {
        assert_eq!(stop_reason(StopReason::EndTurn, &[], false), Ok("end_turn"));
        assert_eq!(stop_reason(StopReason::EndTurn, &[], true), Ok("cancelled"));
        assert_eq!(
            stop_reason(StopReason::MaxTokens, &[], false),
            Ok("max_tokens")
        );
        assert_eq!(
            stop_reason(StopReason::MaxTurns, &[], false),
            Ok("max_turn_requests")
        );
        assert_eq!(stop_reason(StopReason::Refusal, &[], false), Ok("refusal"));
        let err = stop_reason(StopReason::Error, &["boom".into()], false);
        assert!(err.is_err_and(|e| e.contains("boom")));
    }
}
