//! Integration tests of the `dcl` binary.
//! One test binary per crate: each former `tests/<name>.rs` is the module `tests/all/<name>.rs`
//! (shared helpers in `tests/all/common/`),
//! so the crate and its dependencies are linked once instead of once per file.
//! Run one file's tests with `cargo test -p <crate> --test all <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod command_hooks;
mod common;
mod compaction;
mod containment;
mod control_protocol;
mod elicitation;
mod extensions;
mod line_limit;
mod mcp_cmd;
mod odd_environment;
mod path_aliases;
mod print_mode;
mod process_hardening;
mod project_mcp;
mod replay;
mod same_options;
mod secrets_everywhere;
mod session_stores;
mod sessions;
mod stdio_kinds;
mod stream_json;
mod tools_flag;
mod transcript_replay;
