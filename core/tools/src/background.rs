//! The BashOutput and KillShell tools, which read and stop the commands Bash starts with
//! `run_in_background: true`. The registry of those commands is session state and lives
//! in the tool API (`dcl_tool_api::processes`).

use grep_matcher::Matcher as _;
use grep_regex::RegexMatcher;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::support::{input_str, truncate_middle};
use crate::{
    BoxFuture, ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input,
};
/// Run at session start: what a SIGKILLed dcl left under TMPDIR goes.
pub use dcl_tool_api::output_dirs::sweep_stale_once as sweep_stale_output_dirs;
pub use dcl_tool_api::processes::{
    BackgroundShellInfo, BackgroundShells, NewOutput, ShellError, ShellListener, ShellStatus,
};

/// Characters of each stream one BashOutput call shows; the middle of more is cut.
const MAX_OUTPUT_CHARS: usize = 30_000;
/// Keeps only the lines matching `filter` (lines that do not match are dropped for good:
/// the next read starts after them).
fn filter_lines(text: &str, filter: Option<&RegexMatcher>) -> String {
    match filter {
        None => text.to_string(),
        Some(m) => text
            .lines()
            .filter(|line| m.is_match(line.as_bytes()).unwrap_or(false))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.lines().count()
    }
}

// ---------------------------------------------------------------------------
// BashOutput
// ---------------------------------------------------------------------------

const BASH_OUTPUT_DESCRIPTION: &str = "Reads the output of a command started with Bash \
`run_in_background: true`. Returns only what the command wrote since the previous \
BashOutput call for the same shell (stdout and stderr separately), plus its status: \
`running`, `completed` (exit 0), `failed` (with the exit code) or `killed`. `filter` is an \
optional regular expression: only matching lines are shown, and the others are discarded \
(they will not be shown by a later call either). Shell ids look like `bash_1`.";

pub struct BashOutputTool;

#[derive(Debug, Deserialize)]
struct BashOutputInput {
    bash_id: String,
    #[serde(default)]
    filter: Option<String>,
}

/// The definition, built once per process.
static BASH_OUTPUT_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        BashOutputTool.name(),
        BASH_OUTPUT_DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/bash_output.json")),
    )
});

impl Tool for BashOutputTool {
    fn name(&self) -> &'static str {
        "BashOutput"
    }

    fn spec(&self) -> ToolSpec {
        BASH_OUTPUT_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn always_allowed(&self) -> bool {
        true
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "bash_id").map(|id| format!("Read output of {id}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: BashOutputInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let filter = match input.filter.as_deref().filter(|f| !f.is_empty()) {
                None => None,
                Some(pattern) => match RegexMatcher::new(pattern) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        return ToolOutput::error(format!(
                            "Invalid filter regular expression {pattern:?}: {e}"
                        ));
                    }
                },
            };
            let registry = ctx.background.clone();
            let id = input.bash_id.clone();
            let read = tokio::task::spawn_blocking(move || registry.read_new(&id)).await;
            let new = match read {
                Ok(Ok(new)) => new,
                Ok(Err(message)) => return ToolOutput::error(message.to_string()),
                Err(e) => return ToolOutput::error(format!("internal error: {e}")),
            };
            render_output(new, filter.as_ref(), input.filter.as_deref())
        })
    }
}

fn render_output(
    new: NewOutput,
    filter: Option<&RegexMatcher>,
    pattern: Option<&str>,
) -> ToolOutput {
    let stdout = truncate_middle(
        filter_lines(&new.stdout, filter).trim_end(),
        MAX_OUTPUT_CHARS,
    );
    let stderr = truncate_middle(
        filter_lines(&new.stderr, filter).trim_end(),
        MAX_OUTPUT_CHARS,
    );
    let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);

    let mut parts = vec![format!("<status>{}</status>", new.status.label())];
    if let Some(code) = new.status.exit_code() {
        parts.push(format!("<exit_code>{code}</exit_code>"));
    }
    if !stdout.is_empty() {
        parts.push(format!("<stdout>\n{stdout}\n</stdout>"));
    }
    if !stderr.is_empty() {
        parts.push(format!("<stderr>\n{stderr}\n</stderr>"));
    }
    if stdout.is_empty() && stderr.is_empty() {
        parts.push("(no new output since the last read)".to_string());
    }
    parts.push(format!("<timestamp>{timestamp}</timestamp>"));

    let mut structured = json!({
        "shellId": new.id,
        "command": new.command,
        "status": new.status.label(),
        "exitCode": new.status.exit_code(),
        "stdout": stdout,
        "stderr": stderr,
        "stdoutLines": line_count(&stdout),
        "stderrLines": line_count(&stderr),
        "timestamp": timestamp,
    });
    if let Some(p) = pattern.filter(|p| !p.is_empty()) {
        structured["filterPattern"] = json!(p);
    }
    ToolOutput::ok(parts.join("\n\n")).with_structured(structured)
}

// ---------------------------------------------------------------------------
// KillShell
// ---------------------------------------------------------------------------

const KILL_SHELL_DESCRIPTION: &str = "Stops a command started with Bash \
`run_in_background: true`: its whole process group is killed (SIGKILL). Give the shell id \
Bash returned (`bash_1`, …). Stopping a command that already finished is an error that \
reports how it ended.";

pub struct KillShellTool;

#[derive(Debug, Deserialize)]
struct KillShellInput {
    shell_id: String,
}

/// The definition, built once per process.
static KILL_SHELL_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        KillShellTool.name(),
        KILL_SHELL_DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/kill_shell.json")),
    )
});

impl Tool for KillShellTool {
    fn name(&self) -> &'static str {
        "KillShell"
    }

    fn spec(&self) -> ToolSpec {
        KILL_SHELL_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn always_allowed(&self) -> bool {
        true
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "shell_id").map(|id| format!("Kill {id}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: KillShellInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let id = input.shell_id;
            let command = ctx
                .background
                .list()
                .into_iter()
                .find(|s| s.id == id)
                .map(|s| s.command);
            match ctx.background.stop(&id) {
                Ok(()) => {
                    let command = command.unwrap_or_default();
                    let message = format!("Successfully killed shell: {id} ({command})");
                    ToolOutput::ok(message.clone()).with_structured(json!({
                        "message": message,
                        "shell_id": id,
                    }))
                }
                Err(message) => ToolOutput::error(message.to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::collections::BTreeMap;
    use std::fs;
    use std::path::Path;
    use std::time::Duration;

    fn ctx_in(dir: &Path) -> ToolContext {
        ToolContext::new(dir.to_path_buf())
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    /// A marker no other process on the machine has in its command line.
    fn unique_sleep_seconds() -> String {
        format!(
            "{}.{}",
            800 + rand::random::<u16>() % 99,
            rand::random::<u32>()
        )
    }

    fn live_processes_with(marker: &str) -> usize {
        let Ok(entries) = fs::read_dir("/proc") else {
            return 0;
        };
        entries
            .flatten()
            .filter(|e| {
                let cmdline = fs::read(e.path().join("cmdline")).unwrap_or_default();
                let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                let stat = fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let zombie = stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'));
                cmdline.contains(marker) && !zombie
            })
            .count()
    }

    async fn wait_until_gone(marker: &str) {
        for _ in 0..100 {
            if live_processes_with(marker) == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("processes with {marker:?} left behind");
    }

    async fn wait_for_status(ctx: &ToolContext, id: &str, label: &str) {
        for _ in 0..200 {
            if ctx
                .background
                .list()
                .iter()
                .any(|s| s.id == id && s.status.label() == label)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{id} never became {label}: {:?}", ctx.background.list());
    }

    #[tokio::test]
    async fn output_is_incremental_and_status_reports_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let id = ctx
            .background
            .start(
                "echo one; echo err >&2; sleep 0.3; echo two; exit 3",
                dir.path(),
                &BTreeMap::<String, String>::new(),
            )
            .unwrap();
        assert_eq!(id, "bash_1");
        tokio::time::sleep(Duration::from_millis(150)).await;
        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        let t = text(&out);
        assert!(t.starts_with("<status>running</status>"), "{t}");
        assert!(t.contains("<stdout>\none\n</stdout>"), "{t}");
        assert!(t.contains("<stderr>\nerr\n</stderr>"), "{t}");

        wait_for_status(&ctx, &id, "failed").await;
        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        let t = text(&out);
        assert!(t.contains("<status>failed</status>"), "{t}");
        assert!(t.contains("<exit_code>3</exit_code>"), "{t}");
        assert!(
            t.contains("<stdout>\ntwo\n</stdout>"),
            "only new output: {t}"
        );
        assert!(!t.contains("one"));
        let s = out.structured.unwrap();
        assert_eq!(s["exitCode"], 3);
        assert_eq!(s["stdout"], "two");
        assert_eq!(s["stderr"], "");

        let out = BashOutputTool
            .call(json!({"bash_id": "bash_1"}), &ctx)
            .await;
        assert!(text(&out).contains("no new output"));
    }

    #[tokio::test]
    async fn filter_keeps_matching_lines_and_discards_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let id = ctx
            .background
            .start(
                "printf 'INFO a\\nERROR b\\nINFO c\\nERROR d\\n'",
                dir.path(),
                &BTreeMap::<String, String>::new(),
            )
            .unwrap();
        wait_for_status(&ctx, &id, "completed").await;
        let out = BashOutputTool
            .call(json!({"bash_id": id, "filter": "^ERROR"}), &ctx)
            .await;
        let s = out.structured.unwrap();
        assert_eq!(s["stdout"], "ERROR b\nERROR d");
        assert_eq!(s["stdoutLines"], 2);
        assert_eq!(s["filterPattern"], "^ERROR");
        assert_eq!(s["status"], "completed");
        assert_eq!(s["exitCode"], 0);
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert!(text(&out).contains("no new output"));

        let out = BashOutputTool
            .call(json!({"bash_id": id, "filter": "("}), &ctx)
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("Invalid filter"));
    }

    #[tokio::test]
    async fn kill_shell_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        let secs = unique_sleep_seconds();
        let id = ctx
            .background
            .start(
                &format!("sleep {secs} & sleep {secs}"),
                dir.path(),
                &BTreeMap::<String, String>::new(),
            )
            .unwrap();
        let marker = format!("sleep {secs}");
        for _ in 0..100 {
            if live_processes_with(&marker) >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let out = KillShellTool.call(json!({"shell_id": id}), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        assert!(text(&out).starts_with("Successfully killed shell: bash_1 (sleep"));
        wait_until_gone(&marker).await;
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert!(text(&out).contains("<status>killed</status>"));

        // Killing it again, or an unknown id, is an error.
        let out = KillShellTool.call(json!({"shell_id": id}), &ctx).await;
        assert!(out.is_error);
        assert!(text(&out).contains("not running"));
        let out = KillShellTool
            .call(json!({"shell_id": "bash_99"}), &ctx)
            .await;
        assert!(out.is_error);
        assert_eq!(text(&out), "No shell found with ID: bash_99");
        let out = BashOutputTool.call(json!({"bash_id": "nope"}), &ctx).await;
        assert!(out.is_error);
    }

    #[tokio::test]
    async fn dropping_the_registry_kills_everything_and_removes_files() {
        let dir = tempfile::tempdir().unwrap();
        let secs = unique_sleep_seconds();
        let marker = format!("sleep {secs}");
        let output_dir;
        {
            let ctx = ctx_in(dir.path());
            let id = ctx
                .background
                .start(
                    &format!("sleep {secs}"),
                    dir.path(),
                    &BTreeMap::<String, String>::new(),
                )
                .unwrap();
            let info = ctx.background.list();
            assert_eq!(info.len(), 1);
            assert_eq!(info[0].id, id);
            assert_eq!(info[0].status, ShellStatus::Running);
            output_dir = info[0].stdout_path.parent().unwrap().to_path_buf();
            assert!(output_dir.is_dir());
            for _ in 0..100 {
                if live_processes_with(&marker) >= 1 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(live_processes_with(&marker), 1);
        }
        wait_until_gone(&marker).await;
        assert!(!output_dir.exists());
    }

    #[tokio::test]
    async fn stop_reports_unknown_and_finished_shells() {
        let dir = tempfile::tempdir().unwrap();
        let shells = BackgroundShells::new();
        assert!(
            shells
                .stop("bash_1")
                .unwrap_err()
                .to_string()
                .contains("No shell")
        );
        let id = shells
            .start("true", dir.path(), &BTreeMap::<String, String>::new())
            .unwrap();
        for _ in 0..200 {
            if shells.list()[0].status != ShellStatus::Running {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let err = shells.stop(&id).unwrap_err().to_string();
        assert!(err.contains("status: completed, exit code 0"), "{err}");
    }

    #[tokio::test]
    async fn session_env_and_cwd_reach_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ctx = ctx_in(&root);
        let mut env = BTreeMap::new();
        env.insert("DCL_BG_TEST".to_string(), "hello".to_string());
        let id = ctx
            .background
            .start("echo $DCL_BG_TEST; pwd", &root, &env)
            .unwrap();
        wait_for_status(&ctx, &id, "completed").await;
        let out = BashOutputTool.call(json!({"bash_id": id}), &ctx).await;
        assert_eq!(
            out.structured.unwrap()["stdout"],
            format!("hello\n{}", root.display())
        );
    }

    #[test]
    fn metadata() {
        assert!(BashOutputTool.always_allowed());
        assert!(KillShellTool.always_allowed());
        assert_eq!(
            BashOutputTool.spec().input_schema().clone()["required"],
            json!(["bash_id"])
        );
        assert_eq!(
            KillShellTool.spec().input_schema().clone()["required"],
            json!(["shell_id"])
        );
    }
}
