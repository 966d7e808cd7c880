//! Permission modes and rules: what may run unasked, what is refused, what asks the host.
//!
//! Decisions are made on resolved, symlink-free paths and on every simple command of a
//! compound shell line, so neither `..`, symlinks nor `a && b` can widen what a rule or
//! a mode allows.

pub mod bash_readonly;
pub mod paths;
pub mod rules;

use std::path::PathBuf;

use serde_json::Value;

use crate::tools::{Tool, ToolContext, ToolKind};
pub use rules::{Rule, RuleSet};

/// The message the seed prescribes for plan mode.
pub const PLAN_MODE_DENIAL: &str = "Permission denied: Plan mode: write operations are not allowed";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    BypassPermissions,
    DontAsk,
}

impl PermissionMode {
    /// Accepts the SDK spelling (`acceptEdits`), Qoder's snake_case (`accept_edits`) and
    /// `yolo`; anything else is an error naming the valid modes.
    pub fn parse(s: &str) -> Result<Self, String> {
        let norm: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match norm.as_str() {
            "default" => Ok(PermissionMode::Default),
            "acceptedits" => Ok(PermissionMode::AcceptEdits),
            "plan" => Ok(PermissionMode::Plan),
            "bypasspermissions" | "yolo" => Ok(PermissionMode::BypassPermissions),
            "dontask" => Ok(PermissionMode::DontAsk),
            _ => Err(format!(
                "Invalid permission mode {s:?}: expected one of default, acceptEdits, plan, bypassPermissions, dontAsk"
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
        }
    }
}

/// The outcome of checking one tool call before any host is asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    Deny(String),
    /// Needs approval; `reason` explains why (for the prompt and for auto-denials).
    Ask {
        blocked_path: Option<PathBuf>,
        decision_reason_type: Option<&'static str>,
    },
}

/// Everything a permission decision depends on.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: PermissionMode,
    pub allow: RuleSet,
    pub deny: RuleSet,
    /// Directories edits may touch without asking in acceptEdits mode, and reads
    /// may touch without asking in every mode: the cwd and `--add-dir`s (resolved).
    pub allowed_dirs: Vec<PathBuf>,
}

impl Policy {
    pub fn new(
        mode: PermissionMode,
        allowed_tools: &[String],
        disallowed_tools: &[String],
        cwd: &std::path::Path,
        add_dirs: &[PathBuf],
    ) -> Self {
        let mut allowed_dirs = vec![paths::resolve_real(cwd)];
        for d in add_dirs {
            let abs = if d.is_absolute() {
                d.clone()
            } else {
                cwd.join(d)
            };
            allowed_dirs.push(paths::resolve_real(&abs));
        }
        Policy {
            mode,
            allow: RuleSet::parse(allowed_tools),
            deny: RuleSet::parse(disallowed_tools),
            allowed_dirs,
        }
    }

    fn inside_allowed(&self, p: &std::path::Path) -> bool {
        let real = paths::resolve_real(p);
        self.allowed_dirs.iter().any(|d| real.starts_with(d))
    }

    /// Checks one call. `tool` is `None` for tools dcl does not have built in
    /// (MCP tools, host tools), which are treated as "other".
    pub fn check(
        &self,
        tool_name: &str,
        tool: Option<&dyn Tool>,
        input: &Value,
        ctx: &ToolContext,
    ) -> Verdict {
        let kind = tool.map_or(ToolKind::Other, |t| t.kind());
        let command = input.get("command").and_then(Value::as_str);
        let mut touched: Vec<PathBuf> = tool.map(|t| t.paths(input, ctx)).unwrap_or_default();
        if kind == ToolKind::Execute
            && let Some(cmd) = command
        {
            let home = ctx.env.get("HOME").map(PathBuf::from);
            touched.extend(bash_readonly::referenced_paths(
                cmd,
                &ctx.shell.cwd(),
                home.as_deref(),
            ));
        }

        if self.deny.matches(tool_name, input, &touched, &ctx.cwd) {
            return Verdict::Deny(format!(
                "Permission to use {tool_name} has been denied by a disallowed-tools rule."
            ));
        }
        if self.mode == PermissionMode::BypassPermissions
            || tool.is_some_and(|t| t.always_allowed())
        {
            return Verdict::Allow;
        }

        let read_only = match kind {
            ToolKind::Read => true,
            ToolKind::Execute => command.is_some_and(bash_readonly::is_read_only),
            ToolKind::Edit | ToolKind::Other => false,
        };
        let paths_inside = touched.iter().all(|p| self.inside_allowed(p));

        if read_only && paths_inside {
            return Verdict::Allow;
        }
        if self.mode == PermissionMode::Plan && !read_only && tool_name != "ExitPlanMode" {
            return Verdict::Deny(PLAN_MODE_DENIAL.to_string());
        }
        if self.allow.matches(tool_name, input, &touched, &ctx.cwd) {
            return Verdict::Allow;
        }
        if self.mode == PermissionMode::AcceptEdits && kind == ToolKind::Edit && paths_inside {
            return Verdict::Allow;
        }
        let blocked_path = touched
            .iter()
            .find(|p| !self.inside_allowed(p))
            .or(touched.first())
            .cloned();
        Verdict::Ask {
            blocked_path,
            decision_reason_type: (self.mode == PermissionMode::Plan).then_some("mode"),
        }
    }
}

/// The text of an automatic denial when nobody can be asked (the reference's wording).
pub fn auto_denial_message(
    tool_name: &str,
    kind: ToolKind,
    path: Option<&std::path::Path>,
) -> String {
    match (kind, path) {
        (ToolKind::Edit, Some(p)) => format!(
            "Claude requested permissions to write to {}, but you haven't granted it yet.",
            p.display()
        ),
        (ToolKind::Read, Some(p)) => format!(
            "Claude requested permissions to read from {}, but you haven't granted it yet.",
            p.display()
        ),
        _ => format!(
            "Claude requested permissions to use {tool_name}, but you haven't granted it yet."
        ),
    }
}
