//! What the session offers, as `system/init` lists it and as the tool registry reads the
//! options: `--tools` and whole-tool `--disallowedTools` rules.

use super::registry::Registry;
use super::{AGENT_TOOL, AGENT_TOOL_ALIAS, ToolSet};
use crate::session::services::SessionCore;

impl SessionCore {
    /// Whether `--tools` (when given) names `name`, or `default`.
    pub fn listed_in_tools(&self, name: &str) -> bool {
        self.services.opts.tools.as_ref().is_none_or(|list| {
            list.iter()
                .flat_map(|s| s.split(','))
                .map(str::trim)
                .any(|n| n == "default" || n == name)
        })
    }

    /// Whether the Agent tool is offered: `--tools` may leave it out and a whole-tool
    /// `--disallowedTools` rule (`Agent` or `Task`) hides it.
    pub fn agent_tool_enabled(&self) -> bool {
        let deny = crate::permissions::RuleSet::parse(&self.services.opts.disallowed_tools);
        let names = [AGENT_TOOL, AGENT_TOOL_ALIAS];
        names.iter().any(|n| self.listed_in_tools(n))
            && !names.iter().any(|n| deny.names_whole_tool(n))
    }

    /// The tools `system/init` lists: what the session offers, the subagent tool first
    /// under its listed name `Task`.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names = Registry::new(self, &ToolSet::all()).offered_names();
        if let Some(at) = names.iter().position(|n| n == AGENT_TOOL) {
            names.remove(at);
            names.insert(0, AGENT_TOOL_ALIAS.to_string());
        }
        names
    }
}
