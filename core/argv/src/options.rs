//! argv and the process environment → options JSON, the path every binding takes. No
//! environment default is resolved here: the caller passes its environment as `env`, and
//! the engine reads the dialect, timeouts, model, legacy lines… from there, as it does for
//! an in-process session.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::args::{Action, Args, FLAGS, Literal};

/// What `--output-format` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    StreamJson,
}

impl OutputFormat {
    /// The name the flag and the options JSON use.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::StreamJson => "stream-json",
        }
    }

    /// `--output-format`'s value (text when absent).
    pub fn from_args(args: &Args) -> Result<OutputFormat, ArgvError> {
        match args.value(&["--output-format"]) {
            None | Some("text") => Ok(OutputFormat::Text),
            Some("json") => Ok(OutputFormat::Json),
            Some("stream-json") => Ok(OutputFormat::StreamJson),
            Some(other) => Err(ArgvError::new(
                "--output-format",
                format!("{other:?}: expected text, json or stream-json"),
            )),
        }
    }
}

/// A flag whose value cannot be used, named by the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag} {message}")]
pub struct ArgvError {
    pub flag: &'static str,
    pub message: String,
}

impl ArgvError {
    fn new(flag: &'static str, message: impl Into<String>) -> ArgvError {
        ArgvError {
            flag,
            message: message.into(),
        }
    }
}

/// Whether stdin carries stream-json lines (SDK mode) rather than a prompt.
pub fn stream_input(args: &Args, output: OutputFormat) -> Result<bool, ArgvError> {
    let stream = match args.value(&["--input-format"]) {
        None | Some("text") => false,
        Some("stream-json") => true,
        Some(other) => {
            return Err(ArgvError::new(
                "--input-format",
                format!("{other:?}: expected text or stream-json"),
            ));
        }
    };
    if stream && output != OutputFormat::StreamJson {
        return Err(ArgvError::new(
            "--input-format",
            "stream-json requires --output-format stream-json",
        ));
    }
    Ok(stream)
}

/// The options JSON for `args`, with `env` as the session's environment.
pub fn options_json(
    args: &Args,
    env: BTreeMap<String, String>,
    output: OutputFormat,
    stream_input: bool,
) -> Result<Value, ArgvError> {
    let mut out = Map::new();
    let mut ignored: Vec<String> = Vec::new();
    for row in FLAGS {
        if !args.given_row(row) {
            continue;
        }
        let value = args.row_value(row);
        let flag = row.name;
        match row.action {
            Action::Text(key) => {
                if let Some(v) = value {
                    out.insert(key.into(), json!(v));
                }
            }
            Action::FileText(key) => {
                if let Some(path) = value {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| ArgvError::new(flag, format!("{path}: {e}")))?;
                    out.insert(key.into(), json!(text));
                }
            }
            Action::Each(key) => {
                out.insert(key.into(), json!(args.row_all(row)));
            }
            Action::Commas(key) => {
                if let Some(v) = value {
                    out.insert(key.into(), json!(split_commas(v)));
                }
            }
            Action::Number(key) => {
                if let Some(v) = value {
                    out.insert(key.into(), Value::Number(number(flag, v)?));
                }
            }
            Action::Json(key) => {
                if let Some(text) = value {
                    let parsed: Value = serde_json::from_str(text)
                        .map_err(|e| ArgvError::new(flag, format!("is not valid JSON: {e}")))?;
                    out.insert(key.into(), parsed);
                }
            }
            Action::Set(key, literal) => {
                let v = match literal {
                    Literal::True => json!(true),
                    Literal::False => json!(false),
                    Literal::Str(s) => json!(s),
                };
                out.insert(key.into(), v);
            }
            // `--thinking disabled` (Claude TS) turns effort off; a later `--effort` wins.
            Action::Thinking => {
                if value == Some("disabled") {
                    out.insert("effort".into(), json!("off"));
                }
            }
            Action::PermissionPromptTool => {
                if let Some(tool) = value {
                    out.insert("permissionPromptTool".into(), json!(tool));
                    if tool != "stdio" {
                        // Approval through an MCP tool is not built: such asks are denied.
                        ignored.push(format!("{flag} {tool} (only stdio)"));
                    }
                }
            }
            Action::NotActedOn => {
                ignored.extend(row.names().filter(|n| args.given(n)).map(String::from));
            }
            Action::Cli | Action::Satisfied(_) => {}
        }
    }
    ignored.extend(args.unknown.iter().cloned());
    out.insert("outputFormat".into(), json!(output.as_str()));
    out.insert("nonInteractive".into(), json!(!stream_input));
    out.insert("ignoredFlags".into(), json!(ignored));
    out.insert("env".into(), json!(env));
    Ok(Value::Object(out))
}

/// The flag that sets `option` (a key of the options JSON, or a path like `addDirs[0]`).
pub fn flag_for_option(option: &str) -> Option<&'static str> {
    // A path like `addDirs[0]` names its option first.
    let key = option.split(['[', '.']).next().unwrap_or(option);
    FLAGS.iter().find_map(|row| {
        let maps_to = match row.action {
            Action::Text(k)
            | Action::FileText(k)
            | Action::Each(k)
            | Action::Commas(k)
            | Action::Number(k)
            | Action::Json(k)
            | Action::Set(k, _) => Some(k),
            _ => None,
        };
        (maps_to == Some(key)).then_some(row.name)
    })
}

fn split_commas(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A flag's number; whether it fits the option (a count, seconds…) the options parser
/// decides, naming the option.
fn number(flag: &'static str, v: &str) -> Result<serde_json::Number, ArgvError> {
    let t = v.trim();
    let parsed = if let Ok(n) = t.parse::<u64>() {
        Some(n.into())
    } else if let Ok(n) = t.parse::<i64>() {
        Some(n.into())
    } else {
        t.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
    };
    parsed.ok_or_else(|| ArgvError::new(flag, format!("{v:?}: expected a number")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[&str]) -> Args {
        Args::parse(v.iter().map(|s| s.to_string()))
    }

    #[test]
    fn flags_map_to_option_keys() {
        let a = parse(&[
            "--model=m",
            "--max-turns",
            "3",
            "--host-timeout",
            "2.5",
            "--tools",
            "Read, Bash",
            "--allowedTools",
            "Read",
            "--allowed-tools",
            "Bash(ls:*)",
            "--add-dir",
            "/a",
            "--add-dir",
            "/b",
            "--no-legacy-events",
            "--yolo",
            "--permission-mode",
            "plan",
            "--thinking",
            "disabled",
            "--json-schema",
            r#"{"type":"object"}"#,
        ]);
        let v = options_json(&a, BTreeMap::new(), OutputFormat::Json, false).unwrap();
        assert_eq!(v["model"], "m");
        assert_eq!(v["maxTurns"], 3);
        assert_eq!(v["hostTimeoutSecs"], 2.5);
        assert_eq!(v["tools"], json!(["Read", "Bash"]));
        assert_eq!(v["allowedTools"], json!(["Read", "Bash(ls:*)"]));
        assert_eq!(v["addDirs"], json!(["/a", "/b"]));
        assert_eq!(v["legacyEvents"], false);
        assert_eq!(v["permissionMode"], "bypassPermissions", "--yolo wins");
        assert_eq!(v["effort"], "off");
        assert_eq!(v["jsonSchema"]["type"], "object");
        assert_eq!(v["outputFormat"], "json");
        assert_eq!(v["nonInteractive"], true);
    }

    #[test]
    fn environment_defaults_are_left_to_the_engine() {
        let e: BTreeMap<String, String> =
            [("DCL_MODEL", "mock-model"), ("DCL_NO_LEGACY_EVENTS", "1")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let v = options_json(&parse(&[]), e, OutputFormat::StreamJson, true).unwrap();
        for key in ["dialect", "legacyEvents", "hostTimeoutSecs", "model"] {
            assert!(v.get(key).is_none(), "the argv reader resolved {key}: {v}");
        }
        assert_eq!(v["env"]["DCL_MODEL"], "mock-model");
    }

    #[test]
    fn formats_are_checked_and_named() {
        let e = OutputFormat::from_args(&parse(&["--output-format", "yaml"])).unwrap_err();
        assert_eq!(e.flag, "--output-format");
        let e = stream_input(
            &parse(&["--input-format", "stream-json"]),
            OutputFormat::Text,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("requires --output-format stream-json"),
            "{e}"
        );
        assert!(
            stream_input(
                &parse(&["--input-format", "stream-json"]),
                OutputFormat::StreamJson
            )
            .unwrap()
        );
    }

    #[test]
    fn unusable_values_name_their_flag() {
        let e = options_json(
            &parse(&["--max-turns", "many"]),
            BTreeMap::new(),
            OutputFormat::Text,
            false,
        )
        .unwrap_err();
        assert_eq!(e.flag, "--max-turns");
        let e = options_json(
            &parse(&["--json-schema", "{"]),
            BTreeMap::new(),
            OutputFormat::Text,
            false,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("--json-schema is not valid JSON"),
            "{e}"
        );
        assert_eq!(flag_for_option("addDirs[0]"), Some("--add-dir"));
        assert_eq!(flag_for_option("nope"), None);
    }
}
