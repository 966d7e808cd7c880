//! `dcl`: the stream-json endpoint the agent SDKs drive, and a CLI for people (`-p`).

mod awaiting;
mod error;
mod line_reader;
mod logging;
mod mcp_cmd;
#[cfg(unix)]
mod nonblocking;
mod print_mode;
mod signals;
mod stdin;
mod stdio_loop;
mod stdout;

use std::collections::BTreeMap;
use std::process::ExitCode;

use dcl_bridge::argv::{self as args, Args, OutputFormat};

use crate::error::CliError;

fn main() -> ExitCode {
    deny_same_user_inspection();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    // `dcl auth status [--json]`: what ACP adapters probe (dcl-acp answers it).
    if dcl_acp::auth::is_auth_status(&argv) {
        let (out, ok) = dcl_acp::auth_status(&argv);
        println!("{out}");
        return if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    // `dcl acp [flags]`: an Agent Client Protocol agent on stdio (the dcl-acp crate).
    if argv.first().map(String::as_str) == Some("acp") {
        // dcl_acp::run parses the flags after `acp`; only whether to log debug lines is
        // needed before that (and dcl_acp's crate target is among the debug ones).
        logging::init(&logging::Debug {
            on: argv.iter().any(|a| a == "--debug" || a == "-d"),
            ..logging::Debug::default()
        });
        let code = match dcl_acp::run(argv[1..].to_vec()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("Error: {e}");
                ExitCode::from(1)
            }
        };
        dcl_store::remote::sync::close_all(dcl_store::remote::sync::exit_flush_timeout());
        dcl_sandbox::remove_temp_dirs();
        return code;
    }
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
    if args.cli_flag("-v") {
        println!(
            "{} (dcl {})",
            dcl_protocol::PROTOCOL_LEVEL,
            dcl_protocol::DCL_VERSION
        );
        return ExitCode::SUCCESS;
    }
    if args.cli_flag("-h") {
        print!("{}", args::help());
        return ExitCode::SUCCESS;
    }
    logging::init(&debug_request(&args));
    // Where tool processes cannot get PID namespaces, what they orphan (a `setsid`
    // daemon) is re-parented to dcl rather than init, and ended when dcl exits.
    dcl_sandbox::subreaper::use_as_fallback();
    let code = match run(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("Error: {message}");
            ExitCode::from(1)
        }
    };
    // What sessions queued for a session store goes out before the process does (each
    // store waits at most DCL_SESSION_STORE_FLUSH_SECS, default 10), and their leases are
    // given up so the next worker may take the sessions at once.
    dcl_store::remote::sync::close_all(dcl_store::remote::sync::exit_flush_timeout());
    if dcl_sandbox::subreaper::active() {
        dcl_sandbox::subreaper::kill_adopted();
    }
    // Sandbox temp dirs a session left (EOF and SIGTERM both end up here).
    dcl_sandbox::remove_temp_dirs();
    code
}

fn init_logging() {
    logging::init(&logging::Debug::default());
}

/// `--debug` (`-d`, `--debug-to-stderr`, `--debug=categories`) and `--debug-file`.
fn debug_request(args: &Args) -> logging::Debug {
    let row = args::lookup("--debug");
    let categories = row
        .and_then(|r| args.row_value(r))
        .map(logging::Categories::parse)
        .unwrap_or_default();
    let file = args.value(&["--debug-file"]).filter(|p| !p.is_empty());
    logging::Debug {
        on: args.cli_flag("--debug") || file.is_some(),
        categories,
        file: file.map(std::path::PathBuf::from),
    }
}

fn run(args: Args) -> Result<ExitCode, CliError> {
    let env = utf8_environment();
    consume_qoder_auth_payload(&env);
    let output = OutputFormat::from_args(&args)?;
    let stream_input = args::stream_input(&args, output)?;
    tracing::debug!(
        input = if stream_input { "stream-json" } else { "prompt" },
        output = ?output,
        "mode"
    );
    let opts =
        args::session_options(&args, env, output, stream_input).map_err(CliError::Options)?;
    for flag in &opts.ignored_flags {
        eprintln!("warning: {flag}: accepted for compatibility but not supported yet; ignored");
    }
    // One session per process: this thread runs it and the stdio loop, with no thread
    // started for either (BENCHMARKS.md, "Start-up without threads").
    dcl_bridge::use_current_thread();
    if !stream_input && dcl_tui::wanted(&args) {
        return dcl_tui::run(&args, opts).map_err(CliError::Tui);
    }
    if opts.resume.as_deref() == Some("") {
        return Err(CliError::ResumeWithoutId);
    }
    if stream_input {
        stdio_loop::run(opts)
    } else {
        print_mode::run(&args, opts, output)
    }
}

/// The process environment as session options take it (strings). A variable whose name or
/// value is not UTF-8 cannot be an option's value: it is left out here, with a warning,
/// and tool processes still receive it unchanged (`tools::environment` reads the process
/// environment as bytes).
fn utf8_environment() -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    let mut left_out = Vec::new();
    for (name, value) in std::env::vars_os() {
        match (name.into_string(), value.into_string()) {
            (Ok(name), Ok(value)) => {
                env.insert(name, value);
            }
            (Ok(name), Err(_)) => left_out.push(name),
            (Err(raw), _) => left_out.push(raw.to_string_lossy().into_owned()),
        }
    }
    if !left_out.is_empty() {
        tracing::warn!(
            "environment variables that are not UTF-8 ({}): dcl's own settings ignore them; \
             tool processes still receive them unchanged",
            left_out.join(", ")
        );
    }
    env
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

/// Other processes of the same user — the tools dcl runs among them — must not read this
/// process's memory or `/proc/<pid>/environ`, which hold the API keys dcl withholds from
/// them. Non-dumpable makes those files root-owned; children get their own flag back at
/// `exec`. Only the CLI does this: an in-process binding must not change its host.
fn deny_same_user_inspection() {
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("warning: could not make dcl non-dumpable: {e}");
    }
}
