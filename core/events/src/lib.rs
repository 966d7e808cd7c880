//! The contract between dcl's engine and every front end: a session takes
//! [`SessionCommand`]s in and gives [`AgentEvent`]s out.
//!
//! The events describe a session as a lifecycle — session → turn → item — the way an
//! editor (ACP's `session/update`), a terminal UI or a binding needs to see it: an item
//! (agent text, thinking, a tool call, a hook run) is started, may grow by deltas, and is
//! completed once. Every front end is a projection of this stream; stream-json (the claude,
//! qoder and legacy dialects) is one of them, and none re-parses another's output.
//!
//! This crate is a leaf: it knows no wire format and no other dcl crate, so a front end
//! can import it (through `dcl-bridge`) without importing the engine. Every type is
//! serde-serialisable (`type`-tagged, snake_case), so bindings may pass events as JSON.

mod command;
mod content;
mod describe;
mod event;
pub mod hook_input;
mod hooks;
mod item;
mod request;
mod tool_call;
mod turn;

pub use command::{
    ElicitationAction, McpCommand, PermissionDecision, SessionCommand, SettingsChange,
};
pub use content::{ContentBlock, ImageSource};
pub use describe::{CommandInfo, ModelChoice, SessionDescription};
pub use event::{AgentEvent, McpServerInfo, NoticeLevel, SessionInfo};
pub use hook_input::HookEvent;
pub use hooks::{Fired, HookEventName, Matcher};
pub use item::{Item, ItemBody, ItemDelta, ItemId};
pub use request::{HostRequest, PermissionRequest, PlanEntry, PlanEntryStatus};
pub use tool_call::{Diff, HookRun, HookStatus, Location, ToolCall, ToolKind, ToolStatus};
pub use turn::{StopReason, TokenUsage, TurnEnd};
