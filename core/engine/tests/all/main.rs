//! Integration tests of dcl-engine.
//! One test binary per crate: each former `tests/<name>.rs` is the module `tests/all/<name>.rs`
//! (shared helpers in `tests/all/common/`),
//! so the crate and its dependencies are linked once instead of once per file.
//! Run one file's tests with `cargo test -p <crate> --test all <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod agent_loop;
mod checkpoints;
mod command_hooks;
mod common;
mod compaction;
mod events;
mod faults;
mod hardening;
mod host_decisions;
mod interactive_tools;
mod model_clients;
mod models;
mod no_string_errors;
mod openai;
mod permission_attacks;
mod permission_updates;
mod project_mcp;
mod resume_fake_server;
mod session_files;
mod special_files;
mod structured_output;
mod subagents;
