//! Checks lines against the exported schema ([`crate::schema::schema_document`]), with the
//! `jsonschema` crate (feature `validate`).
//!
//! * [`SchemaValidator::check_line`]: one line dcl wrote to stdout;
//! * [`SchemaValidator::check_answer`]: the payload of a `success` answer, against the type of
//!   the request it answers (a control response does not say which request that was);
//! * [`StreamChecker`]: a whole session, stdin and stdout, pairing answers with requests.
//!
//! The verdict is the root schema's; when a line fails, it is checked again against the one
//! `$defs` entry its `type` (and `subtype`) selects, so the message names the field at fault
//! instead of "not valid under any of the schemas listed in oneOf".

use std::collections::HashMap;
use std::fmt;

use jsonschema::{Validator, ValidatorMap};
use serde_json::Value;

use crate::responses::ANSWER_SCHEMAS;
use crate::system::SYSTEM_SUBTYPE_SCHEMAS;

/// The `$defs` entry of each line `type` (`system` is chosen by its subtype).
const LINE_SCHEMAS: &[(&str, &str)] = &[
    ("user", "UserMessage"),
    ("assistant", "AssistantMessage"),
    ("result", "ResultMessage"),
    ("stream_event", "StreamEventMessage"),
    ("control_request", "ControlRequestEnvelope"),
    ("control_response", "ControlResponseEnvelope"),
    ("control_cancel_request", "ControlCancelRequest"),
    ("prompt_suggestion", "PromptSuggestionMessage"),
    ("tool_progress", "ToolProgressMessage"),
    ("text", "LegacyTextMessage"),
    ("tool_start", "LegacyToolStartMessage"),
    ("tool_result", "LegacyToolResultMessage"),
    ("usage", "LegacyUsageMessage"),
];

/// The schema document itself does not compile (a bug in this crate, or a broken file).
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError(pub String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the protocol schema does not compile: {}", self.0)
    }
}

impl std::error::Error for SchemaError {}

/// Why a line or payload does not match the schema: each error with the JSON path it is at.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// What the line is (`system/init`, `result`, `answer to initialize`, …).
    pub what: String,
    pub errors: Vec<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.errors.join("; "))
    }
}

impl std::error::Error for Violation {}

/// The compiled schema.
pub struct SchemaValidator {
    root: Validator,
    defs: ValidatorMap,
}

impl fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaValidator").finish_non_exhaustive()
    }
}

impl SchemaValidator {
    /// The validator of this crate's schema.
    pub fn new() -> Result<Self, SchemaError> {
        Self::from_document(&crate::schema::schema_document())
    }

    /// A validator of a given document (e.g. the committed golden file).
    pub fn from_document(doc: &Value) -> Result<Self, SchemaError> {
        let root = jsonschema::validator_for(doc).map_err(|e| SchemaError(e.to_string()))?;
        let defs = jsonschema::validator_map_for(doc).map_err(|e| SchemaError(e.to_string()))?;
        Ok(SchemaValidator { root, defs })
    }

    /// Checks one line dcl wrote.
    pub fn check_line(&self, line: &Value) -> Result<(), Violation> {
        if self.root.is_valid(line) {
            return Ok(());
        }
        let kind = line.get("type").and_then(Value::as_str);
        let subtype = line.get("subtype").and_then(Value::as_str);
        let what = match (kind, subtype) {
            (Some("system"), Some(s)) => format!("system/{s}"),
            (Some(k), _) => k.to_string(),
            (None, _) => "line".to_string(),
        };
        let def = match kind {
            None => return Err(violation(what, "no string \"type\"")),
            Some("system") => match subtype {
                None => return Err(violation(what, "system line without a string \"subtype\"")),
                Some(s) => match lookup(SYSTEM_SUBTYPE_SCHEMAS, s) {
                    Some(d) => d,
                    None => return Err(violation(what, format!("unknown system subtype {s:?}"))),
                },
            },
            Some(k) => match lookup(LINE_SCHEMAS, k) {
                Some(d) => d,
                None => return Err(violation(what, format!("unknown line type {k:?}"))),
            },
        };
        let mut errors = self.def_errors(def, line);
        if errors.is_empty() {
            // The entry accepts it but the root does not: the `type` tag is what is wrong.
            errors.push(format!("does not match the root schema (as {def})"));
        }
        Err(Violation { errors, what })
    }

    /// Checks the payload of dcl's `success` answer to a `request_subtype` request. A request
    /// whose answer has no typed payload passes.
    pub fn check_answer(&self, request_subtype: &str, payload: &Value) -> Result<(), Violation> {
        let Some(def) = lookup(ANSWER_SCHEMAS, request_subtype) else {
            return Ok(());
        };
        let errors = self.def_errors(def, payload);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Violation {
                what: format!("answer to {request_subtype}"),
                errors,
            })
        }
    }

    fn def_errors(&self, def: &str, value: &Value) -> Vec<String> {
        let Some(v) = self.defs.get(&format!("#/$defs/{def}")) else {
            return vec![format!("the schema has no $defs/{def}")];
        };
        v.iter_errors(value)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{} {e}", if at.is_empty() { "/" } else { &at })
            })
            .collect()
    }
}

fn lookup(table: &[(&str, &'static str)], key: &str) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, d)| *d)
}

fn violation(what: String, error: impl Into<String>) -> Violation {
    Violation {
        what,
        errors: vec![error.into()],
    }
}

/// Checks a whole session: feed every stdin line (`host_line`) and stdout line (`dcl_line`) in
/// order, so each `success` answer is checked against the request it answers.
#[derive(Debug)]
pub struct StreamChecker<'a> {
    validator: &'a SchemaValidator,
    /// `request_id` → subtype of the host's requests not answered yet.
    pending: HashMap<String, String>,
}

impl<'a> StreamChecker<'a> {
    pub fn new(validator: &'a SchemaValidator) -> Self {
        StreamChecker {
            validator,
            pending: HashMap::new(),
        }
    }

    /// A line the host sent: remembers its control requests.
    pub fn host_line(&mut self, line: &Value) {
        if line.get("type").and_then(Value::as_str) != Some("control_request") {
            return;
        }
        let id = line.get("request_id").and_then(Value::as_str);
        let request = line.get("request");
        // Requests name their kind in `subtype`, Qoder TS in `type`.
        let subtype = request
            .and_then(|r| r.get("subtype").or_else(|| r.get("type")))
            .and_then(Value::as_str);
        if let (Some(id), Some(subtype)) = (id, subtype) {
            self.pending.insert(id.to_string(), subtype.to_string());
        }
    }

    /// A line dcl wrote: the line itself, then, for an answer, its payload.
    pub fn dcl_line(&mut self, line: &Value) -> Result<(), Violation> {
        self.validator.check_line(line)?;
        if line.get("type").and_then(Value::as_str) != Some("control_response") {
            return Ok(());
        }
        let Some(response) = line.get("response") else {
            return Ok(());
        };
        let id = response.get("request_id").and_then(Value::as_str);
        let Some(subtype) = id.and_then(|id| self.pending.remove(id)) else {
            return Ok(());
        };
        match response.get("response") {
            Some(payload) if response.get("subtype").and_then(Value::as_str) == Some("success") => {
                self.validator.check_answer(&subtype, payload)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::SystemSubtype;
    use serde_json::json;

    fn validator() -> SchemaValidator {
        SchemaValidator::new().expect("schema compiles")
    }

    fn init_line() -> Value {
        serde_json::to_value(crate::Message::from(crate::SystemInit::new(
            "sess",
            "u-1",
            "/repo",
            "mock-model",
        )))
        .unwrap()
    }

    fn result_line() -> Value {
        json!({
            "type": "result", "subtype": "success", "is_error": false, "duration_ms": 5,
            "duration_api_ms": 3, "num_turns": 1, "result": "hi", "stop_reason": "end_turn",
            "session_id": "sess", "total_cost_usd": 0,
            "usage": {"input_tokens": 1, "output_tokens": 2, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0},
            "modelUsage": {"mock-model": {"inputTokens": 1, "outputTokens": 2,
                "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
                "webSearchRequests": 0, "costUSD": 0, "contextWindow": 200000,
                "maxOutputTokens": 32000}},
            "permission_denials": [], "terminal_reason": "completed",
            "api_error_status": null, "uuid": "u-2"
        })
    }

    fn rejected(v: &SchemaValidator, line: &Value) -> Violation {
        match v.check_line(line) {
            Err(e) => e,
            Ok(()) => panic!("accepted a broken line: {line}"),
        }
    }

    #[test]
    fn good_lines_pass() {
        let v = validator();
        v.check_line(&init_line()).unwrap();
        v.check_line(&result_line()).unwrap();
        let retry = crate::SystemApiRetry::new(1, 2, 500, Some(529), "overloaded").into_message();
        let mut retry = serde_json::to_value(retry).unwrap();
        retry["session_id"] = json!("s");
        retry["uuid"] = json!("u");
        v.check_line(&retry).unwrap();
    }

    #[test]
    fn a_result_built_by_new_passes_once_stamped() {
        let v = validator();
        let mut r = crate::ResultMessage::new(
            crate::ResultSubtype::ErrorDuringExecution,
            true,
            crate::TerminalReason::ResumeUnsupported,
            "sess",
        );
        r.errors = Some(vec!["cannot resume".into()]);
        let unstamped = serde_json::to_value(crate::Message::Result(r.clone())).unwrap();
        assert!(rejected(&v, &unstamped).to_string().contains("uuid"));
        r.uuid = Some("u".into());
        v.check_line(&serde_json::to_value(crate::Message::Result(r)).unwrap())
            .unwrap();
    }

    #[test]
    fn missing_session_id_is_rejected() {
        let v = validator();
        for mut line in [init_line(), result_line()] {
            line.as_object_mut().unwrap().remove("session_id");
            let e = rejected(&v, &line);
            assert!(e.to_string().contains("session_id"), "{e}");
        }
    }

    #[test]
    fn missing_uuid_on_a_result_is_rejected() {
        let v = validator();
        let mut line = result_line();
        line.as_object_mut().unwrap().remove("uuid");
        assert!(rejected(&v, &line).to_string().contains("uuid"));
    }

    #[test]
    fn unknown_system_subtype_is_rejected() {
        let v = validator();
        let mut line = init_line();
        line["subtype"] = json!("no_such_subtype");
        let e = rejected(&v, &line);
        assert!(e.to_string().contains("unknown system subtype"), "{e}");
    }

    #[test]
    fn unknown_type_is_rejected() {
        let v = validator();
        let e = rejected(
            &v,
            &json!({"type": "telemetry", "session_id": "s", "uuid": "u"}),
        );
        assert!(e.to_string().contains("unknown line type"), "{e}");
        rejected(&v, &json!({"session_id": "s"}));
    }

    #[test]
    fn wrong_enum_values_are_rejected() {
        let v = validator();
        let mut line = result_line();
        line["subtype"] = json!("error_whatever");
        assert!(rejected(&v, &line).to_string().contains("/subtype"));

        let mut line = result_line();
        line["stop_reason"] = json!("because");
        assert!(rejected(&v, &line).to_string().contains("/stop_reason"));

        let mut line = result_line();
        line["terminal_reason"] = json!("tired");
        rejected(&v, &line);

        let mut line = init_line();
        line["permissionMode"] = json!("bogusMode");
        assert!(rejected(&v, &line).to_string().contains("/permissionMode"));

        let mut line = init_line();
        line["mcp_servers"] = json!([{"name": "x", "status": "sleepy"}]);
        rejected(&v, &line);
    }

    #[test]
    fn missing_required_fields_are_rejected() {
        let v = validator();
        let mut line = init_line();
        line.as_object_mut().unwrap().remove("tools");
        rejected(&v, &line);
        let mut line = result_line();
        line.as_object_mut().unwrap().remove("modelUsage");
        rejected(&v, &line);
        let mut line = result_line();
        line["modelUsage"]["mock-model"]
            .as_object_mut()
            .unwrap()
            .remove("costUSD");
        rejected(&v, &line);
        let user = json!({"type": "user", "message": {"role": "user", "content": "hi"},
                          "parent_tool_use_id": null, "uuid": "u"});
        assert!(rejected(&v, &user).to_string().contains("session_id"));
    }

    #[test]
    fn answers_are_checked_against_their_request() {
        let v = validator();
        let mut s = StreamChecker::new(&v);
        s.host_line(&json!({"type": "control_request", "request_id": "r1",
                            "request": {"subtype": "initialize", "hooks": null}}));
        let answer = |payload: Value| {
            json!({"type": "control_response", "session_id": "s", "uuid": "u",
                   "response": {"subtype": "success", "request_id": "r1", "response": payload}})
        };
        let good = serde_json::to_value(crate::InitializeResponse::default()).unwrap();
        let mut bad = good.clone();
        bad.as_object_mut().unwrap().remove("models");
        let e = s.dcl_line(&answer(bad)).unwrap_err();
        assert!(e.to_string().contains("answer to initialize"), "{e}");
        s.host_line(&json!({"type": "control_request", "request_id": "r1",
                            "request": {"subtype": "initialize"}}));
        s.dcl_line(&answer(good)).unwrap();
    }

    /// Reference lines dcl does not reproduce, each with why it fails (`file`, 1-based line).
    /// Anything else the reference printed must pass: it is what the SDKs expect.
    const REFERENCE_EXCEPTIONS: &[(&str, &str)] = &[
        (
            "i_control_requests.jsonl:8",
            "the reference accepts set_permission_mode \"bogusMode\"; dcl answers an error",
        ),
        (
            "i_control_requests.jsonl:22",
            "so the reference's next init reports \"bogusMode\"; dcl's reports a real mode",
        ),
    ];

    #[test]
    fn reference_stdout_lines_pass() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/reference-cli/transcripts");
        let v = validator();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("transcripts")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        let (mut checked, mut failures, mut excused) = (0, Vec::new(), Vec::new());
        for path in &files {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(path).unwrap();
            let mut stream = StreamChecker::new(&v);
            for (i, raw) in text.lines().enumerate() {
                let rec: Value = serde_json::from_str(raw).unwrap();
                let line = &rec["line"];
                match rec["dir"].as_str() {
                    Some("stdin") => stream.host_line(line),
                    Some("stdout") if line.is_object() => {
                        checked += 1;
                        let at = format!("{name}:{}", i + 1);
                        let verdict = stream.dcl_line(line);
                        let listed = REFERENCE_EXCEPTIONS.iter().any(|(k, _)| *k == at);
                        match (verdict, listed) {
                            (Err(e), false) => failures.push(format!("{at}: {e}")),
                            (Ok(()), true) => failures.push(format!("{at}: listed but passes")),
                            (Err(_), true) => excused.push(at),
                            (Ok(()), false) => {}
                        }
                    }
                    _ => {}
                }
            }
        }
        assert!(checked > 250, "only {checked} reference lines");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_eq!(excused.len(), REFERENCE_EXCEPTIONS.len());
    }
}
