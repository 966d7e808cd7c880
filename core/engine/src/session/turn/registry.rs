//! The tools of a turn, by name: the session's built-in tools and Skill, its MCP servers'
//! tools, and the engine's own — StructuredOutput, AskUserQuestion, ExitPlanMode and Agent
//! (also as `Task`). Every one is a [`Tool`]: the orchestrator and the approval ask it what
//! it needs (its kind, approval requirement, parallel safety) and never look at its name;
//! the tools that need their turn reach it through the call's
//! [`TurnHandle`](dcl_tool_api::TurnHandle). What the model is offered is read from the
//! same registry.
//!
//! Built when it is needed rather than once per session: MCP servers connect (and drop)
//! while a session runs, the permission mode moves, a host may set the output schema.
//! Building one copies pointers, not definitions: the built-in and interactive tools'
//! are built once per process, Skill's and Agent's once per change of the skills or agents
//! they list, StructuredOutput's once per schema.

use std::sync::{Arc, LazyLock};

use serde_json::Value;

use super::{STRUCTURED_OUTPUT_TOOL, ToolSet, interactive, subagent};
use crate::agents::AgentCatalog;
use crate::session::services::SessionCore;
use dcl_tool_api::{Approval, BoxFuture, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec};

/// One tool, and whether the model is offered it now. A tool the session has but does
/// not offer (an interactive tool outside its mode, an MCP tool a deny rule names whole)
/// still answers a call by that name: the policy or the tool itself says why it cannot run.
struct Entry {
    tool: Arc<dyn Tool>,
    offered: bool,
}

/// The tools of a turn, in the order the model is offered them. Building one builds no
/// definition: each tool's is shared and asked for only by [`Registry::offer`].
pub(super) struct Registry {
    entries: Vec<Entry>,
}

/// The interactive tools, one of each per process (they hold nothing of a session).
static ASK_USER_QUESTION: LazyLock<Arc<dyn Tool>> = LazyLock::new(|| Arc::new(AskUserQuestionTool));
static EXIT_PLAN_MODE: LazyLock<Arc<dyn Tool>> = LazyLock::new(|| Arc::new(ExitPlanModeTool));

impl Registry {
    /// What a turn with `set` has now.
    pub fn new(core: &SessionCore, set: &ToolSet) -> Self {
        let services = &core.services;
        let mut entries = Vec::new();
        let mut add = |tool: Arc<dyn Tool>, offered: bool| {
            if set.offers(tool.name()) {
                entries.push(Entry { tool, offered });
            }
        };
        for tool in &services.tools {
            add(tool.clone(), true);
        }
        for tool in services.mcp.tools() {
            let offered = !services.disallowed.names_whole_tool(&tool.qualified_name);
            add(Arc::new(McpTool::new(services.mcp.clone(), tool)), offered);
        }
        let (mode, structured, agents) = core.state.with(|s| {
            let structured = s.output_schema.clone().map(|schema| {
                let spec = match &s.structured_spec {
                    Some((built_for, spec)) if Arc::ptr_eq(built_for, &schema) => spec.clone(),
                    _ => {
                        let spec =
                            structured_output_spec(s.json_schema.clone().unwrap_or_default());
                        s.structured_spec = Some((schema.clone(), spec.clone()));
                        spec
                    }
                };
                StructuredOutputTool { schema, spec }
            });
            (s.live.permission_mode, structured, s.agents.clone())
        });
        if let Some(tool) = structured {
            add(Arc::new(tool), true);
        }
        // Both, whatever is offered at the moment.
        let can_ask = services.can_ask_host();
        for tool in [&*ASK_USER_QUESTION, &*EXIT_PLAN_MODE] {
            let offered = interactive::offered_now(tool.name(), can_ask, mode)
                && core.listed_in_tools(tool.name());
            add(tool.clone(), offered);
        }
        if core.agent_tool_enabled() {
            add(Arc::new(AgentTool { agents }), true);
        }
        Registry { entries }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        // `Task`, the subagent tool's older name, is the same tool.
        let name = if subagent::is_agent_tool(name) {
            subagent::AGENT_TOOL
        } else {
            name
        };
        self.entries
            .iter()
            .find(|e| e.tool.name() == name)
            .map(|e| e.tool.clone())
    }

    /// The definitions the model is offered (each shared with the tool: no copy).
    pub fn offer(&self) -> Vec<ToolSpec> {
        self.offered().map(|t| t.spec()).collect()
    }

    /// The names of the tools the model is offered.
    pub fn offered_names(&self) -> Vec<String> {
        self.offered().map(|t| t.name().to_string()).collect()
    }

    fn offered(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().filter(|e| e.offered).map(|e| &e.tool)
    }
}

/// StructuredOutput's definition: `schema` (the session's `--json-schema`) is its input.
fn structured_output_spec(schema: Value) -> ToolSpec {
    ToolSpec::new(
        STRUCTURED_OUTPUT_TOOL,
        "Return your final answer as structured data matching the schema. Call this exactly once, at the end.",
        schema,
    )
}

/// The handle of a call that runs outside a turn, which the engine's own tools need.
fn turn_of(ctx: &ToolContext) -> Result<&dyn dcl_tool_api::TurnHandle, ToolOutput> {
    ctx.turn
        .as_deref()
        .ok_or_else(|| ToolOutput::error("This tool runs only inside a turn."))
}

/// A subagent: `Agent` (and `Task`, its older name). The child turn is the call's turn's
/// to run.
struct AgentTool {
    /// The session's agents, which the definition lists (the catalog keeps it).
    agents: Arc<AgentCatalog>,
}

impl Tool for AgentTool {
    fn name(&self) -> &str {
        subagent::AGENT_TOOL
    }

    fn spec(&self) -> ToolSpec {
        subagent::tool_spec(&self.agents)
    }

    /// Delegating is not itself an action: each of the subagent's calls is decided on its
    /// own, in the session's mode and rules; subagents run side by side.
    fn kind(&self) -> ToolKind {
        ToolKind::Delegate
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let child = match subagent::child_turn(input) {
                Ok(child) => child,
                Err(invalid) => return invalid,
            };
            let turn = match turn_of(ctx) {
                Ok(turn) => turn,
                Err(out) => return out,
            };
            match turn.run_child(child).await {
                Ok(text) => ToolOutput::ok(text),
                Err(e) => ToolOutput::error(e.to_string()),
            }
        })
    }
}

/// AskUserQuestion: the question goes to the host, whose answer becomes the input.
struct AskUserQuestionTool;

impl Tool for AskUserQuestionTool {
    fn name(&self) -> &str {
        interactive::ASK_USER_QUESTION
    }

    fn spec(&self) -> ToolSpec {
        interactive::ask_user_question_spec()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    /// A question is for the user: it always goes to the host, in every mode.
    fn approval(&self, _input: &Value) -> Approval {
        Approval::AlwaysAskHost
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move { interactive::answer_questions(input) })
    }
}

/// ExitPlanMode: the plan goes to the host for approval; approving it leaves plan mode.
struct ExitPlanModeTool;

impl Tool for ExitPlanModeTool {
    fn name(&self) -> &str {
        interactive::EXIT_PLAN_MODE
    }

    fn spec(&self) -> ToolSpec {
        interactive::exit_plan_mode_spec()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn ends_plan_mode(&self) -> bool {
        true
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match turn_of(ctx) {
                Ok(turn) => interactive::exit_plan_mode(turn, input),
                Err(out) => out,
            }
        })
    }
}

/// StructuredOutput under `--json-schema`: the call's input is the turn's answer when it
/// matches the schema.
struct StructuredOutputTool {
    schema: Arc<crate::structured::OutputSchema>,
    /// Kept in the session's state beside the schema it was built with.
    spec: ToolSpec,
}

impl Tool for StructuredOutputTool {
    fn name(&self) -> &str {
        STRUCTURED_OUTPUT_TOOL
    }

    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    /// Handing over the answer is no action to approve.
    fn approval(&self, _input: &Value) -> Approval {
        Approval::Exempt
    }

    fn answers_turn(&self) -> bool {
        true
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match self.schema.validate(&input) {
                Ok(()) => ToolOutput::ok("Structured output provided successfully"),
                Err(e) => ToolOutput::error(format!(
                    "The structured output does not match the schema. Call {STRUCTURED_OUTPUT_TOOL} again with output that fixes these errors:\n{e}"
                )),
            }
        })
    }
}

/// A tool of a connected MCP server (`mcp__<server>__<tool>`); the policy decides on it
/// like any other tool. Its definition is made from the copy of the server's tool the
/// manager hands out for each registry (moved into it, not copied again): unlike the
/// other tools', it is built per registry, since the manager keeps no definitions.
struct McpTool {
    manager: dcl_mcp::McpManager,
    /// Named as the model calls it (`mcp__<server>__<tool>`), not as its server does.
    spec: ToolSpec,
}

impl McpTool {
    fn new(manager: dcl_mcp::McpManager, tool: dcl_mcp::McpTool) -> McpTool {
        McpTool {
            manager,
            spec: ToolSpec::new(
                tool.qualified_name,
                tool.description.unwrap_or_default(),
                tool.input_schema,
            ),
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        self.spec.name()
    }

    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(crate::session::mcp::call(
            &self.manager,
            self.spec.name(),
            &ctx.tool_use_id,
            input,
            &ctx.cancel,
        ))
    }
}
