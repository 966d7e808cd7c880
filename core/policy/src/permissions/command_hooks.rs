//! Command hooks from settings files, in the reference's shape:
//! `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command",
//! "command": "./check.sh", "timeout": 30}]}]}}`. A hook gets the event's JSON on stdin;
//! exit code 0 passes (stdout, if JSON, is the SDK hook output: `decision`, `reason`,
//! `continue`, `hookSpecificOutput`…), exit code 2 blocks with stderr as the reason, any
//! other code is a non-blocking error. The command runs with the tool environment.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Default and longest hook timeouts (seconds), the reference's.
const DEFAULT_TIMEOUT_SECS: f64 = 60.0;
const MAX_TIMEOUT_SECS: f64 = 600.0;
/// Bytes kept of each of a hook's output streams.
const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// Whether `name` is an event the reference fires hooks for (the TS SDK's `HOOK_EVENTS`,
/// `dcl_events::HookEventName`); a settings hook for one dcl never fires is kept and
/// warned about, an unknown name is dropped.
pub fn is_event(name: &str) -> bool {
    dcl_events::HookEventName::parse(name).is_some()
}

/// One `{"type": "command"}` hook.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandHook {
    pub command: String,
    pub timeout: Duration,
}

/// One matcher block of an event.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// `None`: every call (also `""` and `"*"`).
    pattern: Option<regex::Regex>,
    pub hooks: Vec<CommandHook>,
}

impl Matcher {
    /// The matcher as written (`""` for one that matches every call).
    pub fn text(&self) -> &str {
        self.pattern.as_ref().map_or("", |re| {
            let s = re.as_str();
            s.strip_prefix("^(?:")
                .and_then(|s| s.strip_suffix(")$"))
                .unwrap_or(s)
        })
    }

    /// Whether the block applies to this tool (or event subject).
    pub fn applies(&self, subject: Option<&str>) -> bool {
        match (&self.pattern, subject) {
            (None, _) => true,
            (Some(re), Some(s)) => re.is_match(s),
            // An event without a subject (UserPromptSubmit, Stop) ignores matchers.
            (Some(_), None) => true,
        }
    }
}

/// The command hooks of the merged settings.
#[derive(Debug, Clone, Default)]
pub struct CommandHooks {
    pub events: BTreeMap<String, Vec<Matcher>>,
}

impl CommandHooks {
    /// Reads a settings `hooks` block; what cannot be used is skipped with a warning.
    pub fn from_settings(hooks: Option<&Value>) -> (CommandHooks, Vec<String>) {
        let mut out = CommandHooks::default();
        let mut warnings = Vec::new();
        let Some(hooks) = hooks else {
            return (out, warnings);
        };
        let Some(events) = hooks.as_object() else {
            warnings.push("settings `hooks` is not an object; ignored".into());
            return (out, warnings);
        };
        for (event, blocks) in events {
            if !is_event(event) {
                warnings.push(format!("hooks: unknown event {event:?}; ignored"));
                continue;
            }
            let Some(blocks) = blocks.as_array() else {
                warnings.push(format!("hooks.{event} is not a list; ignored"));
                continue;
            };
            for block in blocks {
                let pattern = match block.get("matcher").and_then(Value::as_str) {
                    None | Some("" | "*") => None,
                    // The reference's matchers are exact names or regexes (`Edit|Write`).
                    Some(m) => match regex::Regex::new(&format!("^(?:{m})$")) {
                        Ok(re) => Some(re),
                        Err(e) => {
                            warnings
                                .push(format!("hooks.{event}: bad matcher {m:?} ({e}); ignored"));
                            continue;
                        }
                    },
                };
                let mut commands = Vec::new();
                for h in block
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match (
                        h.get("type").and_then(Value::as_str),
                        h.get("command").and_then(Value::as_str),
                    ) {
                        (Some("command"), Some(c)) if !c.trim().is_empty() => {
                            let secs = h
                                .get("timeout")
                                .and_then(Value::as_f64)
                                .filter(|t| t.is_finite() && *t > 0.0)
                                .unwrap_or(DEFAULT_TIMEOUT_SECS)
                                .min(MAX_TIMEOUT_SECS);
                            commands.push(CommandHook {
                                command: c.to_string(),
                                timeout: Duration::from_secs_f64(secs),
                            });
                        }
                        (t, _) => warnings.push(format!(
                            "hooks.{event}: a hook of type {t:?} without a command is not run"
                        )),
                    }
                }
                if !commands.is_empty() {
                    out.events.entry(event.clone()).or_default().push(Matcher {
                        pattern,
                        hooks: commands,
                    });
                }
            }
        }
        (out, warnings)
    }

    /// Appends another layer's hooks after these (lower precedence first).
    pub fn extend(&mut self, other: CommandHooks) {
        for (event, matchers) in other.events {
            self.events.entry(event).or_default().extend(matchers);
        }
    }

    /// Whether no hook is configured for `event`.
    pub fn is_empty_for(&self, event: &str) -> bool {
        self.events.get(event).is_none_or(Vec::is_empty)
    }

    /// The hooks to run for an event and subject (tool name), in settings order.
    pub fn matching(&self, event: &str, subject: Option<&str>) -> Vec<&CommandHook> {
        self.events
            .get(event)
            .into_iter()
            .flatten()
            .filter(|m| m.applies(subject))
            .flat_map(|m| m.hooks.iter())
            .collect()
    }
}

/// What one hook run came to.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    /// `None` when it was killed (timeout, cancel) or could not start.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Exit code 2: the action is blocked, `stderr` is the reason.
    pub blocked: Option<String>,
    /// stdout parsed as the SDK hook output, when it is a JSON object.
    pub output: Option<Value>,
    /// Why the hook did not finish normally (timeout, cancelled, failed to start).
    pub error: Option<String>,
}

/// [`HookRun::error`] of a hook the turn's cancellation killed.
pub const CANCELLED: &str = "the hook was cancelled";

/// How often a running hook's output so far is reported.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Reads a pipe to its end, keeping the first [`MAX_OUTPUT_BYTES`]; the rest is read and
/// dropped so a chatty hook never blocks on a full pipe.
async fn pump(pipe: Option<impl tokio::io::AsyncRead + Unpin>, buf: &std::sync::Mutex<Vec<u8>>) {
    let Some(mut pipe) = pipe else {
        return;
    };
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let mut b = buf
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let room = MAX_OUTPUT_BYTES.saturating_sub(b.len());
        b.extend_from_slice(&chunk[..n.min(room)]);
    }
}

/// Runs one command hook with `input` on stdin, in `cwd`, with exactly `env`.
/// `progress` gets (stdout, stderr) so far while it runs, when they changed.
pub async fn run(
    hook: &CommandHook,
    input: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancel: &CancellationToken,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> HookRun {
    let mut result = HookRun {
        exit_code: None,
        stdout: String::new(),
        stderr: String::new(),
        blocked: None,
        output: None,
        error: None,
    };
    // Git Bash on Windows.
    let bash = match dcl_sandbox::shell::bash() {
        Ok(b) => b,
        Err(e) => {
            result.error = Some(format!("the hook command could not start: {e}"));
            return result;
        }
    };
    let mut cmd = tokio::process::Command::new(bash);
    cmd.arg("-c")
        .arg(&hook.command)
        .current_dir(cwd)
        .env_clear()
        .envs(env)
        .env("CLAUDE_PROJECT_DIR", cwd)
        .env("DCL_PROJECT_DIR", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    dcl_sandbox::group::own_group(cmd.as_std_mut());
    // Its own PID namespace: nothing the hook starts outlives it (issue 10).
    dcl_sandbox::apply(cmd.as_std_mut(), None);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            result.error = Some(format!("the hook command could not start: {e}"));
            return result;
        }
    };
    let group = child.id().and_then(dcl_sandbox::group::Group::led_by);
    let kill = || {
        if let Some(group) = group {
            group.kill();
        }
    };
    let payload = input.to_string();
    let mut stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out_buf = std::sync::Mutex::new(Vec::new());
    let err_buf = std::sync::Mutex::new(Vec::new());
    let io = async {
        if let Some(mut s) = stdin.take() {
            // A hook that does not read its input is fine.
            let _ = s.write_all(payload.as_bytes()).await;
            drop(s);
        }
        tokio::join!(pump(stdout, &out_buf), pump(stderr, &err_buf));
        child.wait().await
    };
    let snapshot = |buf: &std::sync::Mutex<Vec<u8>>| {
        let b = buf
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        String::from_utf8_lossy(&b).into_owned()
    };
    // Output so far is reported while the hook runs (`hook_progress`), when it changed.
    let with_progress = async {
        tokio::pin!(io);
        let mut ticks = tokio::time::interval(PROGRESS_EVERY);
        ticks.tick().await;
        let mut reported = (0, 0);
        loop {
            tokio::select! {
                status = &mut io => break status,
                _ = ticks.tick() => {
                    let (o, e) = (snapshot(&out_buf), snapshot(&err_buf));
                    if (o.len(), e.len()) != reported {
                        reported = (o.len(), e.len());
                        progress(&o, &e);
                    }
                }
            }
        }
    };
    tokio::select! {
        status = with_progress => {
            result.stdout = snapshot(&out_buf);
            result.stderr = snapshot(&err_buf);
            match status {
                Ok(s) => result.exit_code = s.code(),
                Err(e) => result.error = Some(format!("the hook could not be waited for: {e}")),
            }
        }
        _ = tokio::time::sleep(hook.timeout) => {
            kill();
            result.stdout = snapshot(&out_buf);
            result.stderr = snapshot(&err_buf);
            result.error = Some(format!("the hook timed out after {:?}", hook.timeout));
            return result;
        }
        _ = cancel.cancelled() => {
            kill();
            result.error = Some(CANCELLED.into());
            return result;
        }
    }
    kill();
    if result.exit_code == Some(2) {
        let reason = result.stderr.trim();
        result.blocked = Some(if reason.is_empty() {
            "Blocked by a hook".to_string()
        } else {
            reason.to_string()
        });
    }
    if result.exit_code == Some(0) {
        result.output = serde_json::from_str::<Value>(result.stdout.trim())
            .ok()
            .filter(Value::is_object);
    }
    result
}

/// Runs every hook matching `event`/`subject` in order; stops at the first that blocks.
pub async fn run_event(
    hooks: &CommandHooks,
    event: &str,
    subject: Option<&str>,
    input: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancel: &CancellationToken,
) -> Vec<HookRun> {
    let mut runs = Vec::new();
    for hook in hooks.matching(event, subject) {
        let r = run(hook, input, cwd, env, cancel, &|_, _| {}).await;
        let stop = r.blocked.is_some()
            || r.output
                .as_ref()
                .is_some_and(|o| o.get("continue").and_then(Value::as_bool) == Some(false));
        runs.push(r);
        if stop || cancel.is_cancelled() {
            break;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env() -> BTreeMap<String, String> {
        BTreeMap::from([(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        )])
    }

    #[test]
    fn settings_blocks_are_read_with_matchers() {
        let (h, warnings) = CommandHooks::from_settings(Some(&json!({
            "PreToolUse": [
                {"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "a", "timeout": 5}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "b"}]},
                {"matcher": "(", "hooks": [{"type": "command", "command": "c"}]}
            ],
            "Nope": [],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]
        })));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        let names = |t: &str| -> Vec<String> {
            h.matching("PreToolUse", Some(t))
                .iter()
                .map(|c| c.command.clone())
                .collect()
        };
        assert_eq!(names("Bash"), vec!["a", "b"]);
        assert_eq!(names("Read"), vec!["b"]);
        assert_eq!(names("BashOutput"), vec!["b"]);
        assert_eq!(
            h.matching("PreToolUse", Some("Write"))[0].timeout,
            Duration::from_secs(5)
        );
    }

    #[tokio::test]
    async fn exit_code_2_blocks_with_stderr_and_stdout_json_is_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let hook = |c: &str| CommandHook {
            command: c.into(),
            timeout: Duration::from_secs(10),
        };
        let input = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"});
        let r = run(
            &hook("cat >/dev/null; echo no rm here >&2; exit 2"),
            &input,
            dir.path(),
            &env(),
            &cancel,
            &|_, _| {},
        )
        .await;
        assert_eq!(r.blocked.as_deref(), Some("no rm here"));
        let r = run(
            &hook(r#"read -r line; case "$line" in *Bash*) echo '{"decision":"block","reason":"saw Bash"}';; esac"#),
            &input,
            dir.path(),
            &env(),
            &cancel,
            &|_, _| {},
        )
        .await;
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(
            r.output,
            Some(json!({"decision":"block","reason":"saw Bash"}))
        );
        let r = run(
            &hook("exit 1"),
            &input,
            dir.path(),
            &env(),
            &cancel,
            &|_, _| {},
        )
        .await;
        assert_eq!((r.exit_code, r.blocked.is_none()), (Some(1), true));
    }

    #[tokio::test]
    async fn a_slow_hook_times_out_and_the_environment_is_exactly_the_given_one() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let slow = CommandHook {
            command: "sleep 5".into(),
            timeout: Duration::from_millis(200),
        };
        let r = run(&slow, &json!({}), dir.path(), &env(), &cancel, &|_, _| {}).await;
        assert!(
            r.error.as_deref().is_some_and(|e| e.contains("timed out")),
            "{r:?}"
        );
        let show = CommandHook {
            command: "echo \"${ANTHROPIC_API_KEY:-unset} $CLAUDE_PROJECT_DIR\"".into(),
            timeout: Duration::from_secs(10),
        };
        let r = run(&show, &json!({}), dir.path(), &env(), &cancel, &|_, _| {}).await;
        assert!(r.stdout.starts_with("unset "), "{r:?}");
        let (hooks, _) = CommandHooks::from_settings(Some(&json!({"Stop": [{"hooks": [
            {"type": "command", "command": "exit 2"},
            {"type": "command", "command": "touch never"}
        ]}]})));
        let runs = run_event(
            &hooks,
            "Stop",
            None,
            &json!({}),
            dir.path(),
            &env(),
            &cancel,
        )
        .await;
        assert_eq!(runs.len(), 1);
        assert!(!dir.path().join("never").exists());
    }
}
