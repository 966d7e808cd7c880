//! The tool API: what every tool the model can call implements, whoever provides it (the
//! built-in tools in `dcl-tools`, the engine's own `Agent`, `AskUserQuestion`,
//! `ExitPlanMode`, `StructuredOutput` and `Skill`, MCP tools).
//!
//! A tool says what it is ([`Tool::kind`]), what it needs before it may run
//! ([`Tool::approval`]) and whether it may run beside other calls ([`Tool::parallel_safe`]);
//! the turn asks it rather than comparing names. Tools that need their turn (emit an
//! event, ask the host, run a child turn) reach it through [`TurnHandle`].
//!
//! The crate knows the protocol, the shell's environment policy and the sandbox (session
//! state every process-starting tool shares), and nothing of the engine.

mod checked;
mod client_files;
mod context;
mod output;
pub mod output_dirs;
pub mod processes;
mod tool;
mod turn;

pub use checked::{CheckedPath, CheckedPaths, normalize_lexically, resolve_real};
pub use client_files::{ClientFiles, ClientFilesError, ClientTerminal, TerminalRun};
pub use context::{ShellState, ToolContext};
pub use output::{ToolOutput, parse_input};
pub use processes::{
    BackgroundShellInfo, BackgroundShells, ShellError, ShellListener, ShellStatus,
};
pub use tool::{Approval, BoxFuture, ProcessSpec, Tool, ToolKind, ToolSpec};
pub use turn::{ChildTurn, HostQuestion, TurnError, TurnEvent, TurnHandle};
