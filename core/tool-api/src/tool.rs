//! The `Tool` trait and what a tool says about itself.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::LazyLock;

use serde_json::Value;

pub use dcl_protocol::ToolSpec;

use crate::{ToolContext, ToolOutput};

/// A boxed future that may cross threads (the same type as `dcl_model::BoxFuture`).
pub type BoxFuture<'a, T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// What a tool does, for permission decisions and checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Only reads (Read, Glob, Grep).
    Read,
    /// Changes files (Write, Edit, NotebookEdit).
    Edit,
    /// Runs commands (Bash).
    Execute,
    /// Anything else (network, MCP, …).
    Other,
    /// Runs a child turn (Agent): not an action of its own, since each of the child's
    /// calls is decided, checkpointed and reported by itself.
    Delegate,
}

/// What a call needs before it may run. Deny rules and PreToolUse hooks apply to every
/// kind; this decides what happens when neither refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Nothing to decide: the call is no action of its own (a subagent, whose calls are
    /// each decided; StructuredOutput, which only hands over the answer). No rule, mode or
    /// host is consulted.
    Exempt,
    /// Runs without asking, whatever the permission mode: the call only touches session
    /// state (TodoWrite) or processes the session already approved (BashOutput).
    NotNeeded,
    /// The permission policy decides (rules, mode, working directories), and asks the host
    /// when it cannot.
    ByPolicy,
    /// The call is itself a question for the host (AskUserQuestion, ExitPlanMode): the
    /// host is asked whatever the policy says, and its answer becomes the input.
    AlwaysAskHost,
}

/// A definition that never changes (a built-in tool's), built the first time it is asked
/// for and shared by every session of the process.
pub struct ProcessSpec(LazyLock<ToolSpec>);

impl ProcessSpec {
    pub const fn new(build: fn() -> ToolSpec) -> ProcessSpec {
        ProcessSpec(LazyLock::new(build))
    }

    /// The shared definition (a clone shares it).
    pub fn get(&self) -> ToolSpec {
        ToolSpec::clone(&self.0)
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    /// The definition the model is offered: [`Tool::name`], a description and the JSON
    /// Schema of the input (draft 2020-12, `additionalProperties: false`). Asked for on
    /// every offer and request, so a tool builds it once and hands out clones (which share
    /// it): once per process when it never changes, once per change when it depends on
    /// the session (the skills or agents it lists, an MCP server's tools).
    fn spec(&self) -> ToolSpec;
    fn kind(&self) -> ToolKind;
    /// Files this call would touch, made absolute against `ctx.cwd`; used by permission
    /// checks (edits outside the allowed directories ask or are denied).
    fn paths(&self, _input: &Value, _ctx: &ToolContext) -> Vec<PathBuf> {
        Vec::new()
    }
    /// A short human description of this call, for approval prompts.
    fn describe(&self, _input: &Value) -> Option<String> {
        None
    }
    /// True for tools that never need the user's approval, whatever the permission mode:
    /// they only touch session state (TodoWrite) or processes the session already
    /// approved (BashOutput, KillShell). Deny rules still apply.
    fn always_allowed(&self) -> bool {
        false
    }
    /// [`Tool::always_allowed`] for this particular call (Skill: a skill that grants no
    /// tools). Deny rules still apply.
    fn allowed_without_asking(&self, _input: &Value) -> bool {
        self.always_allowed()
    }
    /// What this call needs before it runs; by default [`Approval::NotNeeded`] for calls
    /// [`Tool::allowed_without_asking`] lets through, [`Approval::Exempt`] for a
    /// [`ToolKind::Delegate`], otherwise the policy decides.
    fn approval(&self, input: &Value) -> Approval {
        if self.kind() == ToolKind::Delegate {
            Approval::Exempt
        } else if self.allowed_without_asking(input) {
            Approval::NotNeeded
        } else {
            Approval::ByPolicy
        }
    }
    /// Whether the call may run side by side with the other parallel-safe calls of the
    /// same response (decisions and hooks still run in order). Read-only tools may, and
    /// subagents (each runs in its own context).
    fn parallel_safe(&self) -> bool {
        matches!(self.kind(), ToolKind::Read | ToolKind::Delegate)
    }
    /// True when a successful call's input is the turn's answer (StructuredOutput under
    /// `--json-schema`): the turn keeps it as its structured result, and counts the calls
    /// that failed validation.
    fn answers_turn(&self) -> bool {
        false
    }
    /// True for the call that ends plan mode (ExitPlanMode): plan mode refuses calls that
    /// change things, and presenting the plan is how it is left, so that refusal does not
    /// apply to this tool (the policy still decides, and asks the host).
    fn ends_plan_mode(&self) -> bool {
        false
    }
    /// Runs the tool. Invalid input is an error result, never a panic.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;
}
