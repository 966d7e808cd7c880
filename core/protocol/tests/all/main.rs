//! Integration tests of dcl-protocol.
//! One test binary per crate: each former `tests/<name>.rs` is the module `tests/all/<name>.rs`
//! (shared helpers in `tests/all/common/`),
//! so the crate and its dependencies are linked once instead of once per file.
//! Run one file's tests with `cargo test -p <crate> --test all <name>::`.

mod common;
mod hook_frames;
mod parse_line;
mod schema;
mod transcripts;
mod typed;
