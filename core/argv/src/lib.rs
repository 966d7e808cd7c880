//! The `dcl` command line as data: the flag table ([`args::FLAGS`]), the pre-pass that
//! reads an SDK's argv ([`Args::parse`]) and argv → options JSON ([`options_json`]).
//!
//! The CLI and every binding's `open_argv` read argv here, so a flag means the same to the
//! `dcl` binary and to an in-process session an SDK's spawn adapter opens. This crate knows
//! the options only by their JSON keys: the engine's parser (reached through the bridge)
//! checks the values, and [`flag_for_option`] names the flag when it refuses one.

pub mod args;
mod options;

pub use args::{Action, Args, Arity, FLAGS, Flag, Literal, help, lookup};
pub use options::{ArgvError, OutputFormat, flag_for_option, options_json, stream_input};
