//! The adapter on lines as the session writes them.

use dcl_tui::testing::Decoder;
use dcl_tui::view::{PermissionAnswer, UiEvent};
use serde_json::{Value, json};

#[test]
fn deltas_tool_calls_results_and_the_end_become_events() {
    let mut d = Decoder::default();
    let lines = [
        json!({"type":"system","subtype":"init","session_id":"s","model":"mock-model","permissionMode":"default","slash_commands":["clear","deploy"]}),
        json!({"type":"stream_event","event":{"type":"message_start"},"parent_tool_use_id":null}),
        json!({"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}},"parent_tool_use_id":null}),
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"Hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo hi"}}]},"parent_tool_use_id":null}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"hi"}],"is_error":false}]}}),
        json!({"type":"result","is_error":false,"total_cost_usd":0.5,"usage":{"input_tokens":3,"output_tokens":4},"duration_ms":9}),
    ];
    let events: Vec<UiEvent> = lines
        .iter()
        .flat_map(|l| d.decode(&l.to_string()))
        .collect();
    assert!(
        matches!(&events[0], UiEvent::SessionInfo(i) if i.slash_commands == ["clear", "deploy"])
    );
    assert_eq!(events[1], UiEvent::TextDelta("Hi".into()));
    // The full message repeats the streamed text: only its tool call is new.
    assert!(
        matches!(&events[2], UiEvent::ToolStarted(c) if c.name == "Bash" && c.summary == "echo hi")
    );
    assert_eq!(
        events[3],
        UiEvent::ToolFinished {
            id: "t1".into(),
            is_error: false,
            output: "hi".into()
        }
    );
    assert!(
        matches!(&events[4], UiEvent::TurnEnded(e) if e.cost_usd == 0.5 && e.output_tokens == 4)
    );
    assert_eq!(events.len(), 5);
}

fn ask_line() -> String {
    json!({"type":"control_request","request_id":"r9","request":{
        "subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},
        "tool_use_id":"t1","permission_suggestions":[
            {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":"localSettings"},
            {"type":"setMode","mode":"acceptEdits","destination":"session"}]}})
    .to_string()
}

#[test]
fn dont_ask_again_sends_the_suggested_rule_back() {
    let mut d = Decoder::default();
    let events = d.decode(&ask_line());
    let UiEvent::Permission(ask) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(ask.rule.as_deref(), Some("Bash(touch x)"));
    let line = d
        .answer_line("r9", &PermissionAnswer::AllowAlways)
        .expect("an open question");
    let v: Value = serde_json::from_str(&line).expect("json");
    let r = &v["response"]["response"];
    assert_eq!(r["behavior"], "allow");
    assert_eq!(r["updatedPermissions"][0]["destination"], "localSettings");
    assert_eq!(
        r["updatedPermissions"][0]["rules"][0]["ruleContent"],
        "touch x"
    );
    // Answered once: a second answer has no question to go to.
    assert!(d.answer_line("r9", &PermissionAnswer::Allow).is_none());
}

#[test]
fn no_stops_the_turn_and_no_with_words_tells_the_model() {
    let mut d = Decoder::default();
    d.decode(&ask_line());
    let plain: Value = serde_json::from_str(
        &d.answer_line("r9", &PermissionAnswer::Deny(String::new()))
            .expect("open"),
    )
    .expect("json");
    assert_eq!(plain["response"]["response"]["behavior"], "deny");
    assert_eq!(plain["response"]["response"]["interrupt"], true);
    d.decode(&ask_line());
    let told: Value = serde_json::from_str(
        &d.answer_line("r9", &PermissionAnswer::Deny("use ls".into()))
            .expect("open"),
    )
    .expect("json");
    let r = &told["response"]["response"];
    assert!(r["message"].as_str().is_some_and(|m| m.contains("use ls")));
    assert!(r.get("interrupt").is_none());
}

#[test]
fn a_mode_change_shows_once_the_session_accepts_it() {
    let mut d = Decoder::default();
    let line: Value = serde_json::from_str(&d.set_mode_line("q1".into(), "plan")).expect("json");
    assert_eq!(line["request"]["subtype"], "set_permission_mode");
    let ok = json!({"type":"control_response","response":{"subtype":"success","request_id":"q1","response":{}}});
    assert_eq!(
        d.decode(&ok.to_string()),
        vec![UiEvent::ModeChanged("plan".into())]
    );
    d.set_mode_line("q2".into(), "plan");
    let err = json!({"type":"control_response","response":{"subtype":"error","request_id":"q2","error":"no"}});
    assert!(matches!(&d.decode(&err.to_string())[0], UiEvent::Notice(_)));
}

#[test]
fn questions_are_answered_in_updated_input() {
    let mut d = Decoder::default();
    let line = json!({"type":"control_request","request_id":"r1","request":{
        "subtype":"can_use_tool","tool_name":"AskUserQuestion","tool_use_id":"t1",
        "input":{"questions":[{"question":"Which?","header":"Pick","multiSelect":false,
            "options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]},
        "permission_suggestions":[]}});
    let events = d.decode(&line.to_string());
    let UiEvent::Permission(ask) = &events[0] else {
        panic!("{events:?}")
    };
    let dcl_tui::view::AskKind::Questions(qs) = &ask.kind else {
        panic!("{ask:?}")
    };
    assert_eq!(qs[0].options[1].0, "B");
    let answer = d
        .answer_line(
            "r1",
            &PermissionAnswer::Answers(vec![("Which?".into(), "B".into())]),
        )
        .expect("open");
    let v: Value = serde_json::from_str(&answer).expect("json");
    let input = &v["response"]["response"]["updatedInput"];
    assert_eq!(input["answers"]["Which?"], "B");
    assert_eq!(input["questions"][0]["header"], "Pick");
}

#[test]
fn a_request_the_terminal_cannot_serve_is_refused_at_once_and_said() {
    let mut d = Decoder::default();
    let line = json!({"type":"control_request","request_id":"r9","request":{
        "subtype":"mcp_server_approval","server_name":"planted","scope":"project","config":{}}});
    let events = d.decode(&line.to_string());
    assert!(
        matches!(&events[..], [UiEvent::Notice(n)] if format!("{n:?}").contains("planted")),
        "{events:?}"
    );
    let refusals: Vec<Value> = d
        .take_refusals()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(refusals.len(), 1);
    assert_eq!(refusals[0]["response"]["subtype"], "error");
    assert_eq!(refusals[0]["response"]["request_id"], "r9");
    assert!(d.take_refusals().is_empty());
    // Twin: a permission request is the terminal's to answer; nothing is refused.
    let ask = json!({"type":"control_request","request_id":"r10","request":{
        "subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}});
    d.decode(&ask.to_string());
    assert!(d.take_refusals().is_empty());
}
