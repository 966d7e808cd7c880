//! Every line dcl printed in a replayed scenario must validate against the exported protocol
//! schema (`core/protocol/schema/dcl-protocol.schema.json`, see `dcl_protocol::validate`), and
//! each `success` answer against the type of the request it answers.

use dcl_protocol::validate::{SchemaValidator, StreamChecker};
use serde_json::Value;

use super::transcript::{Dir, Transcript};

/// What the schema check found in one scenario.
#[derive(Debug, Default)]
pub struct SchemaCheck {
    /// Lines validated.
    pub checked: usize,
    /// `stdout line N: what: errors`, one per failing line.
    pub failures: Vec<String>,
}

/// `--output-format` of the scenario (`text` when not given).
fn output_format(argv: &[String]) -> &str {
    argv.iter()
        .enumerate()
        .find_map(|(i, a)| {
            a.strip_prefix("--output-format=").or_else(|| {
                (a == "--output-format").then(|| argv.get(i + 1).map(String::as_str))?
            })
        })
        .unwrap_or("text")
}

/// Checks `stdout` (what dcl printed replaying `t`; the host's requests are `t`'s stdin lines).
pub fn check(t: &Transcript, stdout: &[Value], validator: &SchemaValidator) -> SchemaCheck {
    let mut out = SchemaCheck::default();
    // Text output is prose, not protocol lines.
    if output_format(&t.argv) == "text" {
        return out;
    }
    let mut stream = StreamChecker::new(validator);
    for r in t.records.iter().filter(|r| r.dir == Dir::Stdin) {
        stream.host_line(&r.line);
    }
    for (i, line) in stdout.iter().enumerate() {
        out.checked += 1;
        let verdict = match line {
            Value::Object(_) => stream.dcl_line(line).map_err(|e| e.to_string()),
            other => Err(format!("not a JSON object: {other}")),
        };
        if let Err(e) = verdict {
            out.failures.push(format!("stdout line {}: {e}", i + 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::transcript::Record;
    use serde_json::json;

    #[test]
    fn output_format_forms() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(output_format(&argv(&["claude", "-p", "x"])), "text");
        assert_eq!(
            output_format(&argv(&["claude", "--output-format", "json"])),
            "json"
        );
        assert_eq!(
            output_format(&argv(&["claude", "--output-format=stream-json"])),
            "stream-json"
        );
    }

    #[test]
    fn broken_lines_fail_the_check() {
        let t = Transcript {
            name: "x".into(),
            argv: ["--output-format", "stream-json"]
                .map(String::from)
                .to_vec(),
            records: vec![Record {
                dir: Dir::Stdin,
                line: json!({"type": "control_request", "request_id": "r1",
                             "request": {"subtype": "initialize"}}),
            }],
        };
        let init = serde_json::to_value(dcl_protocol::Message::from(
            dcl_protocol::SystemInit::new("s", "u", "/cwd", "mock-model"),
        ))
        .unwrap();
        let mut no_session = init.clone();
        no_session.as_object_mut().unwrap().remove("session_id");
        let answer = json!({"type": "control_response", "session_id": "s", "uuid": "u2",
            "response": {"subtype": "success", "request_id": "r1", "response": {"commands": []}}});
        let stdout = vec![init, no_session, answer, json!("plain text")];
        let v = SchemaValidator::new().unwrap();
        let c = check(&t, &stdout, &v);
        assert_eq!(c.checked, 4);
        assert_eq!(c.failures.len(), 3, "{:?}", c.failures);
        assert!(c.failures[0].starts_with("stdout line 2: system/init"));
        assert!(c.failures[1].contains("answer to initialize"));
        assert!(c.failures[2].contains("not a JSON object"));
    }
}
