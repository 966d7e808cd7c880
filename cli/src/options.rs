//! argv and the process environment → options JSON → `SessionOptions::from_value`, the
//! path every binding takes. The CLI resolves no environment default itself: it passes
//! its environment as `env`, and the engine reads the dialect, timeouts, model, legacy
//! lines… from there, as it does for an in-process session.

use std::collections::BTreeMap;

use dcl_bridge::options::{OptionsError, OutputFormat, SessionOptions};
use serde_json::{Map, Value, json};

use crate::args::{Action, Args, FLAGS, Literal};

pub fn output_format(args: &Args) -> Result<OutputFormat, String> {
    match args.value(&["--output-format"]) {
        None | Some("text") => Ok(OutputFormat::Text),
        Some("json") => Ok(OutputFormat::Json),
        Some("stream-json") => Ok(OutputFormat::StreamJson),
        Some(other) => Err(format!(
            "--output-format {other:?}: expected text, json or stream-json"
        )),
    }
}

/// Whether stdin carries stream-json lines (SDK mode) rather than a prompt.
pub fn stream_input(args: &Args, output: OutputFormat) -> Result<bool, String> {
    let stream = match args.value(&["--input-format"]) {
        None | Some("text") => false,
        Some("stream-json") => true,
        Some(other) => {
            return Err(format!(
                "--input-format {other:?}: expected text or stream-json"
            ));
        }
    };
    if stream && output != OutputFormat::StreamJson {
        return Err("--input-format stream-json requires --output-format stream-json".into());
    }
    Ok(stream)
}

/// The options JSON for `args`, with `env` as the session's environment.
pub fn options_json(
    args: &Args,
    env: BTreeMap<String, String>,
    output: OutputFormat,
    stream_input: bool,
) -> Result<Value, String> {
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
                    let text =
                        std::fs::read_to_string(path).map_err(|e| format!("{flag} {path}: {e}"))?;
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
                        .map_err(|e| format!("{flag} is not valid JSON: {e}"))?;
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
    out.insert(
        "outputFormat".into(),
        serde_json::to_value(output).unwrap_or_default(),
    );
    out.insert("nonInteractive".into(), json!(!stream_input));
    out.insert("ignoredFlags".into(), json!(ignored));
    out.insert("env".into(), json!(env));
    Ok(Value::Object(out))
}

/// The session options for `args`: [`options_json`], then the engine's own parser.
pub fn build(
    args: &Args,
    env: BTreeMap<String, String>,
    output: OutputFormat,
    stream_input: bool,
) -> Result<SessionOptions, String> {
    let json = options_json(args, env, output, stream_input)?;
    SessionOptions::from_value(json).map_err(|e| describe(&e))
}

/// An options error, named by the flag that set the option when there is one.
fn describe(e: &OptionsError) -> String {
    let flag = e.option.as_deref().and_then(flag_for_option);
    match flag {
        Some(flag) => format!("{flag}: {}", e.message),
        None => e.message.clone(),
    }
}

fn flag_for_option(option: &str) -> Option<&'static str> {
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
fn number(flag: &str, v: &str) -> Result<serde_json::Number, String> {
    let t = v.trim();
    let parsed = if let Ok(n) = t.parse::<u64>() {
        Some(n.into())
    } else if let Ok(n) = t.parse::<i64>() {
        Some(n.into())
    } else {
        t.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
    };
    parsed.ok_or_else(|| format!("{flag} {v:?}: expected a number"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcl_bridge::options::Dialect;

    fn parse(v: &[&str]) -> Args {
        Args::parse(v.iter().map(|s| s.to_string()))
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
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
        let opts = SessionOptions::from_value(v).unwrap();
        assert_eq!(opts.max_turns, Some(3));
    }

    #[test]
    fn environment_defaults_are_left_to_the_engine() {
        let e = env(&[
            ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py"),
            ("DCL_NO_LEGACY_EVENTS", "1"),
            ("DCL_HOST_TIMEOUT_SECS", "4"),
            ("DCL_MODEL", "mock-model"),
        ]);
        let v = options_json(&parse(&[]), e.clone(), OutputFormat::StreamJson, true).unwrap();
        for key in ["dialect", "legacyEvents", "hostTimeoutSecs", "model"] {
            assert!(v.get(key).is_none(), "the CLI resolved {key}: {v}");
        }
        let opts = build(&parse(&[]), e, OutputFormat::StreamJson, true).unwrap();
        assert_eq!(opts.dialect, Dialect::Qoder);
        assert_eq!(opts.legacy_events, Some(false));
        assert_eq!(opts.host_timeout_secs, Some(4.0));
        assert_eq!(opts.model.as_deref(), Some("mock-model"));
    }

    #[test]
    fn not_acted_on_and_unknown_flags_are_listed() {
        let a = parse(&[
            "--betas",
            "x",
            "--proxy",
            "p",
            "--frobnicate",
            "7",
            "--permission-prompt-tool",
            "mcp__x__ask",
            "--verbose",
        ]);
        let opts = build(&a, BTreeMap::new(), OutputFormat::StreamJson, true).unwrap();
        assert_eq!(
            opts.ignored_flags,
            vec![
                "--permission-prompt-tool mcp__x__ask (only stdio)",
                "--betas",
                "--proxy",
                "--frobnicate 7"
            ]
        );
    }

    #[test]
    fn bad_values_name_the_flag() {
        let e = build(
            &parse(&["--max-turns", "many"]),
            BTreeMap::new(),
            OutputFormat::Text,
            false,
        )
        .unwrap_err();
        assert!(
            e.contains("--max-turns") && e.contains("expected a number"),
            "{e}"
        );
        let e = build(
            &parse(&["--max-turns", "-2"]),
            BTreeMap::new(),
            OutputFormat::Text,
            false,
        )
        .unwrap_err();
        assert!(e.starts_with("--max-turns: "), "{e}");
        let e = build(
            &parse(&[]),
            env(&[("DCL_HOST_TIMEOUT_SECS", "soon")]),
            OutputFormat::Text,
            false,
        )
        .unwrap_err();
        assert!(e.contains("DCL_HOST_TIMEOUT_SECS"), "{e}");
    }
}
