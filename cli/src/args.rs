//! Argument pre-pass. SDKs send flags in both `--flag value` and `--flag=value` forms,
//! empty values, repeated flags and unknown flags from `extra_args`; clap cannot accept
//! an unknown flag *with* a value, so a table of known flags and their arity decides.

use std::collections::BTreeMap;

/// Flags that take one value.
const VALUED: &[&str] = &[
    "--input-format",
    "--output-format",
    "--model",
    "--fallback-model",
    "--permission-mode",
    "--permission-prompt-tool",
    "--allowedTools",
    "--allowed-tools",
    "--disallowedTools",
    "--disallowed-tools",
    "--tools",
    "--max-turns",
    "--max-budget-usd",
    "--max-thinking-tokens",
    "--system-prompt",
    "--system-prompt-file",
    "--append-system-prompt",
    "--append-system-prompt-file",
    "--settings",
    "--setting-sources",
    "--mcp-config",
    "--add-dir",
    "--resume",
    "--session-id",
    "--json-schema",
    "--effort",
    "--thinking",
    "--thinking-display",
    "--betas",
    "--agent",
    "--agents",
    "--plugin-dir",
    "--plugin-dir-no-mcp",
    "--proxy",
    "--base-url",
    "--api-format",
    "--api-key",
    "--mock-script",
    "--data-dir",
    "--resume-session-at",
    "--resume-drops-turn",
    "--task-budget",
    "--debug-file",
    "--allowed-mcp-server-names",
    "--extensions",
    "--permission-prompts",
    "--channels",
    "--project-config-root",
    "--initialize-fields",
    "--max-output-tokens",
    "--context-window",
    "--reasoning-effort",
    "--cwd",
    "--host-timeout",
];

/// Flags that take no value.
const BOOLEAN: &[&str] = &[
    "-p",
    "--print",
    "--verbose",
    "--include-partial-messages",
    "--replay-user-messages",
    "--continue",
    "-c",
    "--fork-session",
    "--strict-mcp-config",
    "--dangerously-skip-permissions",
    "--allow-dangerously-skip-permissions",
    "--yolo",
    "--disable-builtin-skills",
    "--enable-builtin-skills",
    "--include-hook-events",
    "--session-mirror",
    "--no-session-persistence",
    "--debug",
    "--debug-to-stderr",
    "--no-legacy-events",
    "--await-initialize",
    "-v",
    "--version",
    "-h",
    "--help",
    "--managed-settings",
    "--managed-settings-in-initialize",
    "--enable-file-checkpointing",
];

/// Parsed command line: flag values in order of appearance, and positionals.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Args {
    pub values: BTreeMap<String, Vec<String>>,
    pub flags: Vec<String>,
    pub positionals: Vec<String>,
    /// Unknown flags (with their value, if one was taken), for the warning.
    pub unknown: Vec<String>,
}

impl Args {
    pub fn parse<I: IntoIterator<Item = String>>(argv: I) -> Args {
        let mut out = Args::default();
        let mut it = argv.into_iter().peekable();
        let mut only_positionals = false;
        while let Some(arg) = it.next() {
            if only_positionals || !arg.starts_with('-') || arg == "-" {
                out.positionals.push(arg);
                continue;
            }
            if arg == "--" {
                only_positionals = true;
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            if BOOLEAN.contains(&name.as_str()) {
                // `--debug=api` style values of boolean flags are accepted and dropped.
                out.flags.push(name);
            } else if VALUED.contains(&name.as_str()) {
                let value = inline.or_else(|| it.next()).unwrap_or_default();
                out.values.entry(name).or_default().push(value);
            } else {
                let value = match inline {
                    Some(v) => Some(v),
                    None => match it.peek() {
                        Some(next) if !next.starts_with('-') => it.next(),
                        _ => None,
                    },
                };
                out.unknown.push(match &value {
                    Some(v) => format!("{name} {v}"),
                    None => name.clone(),
                });
                out.values.entry(name).or_default().extend(value);
            }
        }
        out
    }

    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// The last value of the first of `names` that was given.
    pub fn value(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .find_map(|n| self.values.get(*n).and_then(|v| v.last()))
            .map(String::as_str)
    }

    /// Every value of all of `names`, in order.
    pub fn all(&self, names: &[&str]) -> Vec<String> {
        names
            .iter()
            .filter_map(|n| self.values.get(*n))
            .flatten()
            .cloned()
            .collect()
    }

    pub fn given(&self, name: &str) -> bool {
        self.values.contains_key(name) || self.has(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[&str]) -> Args {
        Args::parse(v.iter().map(|s| s.to_string()))
    }

    #[test]
    fn both_value_forms_and_empty_values() {
        let a = parse(&[
            "--model=m1",
            "--system-prompt",
            "",
            "--setting-sources=",
            "--max-turns",
            "3",
        ]);
        assert_eq!(a.value(&["--model"]), Some("m1"));
        assert_eq!(a.value(&["--system-prompt"]), Some(""));
        assert_eq!(a.value(&["--setting-sources"]), Some(""));
        assert_eq!(a.value(&["--max-turns"]), Some("3"));
    }

    #[test]
    fn unknown_flags_take_a_value_unless_it_is_a_flag() {
        let a = parse(&["--foo", "bar", "--baz", "--verbose", "-p", "hello"]);
        assert_eq!(
            a.unknown,
            vec!["--foo bar".to_string(), "--baz".to_string()]
        );
        assert!(a.has("--verbose"));
        assert_eq!(a.positionals, vec!["hello".to_string()]);
    }

    #[test]
    fn repeated_flags_accumulate() {
        let a = parse(&[
            "--allowed-tools",
            "Read",
            "--allowed-tools",
            "Bash(git:*)",
            "--allowedTools=Write,Edit",
        ]);
        assert_eq!(
            a.all(&["--allowedTools", "--allowed-tools"]),
            vec!["Write,Edit", "Read", "Bash(git:*)"]
        );
    }

    #[test]
    fn a_value_may_start_with_a_dash_in_equals_form() {
        let a = parse(&["--system-prompt=-x", "--append-system-prompt", "-y"]);
        assert_eq!(a.value(&["--system-prompt"]), Some("-x"));
        assert_eq!(a.value(&["--append-system-prompt"]), Some("-y"));
    }
}
