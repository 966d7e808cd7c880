//! `parse_line` on bad input: every failure is a [`LineError`], never a panic.

use crate::common;

use dcl_protocol::*;
use serde_json::{Value, json};

fn bad_shape(line: &str) -> (String, Option<String>) {
    match parse_line(line) {
        Err(LineError::BadShape {
            kind, request_id, ..
        }) => (kind, request_id),
        other => panic!("{line}: expected BadShape, got {other:?}"),
    }
}

#[test]
fn not_json_lines() {
    for line in [
        "this is not json {",
        "",
        "   ",
        "{",
        "{\"type\":\"user\"",
        "Hello from the fake model.",
        "{'type': 'user'}",
        "\u{feff}{}",
        "{\"type\":\"user\"}}",
    ] {
        assert!(
            matches!(parse_line(line), Err(LineError::NotJson(_))),
            "{line:?}: {:?}",
            parse_line(line)
        );
    }
}

#[test]
fn json_without_a_string_type() {
    for line in [
        "[]",
        "42",
        "null",
        "\"user\"",
        "{}",
        r#"{"type":5}"#,
        r#"{"type":null}"#,
        r#"{"type":["user"]}"#,
        r#"{"Type":"user"}"#,
    ] {
        assert_eq!(parse_line(line), Err(LineError::NoType), "{line}");
    }
}

#[test]
fn unknown_types_are_reported_not_fatal() {
    assert_eq!(
        parse_line(r#"{"type":"bogus","x":1}"#),
        Err(LineError::UnknownType("bogus".into()))
    );
    // Case matters, and types other SDK versions send are unknown to dcl.
    for t in [
        "User",
        "transcript_mirror",
        "rate_limit_event",
        "keepalive",
        "",
    ] {
        let line = json!({ "type": t }).to_string();
        assert_eq!(parse_line(&line), Err(LineError::UnknownType(t.into())));
    }
    let e = LineError::UnknownType("bogus".into());
    assert!(e.to_string().contains("bogus"));
}

#[test]
fn user_without_message_is_bad_shape() {
    let (kind, request_id) = bad_shape(r#"{"type":"user"}"#);
    assert_eq!(kind, "user");
    assert_eq!(request_id, None);
    let (kind, _) = bad_shape(r#"{"type":"user","message":null}"#);
    assert_eq!(kind, "user");
    let (kind, _) = bad_shape(r#"{"type":"user","message":{"role":"user"}}"#);
    assert_eq!(kind, "user");
}

#[test]
fn wrong_field_types_are_bad_shape() {
    for line in [
        r#"{"type":"user","message":{"role":"user","content":42}}"#,
        r#"{"type":"user","message":{"role":"user","content":"hi"},"uuid":7}"#,
        r#"{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":3}"#,
        r#"{"type":"user","message":{"role":"user","content":"hi"},"isReplay":"yes"}"#,
        r#"{"type":"user","message":"hi"}"#,
        r#"{"type":"assistant","message":{"id":"m","model":"x","content":"not a list"},"session_id":"s","uuid":"u"}"#,
        r#"{"type":"result","subtype":"success","is_error":"no","duration_ms":1,"duration_api_ms":1,"num_turns":1,"session_id":"s"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":-1,"duration_api_ms":1,"num_turns":1,"session_id":"s"}"#,
        r#"{"type":"system"}"#,
        r#"{"type":"system","subtype":1}"#,
        r#"{"type":"stream_event","session_id":"s","uuid":"u"}"#,
        r#"{"type":"control_response","response":{"subtype":"maybe","request_id":"r"}}"#,
        r#"{"type":"control_response","response":{"subtype":"error","request_id":"r"}}"#,
        r#"{"type":"control_cancel_request"}"#,
        r#"{"type":"tool_result","tool_use_id":"t","content":["x"],"is_error":false,"session_id":"s","uuid":"u"}"#,
        r#"{"type":"usage","usage":{"input_tokens":"many"},"total_cost_usd":0,"session_id":"s","uuid":"u"}"#,
        r#"{"type":"keep_alive","x":1,"type2":[]}garbage"#,
    ] {
        match parse_line(line) {
            Err(LineError::BadShape { message, .. }) => assert!(!message.is_empty()),
            Err(LineError::NotJson(_)) if line.ends_with("garbage") => {}
            other => panic!("{line}: expected BadShape, got {other:?}"),
        }
    }
}

#[test]
fn control_request_without_request_id() {
    let (kind, request_id) =
        bad_shape(r#"{"type":"control_request","request":{"subtype":"interrupt"}}"#);
    assert_eq!(kind, "control_request");
    assert_eq!(request_id, None);
    // A non-string id cannot be answered either.
    let (_, request_id) =
        bad_shape(r#"{"type":"control_request","request_id":7,"request":{"subtype":"interrupt"}}"#);
    assert_eq!(request_id, None);
}

#[test]
fn bad_control_request_keeps_its_request_id() {
    // Missing `request`: still answerable, so the id is reported.
    let (kind, request_id) = bad_shape(r#"{"type":"control_request","request_id":"r1"}"#);
    assert_eq!(kind, "control_request");
    assert_eq!(request_id.as_deref(), Some("r1"));
    let err = parse_line(r#"{"type":"control_request","request_id":"r1"}"#).unwrap_err();
    assert!(err.to_string().contains("control_request"), "{err}");
}

fn host_request(line: &str) -> Result<HostRequest, RequestParseError> {
    match parse_line(line) {
        Ok(Message::ControlRequest(env)) => env.host_request(),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn unknown_vs_invalid_control_subtypes() {
    // Unknown: the reference's exact error text.
    let err = host_request(
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"no_such_subtype"}}"#,
    )
    .unwrap_err();
    assert_eq!(err, RequestParseError::Unknown("no_such_subtype".into()));
    assert_eq!(
        err.to_string(),
        "Unsupported control request subtype: no_such_subtype"
    );

    // Known subtype, wrong shape.
    for request in [
        json!({"subtype": "set_permission_mode"}),
        json!({"subtype": "set_permission_mode", "mode": 5}),
        json!({"subtype": "set_model", "model": 5}),
        json!({"subtype": "cancel_async_message"}),
        json!({"subtype": "mcp_toggle", "serverName": "x"}),
        json!({"subtype": "initialize", "hooks": []}),
        json!({"subtype": "initialize", "systemPrompt": 3}),
        json!({"subtype": "rewind_files", "user_message_id": null}),
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": -1}),
    ] {
        let line = json!({"type": "control_request", "request_id": "r", "request": request});
        match host_request(&line.to_string()) {
            Err(RequestParseError::Invalid { subtype, message }) => {
                assert_eq!(Some(subtype.as_str()), request["subtype"].as_str());
                assert!(!message.is_empty());
            }
            other => panic!("{request}: expected Invalid, got {other:?}"),
        }
    }

    // No subtype at all.
    for request in [
        json!({}),
        json!({"subtype": 1}),
        json!([]),
        json!("interrupt"),
        json!(null),
    ] {
        assert_eq!(
            HostRequest::parse(&request),
            Err(RequestParseError::MissingSubtype),
            "{request}"
        );
    }

    // `type` is the fallback discriminator (Qoder TS); `subtype` wins when both are present.
    assert!(matches!(
        HostRequest::parse(&json!({"type": "interrupt"})),
        Ok(HostRequest::Interrupt(_))
    ));
    assert!(matches!(
        HostRequest::parse(&json!({"type": "initialize", "subtype": "initialize"})),
        Ok(HostRequest::Initialize(_))
    ));
    assert!(matches!(
        HostRequest::parse(&json!({"type": "bogus", "subtype": "mcp_status"})),
        Ok(HostRequest::McpStatus(_))
    ));
}

#[test]
fn blank_and_whitespace_padded_lines() {
    assert!(matches!(parse_line(""), Err(LineError::NotJson(_))));
    assert!(parse_line("  {\"type\":\"keep_alive\"}  \r").is_ok());
}

// ---------------------------------------------------------------------------
// Property-style robustness: many random, truncated and mutated transcript lines.
// ---------------------------------------------------------------------------

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "-0",
    "1.5",
    "18446744073709551616",
    "\\",
    "\\u0000",
    "\\ud800",
    "\u{0}",
    "é",
    "\u{1F600}",
    "\"type\"",
    "\"user\"",
    "\"subtype\"",
    "\"request_id\"",
    " ",
    "\n",
];

const TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "result",
    "stream_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "prompt_suggestion",
    "keep_alive",
    "text",
    "tool_start",
    "tool_result",
    "usage",
];

fn mutate_text(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let len = bytes.len();
        match rng.below(7) {
            0 => bytes.truncate(rng.below(len + 1)),
            1 => {
                let a = rng.below(len + 1);
                let b = (a + 1 + rng.below(16)).min(len);
                bytes.drain(a..b);
            }
            2 => {
                let at = rng.below(len + 1);
                let tok = rng.pick(TOKENS).as_bytes();
                bytes.splice(at..at, tok.iter().copied());
            }
            3 if len > 0 => {
                let at = rng.below(len);
                bytes[at] = (rng.next() & 0xff) as u8;
            }
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + rng.below(64)).min(len);
                let slice = bytes[a..b].to_vec();
                let at = rng.below(bytes.len() + 1);
                bytes.splice(at..at, slice);
            }
            5 if len > 1 => {
                let (a, b) = (rng.below(len), rng.below(len));
                bytes.swap(a, b);
            }
            _ => {
                let at = rng.below(len + 1);
                bytes.truncate(at);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 8 } else { 11 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.next()),
        3 => json!(-(rng.below(1000) as i64)),
        4 => json!(rng.below(10_000) as f64 / 7.0),
        5 => json!(""),
        6 => json!(rng.pick(TYPES)),
        7 => json!("x".repeat(rng.below(300))),
        8 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        9 => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(4) {
                let k = (*rng.pick(&["type", "subtype", "content", "message", "request", "x"]))
                    .to_string();
                m.insert(k, random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => {
            // Nested deeply, but under serde_json's recursion limit for text.
            let mut v = json!([]);
            for _ in 0..rng.below(100) {
                v = json!([v]);
            }
            v
        }
    }
}

/// Replaces, removes or retypes a random node of `value`.
fn mutate_value(rng: &mut Rng, value: &mut Value, depth: usize) {
    let descend = depth < 6 && rng.below(3) != 0;
    match value {
        Value::Object(m) if !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let key = rng.pick(&keys).clone();
            if descend {
                if let Some(child) = m.get_mut(&key) {
                    mutate_value(rng, child, depth + 1);
                }
            } else {
                match rng.below(4) {
                    0 => {
                        m.remove(&key);
                    }
                    1 => {
                        m.insert("type".into(), json!(rng.pick(TYPES)));
                    }
                    2 => {
                        let sub = *rng.pick(HOST_REQUEST_SUBTYPES);
                        m.insert("subtype".into(), json!(sub));
                    }
                    _ => {
                        let v = random_value(rng, depth);
                        m.insert(key, v);
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len());
            if descend {
                mutate_value(rng, &mut a[i], depth + 1);
            } else if rng.below(2) == 0 {
                a.remove(i);
            } else {
                a[i] = random_value(rng, depth);
            }
        }
        _ => *value = random_value(rng, depth),
    }
}

/// Everything a reader may do with a parsed line; none of it may panic.
fn exercise(msg: &Message) {
    let line = to_line(msg);
    assert!(parse_line(&line).is_ok(), "re-parse of {line}");
    match msg {
        Message::ControlRequest(env) => {
            let _ = env.host_request();
            let _ = env.dcl_request();
            let _ = env.subtype();
            if let Ok(HostRequest::Initialize(init)) = env.host_request() {
                let _ = init.hook_matchers();
                let _ = init.agent_definitions();
            }
        }
        Message::ControlResponse(env) => {
            let _ = env.response.decode_payload::<InitializeResponse>();
            let _ = env.response.decode_payload::<ContextUsageResponse>();
            let _ = env.response.decode_payload::<McpStatusResponse>();
            let _ = env.response.decode_payload::<PermissionDecision>();
            let _ = env.response.decode_payload::<HookOutput>();
        }
        Message::System(sys) => {
            let back = SystemMessage::from(sys.typed());
            let _ = to_line(&Message::System(back));
        }
        Message::User(u) => {
            let _ = u.message.content.text();
            let _ = u.parent_tool_use_id();
            let _ = u.priority();
        }
        Message::Assistant(a) => {
            for b in &a.message.content {
                let _ = (b.as_text(), b.as_tool_use(), b.as_tool_result());
            }
        }
        Message::Result(r) => {
            let _ = r.model_usage_typed();
        }
        _ => {}
    }
}

#[test]
fn parse_line_never_panics_on_mutated_transcript_lines() {
    let originals: Vec<Value> = common::records().into_iter().map(|r| r.line).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut outcomes = [0usize; 5];
    let mut tally = |r: &Result<Message, LineError>| {
        let i = match r {
            Ok(_) => 0,
            Err(LineError::NotJson(_)) => 1,
            Err(LineError::NoType) => 2,
            Err(LineError::UnknownType(_)) => 3,
            Err(LineError::BadShape { .. }) => 4,
        };
        outcomes[i] += 1;
    };
    for original in &originals {
        let text = match original {
            Value::String(s) => s.clone(),
            v => serde_json::to_string(v).expect("to_string"),
        };
        // Every prefix length class, plus random byte-level damage.
        for _ in 0..24 {
            let mutated = mutate_text(&mut rng, &text);
            let r = parse_line(&mutated);
            if let Ok(m) = &r {
                exercise(m);
            }
            tally(&r);
        }
        // Structural damage: wrong types, missing keys, swapped `type`/`subtype`.
        if original.is_object() {
            for _ in 0..24 {
                let mut v = original.clone();
                for _ in 0..1 + rng.below(3) {
                    mutate_value(&mut rng, &mut v, 0);
                }
                let text = serde_json::to_string(&v).expect("to_string");
                let r = parse_line(&text);
                if let Ok(m) = &r {
                    exercise(m);
                }
                tally(&r);
                let _ = HostRequest::parse(&v);
                let _ = DclRequest::parse(&v);
                if let Some(req) = v.get("request") {
                    let _ = HostRequest::parse(req);
                    let _ = DclRequest::parse(req);
                }
            }
        }
    }
    // Pathological inputs.
    for text in [
        "[".repeat(100_000),
        "{\"a\":".repeat(50_000),
        format!("{{\"type\":\"user\",\"message\":{}}}", "[".repeat(10_000)),
        format!("{{\"type\":\"{}\"}}", "u".repeat(1 << 20)),
        "\"\\ud800\"".to_string(),
        "1e999999".to_string(),
    ] {
        let r = parse_line(&text);
        tally(&r);
    }
    let total: usize = outcomes.iter().sum();
    eprintln!("outcomes (ok, not_json, no_type, unknown_type, bad_shape): {outcomes:?}");
    assert!(total > 10_000, "only {total} cases");
    // The generator reaches every outcome, so the assertions above saw each path.
    assert!(outcomes.iter().all(|&n| n > 0), "outcomes {outcomes:?}");
}
