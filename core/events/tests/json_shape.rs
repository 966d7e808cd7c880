//! The JSON every binding may read: `type`-tagged, snake_case, and a round trip keeps
//! every event and command as it was.

use dcl_events::*;
use serde_json::{Value, json};

fn round_trip<T>(value: &T) -> Value
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).expect("serialisable");
    let back: T = serde_json::from_value(json.clone()).expect("readable");
    assert_eq!(&back, value, "{json}");
    json
}

#[test]
fn a_tool_call_item_reads_as_an_editor_needs_it() {
    let item = Item::new(
        "tu_1",
        ItemBody::ToolCall(ToolCall::describe(
            "Edit",
            json!({"file_path": "/w/a", "old_string": "x", "new_string": "y"}),
        )),
    )
    .within(Some("tu_agent".into()));
    let json = round_trip(&AgentEvent::ItemStarted { item });
    assert_eq!(
        json,
        json!({
            "type": "item_started",
            "item": {
                "id": "tu_1",
                "parent_tool_call_id": "tu_agent",
                "type": "tool_call",
                "name": "Edit",
                "kind": "edit",
                "title": "Edit /w/a",
                "raw_input": {"file_path": "/w/a", "old_string": "x", "new_string": "y"},
                "locations": [{"path": "/w/a"}],
                "diff": [{"path": "/w/a", "old_text": "x", "new_text": "y"}],
                "status": "pending"
            }
        })
    );
}

#[test]
fn every_event_survives_a_round_trip() {
    let events = vec![
        AgentEvent::SessionStarted(SessionInfo {
            session_id: "s".into(),
            model: "mock-model".into(),
            tools: vec!["Bash".into()],
            mcp_servers: vec![McpServerInfo {
                name: "fs".into(),
                status: "connected".into(),
            }],
            ..SessionInfo::default()
        }),
        AgentEvent::SessionConfigured {
            model: None,
            permission_mode: Some("plan".into()),
        },
        AgentEvent::TurnStarted {
            turn_id: "t".into(),
        },
        AgentEvent::ItemDelta {
            item_id: "i".into(),
            delta: ItemDelta::Text { text: "he".into() },
        },
        AgentEvent::ItemCompleted {
            item: Item::new(
                "h",
                ItemBody::HookRun(HookRun {
                    event: "PreToolUse".into(),
                    name: "echo".into(),
                    status: HookStatus::Blocked,
                    output: "no".into(),
                    exit_code: Some(2),
                }),
            ),
        },
        AgentEvent::Request(HostRequest::Permission(PermissionRequest {
            request_id: "r".into(),
            tool_call_id: "tu".into(),
            tool_call: ToolCall::describe("Bash", json!({"command": "ls"})),
            reason: None,
            suggestions: Some(json!([{"type": "setMode", "mode": "acceptEdits"}])),
            blocked_path: None,
        })),
        AgentEvent::RequestWithdrawn {
            request_id: "r".into(),
        },
        AgentEvent::PlanUpdated {
            entries: PlanEntry::from_todos(
                &json!({"todos": [{"content": "a", "status": "in_progress", "activeForm": "A-ing"}]}),
            ),
            parent_tool_call_id: None,
        },
        AgentEvent::Usage {
            usage: TokenUsage {
                input_tokens: 3,
                ..TokenUsage::default()
            },
            total_cost_usd: 0.25,
        },
        AgentEvent::ContextUsage {
            used_tokens: 9_000,
            context_window: 200_000,
        },
        AgentEvent::notice(NoticeLevel::Warning, "retrying"),
        AgentEvent::TurnEnded(TurnEnd {
            turn_id: "t".into(),
            stop_reason: StopReason::MaxTurns,
            usage: TokenUsage::default(),
            total_cost_usd: 0.0,
            num_turns: 2,
            duration_ms: 5,
            result: None,
            structured_output: None,
            errors: vec!["max turns".into()],
        }),
        AgentEvent::SessionEnded,
    ];
    let types: Vec<Value> = events
        .iter()
        .map(|e| round_trip(e)["type"].clone())
        .collect();
    assert_eq!(
        types,
        [
            "session_started",
            "session_configured",
            "turn_started",
            "item_delta",
            "item_completed",
            "request",
            "request_withdrawn",
            "plan_updated",
            "usage",
            "context_usage",
            "notice",
            "turn_ended",
            "session_ended"
        ]
    );
    let request = serde_json::to_value(&events[5]).expect("json");
    assert_eq!(
        (request["kind"].as_str(), request["request_id"].as_str()),
        (Some("permission"), Some("r"))
    );
}

#[test]
fn every_command_survives_a_round_trip() {
    let commands = vec![
        SessionCommand::prompt("hi"),
        SessionCommand::Prompt {
            content: vec![ContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "AA==".into(),
                },
            }],
            id: Some("u1".into()),
        },
        SessionCommand::Interrupt,
        SessionCommand::SetMode {
            mode: "plan".into(),
        },
        SessionCommand::SetModel { model: None },
        SessionCommand::ChangeSettings(SettingsChange {
            max_thinking_tokens: Some(1024),
            settings: None,
        }),
        SessionCommand::AnswerPermission {
            request_id: "r".into(),
            decision: PermissionDecision::Deny {
                message: "no".into(),
                interrupt: true,
                updated_permissions: Some(json!([{"type": "addRules", "behavior": "deny",
                    "rules": [{"toolName": "Bash"}], "destination": "localSettings"}])),
            },
        },
        SessionCommand::AnswerQuestion {
            request_id: "r".into(),
            answers: [("Which?".to_string(), "A".to_string())].into(),
        },
        SessionCommand::AnswerHook {
            request_id: "r".into(),
            output: json!({"decision": "block"}),
        },
        SessionCommand::AnswerElicitation {
            request_id: "r".into(),
            action: ElicitationAction::Accept,
            content: Some(json!({"colour": "red"})),
        },
        SessionCommand::Answer {
            request_id: "r".into(),
            result: json!({}),
            error: None,
        },
        SessionCommand::Rewind {
            user_message_id: "u1".into(),
            files_only: true,
            dry_run: false,
        },
        SessionCommand::Mcp(McpCommand::Toggle {
            server: "fs".into(),
            enabled: false,
        }),
        SessionCommand::EndInput,
    ];
    for c in &commands {
        round_trip(c);
    }
    let allow = serde_json::to_value(PermissionDecision::Allow {
        updated_input: None,
        updated_permissions: None,
    })
    .expect("json");
    assert_eq!(allow, json!({"behavior": "allow"}));
}
