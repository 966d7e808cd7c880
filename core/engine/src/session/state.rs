//! Everything about a session that changes while it runs, behind one lock.
//!
//! The lock is only reachable through [`StateCell::with`], whose closure cannot await, so
//! no task can hold it across a suspension point by construction.

use std::collections::BTreeMap;
use std::sync::Mutex;

use dcl_protocol::{ContentBlock, ModelUsage};
use serde_json::Value;

use super::hook_registry::HookRegistry;
use dcl_policy::permissions::PermissionMode;
use dcl_policy::settings::Settings;

/// Whose turn this is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TurnKind {
    Main,
    Subagent {
        agent_id: String,
        agent_type: String,
    },
}

/// A server start-up that any number of waiters can await.
pub(crate) type McpStartup = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// Settings read at the start of each model call or tool check.
#[derive(Debug, Clone)]
pub struct LiveSettings {
    pub model: String,
    pub permission_mode: PermissionMode,
    pub max_thinking_tokens: Option<u32>,
    /// A model change asked for during a turn; applied when the turn ends.
    pub pending_model: Option<String>,
    pub pending_thinking: Option<Option<u32>>,
    pub system_prompt: Option<String>,
    pub append_system_prompt: Option<String>,
    /// Reasoning effort (`low`…`max`, or `off`); `None` is the model's default.
    pub effort: Option<String>,
    pub pending_effort: Option<Option<String>>,
}

impl LiveSettings {
    /// Changes asked for during a turn take effect once it has ended.
    pub fn apply_pending(&mut self) {
        if let Some(m) = self.pending_model.take() {
            self.model = m;
        }
        if let Some(t) = self.pending_thinking.take() {
            self.max_thinking_tokens = t;
        }
        if let Some(e) = self.pending_effort.take() {
            self.effort = e;
        }
    }
}

/// Usage and cost accumulated over the whole session.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub cost_usd: f64,
    /// Per model, in the order first used (`result.modelUsage`).
    pub model_usage: Vec<(String, ModelUsage)>,
}

impl Totals {
    /// The entry of `model`, made by `new` when it has none yet.
    pub fn model_entry(
        &mut self,
        model: &str,
        new: impl FnOnce() -> ModelUsage,
    ) -> &mut ModelUsage {
        let i = match self.model_usage.iter().position(|(m, _)| m == model) {
            Some(i) => i,
            None => {
                // Most sessions use one or two models: room for one more, not the four a
                // first push would reserve.
                self.model_usage.reserve_exact(1);
                self.model_usage.push((model.to_string(), new()));
                self.model_usage.len() - 1
            }
        };
        &mut self.model_usage[i].1
    }
}

/// Counts over the session, reported by `get_context_usage`.
#[derive(Debug, Clone, Default)]
pub struct SessionStats {
    pub messages: u64,
    pub prompts: u64,
    pub tool_calls: u64,
    /// Lines added plus removed by Write/Edit/NotebookEdit, from their patches.
    pub lines_changed: u64,
}

/// MCP servers that have not started yet.
#[derive(Default)]
pub struct McpPending {
    /// Configured servers; they start when the actor does.
    pub configured: BTreeMap<String, (dcl_mcp::ServerConfig, String)>,
    /// Host-provided (`type: "sdk"`) servers to start once the host has initialized.
    pub sdk: Vec<String>,
    /// Start-ups in flight; a turn waits for them so its tools are known.
    pub startups: Vec<McpStartup>,
}

pub struct SessionState {
    pub live: LiveSettings,
    pub totals: Totals,
    pub stats: SessionStats,
    /// Rules and directories the host added during the session (`updatedPermissions`).
    pub session_permissions: dcl_policy::permissions::host_decision::SessionPermissions,
    pub hooks: HookRegistry,
    pub settings: Settings,
    /// The `--json-schema` / `initialize.jsonSchema` of this session.
    pub json_schema: Option<Value>,
    /// That schema, compiled when it was set.
    pub output_schema: Option<std::sync::Arc<crate::structured::OutputSchema>>,
    /// StructuredOutput's definition and the compiled schema it was built with: built
    /// again only once that schema is replaced, not for every offer.
    pub structured_spec: Option<(
        std::sync::Arc<crate::structured::OutputSchema>,
        dcl_tool_api::ToolSpec,
    )>,
    /// `initialize.promptSuggestions`: suggest the next prompt after each turn.
    pub prompt_suggestions: bool,
    /// `initialize.modelPolicyProvider` (Qoder): ask the host before each model call.
    pub model_policy: bool,
    /// Becomes true with the first turn (SessionStart fires once).
    pub session_started: bool,
    /// Blocks of `shouldQuery: false` messages, prepended to the next turn's prompt.
    pub pending_context: Vec<ContentBlock>,
    pub mcp: McpPending,
    /// Every subagent definition the session knows; shared with the turns' Agent tool,
    /// which reads its definition from it (a change replaces or copies the catalog).
    pub agents: std::sync::Arc<crate::agents::AgentCatalog>,
    /// The agent the main thread runs as (`initialize.agent`, `--agent`).
    pub main_agent: Option<String>,
    /// `initialize.forwardSubagentText`: subagents' text reaches the host stream.
    pub forward_subagent_text: bool,
    /// `initialize.agentProgressSummaries`: background agents report progress.
    pub agent_progress: bool,
    /// Background subagents still running, by task id.
    pub background_agents: std::collections::HashMap<String, tokio_util::sync::CancellationToken>,
}

pub struct StateCell(Mutex<SessionState>);

impl StateCell {
    pub fn new(state: SessionState) -> Self {
        StateCell(Mutex::new(state))
    }

    /// Runs `f` with the state locked. A poisoned lock still holds usable data: a
    /// panicking turn must not wedge the session.
    pub fn with<R>(&self, f: impl FnOnce(&mut SessionState) -> R) -> R {
        let mut guard = match self.0.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        f(&mut guard)
    }

    pub fn live(&self) -> LiveSettings {
        self.with(|s| s.live.clone())
    }
}
