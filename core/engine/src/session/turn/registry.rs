//! The tools of a turn, by name: the session's built-in tools and Skill, its MCP servers'
//! tools, and the engine's own — StructuredOutput, AskUserQuestion, ExitPlanMode and Agent
//! (also as `Task`). Every one is a [`Tool`]: the orchestrator and the approval ask it what
//! it needs (its kind, approval requirement, parallel safety) and never look at its name;
//! the tools that need their turn reach it through the call's
//! [`TurnHandle`](crate::tools::TurnHandle). What the model is offered is read from the
//! same registry.
//!
//! Built when it is needed rather than once per session: MCP servers connect (and drop)
//! while a session runs, the permission mode moves, a host may set the output schema.

use std::sync::Arc;

use serde_json::Value;

use super::{STRUCTURED_OUTPUT_TOOL, ToolSet, interactive, subagent};
use crate::session::services::SessionCore;
use crate::tools::{Approval, BoxFuture, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec};

/// One tool, and whether the model is offered it now. A tool the session has but does
/// not offer (an interactive tool outside its mode, an MCP tool a deny rule names whole)
/// still answers a call by that name: the policy or the tool itself says why it cannot run.
struct Entry {
    tool: Arc<dyn Tool>,
    offered: bool,
}

/// The tools of a turn, in the order the model is offered them.
pub(super) struct Registry {
    entries: Vec<Entry>,
}

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
        let deny = crate::permissions::RuleSet::parse(&services.opts.disallowed_tools);
        for tool in services.mcp.tools() {
            let offered = !deny.names_whole_tool(&tool.qualified_name);
            add(
                Arc::new(McpTool {
                    manager: services.mcp.clone(),
                    tool,
                }),
                offered,
            );
        }
        let (mode, output_schema) = core
            .state
            .with(|s| (s.live.permission_mode, s.output_schema.clone()));
        if let Some(schema) = output_schema {
            let input_schema = core.json_schema().unwrap_or_default();
            add(
                Arc::new(StructuredOutputTool {
                    schema,
                    spec: ToolSpec {
                        name: STRUCTURED_OUTPUT_TOOL.to_string(),
                        description: "Return your final answer as structured data matching the schema. Call this exactly once, at the end.".to_string(),
                        input_schema,
                    },
                }),
                true,
            );
        }
        // Both definitions, whatever is offered at the moment.
        let offered_now: Vec<String> = interactive::tool_specs(services.can_ask_host(), mode)
            .into_iter()
            .map(|spec| spec.name)
            .collect();
        for spec in interactive::tool_specs(true, crate::permissions::PermissionMode::Plan) {
            let offered = offered_now.contains(&spec.name) && core.listed_in_tools(&spec.name);
            let tool: Arc<dyn Tool> = if spec.name == interactive::ASK_USER_QUESTION {
                Arc::new(AskUserQuestionTool { spec })
            } else {
                Arc::new(ExitPlanModeTool { spec })
            };
            add(tool, offered);
        }
        if core.agent_tool_enabled() {
            let spec = core.state.with(|s| subagent::tool_spec(&s.agents));
            add(Arc::new(AgentTool { spec }), true);
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

    /// The definitions the model is offered.
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

/// The handle of a call that runs outside a turn, which the engine's own tools need.
fn turn_of(ctx: &ToolContext) -> Result<&dyn crate::tools::TurnHandle, ToolOutput> {
    ctx.turn
        .as_deref()
        .ok_or_else(|| ToolOutput::error("This tool runs only inside a turn."))
}

/// `name`, `description` and `input_schema` read from the tool's own `spec` field: the
/// engine's tools are defined by a [`ToolSpec`] built when the registry is.
macro_rules! described_by_spec {
    () => {
        fn name(&self) -> &str {
            &self.spec.name
        }

        fn description(&self) -> &str {
            &self.spec.description
        }

        fn input_schema(&self) -> Value {
            self.spec.input_schema.clone()
        }
    };
}

/// A subagent: `Agent` (and `Task`, its older name). The child turn is the call's turn's
/// to run.
struct AgentTool {
    /// The definition lists the session's agents.
    spec: ToolSpec,
}

impl Tool for AgentTool {
    fn name(&self) -> &str {
        subagent::AGENT_TOOL
    }

    fn description(&self) -> &str {
        &self.spec.description
    }

    fn input_schema(&self) -> Value {
        self.spec.input_schema.clone()
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
struct AskUserQuestionTool {
    spec: ToolSpec,
}

impl Tool for AskUserQuestionTool {
    described_by_spec!();

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
struct ExitPlanModeTool {
    spec: ToolSpec,
}

impl Tool for ExitPlanModeTool {
    described_by_spec!();

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
    spec: ToolSpec,
}

impl Tool for StructuredOutputTool {
    described_by_spec!();

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
/// like any other tool.
struct McpTool {
    manager: dcl_mcp::McpManager,
    tool: dcl_mcp::McpTool,
}

impl Tool for McpTool {
    // The model calls it by its qualified name (`mcp__<server>__<tool>`), not by the
    // name it has on its server.
    #[allow(clippy::misnamed_getters)]
    fn name(&self) -> &str {
        &self.tool.qualified_name
    }

    fn description(&self) -> &str {
        self.tool.description.as_deref().unwrap_or_default()
    }

    fn input_schema(&self) -> Value {
        self.tool.input_schema.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(crate::session::mcp::call(
            &self.manager,
            &self.tool.qualified_name,
            &ctx.tool_use_id,
            input,
            &ctx.cancel,
        ))
    }
}
