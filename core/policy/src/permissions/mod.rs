//! Permission modes and rules: what may run unasked, what is refused, what asks the host.
//!
//! Every path a call touches — a file tool's path, a search root, the paths a Bash line
//! names as the shell analysis of `dcl-shell` reads them — goes through one path decision
//! ([`paths::Aliases`], [`path_rules`], [`protected`]): deny and ask rules and protected
//! names bind when any name of the path matches (as given, each symlink hop, the real
//! path; a rule's own path is resolved the same way), allow rules and the allowed
//! directories grant on the real path only. So neither `..`, symlinks, quoting nor
//! `a && b` can widen what a rule or a mode allows, nor a link narrow what a rule denies.
//! Order: deny rules → bypassPermissions → read-only calls inside the allowed
//! directories → plan mode → protected files (ask) → allow rules → acceptEdits → ask.

#[cfg(test)]
mod alias_tests;
pub mod bash_readonly;
pub mod command_hooks;
pub mod git_config;
pub mod host_decision;
mod path_rules;
pub mod paths;
pub mod protected;
pub mod rules;
pub mod trusted;

use std::path::PathBuf;

use serde_json::Value;

use dcl_tool_api::{Tool, ToolContext, ToolKind};
pub use rules::{CallView, Rule, RuleSet};

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

/// A permission mode name that is none of the modes.
#[derive(Debug, thiserror::Error)]
#[error(
    "Invalid permission mode {0:?}: expected one of default, acceptEdits, plan, bypassPermissions, dontAsk"
)]
pub struct InvalidPermissionMode(pub String);

impl PermissionMode {
    /// Accepts the SDK spelling (`acceptEdits`), Qoder's snake_case (`accept_edits`) and
    /// `yolo`; anything else is an error naming the valid modes.
    pub fn parse(s: &str) -> Result<Self, InvalidPermissionMode> {
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
            _ => Err(InvalidPermissionMode(s.to_string())),
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
    /// `ask` rules (settings `permissions.ask`, a host's `behavior: "ask"` updates): a
    /// call any of whose parts matches asks, whatever the allow rules and read-only
    /// classification say (deny rules and bypassPermissions still come first).
    pub ask: RuleSet,
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
            ask: RuleSet::parse(&[]),
            allowed_dirs,
        }
    }

    /// The same policy with these `ask` rules.
    pub fn with_ask(mut self, ask_rules: &[String]) -> Self {
        self.ask = RuleSet::parse(ask_rules);
        self
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
        let mut touched: Vec<PathBuf> = tool.map(|t| t.paths(input, ctx)).unwrap_or_default();
        // Where the paths led when this call resolved them is what the tool will open:
        // it is judged as well, so a swap between resolution and decision cannot slip by.
        touched.extend(ctx.checked.resolved_aliases());
        let home = dcl_store::home::user_home(|k| {
            ctx.env.get(k).cloned().or_else(|| std::env::var(k).ok())
        });
        // The rule kind follows the tool: only Bash input is read as a command line.
        let command = (rules::rule_kind(tool_name) == rules::RuleKind::Command)
            .then(|| input.get("command").and_then(Value::as_str))
            .flatten();
        let analysis = command.map(dcl_shell::analyse);
        let shell_cwd = ctx.shell.cwd();
        let view = CallView {
            tool_name,
            input,
            paths: &touched,
            cwd: &ctx.cwd,
            home: home.as_deref(),
            analysis: analysis.as_ref(),
        };
        if self.deny.denies(&view) {
            return denied_by_rule(tool_name);
        }
        let (read_only_line, mentioned) = match &analysis {
            Some(a) => (
                Some(bash_readonly::read_only_paths(
                    a,
                    &shell_cwd,
                    home.as_deref(),
                )),
                bash_readonly::mentioned_paths(a, &shell_cwd, home.as_deref()),
            ),
            None => (None, Vec::new()),
        };
        if analysis.is_some() {
            // Any line, read-only or not, that names a directory containing a denied
            // location is denied: `grep -r x . | tee out` reads it as well.
            let mut read_paths = mentioned.clone();
            if let Some(Ok(ro)) = &read_only_line {
                read_paths.extend(ro.paths.iter().cloned());
            }
            let bash_view = CallView {
                paths: &mentioned,
                ..view
            };
            if self.deny.denies_read_by_bash(&bash_view, &read_paths) {
                return denied_by_rule(tool_name);
            }
            // A line that may write binds Edit deny rules on every path it names.
            if !matches!(read_only_line, Some(Ok(_))) && self.deny.denies_write_by_bash(&bash_view)
            {
                return denied_by_rule(tool_name);
            }
        }
        if self.mode == PermissionMode::BypassPermissions
            || tool.is_some_and(|t| t.allowed_without_asking(input))
        {
            return Verdict::Allow;
        }
        if self.ask.denies(&view) {
            return Verdict::Ask {
                blocked_path: touched.first().cloned(),
                decision_reason_type: Some("rule"),
            };
        }

        let (read_only, read_paths): (bool, &[PathBuf]) = match kind {
            ToolKind::Read => (true, &touched),
            ToolKind::Execute => match &read_only_line {
                Some(Ok(ro)) => {
                    let git_ok = !ro.runs_git
                        || std::iter::once(&shell_cwd)
                            .chain(ro.paths.iter())
                            .all(|d| git_config::runs_configured_programs(d).is_none());
                    (git_ok, &ro.paths)
                }
                _ => (false, &[]),
            },
            ToolKind::Edit | ToolKind::Other | ToolKind::Delegate => (false, &[]),
        };
        let paths_inside = |ps: &[PathBuf]| ps.iter().all(|p| self.inside_allowed(p));
        if read_only && paths_inside(read_paths) {
            return Verdict::Allow;
        }
        if self.mode == PermissionMode::Plan
            && !read_only
            && !tool.is_some_and(|t| t.ends_plan_mode())
        {
            return Verdict::Deny(PLAN_MODE_DENIAL.to_string());
        }
        if let Some(refusal) = self.write_through_link(kind, &touched, ctx) {
            return Verdict::Deny(refusal);
        }
        if let Some(p) = self.protected_target(
            kind,
            &touched,
            &mentioned,
            command,
            analysis.as_ref(),
            ctx,
            home.as_deref(),
        ) {
            return Verdict::Ask {
                blocked_path: Some(p),
                decision_reason_type: Some("safetyCheck"),
            };
        }
        if self.allow.allows(&view) {
            return Verdict::Allow;
        }
        if self.mode == PermissionMode::AcceptEdits
            && kind == ToolKind::Edit
            && paths_inside(&touched)
        {
            return Verdict::Allow;
        }
        let candidates: &[PathBuf] = if kind == ToolKind::Execute {
            read_paths
        } else {
            &touched
        };
        let blocked_path = candidates
            .iter()
            .find(|p| !self.inside_allowed(p))
            .or(candidates.first())
            .cloned();
        Verdict::Ask {
            blocked_path,
            decision_reason_type: (self.mode == PermissionMode::Plan).then_some("mode"),
        }
    }

    /// A write whose path is itself a symlink that names a protected file or leads out of
    /// the working directories is refused outright, as the reference refuses it ("it is a
    /// symbolic link"): asking would show the person the link's name, not where the bytes
    /// land. The target can still be written by its own name (and is judged as such). A
    /// link inside the working directories to a file inside them is judged as before.
    fn write_through_link(
        &self,
        kind: ToolKind,
        touched: &[PathBuf],
        ctx: &ToolContext,
    ) -> Option<String> {
        if kind != ToolKind::Edit {
            return None;
        }
        touched.iter().find_map(|p| {
            let given = if p.is_absolute() {
                paths::normalize_lexically(p)
            } else {
                paths::normalize_lexically(&ctx.cwd.join(p))
            };
            let meta = std::fs::symlink_metadata(&given).ok()?;
            if !meta.file_type().is_symlink() {
                return None;
            }
            let aliases = paths::Aliases::resolve(&given, &ctx.cwd);
            let protected = protected::Protected::scan(&[], &ctx.env)
                .reason(&aliases)
                .is_some();
            (protected || !self.inside_allowed(&given)).then(|| {
                format!(
                    "Refusing to write {}: it is a symbolic link to {}{}; write the target by \
                     its own name if that is what you mean.",
                    given.display(),
                    aliases.real.display(),
                    if protected {
                        " and names a protected file"
                    } else {
                        ", outside the working directories"
                    }
                )
            })
        })
    }

    /// A protected file this call would write, if any: an edit tool's path, or for a
    /// Bash line that is not read-only any path it names (or, when it cannot be
    /// analysed, any mention of a protected name in its text).
    #[allow(clippy::too_many_arguments)]
    fn protected_target(
        &self,
        kind: ToolKind,
        touched: &[PathBuf],
        mentioned: &[PathBuf],
        command: Option<&str>,
        analysis: Option<&dcl_shell::Analysis>,
        ctx: &ToolContext,
        home: Option<&std::path::Path>,
    ) -> Option<PathBuf> {
        if !matches!(kind, ToolKind::Edit | ToolKind::Execute) {
            return None;
        }
        // Links named like protected files are looked for only when something may be
        // written: the working dirs (as given and resolved) and HOME.
        let mut roots = self.allowed_dirs.clone();
        roots.push(ctx.cwd.clone());
        roots.extend(home.map(std::path::Path::to_path_buf));
        let scan = protected::Protected::scan(&roots, &ctx.env);
        let hit = |ps: &[PathBuf]| {
            ps.iter()
                .find(|p| scan.reason(&paths::Aliases::resolve(p, &ctx.cwd)).is_some())
                .cloned()
        };
        match kind {
            ToolKind::Edit => hit(touched),
            ToolKind::Execute => hit(mentioned).or_else(|| {
                let line = command?;
                let analysis = analysis?;
                let unseen = !analysis.is_fully_analysed()
                    || analysis.commands.iter().any(|c| {
                        c.words
                            .iter()
                            .any(|w| w.kind == dcl_shell::WordKind::Dynamic)
                            || c.redirects.iter().any(|r| !r.target.is_plain())
                    });
                (unseen && protected::mentions_protected(line)).then(|| ctx.cwd.clone())
            }),
            ToolKind::Read | ToolKind::Other | ToolKind::Delegate => None,
        }
    }
}

fn denied_by_rule(tool_name: &str) -> Verdict {
    Verdict::Deny(format!(
        "Permission to use {tool_name} has been denied by a disallowed-tools rule."
    ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(mode: PermissionMode, allow: &[&str], line: &str) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        let policy = Policy::new(mode, &allow, &[], &cwd, &[]);
        let ctx = ToolContext::new(cwd);
        let bash = dcl_tools::bash::BashTool;
        policy.check("Bash", Some(&bash), &json!({ "command": line }), &ctx)
    }

    fn edit_verdict(mode: PermissionMode, cwd: &std::path::Path, file: &str) -> Verdict {
        let policy = Policy::new(mode, &[], &[], cwd, &[]);
        let ctx = ToolContext::new(cwd.to_path_buf());
        let write = dcl_tools::write::WriteTool;
        let input = json!({ "file_path": cwd.join(file), "content": "x" });
        policy.check("Write", Some(&write), &input, &ctx)
    }

    #[test]
    fn writes_through_a_link_to_a_protected_file_or_outside_are_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let cwd = root.join("proj");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("outside/secret.txt"), "s").unwrap();
        std::fs::write(cwd.join("dotconf.json"), "{}").unwrap();
        std::fs::write(cwd.join("real.txt"), "r").unwrap();
        symlink("../dotconf.json", cwd.join(".claude/settings.json")).unwrap();
        symlink("../outside/secret.txt", cwd.join("notes.txt")).unwrap();
        symlink("real.txt", cwd.join("alias.txt")).unwrap();
        for (file, why) in [
            (".claude/settings.json", "names a protected file"),
            ("notes.txt", "outside the working directories"),
        ] {
            let v = edit_verdict(PermissionMode::AcceptEdits, &cwd, file);
            assert!(
                matches!(&v, Verdict::Deny(m) if m.contains("symbolic link") && m.contains(why)),
                "{file}: {v:?}"
            );
        }
        // Twins: a link inside the project to a file inside it is an ordinary edit, and a
        // plain file is unaffected.
        assert_eq!(
            edit_verdict(PermissionMode::AcceptEdits, &cwd, "alias.txt"),
            Verdict::Allow
        );
        assert_eq!(
            edit_verdict(PermissionMode::AcceptEdits, &cwd, "real.txt"),
            Verdict::Allow
        );
    }

    #[test]
    fn protected_names_in_lines_that_cannot_be_read_ask_under_a_broad_allow() {
        for line in [
            "d=.dcl; mkdir -p $d; echo x > $d/settings.json",
            "echo x > .dcl/settings.json",
            "cp a .mcp.json",
        ] {
            let v = verdict(PermissionMode::Default, &["Bash"], line);
            assert!(matches!(v, Verdict::Ask { .. }), "{line}: {v:?}");
        }
        assert_eq!(
            verdict(PermissionMode::Default, &["Bash"], "touch made.txt"),
            Verdict::Allow
        );
        assert_eq!(
            verdict(
                PermissionMode::BypassPermissions,
                &[],
                "echo x > .dcl/settings.json"
            ),
            Verdict::Allow
        );
    }
}
