//! Every stdin/stdout line of the reference transcripts parses into the typed [`Message`] and
//! serializes back to the same JSON value (key order aside); control requests and the
//! response payloads dcl produces round-trip through their typed structs too.

use crate::common;

use std::collections::HashMap;

use dcl_protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use common::{Record, records};

/// `serde_json::Value` equality ignores object key order (the map compares as a map).
fn same(a: &Value, b: &Value) -> bool {
    a == b
}

fn first_difference(orig: &Value, back: &Value, path: &str) -> String {
    match (orig, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    None => return format!("{path}.{k}: missing after round trip"),
                    Some(vb) if va != vb => {
                        return first_difference(va, vb, &format!("{path}.{k}"));
                    }
                    _ => {}
                }
            }
            for k in b.keys() {
                if !a.contains_key(k) {
                    return format!("{path}.{k}: added by round trip ({})", b[k]);
                }
            }
            format!("{path}: ?")
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if va != vb {
                    return first_difference(va, vb, &format!("{path}[{i}]"));
                }
            }
            format!("{path}: ?")
        }
        _ => format!("{path}: {orig} became {back}"),
    }
}

fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("decode: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("encode: {e}"))?;
    if same(value, &back) {
        Ok(())
    } else {
        Err(first_difference(value, &back, "$"))
    }
}

fn object_records() -> Vec<Record> {
    records()
        .into_iter()
        .filter(|r| r.line.is_object())
        .collect()
}

#[test]
fn every_line_round_trips_through_message() {
    let mut failures = Vec::new();
    let mut parsed = 0usize;
    let mut unknown = Vec::new();
    let mut not_json = 0usize;
    for rec in records() {
        match &rec.line {
            Value::String(raw) => match parse_line(raw) {
                Err(LineError::NotJson(_)) => not_json += 1,
                other => failures.push(format!("{}: raw line gave {other:?}", rec.at())),
            },
            value => {
                let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
                match parse_value(value.clone()) {
                    Ok(msg) => {
                        parsed += 1;
                        assert_eq!(msg.kind(), ty, "{}", rec.at());
                        let back = serde_json::to_value(&msg).expect("serialize");
                        if !same(value, &back) {
                            failures.push(format!(
                                "{}: {}",
                                rec.at(),
                                first_difference(value, &back, "$")
                            ));
                        }
                        // The text path agrees with the value path.
                        let text = serde_json::to_string(value).expect("to_string");
                        match parse_line(&text) {
                            Ok(m) if m == msg => {}
                            other => {
                                failures.push(format!("{}: parse_line gave {other:?}", rec.at()))
                            }
                        }
                        let relined: Value =
                            serde_json::from_str(&to_line(&msg)).expect("to_line is JSON");
                        if !same(value, &relined) {
                            failures.push(format!("{}: to_line differs", rec.at()));
                        }
                    }
                    Err(LineError::UnknownType(t)) => unknown.push((rec.at(), t)),
                    Err(e) => failures.push(format!("{}: {e}", rec.at())),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(parsed >= 300, "only {parsed} lines parsed");
    assert_eq!(
        not_json, 2,
        "the two raw lines (stdin garbage, -p text output)"
    );
    assert_eq!(
        unknown.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>(),
        vec!["bogus"],
        "unknown types: {unknown:?}"
    );
}

#[test]
fn unknown_type_and_raw_lines_are_reported() {
    let recs = records();
    let bogus = recs
        .iter()
        .find(|r| r.line.get("type").and_then(Value::as_str) == Some("bogus"))
        .expect("h2 has a bogus line");
    assert_eq!(
        parse_value(bogus.line.clone()),
        Err(LineError::UnknownType("bogus".into()))
    );
    let text = serde_json::to_string(&bogus.line).expect("to_string");
    assert_eq!(
        parse_line(&text),
        Err(LineError::UnknownType("bogus".into()))
    );

    let raws: Vec<&Record> = recs.iter().filter(|r| r.line.is_string()).collect();
    assert!(!raws.is_empty());
    for r in raws {
        let raw = r.line.as_str().unwrap_or_default();
        assert!(
            matches!(parse_line(raw), Err(LineError::NotJson(_))),
            "{}",
            r.at()
        );
    }
}

#[test]
fn control_requests_round_trip_typed() {
    let mut failures = Vec::new();
    let (mut host, mut dcl, mut unknown) = (0, 0, Vec::new());
    for rec in object_records() {
        let Ok(Message::ControlRequest(env)) = parse_value(rec.line.clone()) else {
            continue;
        };
        let request = &env.request;
        if rec.dir == "stdin" {
            match HostRequest::parse(request) {
                Ok(req) => {
                    host += 1;
                    assert_eq!(Some(req.subtype()), env.subtype(), "{}", rec.at());
                    let back = serde_json::to_value(&req).expect("serialize");
                    if !same(request, &back) {
                        failures.push(format!(
                            "{}: {}",
                            rec.at(),
                            first_difference(request, &back, "$")
                        ));
                    }
                }
                Err(RequestParseError::Unknown(s)) => unknown.push(s),
                Err(e) => failures.push(format!("{}: {e}", rec.at())),
            }
        } else {
            match env.dcl_request() {
                Ok(req) => {
                    dcl += 1;
                    assert_eq!(Some(req.subtype()), env.subtype(), "{}", rec.at());
                    let back = serde_json::to_value(&req).expect("serialize");
                    if !same(request, &back) {
                        failures.push(format!(
                            "{}: {}",
                            rec.at(),
                            first_difference(request, &back, "$")
                        ));
                    }
                }
                Err(e) => failures.push(format!("{}: {e}", rec.at())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(host >= 40, "host requests: {host}");
    assert!(dcl >= 7, "dcl requests: {dcl}");
    assert_eq!(unknown, vec!["no_such_subtype".to_string()]);
}

#[test]
fn response_payloads_round_trip_typed() {
    // request_id -> subtype, per direction of the request.
    let mut host_subtypes: HashMap<(String, String), String> = HashMap::new();
    let mut dcl_subtypes: HashMap<(String, String), String> = HashMap::new();
    let recs = object_records();
    for rec in &recs {
        if let Ok(Message::ControlRequest(env)) = parse_value(rec.line.clone()) {
            let key = (rec.file.clone(), env.request_id.clone());
            let subtype = env.subtype().unwrap_or_default().to_string();
            if rec.dir == "stdin" {
                host_subtypes.insert(key, subtype);
            } else {
                dcl_subtypes.insert(key, subtype);
            }
        }
    }

    let mut failures = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for rec in &recs {
        let Ok(Message::ControlResponse(env)) = parse_value(rec.line.clone()) else {
            continue;
        };
        let ControlResponse::Success {
            request_id,
            response: Some(payload),
            ..
        } = &env.response
        else {
            continue;
        };
        let key = (rec.file.clone(), request_id.clone());
        let (subtype, result) = if rec.dir == "stdout" {
            let Some(subtype) = host_subtypes.get(&key) else {
                failures.push(format!("{}: answer to an unknown request", rec.at()));
                continue;
            };
            let result = match subtype.as_str() {
                "initialize" => round_trip::<InitializeResponse>(payload),
                "get_context_usage" => round_trip::<ContextUsageResponse>(payload),
                "mcp_status" => round_trip::<McpStatusResponse>(payload),
                "set_permission_mode" => round_trip::<SetPermissionModeResponse>(payload),
                "set_model" => round_trip::<SetModelResponse>(payload),
                "interrupt" => round_trip::<InterruptResponse>(payload),
                other => Err(format!("no typed response for {other}")),
            };
            (subtype.clone(), result)
        } else {
            let Some(subtype) = dcl_subtypes.get(&key) else {
                failures.push(format!("{}: answer to an unknown request", rec.at()));
                continue;
            };
            let result = match subtype.as_str() {
                "can_use_tool" => round_trip::<PermissionDecision>(payload),
                "hook_callback" => round_trip::<HookOutput>(payload),
                "mcp_message" => round_trip::<McpMessageResponse>(payload),
                other => Err(format!("no typed answer for {other}")),
            };
            (subtype.clone(), result)
        };
        *seen.entry(subtype.clone()).or_default() += 1;
        if let Err(e) = result {
            failures.push(format!("{} ({subtype}): {e}", rec.at()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for needed in [
        "initialize",
        "get_context_usage",
        "mcp_status",
        "set_permission_mode",
        "can_use_tool",
    ] {
        assert!(
            seen.get(needed).copied().unwrap_or(0) > 0,
            "no {needed} answer seen: {seen:?}"
        );
    }
}

#[test]
fn initialize_answer_decodes_with_every_field() {
    let recs = object_records();
    let mut checked = 0;
    for rec in &recs {
        let Ok(Message::ControlResponse(env)) = parse_value(rec.line.clone()) else {
            continue;
        };
        let Ok(init) = env.response.decode_payload::<InitializeResponse>() else {
            continue;
        };
        checked += 1;
        assert!(!init.commands.is_empty(), "{}", rec.at());
        assert!(
            init.models.iter().any(|m| m.resolved_model.is_some()),
            "{}",
            rec.at()
        );
        assert_eq!(
            init.account.api_key_source.as_deref(),
            Some("ANTHROPIC_API_KEY")
        );
        assert!(init.pid.is_some());
        // The typed catalogue fields decode; keys dcl does not model (`supportsAutoMode`)
        // survive in `extra`.
        assert!(init.models.iter().any(|m| {
            m.supports_adaptive_thinking == Some(true)
                && m.supported_effort_levels
                    .as_ref()
                    .is_some_and(|l| !l.is_empty())
        }));
        assert!(
            init.models
                .iter()
                .any(|m| m.extra.contains_key("supportsAutoMode"))
        );
    }
    assert!(checked > 10, "initialize answers decoded: {checked}");
}

#[test]
fn system_lines_convert_to_typed_and_back() {
    let mut failures = Vec::new();
    let mut typed: HashMap<String, usize> = HashMap::new();
    for rec in object_records() {
        let Ok(Message::System(msg)) = parse_value(rec.line.clone()) else {
            continue;
        };
        let event = msg.typed();
        if let SystemEvent::Other(_) = event {
            failures.push(format!("{}: system/{} not typed", rec.at(), msg.subtype));
            continue;
        }
        *typed.entry(event.subtype().to_string()).or_default() += 1;
        let back = SystemMessage::from(event);
        let (a, b) = (
            serde_json::to_value(&msg).expect("serialize"),
            serde_json::to_value(&back).expect("serialize"),
        );
        if !same(&a, &b) {
            failures.push(format!("{}: {}", rec.at(), first_difference(&a, &b, "$")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for needed in ["init", "status", "api_retry", "thinking_tokens"] {
        assert!(typed.contains_key(needed), "{needed} missing: {typed:?}");
    }
}

#[test]
fn init_lines_decode_as_system_init() {
    let mut n = 0;
    for rec in object_records() {
        let Ok(Message::System(msg)) = parse_value(rec.line.clone()) else {
            continue;
        };
        if msg.subtype != "init" {
            continue;
        }
        let init = SystemInit::try_from(&msg).unwrap_or_else(|e| panic!("{}: {e}", rec.at()));
        assert_eq!(init.claude_code_version.as_deref(), Some("2.1.197"));
        assert!(!init.tools.is_empty());
        assert_eq!(Some(init.session_id.as_str()), msg.session_id.as_deref());
        n += 1;
    }
    assert!(n >= 30, "init lines: {n}");
}
