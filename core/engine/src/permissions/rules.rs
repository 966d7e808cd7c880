//! `--allowedTools` / `--disallowedTools` rules: `Bash`, `Bash(git log:*)`,
//! `Bash(npm test)`, `Edit(src/**)`, `Read`, `mcp__server__tool`, `mcp__server__*`.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

use super::bash_readonly::split_simple_commands;
use super::paths::resolve_real;

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
        match text.find('(') {
            Some(open) if text.ends_with(')') => {
                let tool = text[..open].trim().to_string();
                let content = text[open + 1..text.len() - 1].trim().to_string();
                Some(Rule {
                    tool,
                    content: (!content.is_empty() && content != "*").then_some(content),
                })
            }
            _ => Some(Rule {
                tool: text.to_string(),
                content: None,
            }),
        }
    }

    fn names_tool(&self, tool_name: &str) -> bool {
        let canonical = |n: &str| {
            if n == "Task" {
                "Agent".to_string()
            } else {
                n.to_string()
            }
        };
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

    fn matches(&self, tool_name: &str, input: &Value, paths: &[PathBuf], cwd: &Path) -> bool {
        if !self.names_tool(tool_name) {
            return false;
        }
        let Some(content) = &self.content else {
            return true;
        };
        if let Some(command) = input.get("command").and_then(Value::as_str) {
            return bash_rule_matches(content, command);
        }
        if !paths.is_empty() {
            return path_rule_matches(content, paths, cwd);
        }
        false
    }
}

/// `prefix:*` must match every simple command of the line (so `git status && rm -rf x`
/// is not allowed by `Bash(git status:*)`); otherwise the whole line must equal the rule.
fn bash_rule_matches(content: &str, command: &str) -> bool {
    let command = command.trim();
    match content.strip_suffix(":*") {
        Some(prefix) => {
            if has_substitution(command) {
                return false;
            }
            let parts = split_simple_commands(command);
            !parts.is_empty() && parts.iter().all(|p| prefix_matches(prefix, p))
        }
        None => command == content,
    }
}

/// Substitutions and redirections can run or write anything: no prefix rule covers them.
fn has_substitution(command: &str) -> bool {
    command.contains('`')
        || command.contains("$(")
        || command.contains('>')
        || command.contains("<(")
}

fn prefix_matches(prefix: &str, part: &str) -> bool {
    part == prefix || part.starts_with(&format!("{prefix} "))
}

fn path_rule_matches(content: &str, paths: &[PathBuf], cwd: &Path) -> bool {
    let pattern = if Path::new(content).is_absolute() {
        PathBuf::from(content)
    } else {
        resolve_real(cwd).join(content.trim_start_matches("./"))
    };
    let Some(matcher) = glob(&pattern.to_string_lossy()) else {
        return false;
    };
    paths.iter().all(|p| matcher.is_match(resolve_real(p)))
}

fn glob(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// A list of rules; matches when any rule does.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
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

    pub fn matches(&self, tool_name: &str, input: &Value, paths: &[PathBuf], cwd: &Path) -> bool {
        if self
            .rules
            .iter()
            .any(|r| r.matches(tool_name, input, paths, cwd))
        {
            return true;
        }
        // A compound command is allowed when each of its parts is covered by some rule:
        // `Bash(git add:*)` + `Bash(git commit:*)` allow `git add . && git commit -m x`.
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return false;
        };
        let prefixes: Vec<&str> = self
            .rules
            .iter()
            .filter(|r| r.names_tool(tool_name))
            .filter_map(|r| r.content.as_deref()?.strip_suffix(":*"))
            .collect();
        if prefixes.is_empty() || has_substitution(command) {
            return false;
        }
        let parts = split_simple_commands(command);
        !parts.is_empty()
            && parts
                .iter()
                .all(|p| prefixes.iter().any(|pre| prefix_matches(pre, p)))
    }

    /// Whether a rule names this tool with no content: used to hide fully denied tools.
    pub fn names_whole_tool(&self, tool_name: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.content.is_none() && r.names_tool(tool_name))
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

    #[test]
    fn list_splitting_keeps_parenthesised_commas() {
        let s = set(&["Read,Bash(git log:*), Write"]);
        let names: Vec<_> = s.rules.iter().map(|r| r.tool.as_str()).collect();
        assert_eq!(names, vec!["Read", "Bash", "Write"]);
        assert_eq!(s.rules[1].content.as_deref(), Some("git log:*"));
    }

    #[test]
    fn bash_prefix_rule_covers_every_part_of_a_compound_command() {
        let s = set(&["Bash(git status:*)"]);
        let cwd = Path::new("/");
        let ok = json!({"command": "git status --short"});
        let sneaky = json!({"command": "git status && rm -rf /"});
        let subst = json!({"command": "git status $(rm -rf /)"});
        assert!(s.matches("Bash", &ok, &[], cwd));
        assert!(!s.matches("Bash", &sneaky, &[], cwd));
        assert!(!s.matches("Bash", &subst, &[], cwd));
    }

    #[test]
    fn each_part_of_a_compound_command_may_be_covered_by_a_different_rule() {
        let s = set(&["Bash(git add:*)", "Bash(git commit:*)"]);
        let cwd = Path::new("/");
        assert!(s.matches(
            "Bash",
            &json!({"command": "git add . && git commit -m x"}),
            &[],
            cwd
        ));
        assert!(!s.matches(
            "Bash",
            &json!({"command": "git add . && rm -rf /"}),
            &[],
            cwd
        ));
        assert!(!s.matches("Bash", &json!({"command": "git add $(rm -rf /)"}), &[], cwd));
    }

    #[test]
    fn path_rules_see_through_dotdot() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let s = set(&["Edit(src/**)"]);
        let inside = cwd.join("src/a.rs");
        let escape = cwd.join("src/../../etc/passwd");
        assert!(s.matches("Write", &json!({}), &[inside], &cwd));
        assert!(!s.matches("Write", &json!({}), &[escape], &cwd));
    }

    #[test]
    fn mcp_wildcards() {
        let s = set(&["mcp__app__*"]);
        assert!(s.matches("mcp__app__server_time", &json!({}), &[], Path::new("/")));
        assert!(!s.matches("mcp__other__x", &json!({}), &[], Path::new("/")));
        let s = set(&["mcp__app"]);
        assert!(s.matches("mcp__app__server_time", &json!({}), &[], Path::new("/")));
    }
}
