//! `dcl` in a terminal: the interactive mode. A front end on the bridge's typed event
//! stream: the session's events become [`view::UiEvent`]s and the UI's answers become
//! commands (the `adapter`), the UI keeps its own state (`app`) and draws it inline under
//! the terminal's scrollback.

mod adapter;
mod app;
mod attach;
mod cells;
mod commands;
mod diff;
mod error;
mod files;
mod highlight;
mod history;
mod markdown;
mod mcp_settings;
mod picker;
mod prompt;
mod run;
mod stop;
mod terminal;
mod trust;
mod ui;
pub mod view;
mod wrap;

use std::io::IsTerminal;

use dcl_argv::Args;

pub use error::TuiError;
pub use run::run;

/// Whether `dcl` was started for a person: stdin and stdout are terminals, and neither
/// print mode nor a machine format was asked for.
pub fn wanted(args: &Args) -> bool {
    !args.has("-p")
        && !args.has("--print")
        && args.value(&["--input-format"]).is_none()
        && args.value(&["--output-format"]).is_none()
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
}

/// What the widget-level tests draw: the UI's state and its pieces, without a terminal
/// or a session.
#[doc(hidden)]
pub mod testing {
    pub use crate::adapter::{McpChoice, Projector};
    pub use crate::app::{App, Dialog, Effect, Popup, PopupKind};
    pub use crate::cells::{Cell, ToolCell, ToolResult};
    pub use crate::markdown::render as render_markdown;
    pub use crate::mcp_settings::{Choice, record as record_mcp_choice};
    pub use crate::picker::{Picked, Picker, draw as draw_picker};
    pub use crate::ui::{draw, transcript_lines};
}
