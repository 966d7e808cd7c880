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
        let deny = &self.services.disallowed;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;
    use std::sync::Arc;

    use super::super::TurnStop;
    use serde_json::json;

    use super::super::TurnContext;
    use crate::options::{OutputFormat, SessionOptions};
    use crate::session::services::SessionCore;
    use dcl_model::ToolSpec;

    /// A session in a folder of its own, reading no settings or extensions of the machine.
    fn core_with(dir: &Path, adjust: impl FnOnce(&mut SessionOptions)) -> Arc<SessionCore> {
        let mut opts = SessionOptions {
            cwd: Some(dir.to_path_buf()),
            model: Some("mock-model".into()),
            data_dir: Some(dir.join("home/.dcl")),
            setting_sources: Some(Vec::new()),
            persist_session: Some(false),
            ..Default::default()
        };
        opts.env
            .insert("HOME".into(), dir.join("home").display().to_string());
        adjust(&mut opts);
        Arc::new(SessionCore::build(opts).unwrap())
    }

    fn offer_json(core: &Arc<SessionCore>) -> String {
        let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::default());
        serde_json::to_string(&ctx.tool_specs()).unwrap()
    }

    /// Sessions whose offers between them hold every kind of definition: the built-in
    /// tools and Skill, the interactive tools, Agent with the session's agents, and
    /// StructuredOutput.
    fn offers(dir: &Path) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        out.push(("default", offer_json(&core_with(dir, |_| {}))));
        out.push((
            "stream_json_plan",
            offer_json(&core_with(dir, |o| {
                o.output_format = Some(OutputFormat::StreamJson);
                o.permission_mode = Some("plan".into());
            })),
        ));
        out.push((
            "json_schema_agents_denied_bash",
            offer_json(&core_with(dir, |o| {
                o.json_schema = Some(json!({
                    "type": "object",
                    "properties": {"answer": {"type": "string"}},
                    "required": ["answer"]
                }));
                o.agents = Some(
                    json!({"reviewer": {"description": "Reviews code", "prompt": "Review."}})
                        .as_object()
                        .unwrap()
                        .clone(),
                );
                o.disallowed_tools = vec!["Bash".into()];
            })),
        ));
        out
    }

    fn fixture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/offer")
            .join(format!("{name}.json"));
        std::fs::read_to_string(&path).unwrap()
    }

    /// The fixtures were written from the offers of the code before the definitions were
    /// shared: the model must be sent the same bytes.
    #[test]
    fn the_offer_serializes_byte_for_byte_as_before() {
        let dir = tempfile::tempdir().unwrap();
        for (name, json) in offers(dir.path()) {
            assert_eq!(json, fixture(name), "{name}");
        }
    }

    #[test]
    fn the_counted_size_of_an_offer_is_the_size_of_its_json() {
        let dir = tempfile::tempdir().unwrap();
        let core = core_with(dir.path(), |o| {
            o.output_format = Some(OutputFormat::StreamJson);
            o.permission_mode = Some("plan".into());
        });
        let ctx = TurnContext::main(core, String::new(), TurnStop::default());
        let offer = ctx.tool_specs();
        let text = serde_json::to_string(&offer).unwrap();
        assert_eq!(ToolSpec::list_json_size(&offer).bytes, text.len());
    }

    #[test]
    fn two_offers_share_every_definition() {
        let dir = tempfile::tempdir().unwrap();
        let configured = |o: &mut SessionOptions| {
            o.output_format = Some(OutputFormat::StreamJson);
            o.permission_mode = Some("plan".into());
            o.json_schema = Some(json!({"type": "object"}));
        };
        let core = core_with(dir.path(), configured);
        let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::default());
        let (a, b) = (ctx.tool_specs(), ctx.tool_specs());
        let names: Vec<&str> = a.iter().map(ToolSpec::name).collect();
        for kind in [
            "Bash",
            "Skill",
            "AskUserQuestion",
            "ExitPlanMode",
            "StructuredOutput",
            "Agent",
        ] {
            assert!(names.contains(&kind), "{kind} in {names:?}");
        }
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert!(ToolSpec::ptr_eq(x, y), "{} built twice", x.name());
        }
        // Another session of the process shares the definitions built once per process.
        // (Skill's and Agent's are shared through one slot per process, which tests
        // running alongside with other skills and agents may take over: `derived_spec`'s
        // tests show that sharing on a slot of their own.)
        let other = core_with(dir.path(), configured);
        let ctx = TurnContext::main(other, String::new(), TurnStop::default());
        for (x, y) in a.iter().zip(&ctx.tool_specs()) {
            if !["StructuredOutput", "Skill", "Agent"].contains(&x.name()) {
                assert!(ToolSpec::ptr_eq(x, y), "{} not shared", x.name());
            }
        }
    }

    #[test]
    fn a_change_of_the_agents_is_a_new_agent_definition() {
        let dir = tempfile::tempdir().unwrap();
        let core = core_with(dir.path(), |_| {});
        let agent_spec = |core: &Arc<SessionCore>| {
            let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::default());
            ctx.tool_specs()
                .into_iter()
                .find(|s| s.name() == "Agent")
                .unwrap()
        };
        let before = agent_spec(&core);
        core.state.with(|s| {
            let mut defs = serde_json::Map::new();
            defs.insert(
                "translator".into(),
                json!({"description": "Translates text", "prompt": "Translate."}),
            );
            std::sync::Arc::make_mut(&mut s.agents)
                .add_definitions(&defs, crate::agents::AgentSource::Initialize)
                .unwrap();
        });
        let after = agent_spec(&core);
        assert!(!ToolSpec::ptr_eq(&before, &after));
        assert!(
            after
                .description()
                .contains("- translator: Translates text")
        );
        assert!(!before.description().contains("translator"));
        assert!(ToolSpec::ptr_eq(&after, &agent_spec(&core)));
    }

    #[test]
    fn system_init_lists_the_offered_names() {
        let dir = tempfile::tempdir().unwrap();
        let core = core_with(dir.path(), |o| {
            o.output_format = Some(OutputFormat::StreamJson);
            o.permission_mode = Some("plan".into());
        });
        let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::default());
        let mut offered: Vec<String> = ctx
            .tool_specs()
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        let at = offered.iter().position(|n| n == "Agent").unwrap();
        offered.remove(at);
        offered.insert(0, "Task".into());
        assert_eq!(core.tool_names(), offered);
    }
}
