//! Skill: hands the model a skill's instructions (its `SKILL.md` body with the base
//! directory, as the reference does). The skill's `allowed-tools` are granted for the
//! rest of the turn, so a skill that grants nothing needs no approval to be read.

use std::sync::Mutex;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::derived_spec::shared_through;
use crate::extensions::{self, SharedExtensions, SkillCatalog};
use dcl_model::{BoxFuture, ToolSpec};
use dcl_tool_api::{Tool, ToolContext, ToolKind, ToolOutput, parse_input};
use dcl_tools::object_schema;

pub const SKILL_TOOL: &str = "Skill";

const DESCRIPTION: &str = "Execute a skill within the main conversation.\n\nSkills are \
folders of instructions (and files) for specialised tasks. When a task matches a skill's \
description, call this tool with the skill's name before doing the task yourself; its \
instructions come back as the result. Pass `args` for a skill that takes arguments. Only \
use skills listed below; do not call a skill that is already running.";

pub struct SkillTool {
    extensions: SharedExtensions,
}

impl SkillTool {
    pub fn new(extensions: SharedExtensions) -> Self {
        SkillTool { extensions }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillInput {
    skill: String,
    #[serde(default)]
    args: Option<String>,
}

impl Tool for SkillTool {
    fn name(&self) -> &'static str {
        SKILL_TOOL
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input
            .get("skill")
            .and_then(Value::as_str)
            .map(|s| format!("Use skill {s}"))
    }

    /// Reading a skill is asking for instructions; only one that grants tools (or an
    /// unknown name, which fails anyway) goes through the usual decision.
    fn allowed_without_asking(&self, input: &Value) -> bool {
        let Some(name) = input.get("skill").and_then(Value::as_str) else {
            return true;
        };
        extensions::read(&self.extensions, |e| {
            e.skills
                .get(name)
                .is_none_or(|s| s.allowed_tools.is_empty())
        })
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: SkillInput = match parse_input(SKILL_TOOL, input) {
                Ok(i) => i,
                Err(e) => return e,
            };
            let found = extensions::read(&self.extensions, |e| {
                e.skills.get(&input.skill).cloned().ok_or_else(|| {
                    let known = e.skills.names();
                    if known.is_empty() {
                        format!("Unknown skill: {} (no skills are installed)", input.skill)
                    } else {
                        format!(
                            "Unknown skill: {} (known: {})",
                            input.skill,
                            known.join(", ")
                        )
                    }
                })
            });
            let skill = match found {
                Ok(s) => s,
                Err(e) => {
                    return ToolOutput::error(format!("<tool_use_error>{e}</tool_use_error>"));
                }
            };
            ctx.grant(&skill.allowed_tools);
            ToolOutput::ok(skill.content(input.args.as_deref().unwrap_or("")))
                .with_structured(json!({"success": true, "commandName": skill.name}))
        })
    }

    /// The reference lists the available skills in the tool's description: built once
    /// per change of the skills (and shared by sessions that list the same).
    fn spec(&self) -> ToolSpec {
        extensions::read(&self.extensions, |e| e.skills.tool_spec(definition))
    }
}

/// The definition listing `skills`.
fn definition(skills: &SkillCatalog) -> ToolSpec {
    static LAST: Mutex<Option<ToolSpec>> = Mutex::new(None);
    let listing = skills
        .iter()
        .map(|s| format!("- {}: {}", s.name, s.description))
        .collect::<Vec<_>>()
        .join("\n");
    let listing = if listing.is_empty() {
        "(none)".to_string()
    } else {
        listing
    };
    shared_through(
        &LAST,
        SKILL_TOOL,
        format!("{DESCRIPTION}\n\n<available_skills>\n{listing}\n</available_skills>"),
        input_schema,
    )
}

fn input_schema() -> Value {
    object_schema(
        json!({
            "skill": {
                "description": "The skill name. E.g., \"commit\", \"review-pr\", or \"pdf\"",
                "type": "string"
            },
            "args": {
                "description": "Optional arguments for the skill",
                "type": "string"
            }
        }),
        &["skill"],
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::{Arc, RwLock};

    use super::*;
    use crate::extensions::{ExtensionSources, Extensions};

    fn tool_with_skills(dir: &std::path::Path) -> SkillTool {
        let skill = dir.join("skills/greet");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\ndescription: Greets people\n---\nSay hello to $ARGUMENTS.",
        )
        .unwrap();
        let granting = dir.join("skills/deploy");
        std::fs::create_dir_all(&granting).unwrap();
        std::fs::write(
            granting.join("SKILL.md"),
            "---\ndescription: Deploys\nallowed-tools: Bash(make deploy)\n---\nRun make deploy.",
        )
        .unwrap();
        let ext = Extensions::load(ExtensionSources {
            user_folders: vec![dir.to_path_buf()],
            ..ExtensionSources::default()
        });
        SkillTool::new(Arc::new(RwLock::new(ext)))
    }

    #[tokio::test]
    async fn the_result_is_the_body_with_its_base_directory() {
        let dir = tempfile::tempdir().unwrap();
        let tool = tool_with_skills(dir.path());
        let ctx = ToolContext::new(dir.path().to_path_buf());
        let out = tool
            .call(json!({"skill": "greet", "args": "Ada"}), &ctx)
            .await;
        assert!(!out.is_error);
        let text = match out.content {
            dcl_protocol::ToolResultContent::Text(t) => t,
            other => panic!("{other:?}"),
        };
        assert!(text.contains("Base directory for this skill: "), "{text}");
        assert!(text.ends_with("Say hello to Ada."), "{text}");
        assert!(ctx.granted().is_empty());
        let out = tool.call(json!({"skill": "deploy"}), &ctx).await;
        assert!(!out.is_error);
        assert_eq!(ctx.granted(), vec!["Bash(make deploy)"]);
        let out = tool.call(json!({"skill": "nope"}), &ctx).await;
        assert!(out.is_error);
        assert!(tool.spec().description().contains("- greet: Greets people"));
    }

    #[test]
    fn only_skills_that_grant_tools_need_a_decision() {
        let dir = tempfile::tempdir().unwrap();
        let tool = tool_with_skills(dir.path());
        assert!(tool.allowed_without_asking(&json!({"skill": "greet"})));
        assert!(!tool.allowed_without_asking(&json!({"skill": "deploy"})));
    }
}
