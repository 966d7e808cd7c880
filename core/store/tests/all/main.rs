//! Integration tests of dcl-store.
//! One test binary per crate: each former `tests/<name>.rs` is the module `tests/all/<name>.rs`
//! (shared helpers in `tests/all/common/`),
//! so the crate and its dependencies are linked once instead of once per file.
//! Run one file's tests with `cargo test -p <crate> --test all <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on broken fixtures

mod common;
mod sdk_helpers;
mod sessions;
mod stores;
