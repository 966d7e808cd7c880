//! What the model is offered: the session's tool definitions and names (for requests and
//! `system/init`), as its options and mode allow.

use super::STRUCTURED_OUTPUT_TOOL;
use crate::session::services::SessionCore;

impl SessionCore {
    /// What the model is offered: built-ins, MCP tools, then the structured-output tool.
    pub fn tool_specs(&self) -> Vec<crate::model::ToolSpec> {
        let s = &self.services;
        let mut specs: Vec<_> = s.tools.iter().map(|t| t.spec()).collect();
        let deny = crate::permissions::RuleSet::parse(&s.opts.disallowed_tools);
        specs.extend(
            s.mcp
                .tools()
                .into_iter()
                .filter(|t| !deny.names_whole_tool(&t.qualified_name))
                .map(|t| crate::model::ToolSpec {
                    name: t.qualified_name,
                    description: t.description.unwrap_or_default(),
                    input_schema: t.input_schema,
                }),
        );
        if let Some(schema) = self.json_schema() {
            specs.push(crate::model::ToolSpec {
                name: STRUCTURED_OUTPUT_TOOL.to_string(),
                description: "Return your final answer as structured data matching the schema. Call this exactly once, at the end.".to_string(),
                input_schema: schema,
            });
        }
        specs
    }

    /// Whether the Agent tool is offered: `--tools` may leave it out and a whole-tool
    /// `--disallowedTools` rule (`Agent` or `Task`) hides it.
    /// Whether `--tools` (when given) names `name`, or `default`.
    pub fn listed_in_tools(&self, name: &str) -> bool {
        self.services.opts.tools.as_ref().is_none_or(|list| {
            list.iter()
                .flat_map(|s| s.split(','))
                .map(str::trim)
                .any(|n| n == "default" || n == name)
        })
    }

    /// The tools that talk to the user, as this session offers them now.
    pub fn interactive_specs(&self) -> Vec<crate::model::ToolSpec> {
        let mode = self.state.with(|s| s.live.permission_mode);
        super::interactive::tool_specs(self.services.can_ask_host(), mode)
            .into_iter()
            .filter(|t| self.listed_in_tools(&t.name))
            .collect()
    }

    pub fn agent_tool_enabled(&self) -> bool {
        let deny = crate::permissions::RuleSet::parse(&self.services.opts.disallowed_tools);
        let names = [super::AGENT_TOOL, super::AGENT_TOOL_ALIAS];
        names.iter().any(|n| self.listed_in_tools(n))
            && !names.iter().any(|n| deny.names_whole_tool(n))
    }

    /// The tools `system/init` lists: the subagent tool under its listed name `Task`.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tool_specs().into_iter().map(|t| t.name).collect();
        names.extend(self.interactive_specs().into_iter().map(|t| t.name));
        if self.agent_tool_enabled() {
            names.insert(0, super::AGENT_TOOL_ALIAS.to_string());
        }
        names
    }
}
