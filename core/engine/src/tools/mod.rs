//! The tools the engine offers: the built-in ones (`dcl-tools`, on the tool API
//! `dcl-tool-api`), re-exported under their old path, and the engine's own Skill tool,
//! which reads the session's extensions.

pub use dcl_tool_api::{
    Approval, BoxFuture, ChildTurn, HostQuestion, ProcessSpec, ShellState, Tool, ToolContext,
    ToolKind, ToolOutput, ToolSpec, TurnError, TurnEvent, TurnHandle, parse_input,
};
pub use dcl_tools::*;

pub mod skill;
