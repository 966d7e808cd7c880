//! The flag table and the argument pre-pass. SDKs send flags in both `--flag value` and
//! `--flag=value` forms, empty values, repeated flags and unknown flags from
//! `extra_args`; clap cannot accept an unknown flag *with* a value, so the table below
//! (name, aliases, arity, help, what it maps to) decides. The same table produces the
//! pre-pass, `--help`, the options JSON (`crate::options`) and the list of flags that
//! are accepted but not acted on.

use std::collections::BTreeMap;

/// Whether a flag takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// `--flag` (a `--flag=x` value is accepted and dropped).
    Switch,
    /// `--flag value` or `--flag=value`; the value may be empty.
    Value,
}

/// A JSON literal a switch sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    True,
    False,
    Str(&'static str),
}

/// What a flag does. Options are named by their key in the options JSON
/// (`dcl_bridge::SessionOptions`, camelCase).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The last value, as a string option.
    Text(&'static str),
    /// A file's text, as a string option (a later row, so it wins over the inline flag).
    FileText(&'static str),
    /// Every value of the flag and its aliases, as a list option.
    Each(&'static str),
    /// The last value split at commas, as a list option (`""` is the empty list).
    Commas(&'static str),
    /// The last value as a number option.
    Number(&'static str),
    /// The last value parsed as JSON.
    Json(&'static str),
    /// A switch that sets an option to a literal.
    Set(&'static str, Literal),
    /// `--thinking disabled` turns effort off (a later `--effort` wins).
    Thinking,
    /// `--permission-prompt-tool`: `stdio` is the host; any other tool is not built.
    PermissionPromptTool,
    /// Read by the CLI itself (modes, version, help, resume, logging).
    Cli,
    /// Accepted: dcl already behaves as the flag asks (the reason says how).
    Satisfied(&'static str),
    /// Accepted for compatibility but not acted on: warned about, and listed in the
    /// `ignoredFlags` option (the host sees them in `initialize`'s warnings).
    NotActedOn,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub arity: Arity,
    /// `<placeholder> text` for `--help`; empty: not listed there.
    pub help: &'static str,
    pub action: Action,
}

impl Flag {
    /// The name and its aliases, in the order their values are collected.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + use<> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

const fn flag(
    name: &'static str,
    aliases: &'static [&'static str],
    arity: Arity,
    help: &'static str,
    action: Action,
) -> Flag {
    Flag {
        name,
        aliases,
        arity,
        help,
        action,
    }
}

use Action::*;
use Arity::{Switch, Value};

/// Every flag dcl knows. Order matters where two rows set one option: the later wins
/// (`--yolo` over `--permission-mode`, a prompt file over the inline prompt, `--effort`
/// over `--thinking`).
#[rustfmt::skip]
pub const FLAGS: &[Flag] = &[
    flag("-p", &["--print"], Switch, "print mode: one prompt (argument or stdin), then exit", Cli),
    flag("--output-format", &[], Value, "<fmt> text | json | stream-json", Cli),
    flag("--input-format", &[], Value, "<fmt> text | stream-json (SDK mode)", Cli),
    flag("--model", &[], Value, "<id> model id or alias (sonnet, opus, haiku); mock-model runs offline", Text("model")),
    flag("--fallback-model", &[], Value, "<id> used when the model stays overloaded or unavailable", Text("fallbackModel")),
    flag("--permission-mode", &[], Value, "<mode> default | acceptEdits | plan | bypassPermissions | dontAsk", Text("permissionMode")),
    flag("--yolo", &["--dangerously-skip-permissions"], Switch, "the same as --permission-mode bypassPermissions", Set("permissionMode", Literal::Str("bypassPermissions"))),
    flag("--allow-dangerously-skip-permissions", &[], Switch, "", Satisfied("bypassPermissions is always allowed")),
    flag("--permission-prompt-tool", &[], Value, "<tool> stdio: ask the host (the only kind built)", PermissionPromptTool),
    flag("--allowedTools", &["--allowed-tools"], Value, "<rules> rules that run without asking, e.g. \"Read,Bash(git log:*)\"", Each("allowedTools")),
    flag("--disallowedTools", &["--disallowed-tools"], Value, "<rules> rules that are always refused", Each("disallowedTools")),
    flag("--tools", &[], Value, "<names> restrict the built-in tools (\"\" for none)", Commas("tools")),
    flag("--max-turns", &[], Value, "<n> stop after n model calls in one turn", Number("maxTurns")),
    flag("--max-budget-usd", &[], Value, "<usd> stop a turn once the session has cost this much", Number("maxBudgetUsd")),
    flag("--max-thinking-tokens", &[], Value, "<n> thinking budget (else MAX_THINKING_TOKENS)", Number("maxThinkingTokens")),
    flag("--thinking", &[], Value, "<mode> disabled turns thinking off; adaptive is the default", Thinking),
    flag("--effort", &["--reasoning-effort"], Value, "<level> off | low | medium | high | max", Text("effort")),
    flag("--system-prompt", &[], Value, "<text> replace the default system prompt (\"\" for none)", Text("systemPrompt")),
    flag("--system-prompt-file", &[], Value, "<file> the same, from a file", FileText("systemPrompt")),
    flag("--append-system-prompt", &[], Value, "<text> append to the system prompt", Text("appendSystemPrompt")),
    flag("--append-system-prompt-file", &[], Value, "<file> the same, from a file", FileText("appendSystemPrompt")),
    flag("--add-dir", &[], Value, "<dir> another directory tools may use without asking (repeatable)", Each("addDirs")),
    flag("--cwd", &[], Value, "<dir> working directory of the session", Text("cwd")),
    flag("--settings", &[], Value, "<json|file> settings on top of ~/.dcl/settings.json and .dcl/settings*.json", Text("settings")),
    flag("--setting-sources", &[], Value, "<list> user,project,local (\"\" for none)", Commas("settingSources")),
    flag("--mcp-config", &[], Value, "<json|file> MCP servers ({\"mcpServers\": {...}}), repeatable", Each("mcpConfig")),
    flag("--strict-mcp-config", &[], Switch, "use only the --mcp-config servers", Set("strictMcpConfig", Literal::True)),
    flag("--json-schema", &[], Value, "<schema> structured output: the final answer must match this schema", Json("jsonSchema")),
    flag("--include-partial-messages", &[], Switch, "emit stream_event lines (stream-json)", Set("includePartialMessages", Literal::True)),
    flag("--include-hook-events", &[], Switch, "emit hook_started/hook_progress/hook_response lines for command hooks (stream-json)", Set("includeHookEvents", Literal::True)),
    flag("--replay-user-messages", &[], Switch, "echo each user message with its uuid (stream-json)", Set("replayUserMessages", Literal::True)),
    flag("--no-legacy-events", &[], Switch, "omit the legacy text/tool_start/tool_result/usage lines (else DCL_NO_LEGACY_EVENTS)", Set("legacyEvents", Literal::False)),
    flag("--session-id", &[], Value, "<uuid> the session's id", Text("sessionId")),
    flag("--mock-script", &[], Value, "<file> play scripted turns on the mock model (else DCL_MOCK_SCRIPT)", Text("mockScript")),
    flag("--base-url", &[], Value, "<url> the model endpoint (else ANTHROPIC_BASE_URL / OPENAI_BASE_URL)", Text("baseUrl")),
    flag("--api-format", &[], Value, "<fmt> anthropic (default) or openai", Text("apiFormat")),
    flag("--api-key", &[], Value, "<key> the model API key (else the environment)", Text("apiKey")),
    flag("--host-timeout", &[], Value, "<secs> how long to wait for the host's answers (default 300, else DCL_HOST_TIMEOUT_SECS)", Number("hostTimeoutSecs")),
    flag("--resume", &["-r"], Value, "<id> resume a saved session", Text("resume")),
    flag("--continue", &["-c"], Switch, "resume the newest session of this directory", Set("continueConversation", Literal::True)),
    flag("--debug", &["-d", "--debug-to-stderr"], Switch, "debug logging on stderr of what dcl decides; --debug=mcp,!hooks keeps or drops categories (DCL_LOG sets a full filter)", Cli),
    flag("-v", &["--version"], Switch, "print the version", Cli),
    flag("-h", &["--help"], Switch, "this help", Cli),
    flag("--verbose", &[], Switch, "", Satisfied("stream-json output is always complete")),
    flag("--disable-builtin-skills", &[], Switch, "", Satisfied("dcl has no built-in skills; skills from folders and plugins stay")),
    flag("--no-session-persistence", &[], Switch, "write no transcript for this session", Set("persistSession", Literal::False)),
    flag("--await-initialize", &[], Switch, "open the session when initialize arrives, with the settings, MCP servers, tool rules and plugins it delivers", Set("awaitInitialize", Literal::True)),
    flag("--await-claim", &[], Switch, "a prewarmed spare: the session opens at claim_session, in the claim's cwd", Set("awaitClaim", Literal::True)),
    flag("--initialize-fields", &[], Value, "", Satisfied("every field initialize delivers is applied")),
    flag("--thinking-display", &[], Value, "", NotActedOn),
    flag("--betas", &[], Value, "", NotActedOn),
    flag("--agent", &[], Value, "<name> the agent the main thread runs as", Text("agent")),
    flag("--agents", &[], Value, "<json> subagent definitions {name: {description, prompt, tools?, model?}}", Json("agents")),
    flag("--plugin-dir", &[], Value, "<dir> load a plugin folder: commands, agents, skills, hooks, MCP servers (repeatable)", Each("pluginDirs")),
    flag("--plugin-dir-no-mcp", &[], Value, "<dir> the same, without the plugin's MCP servers (repeatable)", Each("pluginDirsNoMcp")),
    flag("--proxy", &[], Value, "", NotActedOn),
    flag("--data-dir", &[], Value, "<dir> dcl home: settings, agents, checkpoints (else DCL_CONFIG_DIR, ~/.dcl)", Text("dataDir")),
    flag("--sandbox", &[], Switch, "run Bash and background shells in the OS sandbox (as settings sandbox.enabled)", Set("sandbox", Literal::True)),
    flag("--enable-file-checkpointing", &[], Switch, "record file checkpoints so rewind_files can undo edits", Set("enableFileCheckpointing", Literal::True)),
    flag("--resume-session-at", &[], Value, "<uuid> resume the chain up to this message", Text("resumeSessionAt")),
    flag("--resume-drops-turn", &[], Value, "<uuid> resume without this turn (it must be the last)", Text("resumeDropsTurn")),
    flag("--task-budget", &[], Value, "", NotActedOn),
    flag("--debug-file", &[], Value, "<path> write the debug log to this file (turns debug logging on)", Cli),
    flag("--allowed-mcp-server-names", &[], Value, "", NotActedOn),
    flag("--extensions", &[], Value, "", NotActedOn),
    flag("--permission-prompts", &[], Value, "", NotActedOn),
    flag("--channels", &[], Value, "", NotActedOn),
    flag("--project-config-root", &[], Value, "", NotActedOn),
    flag("--max-output-tokens", &[], Value, "", NotActedOn),
    flag("--context-window", &[], Value, "", NotActedOn),

    flag("--session-mirror", &[], Switch, "emit transcript_mirror frames for a session store", Set("sessionMirror", Literal::True)),
    flag("--session-store", &[], Value, "<url> drain sessions to postgres://, redis:// or file:/dir (default file: = local only)", Text("sessionStore")),
    flag("--fork-session", &[], Switch, "resume into a new session id", Set("forkSession", Literal::True)),
    flag("--enable-builtin-skills", &[], Switch, "", NotActedOn),
    flag("--managed-settings", &[], Value, "<json|file> policy settings above every other layer", Text("managedSettings")),
    flag("--managed-settings-in-initialize", &[], Switch, "", Satisfied("initialize.managedSettings is applied (with --await-initialize)")),
    flag("--session-options", &[], Value, "<file> the whole options JSON, read then deleted (a host's dcl child)", Cli),
    flag("--legacy-events", &[], Switch, "emit the legacy lines even when an SDK drives dcl", Set("legacyEvents", Literal::True)),
];

/// The row for `name` (or one of its aliases).
pub fn lookup(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.names().any(|n| n == name))
}

const HELP_HEAD: &str = "dcl \u{2014} a coding-agent runtime

Usage:
  dcl -p \"<prompt>\" [--output-format text|json|stream-json] [options]
  dcl --input-format stream-json --output-format stream-json [options]
  dcl mcp add|add-json|list|get|remove \u{2026}
  dcl -v | --version

Options:
";

const HELP_TAIL: &str = "Accepted for compatibility, not acted on (a warning says so):";
/// Where help texts start.
const HELP_COLUMN: usize = 34;

/// The variables `--help` lists.
const ENVIRONMENT: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DCL_API_KEY",
    "DCL_BASE_URL",
    "DCL_API_FORMAT",
    "DCL_MODEL",
    "DCL_MOCK_SCRIPT",
    "MAX_THINKING_TOKENS",
    "DCL_HOST_TIMEOUT_SECS",
    "DCL_NO_LEGACY_EVENTS",
    "DCL_MAX_LINE_BYTES",
    "QODER_AGENT_SDK_ENTRYPOINT",
    "DCL_LOG",
];

/// Words as indented lines of at most about 90 columns.
fn wrapped(words: &[&str]) -> String {
    let mut out = String::new();
    let mut line = String::from(" ");
    for word in words {
        if line.len() + word.len() > 90 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `--help`, from the table: every row with help text, then the not-acted-on names.
pub fn help() -> String {
    let mut out = String::from(HELP_HEAD);
    for f in FLAGS.iter().filter(|f| !f.help.is_empty()) {
        let (arg, text) = match f.help.split_once(' ') {
            Some((arg, text)) if arg.starts_with('<') => (format!(" {arg}"), text),
            _ => (String::new(), f.help),
        };
        let names: Vec<&str> = f.names().collect();
        let left = format!("  {}{arg}", names.join(", "));
        if left.len() < HELP_COLUMN {
            out.push_str(&format!("{left:<HELP_COLUMN$}{text}\n"));
        } else {
            out.push_str(&format!("{left}\n{:HELP_COLUMN$}{text}\n", ""));
        }
    }
    let ignored: Vec<&str> = FLAGS
        .iter()
        .filter(|f| f.action == NotActedOn)
        .flat_map(|f| f.names())
        .collect();
    out.push_str(&format!("\n{HELP_TAIL}\n"));
    out.push_str(&wrapped(&ignored));
    out.push_str("\nEnvironment:\n");
    out.push_str(&wrapped(ENVIRONMENT));
    out
}

/// Parsed command line: flag values in order of appearance, and positionals.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Args {
    pub values: BTreeMap<String, Vec<String>>,
    pub flags: Vec<String>,
    pub positionals: Vec<String>,
    /// Unknown flags (with their value, if one was taken), for the warning.
    pub unknown: Vec<String>,
}

/// Value flags whose value may be left out: given alone they read as an empty value.
const OPTIONAL_VALUE: &[&str] = &["--resume", "-r"];

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
            match lookup(&name).map(|f| f.arity) {
                // A switch takes no separate value; an `=` one (`--debug=api`) is kept for
                // the switches that read it and ignored by the others.
                Some(Arity::Switch) => {
                    if let Some(v) = inline {
                        out.values.entry(name.clone()).or_default().push(v);
                    }
                    out.flags.push(name);
                }
                // `--resume` alone (the interactive picker): a flag after it is not its id.
                Some(Arity::Value)
                    if inline.is_none()
                        && OPTIONAL_VALUE.contains(&name.as_str())
                        && it.peek().is_none_or(|next| next.starts_with('-')) =>
                {
                    out.values.entry(name).or_default().push(String::new());
                }
                Some(Arity::Value) => {
                    let value = inline.or_else(|| it.next()).unwrap_or_default();
                    out.values.entry(name).or_default().push(value);
                }
                None => {
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

    /// Whether the row's flag (under any of its names) was given.
    pub fn given_row(&self, row: &Flag) -> bool {
        row.names().any(|n| self.given(n))
    }

    /// The row's value, as [`Args::value`] over its names.
    pub fn row_value(&self, row: &Flag) -> Option<&str> {
        let names: Vec<&str> = row.names().collect();
        self.value(&names)
    }

    /// Every value of the row, as [`Args::all`] over its names.
    pub fn row_all(&self, row: &Flag) -> Vec<String> {
        let names: Vec<&str> = row.names().collect();
        self.all(&names)
    }

    /// Whether a flag the CLI reads itself was given, under any of its names.
    pub fn cli_flag(&self, name: &str) -> bool {
        lookup(name).is_some_and(|row| self.given_row(row))
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
    fn resume_alone_has_an_empty_id_and_with_one_takes_it() {
        let alone = parse(&["--resume", "--model", "m"]);
        assert_eq!(alone.value(&["--resume"]), Some(""));
        assert_eq!(alone.value(&["--model"]), Some("m"));
        assert_eq!(parse(&["-r"]).value(&["-r"]), Some(""));
        let given = parse(&["--resume", "abc", "--model", "m"]);
        assert_eq!(given.value(&["--resume"]), Some("abc"));
        assert!(given.positionals.is_empty());
        // Any other value flag still takes the next argument, whatever it is.
        assert_eq!(
            parse(&["--system-prompt", "-x"]).value(&["--system-prompt"]),
            Some("-x")
        );
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
    fn every_name_is_in_the_table_once() {
        let mut seen = std::collections::BTreeSet::new();
        for name in FLAGS.iter().flat_map(|f| f.names()) {
            assert!(name.starts_with('-'), "{name}");
            assert!(seen.insert(name), "{name} is in the table twice");
        }
    }

    #[test]
    fn help_comes_from_the_table() {
        let text = help();
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .collect();
        for f in FLAGS {
            let listed = words.contains(&f.name);
            match f.action {
                // Kept for the SDKs, not for people.
                Action::Satisfied(_) => assert!(!listed, "{}", f.name),
                Action::Cli if f.help.is_empty() => assert!(!listed, "{}", f.name),
                _ => assert!(listed, "--help lacks {}", f.name),
            }
        }
        assert!(text.contains("--model <id>"), "{text}");
    }

    #[test]
    fn aliases_parse_with_their_row_arity() {
        let a = parse(&["--reasoning-effort", "high", "--debug-to-stderr", "x"]);
        let effort = lookup("--effort").unwrap();
        assert_eq!(a.row_value(effort), Some("high"));
        assert!(a.cli_flag("--debug"));
        // A switch takes no value: `x` is a positional.
        assert_eq!(a.positionals, vec!["x".to_string()]);
    }

    #[test]
    fn debug_categories_come_in_equals_form_only() {
        let debug = lookup("--debug").unwrap();
        let a = parse(&["--debug=mcp,!hooks", "prompt"]);
        assert_eq!(a.row_value(debug), Some("mcp,!hooks"));
        assert_eq!(a.positionals, ["prompt"]);
        let a = parse(&["-d", "prompt"]);
        assert!(a.given_row(debug));
        assert_eq!(a.row_value(debug), None);
        assert_eq!(a.positionals, ["prompt"]);
    }

    #[test]
    fn a_value_may_start_with_a_dash_in_equals_form() {
        let a = parse(&["--system-prompt=-x", "--append-system-prompt", "-y"]);
        assert_eq!(a.value(&["--system-prompt"]), Some("-x"));
        assert_eq!(a.value(&["--append-system-prompt"]), Some("-y"));
    }

    /// Every session flag the SDKs put on argv, with the arity they give it (read from
    /// their sources: claude-agent-sdk 0.2.189 and qoder-agent-sdk 1.0.16 on PyPI,
    /// @anthropic-ai/claude-agent-sdk 0.3.333 and @qoder-ai/qoder-agent-sdk 1.0.39 on npm;
    /// `tests/sdk-latest.sh` reports flags a newer release adds).
    const SDK_VALUE_FLAGS: &[&str] = &[
        "--add-dir",
        "--agent",
        "--allowed-mcp-server-names",
        "--allowedTools",
        "--allowed-tools",
        "--append-system-prompt",
        "--betas",
        "--channels",
        "--debug-file",
        "--disallowedTools",
        "--disallowed-tools",
        "--effort",
        "--extensions",
        "--fallback-model",
        "--initialize-fields",
        "--input-format",
        "--json-schema",
        "--managed-settings",
        "--max-budget-usd",
        "--max-thinking-tokens",
        "--max-turns",
        "--mcp-config",
        "--model",
        "--output-format",
        "--permission-mode",
        "--permission-prompt-tool",
        "--permission-prompts",
        "--plugin-dir",
        "--plugin-dir-no-mcp",
        "--project-config-root",
        "--proxy",
        "--resume",
        "--resume-drops-turn",
        "--resume-session-at",
        "--session-id",
        "--setting-sources",
        "--settings",
        "--system-prompt",
        "--system-prompt-file",
        "--task-budget",
        "--thinking",
        "--thinking-display",
        "--tools",
    ];
    const SDK_SWITCHES: &[&str] = &[
        "--allow-dangerously-skip-permissions",
        "--await-claim",
        "--await-initialize",
        "--continue",
        "--dangerously-skip-permissions",
        "--debug",
        "--debug-to-stderr",
        "--disable-builtin-skills",
        "--fork-session",
        "--include-hook-events",
        "--include-partial-messages",
        "--managed-settings-in-initialize",
        "--no-session-persistence",
        "--print",
        "--session-mirror",
        "--strict-mcp-config",
        "--verbose",
        "--yolo",
    ];

    #[test]
    fn every_flag_the_sdks_send_parses_with_its_real_arity_both_ways() {
        for flag in SDK_VALUE_FLAGS {
            let row = lookup(flag).unwrap_or_else(|| panic!("{flag} is not in the table"));
            assert_eq!(row.arity, Arity::Value, "{flag}");
            // `--flag value`: the value is taken, the prompt stays positional.
            let spaced = parse(&[flag, "{\"k\": 1}", "prompt"]);
            assert_eq!(spaced.row_value(row), Some("{\"k\": 1}"), "{flag}");
            assert_eq!(spaced.positionals, ["prompt"], "{flag}");
            let joined = format!("{flag}={{\"k\": 1}}");
            let equals = parse(&[&joined, "prompt"]);
            assert_eq!(equals.row_value(row), Some("{\"k\": 1}"), "{flag}");
            assert_eq!(equals.positionals, ["prompt"], "{flag}");
            assert!(
                spaced.unknown.is_empty() && equals.unknown.is_empty(),
                "{flag}"
            );
        }
        for flag in SDK_SWITCHES {
            let row = lookup(flag).unwrap_or_else(|| panic!("{flag} is not in the table"));
            assert_eq!(row.arity, Arity::Switch, "{flag}");
            let a = parse(&[flag, "prompt"]);
            assert!(a.given_row(row), "{flag}");
            assert_eq!(a.positionals, ["prompt"], "{flag}");
        }
    }
}
