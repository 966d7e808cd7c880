//! What a tool may ask of the turn running it. The built-in tools need none of this; the
//! engine's own tools do (a subagent runs a child turn, AskUserQuestion asks the host),
//! and they reach the turn through this handle instead of the engine's types, so a tool
//! never needs the session's internals.

use serde_json::Value;

use crate::BoxFuture;

/// Something a tool reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    /// A line of progress for the call (a `tool_progress` message to hosts that read them).
    Progress {
        tool_use_id: String,
        message: String,
    },
}

/// A question for the host about one call (a `can_use_tool` request).
#[derive(Debug, Clone, PartialEq)]
pub struct HostQuestion {
    pub tool_name: String,
    pub tool_use_id: String,
    pub input: Value,
    /// A short human description of the call, for the prompt.
    pub description: Option<String>,
}

/// A child turn to run (a subagent), on the session's model unless one is named.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildTurn {
    /// The call that starts it (its messages carry this as `parent_tool_use_id`).
    pub tool_use_id: String,
    pub prompt: String,
    /// The agent definition to run as (`subagent_type`); the general-purpose one if `None`.
    pub agent: Option<String>,
    pub model: Option<String>,
}

/// Why the turn could not do what a tool asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    /// No host can answer (print mode with text output) or the turn runs no children.
    #[error("{0} is not available in this session")]
    Unavailable(&'static str),
    /// The host refused; the message is what the model is told.
    #[error("{0}")]
    Refused(String),
    /// The turn was interrupted before the answer came.
    #[error("interrupted")]
    Interrupted,
    /// The child turn ended without an answer; the message says how.
    #[error("{0}")]
    Failed(String),
}

/// The turn, as a tool sees it.
pub trait TurnHandle: Send + Sync {
    /// Reports progress of a running call; never blocks the call.
    fn emit(&self, event: TurnEvent);
    /// Asks the host about a call and returns its answer (the approved input).
    fn ask_host<'a>(&'a self, question: HostQuestion) -> BoxFuture<'a, Result<Value, TurnError>>;
    /// Runs a child turn to its end and returns its final text.
    fn run_child<'a>(&'a self, child: ChildTurn) -> BoxFuture<'a, Result<String, TurnError>>;
}
