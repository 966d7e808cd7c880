//! dcl's shell analysis: one bash line becomes the list of simple commands bash would
//! run, each with its argv as plain words and a flag for every construct that could make
//! it run or touch something its words do not show — or the verdict "cannot fully
//! analyse". Permission rules, the read-only classifier and the Bash tool all use this one
//! analysis, so they can never disagree about what a line does.
//!
//! # Why tree-sitter-bash
//!
//! The parser is `tree-sitter-bash`, the grammar codex-rs uses for the same job. Its
//! trees name every construct (`command_substitution`, `heredoc_redirect`,
//! `ansi_c_string`, `subshell`, …), so the analysis is an allow-list of node kinds:
//! anything it does not model, or any `ERROR`/`MISSING` node, makes the line opaque
//! instead of being guessed at. `brush-parser` models bash more completely but then
//! needs its separate word parser for quoting and expansions, and a fuller model is
//! exactly what an allow-list does not need. The grammar's known looseness (a redirect
//! "owning" the words after it, `ls >/dev/null a b`) is undone here, and a differential
//! test against bash itself (`tests/differential.rs`) checks that the argv reported is
//! the argv bash runs.

pub mod analysis;
pub mod environment;
mod not_read_only;
pub mod readonly;
mod readonly_args;
mod readonly_git;
mod word;

pub use analysis::{Analysis, Redirect, SimpleCommand, analyse};
pub use word::{Word, WordKind};
