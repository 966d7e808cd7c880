//! `dcl`: the stream-json endpoint the agent SDKs drive, and a CLI for people (`-p`).

mod awaiting;
mod error;
mod line_reader;
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
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::error::CliError;

fn main() -> ExitCode {
    deny_same_user_inspection();
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
    init_logging_with(args.cli_flag("--debug"));
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
    init_logging_with(false);
}

/// `DCL_LOG` sets the filter; without it, warnings only, or dcl's own debug lines with
/// `--debug` / `--debug-to-stderr`.
fn init_logging_with(debug: bool) {
    let fmt = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time();
    // The default filter is a fixed target list: `Targets` is built without parsing
    // directives (EnvFilter's parser was ~2% of a session's start-up, BENCHMARKS.md
    // "Start-up: where the session's own time goes"); DCL_LOG keeps EnvFilter's syntax.
    let env_filter = std::env::var("DCL_LOG").ok().and_then(|spec| {
        tracing_subscriber::EnvFilter::try_new(&spec)
            .inspect_err(|e| {
                eprintln!(
                    "warning: DCL_LOG={spec:?} is not a valid filter ({e}); using the default"
                )
            })
            .ok()
    });
    // A second initialisation (none happens in the CLI) would leave the first in place.
    let _ = match env_filter {
        Some(filter) => fmt.with_env_filter(filter).finish().try_init(),
        None => fmt
            .with_max_level(tracing::Level::TRACE)
            .finish()
            .with(default_filter(debug))
            .try_init(),
    };
}

/// Warnings from everything but rmcp (whose own warnings repeat dcl's MCP errors), and
/// dcl's crates at debug under `--debug`.
fn default_filter(debug: bool) -> tracing_subscriber::filter::Targets {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    let base = Targets::new()
        .with_default(LevelFilter::WARN)
        .with_target("rmcp", LevelFilter::OFF);
    if !debug {
        return base;
    }
    ["dcl", "dcl_engine", "dcl_bridge", "dcl_mcp"]
        .into_iter()
        .fold(base, |t, target| t.with_target(target, LevelFilter::DEBUG))
}

fn run(args: Args) -> Result<ExitCode, CliError> {
    let env: BTreeMap<String, String> = std::env::vars().collect();
    consume_qoder_auth_payload(&env);
    let output = OutputFormat::from_args(&args)?;
    let stream_input = args::stream_input(&args, output)?;
    let opts =
        args::session_options(&args, env, output, stream_input).map_err(CliError::Options)?;
    for flag in &opts.ignored_flags {
        eprintln!("warning: {flag}: accepted for compatibility but not supported yet; ignored");
    }
    // One session per process: this thread runs it and the stdio loop, with no thread
    // started for either (BENCHMARKS.md, "Start-up without threads").
    dcl_bridge::use_current_thread();
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

#[cfg(test)]
mod tests {
    use super::default_filter;
    use tracing::Level;

    #[test]
    fn the_default_filter_shows_warnings_and_hides_rmcp_and_debug_lines() {
        let f = default_filter(false);
        assert!(f.would_enable("dcl_engine::session", &Level::WARN));
        assert!(f.would_enable("hyper::client", &Level::WARN));
        assert!(!f.would_enable("dcl_engine::session", &Level::DEBUG));
        assert!(!f.would_enable("rmcp::service", &Level::ERROR));
    }

    #[test]
    fn debug_turns_on_dcls_own_crates_only() {
        let f = default_filter(true);
        for target in [
            "dcl::stdio_loop",
            "dcl_engine::turn",
            "dcl_bridge",
            "dcl_mcp::client",
        ] {
            assert!(f.would_enable(target, &Level::DEBUG), "{target}");
        }
        assert!(!f.would_enable("hyper::client", &Level::DEBUG));
        assert!(!f.would_enable("rmcp::service", &Level::WARN));
    }
}
