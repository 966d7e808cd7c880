//! Turning argv and the environment into `SessionOptions`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use dcl_engine::options::{Dialect, OutputFormat, SessionOptions};

use crate::args::Args;

/// Flags accepted for compatibility that this build does not act on yet.
const NOT_YET: &[&str] = &[
    "--thinking-display",
    "--betas",
    "--plugin-dir",
    "--plugin-dir-no-mcp",
    "--proxy",
    "--data-dir",
    "--resume-session-at",
    "--resume-drops-turn",
    "--task-budget",
    "--allowed-mcp-server-names",
    "--extensions",
    "--permission-prompts",
    "--channels",
    "--project-config-root",
    "--initialize-fields",
    "--max-output-tokens",
    "--context-window",
    "--include-hook-events",
    "--session-mirror",
    "--fork-session",
];

pub fn dialect(env: &BTreeMap<String, String>) -> Dialect {
    if env.contains_key("QODER_AGENT_SDK_ENTRYPOINT") {
        Dialect::Qoder
    } else {
        Dialect::Claude
    }
}

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

fn parse_num<T: std::str::FromStr>(args: &Args, flag: &str) -> Result<Option<T>, String> {
    match args.value(&[flag]) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{flag} {v:?}: expected a number")),
    }
}

fn read_file_flag(args: &Args, flag: &str) -> Result<Option<String>, String> {
    match args.value(&[flag]) {
        None => Ok(None),
        Some(path) => std::fs::read_to_string(path)
            .map(Some)
            .map_err(|e| format!("{flag} {path}: {e}")),
    }
}

pub fn build(
    args: &Args,
    env: BTreeMap<String, String>,
    output: OutputFormat,
    stream_input: bool,
) -> Result<SessionOptions, String> {
    let dialect = dialect(&env);
    let mut ignored: Vec<String> = NOT_YET
        .iter()
        .filter(|f| args.given(f))
        .map(|f| f.to_string())
        .collect();
    ignored.extend(args.unknown.iter().cloned());
    if let Some(tool) = args
        .value(&["--permission-prompt-tool"])
        .filter(|t| *t != "stdio")
    {
        // Approval through an MCP tool is not built: such asks are denied instead.
        ignored.push(format!("--permission-prompt-tool {tool} (only stdio)"));
    }

    let permission_mode = if args.has("--yolo") || args.has("--dangerously-skip-permissions") {
        Some("bypassPermissions".to_string())
    } else {
        args.value(&["--permission-mode"]).map(str::to_string)
    };
    let system_prompt = match read_file_flag(args, "--system-prompt-file")? {
        Some(p) => Some(p),
        None => args.value(&["--system-prompt"]).map(str::to_string),
    };
    let append = match read_file_flag(args, "--append-system-prompt-file")? {
        Some(p) => Some(p),
        None => args.value(&["--append-system-prompt"]).map(str::to_string),
    };
    let tools = args.value(&["--tools"]).map(|t| {
        t.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    let cwd = args.value(&["--cwd"]).map(PathBuf::from);
    let json_schema = match args.value(&["--json-schema"]) {
        None => None,
        Some(text) => Some(
            serde_json::from_str::<serde_json::Value>(text)
                .map_err(|e| format!("--json-schema is not valid JSON: {e}"))?,
        ),
    };
    let agents = match args.value(&["--agents"]) {
        None => None,
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(m)) => Some(m),
            Ok(_) => return Err("--agents must be a JSON object of agent definitions".into()),
            Err(e) => return Err(format!("--agents is not valid JSON: {e}")),
        },
    };
    let agent = args.value(&["--agent"]).map(str::to_string);
    let setting_sources = args.value(&["--setting-sources"]).map(|v| {
        v.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    // `--thinking disabled|adaptive` (Claude TS) and `--effort` both choose the effort.
    let effort = match (
        args.value(&["--effort", "--reasoning-effort"]),
        args.value(&["--thinking"]),
    ) {
        (Some(e), _) => Some(e.to_string()),
        (None, Some("disabled")) => Some("off".to_string()),
        _ => None,
    };
    let host_timeout_secs = parse_num::<f64>(args, "--host-timeout")?.or_else(|| {
        env.get("DCL_HOST_TIMEOUT_SECS")
            .and_then(|v| v.parse().ok())
    });
    Ok(SessionOptions {
        cwd,
        model: args.value(&["--model"]).map(str::to_string),
        fallback_model: args.value(&["--fallback-model"]).map(str::to_string),
        api_format: args.value(&["--api-format"]).map(str::to_string),
        base_url: args.value(&["--base-url"]).map(str::to_string),
        api_key: args.value(&["--api-key"]).map(str::to_string),
        system_prompt,
        append_system_prompt: append,
        permission_mode,
        permission_prompt_tool: args
            .value(&["--permission-prompt-tool"])
            .map(str::to_string),
        allowed_tools: args.all(&["--allowedTools", "--allowed-tools"]),
        disallowed_tools: args.all(&["--disallowedTools", "--disallowed-tools"]),
        tools,
        max_turns: parse_num(args, "--max-turns")?,
        max_thinking_tokens: parse_num(args, "--max-thinking-tokens")?,
        add_dirs: args
            .all(&["--add-dir"])
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        include_partial_messages: args.has("--include-partial-messages"),
        replay_user_messages: args.has("--replay-user-messages"),
        legacy_events: Some(
            !args.has("--no-legacy-events") && !env.contains_key("DCL_NO_LEGACY_EVENTS"),
        ),
        output_format: Some(output),
        non_interactive: !stream_input,
        session_id: args.value(&["--session-id"]).map(str::to_string),
        json_schema,
        agents,
        agent,
        mock_script: args.value(&["--mock-script"]).map(PathBuf::from),
        dialect,
        env,
        host_timeout_secs,
        ignored_flags: ignored,
        settings: args.value(&["--settings"]).map(str::to_string),
        setting_sources,
        max_budget_usd: parse_num(args, "--max-budget-usd")?,
        effort,
        mcp_config: args.all(&["--mcp-config"]),
        strict_mcp_config: args.has("--strict-mcp-config"),
    })
}
