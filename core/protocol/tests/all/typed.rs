//! The typed API: constructors, the `parent_tool_use_id` tri-state, legacy lines, system
//! subtypes, request/response helpers, and consistency of the subtype tables.

use dcl_protocol::system::SystemSubtype;
use dcl_protocol::*;
use serde_json::{Value, json};

fn round_trip(line: Value) -> Message {
    let msg = parse_value(line.clone()).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(serde_json::to_value(&msg).expect("serialize"), line);
    msg
}

#[test]
fn parent_tool_use_id_tri_state() {
    let absent = json!({"type":"user","message":{"role":"user","content":"hi"}});
    let null =
        json!({"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null});
    let set = json!({"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":"toolu_1"});
    let Message::User(u) = round_trip(absent) else {
        panic!()
    };
    assert_eq!(u.parent_tool_use_id, None);
    assert_eq!(u.parent_tool_use_id(), None);
    let Message::User(u) = round_trip(null) else {
        panic!()
    };
    assert_eq!(u.parent_tool_use_id, Some(None));
    assert_eq!(u.parent_tool_use_id(), None);
    let Message::User(u) = round_trip(set) else {
        panic!()
    };
    assert_eq!(u.parent_tool_use_id, Some(Some("toolu_1".into())));
    assert_eq!(u.parent_tool_use_id(), Some("toolu_1"));

    // Constructors give the explicit null dcl emits on main-thread lines.
    let line = to_line(&Message::User(UserMessage::new(MessageContent::Text(
        "x".into(),
    ))));
    assert!(line.contains("\"parent_tool_use_id\":null"), "{line}");
    let a = AssistantMessage::new(
        AssistantPayload::new("msg_1", "mock-model", vec![ContentBlock::text("hi")]),
        "s",
        "u",
    );
    let v = serde_json::to_value(Message::Assistant(a)).unwrap();
    assert_eq!(v["parent_tool_use_id"], Value::Null);
    assert!(v.as_object().unwrap().contains_key("parent_tool_use_id"));
    assert_eq!(v["message"]["stop_reason"], Value::Null);
    let e = StreamEventMessage::new(json!({"type":"message_stop"}), "s", "u");
    let v = serde_json::to_value(Message::StreamEvent(e)).unwrap();
    assert!(v.as_object().unwrap().contains_key("parent_tool_use_id"));
}

#[test]
fn explicit_nulls_survive() {
    // api_error_status: null vs absent.
    let base = json!({"type":"result","subtype":"success","is_error":false,"duration_ms":1,
        "duration_api_ms":1,"num_turns":1,"session_id":"s","total_cost_usd":0,"usage":{
        "input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},
        "modelUsage":{},"permission_denials":[],"stop_reason":null});
    let mut with_null = base.clone();
    with_null["api_error_status"] = Value::Null;
    let Message::Result(r) = round_trip(with_null) else {
        panic!()
    };
    assert_eq!(r.api_error_status, Some(Value::Null));
    let Message::Result(r) = round_trip(base) else {
        panic!()
    };
    assert_eq!(r.api_error_status, None);
    // Whole-number costs are written as integers, as the reference does.
    assert_eq!(r.total_cost_usd, 0.0);
}

#[test]
fn legacy_lines_round_trip() {
    let lines = [
        json!({"type":"text","text":"hello","session_id":"s","uuid":"u"}),
        json!({"type":"tool_start","tool_use_id":"t1","name":"Bash","input":{"command":"ls"},"session_id":"s","uuid":"u"}),
        json!({"type":"tool_result","tool_use_id":"t1","content":"a\nb","is_error":false,"session_id":"s","uuid":"u"}),
        json!({"type":"usage","usage":{"input_tokens":3,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"total_cost_usd":0.0012,"session_id":"s","uuid":"u"}),
    ];
    for line in lines {
        let msg = round_trip(line.clone());
        assert!(msg.is_legacy());
        assert_eq!(Some(msg.kind()), line["type"].as_str());
    }
    let msg = Message::ToolResult(LegacyToolResultMessage {
        tool_use_id: "t".into(),
        content: "out".into(),
        is_error: true,
        session_id: "s".into(),
        uuid: "u".into(),
        extra: Default::default(),
    });
    assert_eq!(
        serde_json::from_str::<Value>(&to_line(&msg)).unwrap(),
        json!({"type":"tool_result","tool_use_id":"t","content":"out","is_error":true,"session_id":"s","uuid":"u"})
    );
}

#[test]
fn every_message_kind_is_a_known_type() {
    let samples = [
        json!({"type":"user","message":{"role":"user","content":"hi"}}),
        json!({"type":"assistant","message":{"id":"m","model":"x","content":[]},"session_id":"s","uuid":"u"}),
        json!({"type":"system","subtype":"x"}),
        json!({"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"session_id":"s"}),
        json!({"type":"stream_event","event":{},"session_id":"s","uuid":"u"}),
        json!({"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"r"}}),
        json!({"type":"control_cancel_request","request_id":"r"}),
        json!({"type":"prompt_suggestion","suggestion":"x","session_id":"s","uuid":"u"}),
        json!({"type":"keep_alive"}),
        json!({"type":"text","text":"t","session_id":"s","uuid":"u"}),
        json!({"type":"tool_start","tool_use_id":"t","name":"n","input":{},"session_id":"s","uuid":"u"}),
        json!({"type":"tool_result","tool_use_id":"t","content":"","is_error":false,"session_id":"s","uuid":"u"}),
        json!({"type":"usage","usage":{},"total_cost_usd":0,"session_id":"s","uuid":"u"}),
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for s in samples {
        let msg = parse_value(s.clone()).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(Some(msg.kind()), s["type"].as_str());
        kinds.insert(msg.kind());
    }
    assert_eq!(kinds.len(), 14, "one sample per Message variant");
}

#[test]
fn host_subtype_table_matches_the_enum() {
    for &subtype in HOST_REQUEST_SUBTYPES {
        match HostRequest::parse(&json!({ "subtype": subtype })) {
            Ok(req) => assert_eq!(req.subtype(), subtype),
            Err(RequestParseError::Invalid { subtype: s, .. }) => assert_eq!(s, subtype),
            Err(e) => panic!("{subtype}: {e}"),
        }
    }
    let unique: std::collections::BTreeSet<_> = HOST_REQUEST_SUBTYPES.iter().collect();
    assert_eq!(unique.len(), HOST_REQUEST_SUBTYPES.len());
}

#[test]
fn dcl_subtype_table_matches_the_enum() {
    for &subtype in DCL_REQUEST_SUBTYPES {
        match DclRequest::parse(&json!({ "subtype": subtype })) {
            Ok(req) => assert_eq!(req.subtype(), subtype),
            Err(RequestParseError::Invalid { subtype: s, .. }) => assert_eq!(s, subtype),
            Err(e) => panic!("{subtype}: {e}"),
        }
    }
    assert_eq!(
        DclRequest::parse(&json!({"subtype":"initialize"})),
        Err(RequestParseError::Unknown("initialize".into()))
    );
}

#[test]
fn host_requests_decode_typed_fields() {
    let req = HostRequest::parse(&json!({
        "subtype": "initialize",
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 5, "onFailure": "block"}]},
        "agents": {"greeter": {"description": "d", "prompt": "p", "tools": ["Read"], "model": "haiku"}},
        "systemPrompt": ["a", "b"],
        "sdkMcpServers": ["calc"],
        "enableFileCheckpointing": true,
        "someFutureField": {"x": 1}
    }))
    .unwrap();
    let HostRequest::Initialize(init) = &req else {
        panic!()
    };
    let hooks = init.hook_matchers().unwrap();
    assert_eq!(hooks[0].0, "PreToolUse");
    assert_eq!(hooks[0].1.on_failure.as_deref(), Some("block"));
    let agents = init.agent_definitions().unwrap();
    assert_eq!(agents[0].1.model.as_deref(), Some("haiku"));
    assert_eq!(init.system_prompt.as_ref().unwrap().joined(), "a\n\nb");
    assert_eq!(init.enable_file_checkpointing, Some(true));
    assert!(init.extra.contains_key("someFutureField"));
    // `timeout: 5` stays an integer.
    let back = serde_json::to_value(&req).unwrap();
    assert_eq!(back["hooks"]["PreToolUse"][0]["timeout"], json!(5));

    let HostRequest::SetPlanMode(p) =
        HostRequest::parse(&json!({"type": "set_plan_mode", "active": true})).unwrap()
    else {
        panic!()
    };
    assert!(p.active);
    assert_eq!(
        HostRequest::parse(&json!({"subtype":"list_plugins"}))
            .unwrap()
            .unsupported_message(),
        "Unsupported control request subtype: list_plugins"
    );
}

#[test]
fn dcl_requests_and_host_answers() {
    let mut req = CanUseToolRequest::new("Write", json!({"file_path": "a"}), "toolu_1");
    req.description = Some("a".into());
    let env = ControlRequestEnvelope::from_payload("r1", &req).unwrap();
    assert_eq!(env.subtype(), Some("can_use_tool"));
    assert_eq!(env.dcl_request().unwrap(), DclRequest::CanUseTool(req));
    // Empty suggestions are omitted, as the reference does.
    assert!(env.request.get("permission_suggestions").is_none());

    let allow = ControlResponse::success(
        "r1",
        Some(
            json!({"behavior":"allow","updatedInput":{"x":1},"toolUseID":"toolu_1",
            "updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls"}],"behavior":"allow","destination":"session"},
                                  {"type":"setMode","mode":"acceptEdits","destination":"session"}]}),
        ),
    );
    let decision: PermissionDecision = allow.decode_payload().unwrap();
    let updates = decision.permission_updates();
    assert_eq!(updates.len(), 2);
    assert!(matches!(&updates[1], PermissionUpdate::SetMode { mode, .. } if mode == "acceptEdits"));
    let PermissionDecision::Allow { extra, .. } = &decision else {
        panic!()
    };
    assert_eq!(extra["toolUseID"], json!("toolu_1"));

    let err = ControlResponse::error("r2", "canUseTool callback is not provided");
    assert!(matches!(
        err.decode_payload::<PermissionDecision>(),
        Err(PayloadError::Refused(m)) if m == "canUseTool callback is not provided"
    ));
    // No payload decodes as `{}`.
    let hook: HookOutput = ControlResponse::success("r3", None)
        .decode_payload()
        .unwrap();
    assert_eq!(hook, HookOutput::default());

    let elicit: ElicitationResponse =
        serde_json::from_value(json!({"action":"accept","content":{"name":"x"}})).unwrap();
    assert_eq!(elicit.action, ElicitationAction::Accept);
    let mcp: McpMessageResponse =
        serde_json::from_value(json!({"mcp_response":{"jsonrpc":"2.0","id":2,"result":{}}}))
            .unwrap();
    assert_eq!(mcp.mcp_response["id"], json!(2));

    let e = ElicitationRequest::new("srv", "Your name?");
    let v = serde_json::to_value(DclRequest::from(e)).unwrap();
    assert_eq!(
        v,
        json!({"subtype":"elicitation","mcp_server_name":"srv","message":"Your name?"})
    );
    let tok =
        DclRequest::parse(&json!({"type":"fetch_service_account_token","required_scopes":["a"]}))
            .unwrap();
    assert_eq!(tok.subtype(), "fetch_service_account_token");
}

#[test]
fn responses_serialize_as_documented() {
    let resp = InitializeResponse {
        pid: Some(42),
        ..InitializeResponse::default()
    };
    let v = serde_json::to_value(&resp).unwrap();
    assert_eq!(v["hook_on_failure_supported"], json!(true));
    assert_eq!(v["account"], json!({}));
    assert_eq!(v["claude_code_version"], json!(PROTOCOL_LEVEL));

    let status = McpStatusResponse::new(vec![McpServerStatus::new("calc", "connected")]);
    let v = serde_json::to_value(&status).unwrap();
    assert_eq!(v["mcpServers"], v["servers"]);
    assert_eq!(status.list().len(), 1);

    let r = ControlResponse::success_with("r", &InterruptResponse::default());
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"subtype":"success","request_id":"r","response":{"still_queued":[]}})
    );
    let usage = ContextUsageResponse {
        is_auto_compact_enabled: true,
        ..ContextUsageResponse::new(
            vec![ContextCategory::new("Messages", 10, "purple")],
            10,
            100,
            10.0,
            "m",
        )
    };
    let v = serde_json::to_value(&usage).unwrap();
    assert_eq!(v["percentage"], json!(10));
    assert_eq!(v["totalTokens"], json!(10));

    let settings = GetSettingsResponse {
        effective: serde_json::Map::new(),
        sources: vec![SettingsSource {
            source: "user".into(),
            path: None,
            settings: serde_json::Map::new(),
            extra: Default::default(),
        }],
        applied: AppliedSettings {
            model: Some("m".into()),
            effort: None,
            extra: Default::default(),
        },
        extra: Default::default(),
    };
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({"effective":{},"sources":[{"source":"user","settings":{}}],"applied":{"model":"m","effort":null}})
    );
}

#[test]
fn system_subtypes_convert_both_ways() {
    let init = SystemInit::new("sess", "u1", "/repo", "mock-model")
        .with_qoder(vec!["plan_mode_v1".into()]);
    let msg = SystemMessage::from(init.clone());
    assert_eq!(msg.subtype, "init");
    assert_eq!(msg.session_id.as_deref(), Some("sess"));
    assert_eq!(msg.uuid.as_deref(), Some("u1"));
    assert_eq!(
        msg.fields["protocol_version"],
        json!(QODER_PROTOCOL_VERSION)
    );
    assert_eq!(msg.fields["permissionMode"], json!("default"));
    assert!(!msg.fields.contains_key("session_id"));
    assert_eq!(SystemInit::try_from(&msg).unwrap(), init);

    // Through a full line and back.
    let line = to_line(&Message::from(init.clone()));
    let Ok(Message::System(parsed)) = parse_line(&line) else {
        panic!("{line}")
    };
    assert_eq!(parsed.typed(), SystemEvent::Init(init));

    // Wrong subtype / wrong shape / unknown subtype.
    let status = SystemStatus {
        status: None,
        permission_mode: Some("plan".into()),
        session_id: "s".into(),
        uuid: "u".into(),
        extra: Default::default(),
    };
    let msg = SystemMessage::from(status.clone());
    assert_eq!(
        serde_json::to_value(Message::System(msg.clone())).unwrap(),
        json!({"type":"system","subtype":"status","session_id":"s","uuid":"u","status":null,"permissionMode":"plan"})
    );
    assert!(matches!(
        SystemInit::try_from(&msg),
        Err(SystemConvertError::WrongSubtype {
            expected: "init",
            ..
        })
    ));
    let mut broken = SystemMessage::new("api_retry");
    broken.fields.insert("attempt".into(), json!("one"));
    assert!(matches!(
        SystemApiRetry::try_from(&broken),
        Err(SystemConvertError::BadShape { .. })
    ));
    assert!(matches!(broken.typed(), SystemEvent::Other(_)));
    let other = SystemMessage::new("files_persisted");
    assert_eq!(other.typed(), SystemEvent::Other(other.clone()));
    assert_eq!(SystemMessage::from(other.typed()), other);

    let retry = SystemApiRetry {
        attempt: 1,
        max_retries: 2,
        retry_delay_ms: 538.3,
        error_status: Some(529),
        error: "overloaded".into(),
        session_id: "s".into(),
        uuid: "u".into(),
        extra: Default::default(),
    };
    let back = SystemApiRetry::try_from(&SystemMessage::from(retry.clone())).unwrap();
    assert_eq!(back, retry);
    for &s in dcl_protocol::system::SYSTEM_SUBTYPES {
        assert!(!s.is_empty());
    }
}

#[test]
fn user_accessors_read_qoder_fields() {
    let Message::User(u) = round_trip(
        json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
        "parent_tool_use_id":null,"uuid":"x","priority":"now","shouldQuery":false,"origin":{"kind":"human"}}),
    ) else {
        panic!()
    };
    assert_eq!(u.priority(), Some("now"));
    assert_eq!(u.should_query(), Some(false));
    assert_eq!(u.origin(), Some(&json!({"kind":"human"})));
    assert_eq!(u.message.content.text(), "a\nb");
}

/// The typed frames keep the key order dcl has always written (the struct's order, after
/// `type`, `subtype`, `session_id`, `uuid`).
#[test]
fn typed_system_frames_keep_their_key_order() {
    let init = SystemInit::new("s", "u", "/c", "m").with_qoder(vec!["x".into()]);
    assert_eq!(
        to_line(&Message::from(init))
            .replace(DCL_VERSION, "DCLV")
            .replace(PROTOCOL_LEVEL, "LEVEL"),
        r#"{"type":"system","subtype":"init","session_id":"s","uuid":"u","cwd":"/c","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","slash_commands":[],"apiKeySource":"none","claude_code_version":"LEVEL","dcl_version":"DCLV","output_style":"default","agents":[],"skills":[],"plugins":[],"qodercli_version":"LEVEL","protocol_version":"1.4.0","capabilities":["x"]}"#
    );
    let retry = SystemApiRetry::new(1, 2, 500, Some(529), "overloaded").into_message();
    assert_eq!(
        to_line(&retry),
        r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":500,"error_status":529,"error":"overloaded"}"#
    );
    let mode = SystemStatus::permission_mode_changed(PermissionModeName::AcceptEdits);
    assert_eq!(
        to_line(&mode.into_message()),
        r#"{"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits"}"#
    );
}
