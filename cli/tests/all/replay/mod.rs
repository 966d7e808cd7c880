//! Replays the reference CLI's golden transcripts against `dcl` and compares structure.

pub mod allowlist;
pub mod compare;
pub mod driver;
pub mod schema;
pub mod transcript;
