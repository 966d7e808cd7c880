//! What a tool may ask of the turn running it. The built-in tools need none of this; the
//! engine's own tools do (a subagent runs a child turn, AskUserQuestion asks the host),
//! and they reach the turn through this handle instead of the engine's types, so a tool
//! never needs the session's internals.

use serde_json::Value;

use crate::BoxFuture;

/// Something a tool reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    /// The call is still running after this long (a `tool_progress` line to hosts that
    /// read them).
    Progress { elapsed_seconds: f64 },
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
    /// A few words on the task (a background child's task frames carry them).
    pub description: String,
    pub prompt: String,
    /// The agent definition to run as (`subagent_type`); the general-purpose one if `None`.
    pub agent: Option<String>,
    pub model: Option<String>,
    /// Run it on its own task: the answer is that it started, and the turn is told when
    /// it ends.
    pub background: bool,
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

/// The turn, as a tool sees it: one handle per call, which its messages are about
/// (a child turn's lines carry the call's id as `parent_tool_use_id`).
pub trait TurnHandle: Send + Sync {
    /// Reports progress of the running call; never blocks the call.
    fn emit(&self, event: TurnEvent);
    /// The call's input as the model proposed it, before hooks or the host changed it.
    fn proposed_input(&self) -> Value;
    /// Leaves plan mode (the user approved the plan) and says so to the host; false when
    /// the session was not in plan mode.
    fn end_plan_mode(&self) -> bool;
    /// Asks the host about a call and returns its answer (the approved input).
    fn ask_host<'a>(&'a self, question: HostQuestion) -> BoxFuture<'a, Result<Value, TurnError>>;
    /// Runs a child turn to its end and returns its final text (a background one: that
    /// it started).
    fn run_child<'a>(&'a self, child: ChildTurn) -> BoxFuture<'a, Result<String, TurnError>>;
}
