//! The adapter on typed events as the engine sends them, and the commands it answers with.

use dcl_bridge::events::{
    AgentEvent, ContentBlock, HostRequest, Item, ItemBody, ItemDelta, PermissionDecision,
    PermissionRequest, SessionCommand, SessionInfo as EvSessionInfo, StopReason, TokenUsage,
    ToolCall as EvToolCall, ToolStatus, TurnEnd as EvTurnEnd,
};
use dcl_tui::testing::{Choice, McpChoice, Projector};
use dcl_tui::view::{AskKind, PermissionAnswer, UiEvent};
use serde_json::json;

fn turn_end(stop: StopReason, errors: Vec<String>) -> AgentEvent {
    AgentEvent::TurnEnded(EvTurnEnd {
        turn_id: "p1".into(),
        stop_reason: stop,
        usage: TokenUsage {
            input_tokens: 3,
            output_tokens: 4,
            ..Default::default()
        },
        total_cost_usd: 0.5,
        num_turns: 1,
        duration_ms: 9,
        result: None,
        structured_output: None,
        errors,
    })
}

fn bash_call(status: ToolStatus, output: &str) -> Item {
    let mut call = EvToolCall::describe("Bash", json!({"command": "echo hi"}));
    call.status = status;
    if !output.is_empty() {
        call.content = vec![ContentBlock::text(output)];
    }
    Item::new("t1", ItemBody::ToolCall(call))
}

#[test]
fn deltas_tool_calls_results_and_the_end_become_events() {
    let mut p = Projector::default();
    let events = [
        AgentEvent::SessionStarted(EvSessionInfo {
            session_id: "s".into(),
            model: "mock-model".into(),
            permission_mode: "default".into(),
            slash_commands: vec!["clear".into(), "deploy".into()],
            ..Default::default()
        }),
        AgentEvent::TurnStarted {
            turn_id: "p1".into(),
        },
        // The prompt the terminal sent is already on screen.
        AgentEvent::ItemCompleted {
            item: Item::new(
                "p1",
                ItemBody::UserMessage {
                    content: vec![ContentBlock::text("hi")],
                },
            ),
        },
        AgentEvent::ItemStarted {
            item: Item::new(
                "m/0",
                ItemBody::AgentText {
                    text: String::new(),
                },
            ),
        },
        AgentEvent::ItemDelta {
            item_id: "m/0".into(),
            delta: ItemDelta::Text { text: "Hi".into() },
        },
        AgentEvent::ItemCompleted {
            item: Item::new("m/0", ItemBody::AgentText { text: "Hi".into() }),
        },
        AgentEvent::ItemStarted {
            item: bash_call(ToolStatus::Pending, ""),
        },
        AgentEvent::ItemCompleted {
            item: bash_call(ToolStatus::Completed, "hi"),
        },
        turn_end(StopReason::EndTurn, vec![]),
    ];
    let out: Vec<UiEvent> = events.into_iter().flat_map(|e| p.event(e)).collect();
    assert!(matches!(&out[0], UiEvent::SessionInfo(i) if i.slash_commands == ["clear", "deploy"]));
    assert_eq!(out[1], UiEvent::Requesting);
    assert_eq!(out[2], UiEvent::TextDelta("Hi".into()));
    // The completed text repeats the streamed one: it only ends the block.
    assert_eq!(out[3], UiEvent::BlockEnded);
    assert!(
        matches!(&out[4], UiEvent::ToolStarted(c) if c.name == "Bash" && c.summary == "echo hi")
    );
    assert_eq!(
        out[5],
        UiEvent::ToolFinished {
            id: "t1".into(),
            is_error: false,
            output: "hi".into()
        }
    );
    assert!(
        matches!(&out[6], UiEvent::TurnEnded(e) if e.cost_usd == 0.5 && e.output_tokens == 4 && e.error.is_none() && !e.interrupted)
    );
    assert_eq!(out.len(), 7);
}

#[test]
fn an_unstreamed_text_a_failed_call_a_cancelled_and_a_failed_turn() {
    let mut p = Projector::default();
    assert_eq!(
        p.event(AgentEvent::ItemCompleted {
            item: Item::new(
                "m/0",
                ItemBody::AgentText {
                    text: "Whole".into()
                }
            )
        }),
        [UiEvent::AssistantText("Whole".into())]
    );
    assert!(matches!(
        &p.event(AgentEvent::ItemCompleted {
            item: bash_call(ToolStatus::Failed, "no")
        })[..],
        [UiEvent::ToolFinished { is_error: true, .. }]
    ));
    assert!(matches!(
        &p.event(turn_end(StopReason::Cancelled, vec![]))[..],
        [UiEvent::TurnEnded(e)] if e.interrupted
    ));
    assert!(matches!(
        &p.event(turn_end(StopReason::Error, vec!["fake: prompt is invalid".into()]))[..],
        [UiEvent::TurnEnded(e)] if e.error.as_deref() == Some("fake: prompt is invalid")
    ));
    // A subagent's text stays inside its call, deltas too (they name no scope); its tool
    // calls are shown, nested.
    let sub_text = Item::new(
        "s/0",
        ItemBody::AgentText {
            text: "inner".into(),
        },
    )
    .within(Some("task1".into()));
    assert!(
        p.event(AgentEvent::ItemStarted {
            item: sub_text.clone()
        })
        .is_empty()
    );
    let delta = AgentEvent::ItemDelta {
        item_id: "s/0".into(),
        delta: ItemDelta::Text {
            text: "inner".into(),
        },
    };
    assert!(p.event(delta).is_empty());
    assert!(
        p.event(AgentEvent::ItemCompleted { item: sub_text })
            .is_empty()
    );
    let sub_call = bash_call(ToolStatus::Pending, "").within(Some("task1".into()));
    assert!(matches!(
        &p.event(AgentEvent::ItemStarted { item: sub_call })[..],
        [UiEvent::ToolStarted(c)] if c.parent.as_deref() == Some("task1")
    ));
}

fn ask(suggestions: Option<serde_json::Value>) -> AgentEvent {
    AgentEvent::Request(HostRequest::Permission(PermissionRequest {
        request_id: "r9".into(),
        tool_call_id: "t1".into(),
        tool_call: EvToolCall::describe("Bash", json!({"command": "touch x"})),
        reason: None,
        suggestions,
        blocked_path: None,
    }))
}

#[test]
fn dont_ask_again_sends_the_suggested_rule_back() {
    let mut p = Projector::default();
    let out = p.event(ask(Some(json!([
        {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":"localSettings"},
        {"type":"setMode","mode":"acceptEdits","destination":"session"}]))));
    let [UiEvent::Permission(a)] = &out[..] else {
        panic!("{out:?}")
    };
    assert_eq!(a.rule.as_deref(), Some("Bash(touch x)"));
    let (command, remember) = p
        .answer("r9", &PermissionAnswer::AllowAlways)
        .expect("an open question");
    assert!(remember.is_none());
    let SessionCommand::AnswerPermission {
        request_id,
        decision:
            PermissionDecision::Allow {
                updated_input,
                updated_permissions: Some(rules),
            },
    } = command
    else {
        panic!("{command:?}")
    };
    assert_eq!(request_id, "r9");
    assert_eq!(updated_input, Some(json!({"command": "touch x"})));
    assert_eq!(rules[0]["destination"], "localSettings");
    assert_eq!(rules[0]["rules"][0]["ruleContent"], "touch x");
    // Answered once: a second answer has no question to go to.
    assert!(p.answer("r9", &PermissionAnswer::Allow).is_none());
    // Without a suggestion the tool as a whole is remembered for the project.
    let out = p.event(ask(None));
    assert!(matches!(&out[..], [UiEvent::Permission(a)] if a.rule.as_deref() == Some("Bash")));
}

#[test]
fn no_stops_the_turn_and_no_with_words_tells_the_model() {
    let mut p = Projector::default();
    p.event(ask(None));
    let (plain, _) = p
        .answer("r9", &PermissionAnswer::Deny(String::new()))
        .expect("open");
    assert!(matches!(
        plain,
        SessionCommand::AnswerPermission {
            decision: PermissionDecision::Deny {
                interrupt: true,
                ..
            },
            ..
        }
    ));
    p.event(ask(None));
    let (told, _) = p
        .answer("r9", &PermissionAnswer::Deny("use ls".into()))
        .expect("open");
    assert!(matches!(
        told,
        SessionCommand::AnswerPermission {
            decision: PermissionDecision::Deny { interrupt: false, ref message, .. },
            ..
        } if message.contains("use ls")
    ));
}

#[test]
fn a_mode_or_model_change_shows_once_the_session_makes_it() {
    let mut p = Projector::default();
    assert_eq!(
        p.event(AgentEvent::SessionConfigured {
            model: Some("other".into()),
            permission_mode: Some("plan".into()),
        }),
        [
            UiEvent::ModelChanged("other".into()),
            UiEvent::ModeChanged("plan".into())
        ]
    );
}

#[test]
fn questions_are_answered_with_their_labels() {
    let mut p = Projector::default();
    let out = p.event(AgentEvent::Request(HostRequest::Question {
        request_id: "r1".into(),
        tool_call_id: "t1".into(),
        questions: json!([{"question":"Which?","header":"Pick","multiSelect":false,
            "options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]),
    }));
    let [UiEvent::Permission(a)] = &out[..] else {
        panic!("{out:?}")
    };
    let AskKind::Questions(qs) = &a.kind else {
        panic!("{a:?}")
    };
    assert_eq!(qs[0].options[1].0, "B");
    let (command, _) = p
        .answer(
            "r1",
            &PermissionAnswer::Answers(vec![("Which?".into(), "B".into())]),
        )
        .expect("open");
    let SessionCommand::AnswerQuestion { answers, .. } = command else {
        panic!("{command:?}")
    };
    assert_eq!(answers.get("Which?").map(String::as_str), Some("B"));
}

fn mcp_request() -> AgentEvent {
    AgentEvent::Request(HostRequest::Other {
        request_id: "r7".into(),
        subtype: "mcp_server_approval".into(),
        request: json!({"subtype":"mcp_server_approval","server_name":"planted","scope":"project",
            "config":{"command":"python3","args":["server.py"]}}),
    })
}

#[test]
fn a_project_mcp_server_is_asked_about_and_the_answer_remembered() {
    for (answer, approved, choice) in [
        (PermissionAnswer::Allow, true, Choice::Enable),
        (PermissionAnswer::AllowAlways, true, Choice::EnableAll),
        (
            PermissionAnswer::Deny(String::new()),
            false,
            Choice::Disable,
        ),
    ] {
        let mut p = Projector::default();
        let out = p.event(mcp_request());
        let [UiEvent::Permission(a)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(
            a.kind,
            AskKind::McpServer {
                server: "planted".into(),
                command: "python3 server.py".into()
            }
        );
        let (command, remember) = p.answer("r7", &answer).expect("open");
        assert_eq!(
            command,
            SessionCommand::Answer {
                request_id: "r7".into(),
                result: json!({"approved": approved}),
                error: None
            }
        );
        assert_eq!(
            remember,
            Some(McpChoice {
                server: "planted".into(),
                choice
            })
        );
        assert!(p.take_refusals().is_empty(), "the terminal answers it");
    }
}

#[test]
fn a_request_the_terminal_cannot_serve_is_refused_at_once_and_said() {
    let mut p = Projector::default();
    let out = p.event(AgentEvent::Request(HostRequest::Other {
        request_id: "r9".into(),
        subtype: "mcp_message".into(),
        request: json!({}),
    }));
    assert!(matches!(&out[..], [UiEvent::Notice(_)]), "{out:?}");
    let refusals = p.take_refusals();
    assert!(
        matches!(&refusals[..], [SessionCommand::Answer { request_id, error: Some(_), .. }] if request_id == "r9"),
        "{refusals:?}"
    );
    assert!(p.take_refusals().is_empty());
    // Twin: a permission request is the terminal's to answer; nothing is refused.
    p.event(ask(None));
    assert!(p.take_refusals().is_empty());
}

#[test]
fn the_answer_about_a_server_is_written_to_the_local_settings_keeping_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join(".claude/settings.local.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, r#"{"permissions":{"allow":["Bash(ls)"]}}"#).expect("write");
    dcl_tui::testing::record_mcp_choice(&file, "a", Choice::Disable).expect("record");
    dcl_tui::testing::record_mcp_choice(&file, "b", Choice::Enable).expect("record");
    // Changing one's mind moves the name.
    dcl_tui::testing::record_mcp_choice(&file, "a", Choice::Enable).expect("record");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    assert_eq!(v["permissions"]["allow"][0], "Bash(ls)");
    assert_eq!(v["enabledMcpjsonServers"], json!(["b", "a"]));
    assert_eq!(v["disabledMcpjsonServers"], json!([]));
    dcl_tui::testing::record_mcp_choice(&file, "c", Choice::EnableAll).expect("record");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    assert_eq!(v["enableAllProjectMcpServers"], true);
    // A file that is not a settings object is not overwritten.
    std::fs::write(&file, "[1]").expect("write");
    assert!(dcl_tui::testing::record_mcp_choice(&file, "a", Choice::Enable).is_err());
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "[1]");
}
