//! `--allowedTools` / `--disallowedTools` / settings rules: `Bash`, `Bash(git log:*)`,
//! `Bash(npm test)`, `Edit(src/**)`, `Read(./secret/**)`, `WebFetch(domain:example.com)`,
//! `mcp__server__tool`, `mcp__server__*`.
//!
//! What a rule's content means follows the tool it names, never the keys a tool input
//! happens to carry: a Write input with an extra `"command"` key is still matched by
//! path. Bash rules are matched on the shell analysis (`dcl-shell`): a deny rule matches
//! when any simple command matches or the line cannot be fully analysed; an allow rule
//! needs every simple command covered.

use std::path::{Path, PathBuf};

use dcl_shell::{Analysis, SimpleCommand, WordKind};
use serde_json::Value;

use super::path_rules::PathPattern;
use super::paths::Aliases;

/// What kind of content a tool's rules carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// A shell command (`Bash`).
    Command,
    /// A path glob (`Read`, `Edit` and the tools they cover).
    Path,
    /// `domain:host` (`WebFetch`).
    Domain,
    /// A skill name, or a `prefix:*` of names (`Skill`).
    Skill,
    /// Anything else: content is not understood, so a content rule never matches.
    Other,
}

/// The rule kind of a tool, by name.
pub fn rule_kind(tool_name: &str) -> RuleKind {
    match tool_name {
        "Bash" => RuleKind::Command,
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" => {
            RuleKind::Path
        }
        "WebFetch" => RuleKind::Domain,
        "Skill" => RuleKind::Skill,
        _ => RuleKind::Other,
    }
}

/// dcl's MCP tool-name normalisation (`dcl_mcp::qualified_tool_name`), applied to a rule
/// so `mcp__my.server__get.time` names the tool the model sees as
/// `mcp__my_server__get_time`. `*` stays a wildcard.
fn normalise_mcp(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub tool: String,
    pub content: Option<String>,
}

impl Rule {
    /// Parses `Tool` or `Tool(content)`; whitespace around the name is ignored.
    pub fn parse(text: &str) -> Option<Rule> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let (tool, content) = match text.find('(') {
            Some(open) if text.ends_with(')') => {
                let tool = text[..open].trim().to_string();
                let content = text[open + 1..text.len() - 1].trim().to_string();
                (
                    tool,
                    (!content.is_empty() && content != "*").then_some(content),
                )
            }
            _ => (text.to_string(), None),
        };
        let tool = if tool.starts_with("mcp__") {
            normalise_mcp(&tool)
        } else {
            tool
        };
        Some(Rule { tool, content })
    }

    /// Whether the rule names this tool (content aside).
    pub fn names_tool(&self, tool_name: &str) -> bool {
        let canonical = |n: &str| if n == "Task" { "Agent" } else { n }.to_string();
        let rule_tool = canonical(&self.tool);
        let name = canonical(tool_name);
        if let Some(prefix) = rule_tool.strip_suffix('*') {
            return rule_tool.starts_with("mcp__") && name.starts_with(prefix);
        }
        if rule_tool == name {
            return true;
        }
        // `mcp__server` names every tool of that server.
        if rule_tool.starts_with("mcp__") && rule_tool.matches("__").count() == 1 {
            return name.starts_with(&format!("{rule_tool}__"));
        }
        // `Edit(...)` rules cover every file-editing tool, `Read(...)` every reading one.
        match rule_tool.as_str() {
            "Edit" => matches!(name.as_str(), "Write" | "NotebookEdit" | "MultiEdit"),
            "Read" => matches!(name.as_str(), "Glob" | "Grep"),
            _ => false,
        }
    }

    /// Deny semantics of [`Rule::names_tool`]: an MCP rule also names every tool whose
    /// qualified name continues it at a `__` boundary. `mcp__<server>__<tool>` cannot be
    /// split where a server name holds `__` itself (`mcp__a__b__c` is tool `b__c` of server
    /// `a` or tool `c` of server `a__b`), so a deny rule takes every reading: `mcp__a__b`
    /// denies tool `b` of server `a` and the whole of server `a__b`. Allow rules keep the
    /// exact reading ([`Rule::names_tool`]) and fail closed (the call asks).
    pub fn may_name_tool(&self, tool_name: &str) -> bool {
        if self.names_tool(tool_name) {
            return true;
        }
        self.tool.starts_with("mcp__")
            && !self.tool.ends_with('*')
            && tool_name
                .strip_prefix(self.tool.as_str())
                .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2)
    }

    /// A Bash rule's command pattern.
    fn command_pattern(&self) -> Option<CommandPattern> {
        let content = self.content.as_deref()?;
        let (text, prefix) = match content.strip_suffix(":*") {
            Some(p) => (p, true),
            None => match content.strip_suffix(" *") {
                Some(p) => (p, true),
                None => (content, false),
            },
        };
        let analysis = dcl_shell::analyse(text);
        let words = match analysis.commands.as_slice() {
            [only]
                if analysis.is_fully_analysed()
                    && only.is_plain()
                    && only.redirects.is_empty()
                    && !only.words.is_empty() =>
            {
                Some(only.words.iter().map(|w| w.value.clone()).collect())
            }
            _ => None,
        };
        Some(CommandPattern {
            raw: text.trim().to_string(),
            words,
            prefix,
        })
    }
}

/// `git status:*` → words `[git, status]`, prefix. A pattern that is not one plain
/// command (`ls && pwd`) only matches the identical line.
#[derive(Debug, Clone)]
struct CommandPattern {
    raw: String,
    words: Option<Vec<String>>,
    prefix: bool,
}

impl CommandPattern {
    /// Deny side: could this simple command be what the pattern names? A word that is
    /// only known at run time could be anything, so it matches.
    fn may_match(&self, cmd: &SimpleCommand) -> bool {
        let Some(words) = &self.words else {
            return false;
        };
        if cmd.words.len() < words.len() || (!self.prefix && cmd.words.len() != words.len()) {
            return false;
        }
        words
            .iter()
            .zip(&cmd.words)
            .all(|(p, w)| w.kind != WordKind::Plain && w.kind != WordKind::Tilde || w.value == *p)
    }

    /// Allow side: is this simple command surely covered?
    fn covers(&self, cmd: &SimpleCommand) -> bool {
        let Some(words) = &self.words else {
            return false;
        };
        if !cmd.assignments.is_empty() || cmd.words.is_empty() || !harmless_redirects(cmd) {
            return false;
        }
        if cmd.words.len() < words.len() || (!self.prefix && cmd.words.len() != words.len()) {
            return false;
        }
        let head_ok = words
            .iter()
            .zip(&cmd.words)
            .all(|(p, w)| w.is_plain() && w.value == *p);
        head_ok && cmd.words.iter().all(|w| !w.substitution)
    }
}

/// Redirections that cannot write a file: fd duplications and `/dev/null`.
fn harmless_redirects(cmd: &SimpleCommand) -> bool {
    cmd.redirects.iter().all(|r| {
        let t = r.target.value.as_str();
        r.target.is_plain()
            && match r.op.as_str() {
                ">&" | "<&" => matches!(t, "1" | "2" | "-"),
                ">" | ">>" | "&>" | "2>" => t == "/dev/null",
                _ => false,
            }
    })
}

/// A list of rules.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
}

/// What a check sees of one call.
#[derive(Debug, Clone, Copy)]
pub struct CallView<'a> {
    pub tool_name: &'a str,
    pub input: &'a Value,
    /// The files the call touches (tool paths; for Bash, the paths its line names).
    pub paths: &'a [PathBuf],
    /// The session's working directory (relative rule patterns are anchored there).
    pub cwd: &'a Path,
    /// The session's HOME (`~/` rule patterns are anchored there).
    pub home: Option<&'a Path>,
    /// For Bash: the analysis of `input.command`.
    pub analysis: Option<&'a Analysis>,
}

impl RuleSet {
    /// Each entry may itself be a comma- or space-separated list (`--allowedTools "A,B"`),
    /// but commas inside parentheses belong to the rule.
    pub fn parse(entries: &[String]) -> RuleSet {
        let mut rules = Vec::new();
        for entry in entries {
            for part in split_rule_list(entry) {
                if let Some(r) = Rule::parse(&part) {
                    rules.push(r);
                }
            }
        }
        RuleSet { rules }
    }

    /// Deny semantics: any rule naming the tool matches when any part of the call could
    /// be what it names.
    pub fn denies(&self, call: &CallView) -> bool {
        self.rules.iter().any(|r| {
            if !r.may_name_tool(call.tool_name) {
                return false;
            }
            if r.content.is_none() {
                return true;
            }
            match rule_kind(call.tool_name) {
                RuleKind::Command => {
                    let (Some(pattern), Some(a)) = (r.command_pattern(), call.analysis) else {
                        return false;
                    };
                    // A line dcl cannot fully analyse could run anything.
                    a.opaque_reason().is_some()
                        || a.commands.iter().any(|c| pattern.may_match(c))
                        || command_text(call.input).is_some_and(|t| t.trim() == pattern.raw)
                }
                RuleKind::Path => path_rule_binds(r, call, Binding::DenyContaining),
                RuleKind::Domain => domain_rule_matches(r, call.input),
                RuleKind::Skill => skill_rule_matches(r, call.input),
                RuleKind::Other => false,
            }
        })
    }

    /// Read deny rules also bind Bash: a path any line names (`call.paths`, exact or
    /// below a `dir/**` pattern), a path a read-only line reads or a directory containing
    /// the denied location (`read_paths`), and — for a line that cannot be analysed or
    /// has a word known only at run time — any mention of the denied location in its text.
    pub fn denies_read_by_bash(&self, call: &CallView, read_paths: &[PathBuf]) -> bool {
        let opaque = call.analysis.is_some_and(paths_unseen);
        let reads = CallView {
            paths: read_paths,
            ..*call
        };
        self.rules.iter().any(|r| {
            r.tool == "Read"
                && r.content.as_deref().is_some_and(|c| {
                    path_rule_binds(r, call, Binding::DenyExact)
                        || path_rule_binds(r, &reads, Binding::DenyContaining)
                        || (opaque
                            && PathPattern::literal_tail(c).is_some_and(|tail| {
                                command_text(call.input).is_some_and(|t| t.contains(tail))
                            }))
                })
        })
    }

    /// Edit deny rules bind a Bash line that may write on every path it names
    /// (`call.paths`: redirect targets and operands) and on a directory it names that
    /// holds the denied location (`cp -r x .`, a glob's folder), and — for a line with
    /// paths the analysis cannot name — any mention of the denied location in its text.
    pub fn denies_write_by_bash(&self, call: &CallView) -> bool {
        let opaque = call.analysis.is_some_and(paths_unseen);
        self.rules.iter().any(|r| {
            rule_kind(&r.tool) == RuleKind::Path
                && r.names_tool("Write")
                && r.content.as_deref().is_some_and(|c| {
                    path_rule_binds(r, call, Binding::DenyHolding)
                        || (opaque
                            && PathPattern::literal_tail(c).is_some_and(|tail| {
                                command_text(call.input).is_some_and(|t| t.contains(tail))
                            }))
                })
        })
    }

    /// Allow semantics: a whole-tool rule, or content rules covering every part.
    pub fn allows(&self, call: &CallView) -> bool {
        let named: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.names_tool(call.tool_name))
            .collect();
        if named.iter().any(|r| r.content.is_none()) {
            return true;
        }
        match rule_kind(call.tool_name) {
            RuleKind::Command => {
                let Some(a) = call.analysis else {
                    return false;
                };
                let patterns: Vec<CommandPattern> =
                    named.iter().filter_map(|r| r.command_pattern()).collect();
                if patterns.is_empty() {
                    return false;
                }
                if command_text(call.input).is_some_and(|t| {
                    patterns
                        .iter()
                        .any(|p| p.raw == t.trim() && p.words.is_none())
                }) {
                    return true;
                }
                a.is_fully_analysed()
                    && !a.commands.is_empty()
                    && a.commands
                        .iter()
                        .all(|c| patterns.iter().any(|p| p.covers(c)))
            }
            RuleKind::Path => named
                .iter()
                .any(|r| path_rule_binds(r, call, Binding::Allow)),
            RuleKind::Domain => named.iter().any(|r| domain_rule_matches(r, call.input)),
            RuleKind::Skill => named.iter().any(|r| skill_rule_matches(r, call.input)),
            RuleKind::Other => false,
        }
    }

    /// Whether a rule names this tool with no content: used to hide fully denied tools.
    pub fn names_whole_tool(&self, tool_name: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.content.is_none() && r.may_name_tool(tool_name))
    }
}

/// The rule an approval prompt can suggest for a line: `prog sub:*` for one plain
/// simple command (`git status --short` → `git status:*`), `None` for anything else.
pub fn suggested_prefix_rule(line: &str) -> Option<String> {
    let a = dcl_shell::analyse(line);
    let [only] = a.commands.as_slice() else {
        return None;
    };
    if !a.is_fully_analysed() || !only.is_plain() || only.words.is_empty() {
        return None;
    }
    let mut head: Vec<&str> = vec![only.words[0].value.as_str()];
    if let Some(second) = only.words.get(1).filter(|w| !w.value.starts_with('-')) {
        head.push(second.value.as_str());
    }
    Some(format!("{}:*", head.join(" ")))
}

/// Whether a line has paths the analysis cannot name: it cannot be fully analysed, or a
/// word or redirection target is only known at run time (`cat $PWD/secret/k`).
fn paths_unseen(a: &Analysis) -> bool {
    a.opaque_reason().is_some()
        || a.commands.iter().any(|c| {
            c.words.iter().any(|w| w.kind == WordKind::Dynamic)
                || c.redirects
                    .iter()
                    .any(|r| r.target.kind == WordKind::Dynamic)
        })
}

fn command_text(input: &Value) -> Option<&str> {
    input.get("command").and_then(Value::as_str)
}

/// How a path rule is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// Every path's real location is what the pattern names.
    Allow,
    /// Some path, by any of its names, is what the pattern names.
    DenyExact,
    /// As `DenyExact`, and for Read rules also a directory holding what the pattern
    /// names (a Grep, Glob or read-only line over it reads it).
    DenyContaining,
    /// As `DenyExact`, and for any rule a directory holding what the pattern names.
    DenyHolding,
}

fn path_rule_binds(rule: &Rule, call: &CallView, binding: Binding) -> bool {
    let Some(content) = &rule.content else {
        return true;
    };
    if call.paths.is_empty() {
        return false;
    }
    let pattern = PathPattern::parse(content, call.cwd, call.home);
    let mut aliases = call.paths.iter().map(|p| Aliases::resolve(p, call.cwd));
    match binding {
        Binding::Allow => aliases.all(|a| pattern.grants(&a)),
        Binding::DenyExact => aliases.any(|a| pattern.binds_any(&a)),
        Binding::DenyContaining | Binding::DenyHolding => {
            let containing = rule.tool == "Read" || binding == Binding::DenyHolding;
            aliases.any(|a| pattern.binds_any(&a) || (containing && pattern.lies_within(&a)))
        }
    }
}

fn domain_rule_matches(rule: &Rule, input: &Value) -> bool {
    let Some(content) = &rule.content else {
        return true;
    };
    let Some(domain) = content.strip_prefix("domain:").map(str::trim) else {
        return false;
    };
    let Some(url) = input.get("url").and_then(Value::as_str) else {
        return false;
    };
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let domain = domain.to_ascii_lowercase();
    match domain.strip_prefix("*.") {
        Some(base) => host.ends_with(&format!(".{base}")),
        None => host == domain || host.ends_with(&format!(".{domain}")),
    }
}

/// `Skill(name)` names one skill (a leading `/` is the same name); `Skill(prefix:*)` all
/// whose names start with `prefix`.
fn skill_rule_matches(rule: &Rule, input: &Value) -> bool {
    let Some(content) = rule.content.as_deref().map(str::trim) else {
        return true;
    };
    let Some(skill) = input.get("skill").and_then(Value::as_str) else {
        return false;
    };
    let skill = skill.trim().trim_start_matches('/');
    let content = content.trim_start_matches('/');
    match content
        .strip_suffix(":*")
        .or_else(|| content.strip_suffix('*'))
    {
        Some(prefix) => skill.starts_with(prefix),
        None => skill == content,
    }
}

fn split_rule_list(entry: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in entry.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' | ' ' if depth <= 0 => {
                if !cur.trim().is_empty() {
                    out.push(cur.trim().to_string());
                }
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(rules: &[&str]) -> RuleSet {
        RuleSet::parse(&rules.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn bash(s: &RuleSet, line: &str, deny: bool) -> bool {
        let input = json!({ "command": line });
        let a = dcl_shell::analyse(line);
        let call = CallView {
            tool_name: "Bash",
            input: &input,
            paths: &[],
            cwd: Path::new("/"),
            home: None,
            analysis: Some(&a),
        };
        if deny {
            s.denies(&call)
        } else {
            s.allows(&call)
        }
    }

    fn tool(
        s: &RuleSet,
        name: &str,
        input: Value,
        paths: &[PathBuf],
        cwd: &Path,
        deny: bool,
    ) -> bool {
        let call = CallView {
            tool_name: name,
            input: &input,
            paths,
            cwd,
            home: None,
            analysis: None,
        };
        if deny {
            s.denies(&call)
        } else {
            s.allows(&call)
        }
    }

    #[test]
    fn list_splitting_keeps_parenthesised_commas() {
        let s = set(&["Read,Bash(git log:*), Write"]);
        let names: Vec<_> = s.rules.iter().map(|r| r.tool.as_str()).collect();
        assert_eq!(names, vec!["Read", "Bash", "Write"]);
        assert_eq!(s.rules[1].content.as_deref(), Some("git log:*"));
    }

    #[test]
    fn allow_needs_every_part() {
        let s = set(&["Bash(git status:*)"]);
        assert!(bash(&s, "git status --short", false));
        assert!(!bash(&s, "git status && rm -rf /", false));
        assert!(!bash(&s, "git status $(rm -rf /)", false));
        assert!(!bash(&s, "git status > out", false));
        assert!(bash(&s, "git status 2>&1", false));
        let s = set(&["Bash(git add:*)", "Bash(git commit:*)"]);
        assert!(bash(&s, "git add . && git commit -m x", false));
        assert!(!bash(&s, "git add . && rm -rf /", false));
    }

    #[test]
    fn prefix_rules_match_words_like_the_reference() {
        let s = set(&["Bash(npm run test:*)"]);
        assert!(bash(&s, "npm run test", false));
        assert!(bash(&s, "npm run test -- --watch", false));
        assert!(!bash(&s, "npm run test:unit", false));
        assert!(!bash(&s, "npm run testx", false));
        assert!(!bash(&s, "FOO=1 npm run test", false));
    }

    #[test]
    fn deny_matches_any_part_or_an_opaque_line() {
        let s = set(&["Bash(rm:*)"]);
        for line in [
            "rm x",
            "ls && rm x",
            "ls; rm -rf /",
            "rm $(echo x)",
            "/bin/rm x",
            "command rm x",
            "\\rm x",
            "env rm x",
            "eval rm x",
            "bash -c 'rm x'",
            "$R x",
            "echo `rm x`",
            "r\\m x",
            "ls | xargs rm",
        ] {
            assert!(bash(&s, line, true), "{line}");
        }
        for line in ["ls", "echo rm", "git rm x", "rmdir x"] {
            assert!(!bash(&s, line, true), "{line}");
        }
        let s = set(&["Bash(git push:*)"]);
        assert!(bash(&s, "git $X", true));
        assert!(!bash(&s, "git status", true));
    }

    #[test]
    fn rule_kind_follows_the_tool_not_the_input_keys() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let s = set(&["Edit(secret/**)"]);
        let p = vec![cwd.join("secret/a")];
        assert!(tool(
            &s,
            "Write",
            json!({"file_path": "secret/a", "command": "x"}),
            &p,
            &cwd,
            true
        ));
        let allow = set(&["Edit(src/**)"]);
        assert!(!tool(
            &allow,
            "Write",
            json!({"command": "src/a"}),
            &p,
            &cwd,
            false
        ));
    }

    #[test]
    fn read_deny_binds_grep_on_a_containing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let s = set(&["Read(./secret/**)"]);
        assert!(tool(
            &s,
            "Grep",
            json!({"pattern": "x"}),
            std::slice::from_ref(&cwd),
            &cwd,
            true
        ));
        assert!(tool(
            &s,
            "Glob",
            json!({"pattern": "**"}),
            &[cwd.join("secret")],
            &cwd,
            true
        ));
        assert!(!tool(
            &s,
            "Grep",
            json!({"pattern": "x"}),
            &[cwd.join("src")],
            &cwd,
            true
        ));
    }

    #[test]
    fn path_rules_see_through_dotdot() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let s = set(&["Edit(src/**)"]);
        assert!(tool(
            &s,
            "Write",
            json!({}),
            &[cwd.join("src/a.rs")],
            &cwd,
            false
        ));
        assert!(!tool(
            &s,
            "Write",
            json!({}),
            &[cwd.join("src/../../etc/passwd")],
            &cwd,
            false
        ));
    }

    #[test]
    fn mcp_rules_use_normalised_names() {
        let s = set(&["mcp__app__*"]);
        let cwd = Path::new("/");
        assert!(tool(
            &s,
            "mcp__app__server_time",
            json!({}),
            &[],
            cwd,
            false
        ));
        assert!(!tool(&s, "mcp__other__x", json!({}), &[], cwd, false));
        let s = set(&["mcp__my.server__get.time"]);
        assert!(tool(
            &s,
            "mcp__my_server__get_time",
            json!({}),
            &[],
            cwd,
            true
        ));
        let s = set(&["mcp__my.server"]);
        assert!(tool(&s, "mcp__my_server__x", json!({}), &[], cwd, true));
    }

    #[test]
    fn mcp_deny_rules_hold_on_every_server_boundary() {
        let cwd = Path::new("/");
        // Server `a__b`: the deny rule names the server, every tool of it is denied.
        let deny = set(&["mcp__a__b"]);
        for name in ["mcp__a__b", "mcp__a__b__c", "mcp__a__b__list_files"] {
            assert!(tool(&deny, name, json!({}), &[], cwd, true), "{name}");
            assert!(deny.names_whole_tool(name), "{name}");
        }
        // The twins: other servers and tools whose names merely start alike.
        for name in ["mcp__a__bc", "mcp__a__b_", "mcp__a__x", "mcp__ab__c"] {
            assert!(!tool(&deny, name, json!({}), &[], cwd, true), "{name}");
        }
        // Allow rules keep the exact reading: `mcp__a__b` allows tool `b` of server `a`
        // only, so a call to server `a__b` still asks.
        let allow = set(&["mcp__a__b"]);
        assert!(tool(&allow, "mcp__a__b", json!({}), &[], cwd, false));
        assert!(!tool(&allow, "mcp__a__b__c", json!({}), &[], cwd, false));
        // A server-wide deny with a dotted name is normalised like the tool names.
        let dotted = set(&["mcp__my.srv__x"]);
        assert!(tool(
            &dotted,
            "mcp__my_srv__x__y",
            json!({}),
            &[],
            cwd,
            true
        ));
    }

    #[test]
    fn suggested_rules_name_the_command() {
        assert_eq!(
            suggested_prefix_rule("git status --short").as_deref(),
            Some("git status:*")
        );
        assert_eq!(suggested_prefix_rule("ls -la").as_deref(), Some("ls:*"));
        assert_eq!(suggested_prefix_rule("ls && rm x"), None);
        assert_eq!(suggested_prefix_rule("rm $(x)"), None);
    }

    #[test]
    fn skill_rules_name_skills() {
        let s = set(&["Skill(deploy)", "Skill(kit:*)"]);
        let skill = |name: &str| serde_json::json!({"skill": name});
        let cwd = Path::new("/w");
        fn call<'a>(input: &'a Value, cwd: &'a Path) -> CallView<'a> {
            CallView {
                tool_name: "Skill",
                input,
                paths: &[],
                analysis: None,
                cwd,
                home: None,
            }
        }
        assert!(s.allows(&call(&skill("deploy"), cwd)));
        assert!(s.allows(&call(&skill("/deploy"), cwd)));
        assert!(s.allows(&call(&skill("kit:review"), cwd)));
        assert!(!s.allows(&call(&skill("deploy-prod"), cwd)));
        assert!(!s.allows(&call(&serde_json::json!({}), cwd)));
        assert!(s.denies(&call(&skill("deploy"), cwd)));
        assert!(!s.denies(&call(&skill("other"), cwd)));
    }

    #[test]
    fn webfetch_domain_rules() {
        let s = set(&["WebFetch(domain:example.com)"]);
        let cwd = Path::new("/");
        assert!(tool(
            &s,
            "WebFetch",
            json!({"url": "https://example.com/x"}),
            &[],
            cwd,
            false
        ));
        assert!(tool(
            &s,
            "WebFetch",
            json!({"url": "https://docs.example.com/"}),
            &[],
            cwd,
            false
        ));
        assert!(!tool(
            &s,
            "WebFetch",
            json!({"url": "https://example.com.evil.io/"}),
            &[],
            cwd,
            false
        ));
        assert!(!tool(
            &s,
            "WebFetch",
            json!({"url": "https://evil.io/?example.com"}),
            &[],
            cwd,
            false
        ));
    }
}
