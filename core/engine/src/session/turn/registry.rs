//! The tools one model response may call, by name: the session's built-in tools and Skill,
//! its MCP servers' tools, and the engine's own — Agent (also as `Task`), AskUserQuestion,
//! ExitPlanMode and StructuredOutput. Every one is a [`Tool`]; the orchestrator and the
//! approval ask it what it needs (its kind, approval requirement, parallel safety) and
//! never look at its name.
//!
//! Built for each response rather than once per session: MCP servers connect (and drop)
//! while a session runs, the permission mode moves, and the engine's tools borrow the turn
//! they run in.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use dcl_protocol::ToolUseBlock;
use serde_json::Value;

use super::STRUCTURED_OUTPUT_TOOL;
use super::{TurnContext, interactive, subagent};
use crate::tools::{Approval, BoxFuture, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec};

/// The tools of one response, by the name the model calls them.
pub(super) struct Registry<'t> {
    tools: HashMap<String, Arc<dyn Tool + 't>>,
}

impl<'t> Registry<'t> {
    /// What the turn offers now. `calls` are the response's calls (the engine's tools
    /// read their call's proposed input there).
    /// `drive` is the agent loop, for the subagents' child turns.
    pub fn for_response(
        ctx: &'t TurnContext,
        calls: &'t [ToolUseBlock],
        drive: subagent::Drive,
    ) -> Self {
        let mut tools: HashMap<String, Arc<dyn Tool + 't>> = HashMap::new();
        let services = &ctx.core.services;
        for tool in &services.tools {
            if ctx.tools.offers(tool.name()) {
                tools.insert(tool.name().to_string(), tool.clone());
            }
        }
        for tool in services.mcp.tools() {
            if ctx.tools.offers(&tool.qualified_name) {
                let name = tool.qualified_name.clone();
                tools.insert(name, Arc::new(McpTool { turn: ctx, tool }));
            }
        }
        let turn = Turn { ctx, calls };
        if ctx.tools.offers(subagent::AGENT_TOOL) && ctx.core.agent_tool_enabled() {
            let agent = Arc::new(AgentTool {
                turn,
                drive,
                spec: OnceLock::new(),
            });
            tools.insert(subagent::AGENT_TOOL.to_string(), agent);
        }
        for (name, approval) in [
            // A question is for the user: it always goes to the host, in every mode.
            (interactive::ASK_USER_QUESTION, Approval::AlwaysAskHost),
            (interactive::EXIT_PLAN_MODE, Approval::ByPolicy),
        ] {
            if ctx.tools.offers(name) {
                tools.insert(
                    name.to_string(),
                    Arc::new(InteractiveTool {
                        turn,
                        name,
                        approval,
                    }),
                );
            }
        }
        if ctx.tools.offers(STRUCTURED_OUTPUT_TOOL)
            && let Some(schema) = ctx.core.state.with(|s| s.output_schema.clone())
        {
            tools.insert(
                STRUCTURED_OUTPUT_TOOL.to_string(),
                Arc::new(StructuredOutputTool { turn, schema }),
            );
        }
        Registry { tools }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool + 't>> {
        // `Task`, the subagent tool's older name, is the same tool.
        let name = if subagent::is_agent_tool(name) {
            subagent::AGENT_TOOL
        } else {
            name
        };
        self.tools.get(name).cloned()
    }
}

/// What the engine's own tools borrow: the turn, and the response's calls.
#[derive(Clone, Copy)]
struct Turn<'t> {
    ctx: &'t TurnContext,
    calls: &'t [ToolUseBlock],
}

impl Turn<'_> {
    /// The call `tool_ctx` runs, as the model proposed it (before hooks or the host
    /// changed its input).
    fn call(&self, name: &str, tool_ctx: &ToolContext) -> ToolUseBlock {
        self.calls
            .iter()
            .find(|c| c.id == tool_ctx.tool_use_id)
            .cloned()
            .unwrap_or_else(|| ToolUseBlock {
                id: tool_ctx.tool_use_id.clone(),
                name: name.to_string(),
                input: Value::Null,
                extra: Default::default(),
            })
    }
}

/// A subagent: `Agent` (and `Task`, its older name).
struct AgentTool<'t> {
    turn: Turn<'t>,
    drive: subagent::Drive,
    /// The definition lists the session's agents; made only when something reads it.
    spec: OnceLock<ToolSpec>,
}

impl AgentTool<'_> {
    fn spec_now(&self) -> &ToolSpec {
        self.spec.get_or_init(|| {
            self.turn
                .ctx
                .core
                .state
                .with(|s| subagent::tool_spec(&s.agents))
        })
    }
}

impl Tool for AgentTool<'_> {
    fn name(&self) -> &str {
        subagent::AGENT_TOOL
    }

    fn description(&self) -> &str {
        &self.spec_now().description
    }

    fn input_schema(&self) -> Value {
        self.spec_now().input_schema.clone()
    }

    /// Delegating is not itself an action: each of the subagent's calls is decided on its
    /// own, in the session's mode and rules; subagents run side by side.
    fn kind(&self) -> ToolKind {
        ToolKind::Delegate
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let tu = self.turn.call(subagent::AGENT_TOOL, ctx);
            subagent::run(self.turn.ctx, self.drive, &tu, input).await
        })
    }
}

/// AskUserQuestion and ExitPlanMode: questions for the user, answered by the host.
struct InteractiveTool<'t> {
    turn: Turn<'t>,
    name: &'static str,
    approval: Approval,
}

impl Tool for InteractiveTool<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        self.name
    }

    fn input_schema(&self) -> Value {
        // Both definitions, whatever is offered at the moment.
        interactive::tool_specs(true, crate::permissions::PermissionMode::Plan)
            .into_iter()
            .find(|spec| spec.name == self.name)
            .map(|spec| spec.input_schema)
            .unwrap_or_default()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn approval(&self, _input: &Value) -> Approval {
        self.approval
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let tu = self.turn.call(self.name, ctx);
            interactive::run(self.turn.ctx, &tu, input)
        })
    }
}

/// StructuredOutput under `--json-schema`: the call's input is the turn's answer when it
/// matches the schema.
struct StructuredOutputTool<'t> {
    turn: Turn<'t>,
    schema: Arc<crate::structured::OutputSchema>,
}

impl Tool for StructuredOutputTool<'_> {
    fn name(&self) -> &str {
        STRUCTURED_OUTPUT_TOOL
    }

    fn description(&self) -> &str {
        STRUCTURED_OUTPUT_TOOL
    }

    fn input_schema(&self) -> Value {
        self.turn.ctx.core.json_schema().unwrap_or_default()
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
/// like any other tool.
struct McpTool<'t> {
    turn: &'t TurnContext,
    tool: dcl_mcp::McpTool,
}

impl Tool for McpTool<'_> {
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
            &self.turn.core.services,
            &self.tool.qualified_name,
            &ctx.tool_use_id,
            input,
            &ctx.cancel,
        ))
    }
}
