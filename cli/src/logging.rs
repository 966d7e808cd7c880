//! Where dcl's log lines go. Always stderr (stdout is the protocol): warnings from
//! everything but rmcp (whose own warnings repeat dcl's MCP errors), and under `--debug`
//! (`-d`, `--debug-to-stderr`) dcl's own debug lines — what it decides: the session's
//! settings and model, which MCP servers start, each permission decision, each model
//! request. `--debug=mcp,!hooks` keeps only the debug lines whose target names one of the
//! categories and drops those naming a `!` one. `--debug-file <path>` writes the debug lines
//! to that file instead (warnings stay on stderr). `DCL_LOG` replaces all of this with a
//! full `EnvFilter` directive on stderr.

use std::fs::File;
use std::path::Path;
use std::sync::Mutex;

use tracing::{Level, Metadata};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{FilterFn, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The crates whose debug lines `--debug` shows.
const DCL_TARGETS: &[&str] = &[
    "dcl",
    "dcl_engine",
    "dcl_bridge",
    "dcl_mcp",
    "dcl_policy",
    "dcl_tools",
    "dcl_tool_api",
    "dcl_model",
    "dcl_store",
    "dcl_sandbox",
    "dcl_shell",
    "dcl_acp",
    "dcl_tui",
];

/// What `--debug`, its categories and `--debug-file` asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Debug {
    pub on: bool,
    pub categories: Categories,
    pub file: Option<std::path::PathBuf>,
}

/// `--debug=a,b,!c`: debug lines whose target contains `a` or `b` (any, when none is
/// named) and not `c`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Categories {
    keep: Vec<String>,
    drop: Vec<String>,
}

impl Categories {
    pub fn parse(spec: &str) -> Categories {
        let mut out = Categories::default();
        for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match item.strip_prefix('!') {
                Some(dropped) => out.drop.push(dropped.to_ascii_lowercase()),
                None => out.keep.push(item.to_ascii_lowercase()),
            }
        }
        out
    }

    fn allows(&self, target: &str) -> bool {
        let target = target.to_ascii_lowercase();
        !self.drop.iter().any(|c| target.contains(c.as_str()))
            && (self.keep.is_empty() || self.keep.iter().any(|c| target.contains(c.as_str())))
    }
}

/// Warnings and errors from everything but rmcp.
fn is_warning(target: &str, level: &Level) -> bool {
    *level <= Level::WARN && !target.starts_with("rmcp")
}

/// dcl's own debug lines, within the categories.
fn is_dcl_debug(target: &str, level: &Level, categories: &Categories) -> bool {
    *level <= Level::DEBUG
        && DCL_TARGETS.iter().any(|t| {
            target == *t
                || target
                    .strip_prefix(t)
                    .is_some_and(|rest| rest.starts_with("::"))
        })
        && categories.allows(target)
}

/// Whether a line goes to stderr (`debug_here`: the debug lines go there too).
fn to_stderr(meta: &Metadata<'_>, debug_here: Option<&Categories>) -> bool {
    is_warning(meta.target(), meta.level())
        || debug_here.is_some_and(|c| is_dcl_debug(meta.target(), meta.level(), c))
}

/// Installs the subscriber (once; a second call leaves the first in place).
pub fn init(debug: &Debug) {
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time();
    // DCL_LOG keeps EnvFilter's syntax; the default filters are closures over a fixed
    // target list, since EnvFilter's parser was ~2% of a session's start-up
    // (BENCHMARKS.md "Start-up: where the session's own time goes").
    if let Some(filter) = env_filter() {
        let _ = tracing_subscriber::registry()
            .with(stderr.with_filter(filter))
            .try_init();
        return;
    }
    let file = debug.file.as_deref().and_then(open_log_file);
    let on_stderr = (debug.on && file.is_none()).then(|| debug.categories.clone());
    let hint = if on_stderr.is_some() {
        LevelFilter::DEBUG
    } else {
        LevelFilter::WARN
    };
    let stderr_filter =
        FilterFn::new(move |meta| to_stderr(meta, on_stderr.as_ref())).with_max_level_hint(hint);
    let file_layer = file.map(|f| {
        let categories = debug.categories.clone();
        tracing_subscriber::fmt::layer()
            .with_writer(Mutex::new(f))
            .with_ansi(false)
            .with_filter(
                FilterFn::new(move |meta| {
                    is_warning(meta.target(), meta.level())
                        || is_dcl_debug(meta.target(), meta.level(), &categories)
                })
                .with_max_level_hint(LevelFilter::DEBUG),
            )
    });
    let _ = tracing_subscriber::registry()
        .with(stderr.with_filter(stderr_filter))
        .with(file_layer)
        .try_init();
}

fn env_filter() -> Option<tracing_subscriber::EnvFilter> {
    let spec = std::env::var("DCL_LOG").ok()?;
    tracing_subscriber::EnvFilter::try_new(&spec)
        .inspect_err(|e| {
            eprintln!("warning: DCL_LOG={spec:?} is not a valid filter ({e}); using the default")
        })
        .ok()
}

/// The `--debug-file`, appended to; when it cannot be opened, stderr says so and the
/// debug lines go to stderr.
fn open_log_file(path: &Path) -> Option<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .inspect_err(|e| {
            eprintln!(
                "warning: --debug-file {}: {e}; debug lines go to stderr",
                path.display()
            )
        })
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_pass_from_everything_but_rmcp() {
        assert!(is_warning("dcl_engine::session", &Level::WARN));
        assert!(is_warning("hyper::client", &Level::ERROR));
        assert!(!is_warning("dcl_engine::session", &Level::DEBUG));
        assert!(!is_warning("rmcp::service", &Level::ERROR));
    }

    #[test]
    fn debug_shows_dcls_own_crates_only() {
        let all = Categories::default();
        for target in [
            "dcl",
            "dcl::stdio_loop",
            "dcl_engine::session::turn",
            "dcl_bridge",
            "dcl_mcp::client",
        ] {
            assert!(is_dcl_debug(target, &Level::DEBUG, &all), "{target}");
        }
        assert!(!is_dcl_debug("dcl_engine", &Level::TRACE, &all));
        assert!(!is_dcl_debug("hyper::client", &Level::DEBUG, &all));
        assert!(!is_dcl_debug("dclx::other", &Level::DEBUG, &all));
    }

    #[test]
    fn categories_keep_and_drop_by_target() {
        let c = Categories::parse("mcp, !approval");
        assert!(is_dcl_debug("dcl_mcp::manager", &Level::DEBUG, &c));
        assert!(is_dcl_debug("dcl_engine::session::mcp", &Level::DEBUG, &c));
        assert!(!is_dcl_debug(
            "dcl_engine::session::mcp_approval",
            &Level::DEBUG,
            &c
        ));
        assert!(!is_dcl_debug(
            "dcl_engine::session::turn",
            &Level::DEBUG,
            &c
        ));
        let only_drop = Categories::parse("!turn");
        assert!(is_dcl_debug(
            "dcl_engine::session",
            &Level::DEBUG,
            &only_drop
        ));
        assert!(!is_dcl_debug(
            "dcl_engine::session::turn::sampling",
            &Level::DEBUG,
            &only_drop
        ));
    }
}
