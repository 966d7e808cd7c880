//! Sessions opened from the argv an SDK would pass to the `dcl` binary: the spawn adapters
//! of every binding, and the CLI itself, read flags through [`dcl_argv`] and open here, so
//! a flag means the same in and out of process.

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use dcl_argv::*;

use crate::{Bridge, BridgeError, SessionOptions, open_with};

/// The session options `args` ask for, with `env` as the session's environment: the argv
/// crate's options JSON, then the engine's parser. A refusal names the flag that set the
/// option when one did.
pub fn session_options(
    args: &Args,
    env: BTreeMap<String, String>,
    output: OutputFormat,
    stream_input: bool,
) -> Result<SessionOptions, BridgeError> {
    let mut json = options_json(args, env, output, stream_input).map_err(argv_error)?;
    if let Some(path) = args.value(&["--session-options"]) {
        overlay_options_file(&mut json, std::path::Path::new(path))?;
    }
    SessionOptions::from_value(json).map_err(|e| {
        let flag = e.option.as_deref().and_then(flag_for_option);
        BridgeError::InvalidOptions {
            message: match flag {
                Some(flag) => format!("{flag}: {}", e.message),
                None => e.message,
            },
            option: e.option,
        }
    })
}

/// Opens an in-process session from an SDK's argv. In-process sessions speak stream-json
/// both ways: another `--input-format` / `--output-format` is refused. `cwd` applies when
/// the argv names none.
pub fn open_argv<I: IntoIterator<Item = String>>(
    argv: I,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
) -> Result<Bridge, BridgeError> {
    let args = Args::parse(argv);
    for (flag, want) in [
        ("--input-format", "stream-json"),
        ("--output-format", "stream-json"),
    ] {
        if let Some(got) = args.value(&[flag]).filter(|v| *v != want) {
            return Err(BridgeError::InvalidOptions {
                option: Some(flag.trim_start_matches('-').to_string()),
                message: format!("{flag} {got:?}: in-process sessions speak {want} only"),
            });
        }
    }
    let mut options = session_options(&args, env, OutputFormat::StreamJson, true)?;
    if options.cwd.is_none() {
        options.cwd = cwd;
    }
    open_with(options)
}

/// `--session-options <file>`: the options a host gave its `dcl` child (see
/// [`crate::host::Host::spawn`]). The file is removed once read — it may hold a key. Its
/// keys win over the flags', except what the process itself decides: its environment
/// (the child's own), its output format and interactivity (stream-json SDK mode).
fn overlay_options_file(
    json: &mut serde_json::Value,
    path: &std::path::Path,
) -> Result<(), BridgeError> {
    let refuse = |message: String| BridgeError::InvalidOptions {
        option: None,
        message: format!("--session-options {}: {message}", path.display()),
    };
    let text = std::fs::read_to_string(path).map_err(|e| refuse(e.to_string()))?;
    if let Err(e) = std::fs::remove_file(path) {
        tracing::warn!(
            "cannot remove the session options file {}: {e}",
            path.display()
        );
    }
    let serde_json::Value::Object(file) =
        serde_json::from_str(&text).map_err(|e| refuse(e.to_string()))?
    else {
        return Err(refuse("expected a JSON object".into()));
    };
    let Some(out) = json.as_object_mut() else {
        return Ok(());
    };
    for (key, value) in file {
        match key.as_str() {
            "env" | "outputFormat" | "nonInteractive" => {}
            "ignoredFlags" => {
                let mut list: Vec<serde_json::Value> = out
                    .get("ignoredFlags")
                    .and_then(serde_json::Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                list.extend(value.as_array().cloned().unwrap_or_default());
                out.insert(key, serde_json::Value::Array(list));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    Ok(())
}

fn argv_error(e: ArgvError) -> BridgeError {
    BridgeError::InvalidOptions {
        option: None,
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Dialect;

    fn parse(v: &[&str]) -> Args {
        Args::parse(v.iter().map(|s| s.to_string()))
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn message(e: BridgeError) -> String {
        match e {
            BridgeError::InvalidOptions { message, .. } => message,
            other => panic!("not an options error: {other:?}"),
        }
    }

    #[test]
    fn flags_reach_the_typed_options() {
        let a = parse(&["--max-turns", "3", "--model=m"]);
        let opts = session_options(&a, BTreeMap::new(), OutputFormat::Json, false).unwrap();
        assert_eq!(opts.max_turns, Some(3));
        assert_eq!(opts.model.as_deref(), Some("m"));
    }

    #[test]
    fn environment_defaults_are_resolved_by_the_engine() {
        let e = env(&[
            ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py"),
            ("DCL_NO_LEGACY_EVENTS", "1"),
            ("DCL_HOST_TIMEOUT_SECS", "4"),
            ("DCL_MODEL", "mock-model"),
        ]);
        let opts = session_options(&parse(&[]), e, OutputFormat::StreamJson, true).unwrap();
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
        let opts = session_options(&a, BTreeMap::new(), OutputFormat::StreamJson, true).unwrap();
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
        let run = |argv: &[&str], e: BTreeMap<String, String>| {
            message(session_options(&parse(argv), e, OutputFormat::Text, false).unwrap_err())
        };
        let e = run(&["--max-turns", "many"], BTreeMap::new());
        assert!(
            e.contains("--max-turns") && e.contains("expected a number"),
            "{e}"
        );
        let e = run(&["--max-turns", "-2"], BTreeMap::new());
        assert!(e.starts_with("--max-turns: "), "{e}");
        let e = run(&[], env(&[("DCL_HOST_TIMEOUT_SECS", "soon")]));
        assert!(e.contains("DCL_HOST_TIMEOUT_SECS"), "{e}");
    }

    #[test]
    fn a_session_options_file_is_read_removed_and_wins_over_flags() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("o.json");
        std::fs::write(
            &file,
            r#"{"model":"from-file","maxTurns":7,"env":{"X":"1"},"outputFormat":"text"}"#,
        )
        .unwrap();
        let args = parse(&[
            "--model",
            "from-flag",
            "--session-options",
            file.to_str().unwrap(),
        ]);
        let opts =
            session_options(&args, env(&[("Y", "2")]), OutputFormat::StreamJson, true).unwrap();
        assert_eq!(opts.model.as_deref(), Some("from-file"));
        assert_eq!(opts.max_turns, Some(7));
        assert_eq!(
            opts.env.get("Y").map(String::as_str),
            Some("2"),
            "the process's env"
        );
        assert!(!opts.env.contains_key("X"));
        assert_eq!(
            opts.output_format,
            Some(crate::options::OutputFormat::StreamJson)
        );
        assert!(!file.exists(), "the file is removed once read");
        // Its twin: a missing or malformed file is a clear error naming the flag.
        let e = message(
            session_options(&args, BTreeMap::new(), OutputFormat::StreamJson, true).unwrap_err(),
        );
        assert!(e.starts_with("--session-options "), "{e}");
        std::fs::write(&file, "[1]").unwrap();
        let e = message(
            session_options(&args, BTreeMap::new(), OutputFormat::StreamJson, true).unwrap_err(),
        );
        assert!(e.contains("expected a JSON object"), "{e}");
    }

    #[test]
    fn open_argv_refuses_other_formats_and_opens_stream_json() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = open_argv(argv(&["--output-format", "json"]), BTreeMap::new(), None)
            .err()
            .expect("json output refused in process");
        assert_eq!(e.option(), Some("output-format"));
        let home = tempfile::tempdir().unwrap();
        let bridge = open_argv(
            argv(&[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--model",
                "mock-model",
            ]),
            env(&[("HOME", &home.path().display().to_string())]),
            Some(home.path().to_path_buf()),
        )
        .expect("opens");
        assert!(!bridge.session_id().is_empty());
        bridge.close();
    }
}
