//! Integration tests of dcl-bridge, one binary (`tests/descriptors.rs` stays apart: it
//! counts this process's descriptors, which tests running beside it would disturb).
//! Run one file's tests with `cargo test -p dcl-bridge --test all <name>::`.

mod bridge;
mod events;
mod host;
