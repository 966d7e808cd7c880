//! `dcl`: the stream-json endpoint the agent SDKs drive, and a CLI for people (`-p`).

mod args;
mod mcp_cmd;
mod options;
mod print_mode;
mod stdio_loop;

use std::collections::BTreeMap;
use std::process::ExitCode;

use args::Args;
use dcl_engine::options::OutputFormat;

const HELP: &str = "dcl — a coding-agent runtime

Usage:
  dcl -p \"<prompt>\" [--output-format text|json|stream-json] [options]
  dcl --input-format stream-json --output-format stream-json [options]
  dcl -v | --version

Options:
  --model <id>                 model id or alias (sonnet, opus, haiku); mock-model runs offline
  --permission-mode <mode>     default | acceptEdits | plan | bypassPermissions | dontAsk
  --allowedTools <rules>       rules that run without asking, e.g. \"Read,Bash(git log:*)\"
  --disallowedTools <rules>    rules that are always refused
  --tools <names>              restrict the built-in tools (\"\" for none)
  --max-turns <n>              stop after n model calls in one turn
  --system-prompt <text>       replace the default system prompt (\"\" for none)
  --append-system-prompt <t>   append to the system prompt
  --add-dir <dir>              another directory tools may use without asking
  --include-partial-messages   emit stream_event lines (stream-json)
  --replay-user-messages       echo each user message with its uuid (stream-json)
  --no-legacy-events           omit the legacy text/tool_start/tool_result/usage lines
  --mock-script <file>         play scripted turns on the mock model
  --base-url <url>             the model endpoint (else ANTHROPIC_BASE_URL / OPENAI_BASE_URL)
  --api-format <fmt>           anthropic (default) or openai
  --api-key <key>              the model API key (else the environment)
  --fallback-model <id>        used when the model stays overloaded or unavailable
  --json-schema <schema>       structured output: the final answer must match this schema
  --settings <json|file>       settings on top of ~/.dcl/settings.json and .dcl/settings*.json
  --mcp-config <json|file>     MCP servers ({\"mcpServers\": {...}}), repeatable
  --cwd <dir>                  working directory of the session
  --host-timeout <secs>        how long to wait for the host's answers (default 300)
Environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, DCL_MODEL, DCL_LOG
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    // `dcl mcp …` has flags of its own (and server arguments like `-v`): route it first.
    if argv.first().map(String::as_str) == Some("mcp") {
        init_logging();
        return match mcp_cmd::run(argv) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("Error: {message}");
                ExitCode::from(1)
            }
        };
    }
    let args = Args::parse(argv);
    // Clients probe the version with a short timeout: answer before anything else.
    if args.has("-v") || args.has("--version") {
        println!(
            "{} (dcl {})",
            dcl_protocol::PROTOCOL_LEVEL,
            dcl_protocol::DCL_VERSION
        );
        return ExitCode::SUCCESS;
    }
    if args.has("-h") || args.has("--help") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    init_logging();
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("Error: {message}");
            ExitCode::from(1)
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("DCL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}

fn run(args: Args) -> Result<ExitCode, String> {
    let env: BTreeMap<String, String> = std::env::vars().collect();
    consume_qoder_auth_payload(&env);
    let output = options::output_format(&args)?;
    let stream_input = match args.value(&["--input-format"]) {
        None | Some("text") => false,
        Some("stream-json") => true,
        Some(other) => {
            return Err(format!(
                "--input-format {other:?}: expected text or stream-json"
            ));
        }
    };
    if stream_input && output != OutputFormat::StreamJson {
        return Err("--input-format stream-json requires --output-format stream-json".into());
    }
    for flag in &options::build(&args, BTreeMap::new(), output, stream_input)?.ignored_flags {
        eprintln!("warning: {flag}: accepted for compatibility but not supported yet; ignored");
    }
    let opts = options::build(&args, env, output, stream_input)?;
    if stream_input {
        stdio_loop::run(opts)
    } else {
        print_mode::run(&args, opts, output)
    }
}

/// The Qoder SDKs hand credentials over in a one-time file: read it, delete it.
/// dcl authenticates with its own provider keys, so the token is not needed further.
fn consume_qoder_auth_payload(env: &BTreeMap<String, String>) {
    let Some(path) = env.get("QODER_SDK_AUTH_PAYLOAD_FILE") else {
        return;
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            if serde_json::from_str::<serde_json::Value>(&text).is_err() {
                tracing::warn!("the Qoder auth payload file is not JSON; ignored");
            }
        }
        Err(e) => tracing::warn!("cannot read the Qoder auth payload file: {e}"),
    }
    if let Err(e) = std::fs::remove_file(path) {
        tracing::debug!("cannot delete the Qoder auth payload file: {e}");
    }
}
