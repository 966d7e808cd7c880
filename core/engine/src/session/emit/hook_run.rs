//! A command hook's run as the host sees it: `hook_run` item events, and in stream-json
//! with `includeHookEvents` the `system/hook_started`, `hook_progress` and `hook_response`
//! lines. The hooks module says what happened; this is where it becomes lines.

use dcl_events::{AgentEvent, HookEventName, HookRun, HookStatus, Item, ItemBody, ItemDelta};
use dcl_policy::permissions::command_hooks;
use dcl_protocol::{HookOutcome, SystemHookProgress, SystemHookResponse, SystemHookStarted};

use super::TurnEmitter;

/// One run, from its start: every report about it carries its id.
pub(crate) struct HookRunReport<'a> {
    emitter: &'a TurnEmitter,
    id: String,
    event: HookEventName,
    /// `Event` or `Event:subject`, as the lines name the hook.
    label: &'a str,
    command: &'a str,
    /// Whether the `system/hook_*` lines go out.
    lines: bool,
}

impl<'a> HookRunReport<'a> {
    /// The run of `command` for `event` started.
    pub(crate) fn started(
        emitter: &'a TurnEmitter,
        event: HookEventName,
        label: &'a str,
        command: &'a str,
        lines: bool,
    ) -> Self {
        let report = HookRunReport {
            emitter,
            id: uuid::Uuid::new_v4().to_string(),
            event,
            label,
            command,
            lines,
        };
        emitter.agent(|| AgentEvent::ItemStarted {
            item: report.item(HookStatus::Running, String::new(), None),
        });
        if lines {
            emitter.system(SystemHookStarted::new(&report.id, label, event));
        }
        report
    }

    fn item(&self, status: HookStatus, output: String, exit_code: Option<i32>) -> Item {
        Item::new(
            self.id.clone(),
            ItemBody::HookRun(HookRun {
                event: self.event.to_string(),
                name: self.command.to_string(),
                status,
                output,
                exit_code,
            }),
        )
    }

    /// The hook wrote `out` and `err`; `redact` scrubs withheld secrets from what is shown.
    pub(crate) fn progress(&self, out: &str, err: &str, redact: impl Fn(&str) -> String) {
        self.emitter.agent(|| AgentEvent::ItemDelta {
            item_id: self.id.clone(),
            delta: ItemDelta::HookOutput {
                output: redact(&format!("{out}{err}")),
            },
        });
        if self.lines {
            self.emitter.system(SystemHookProgress::new(
                &self.id,
                self.label,
                self.event,
                redact(out),
                redact(err),
            ));
        }
    }

    /// The run ended; its output is already scrubbed.
    pub(crate) fn finished(&self, run: &command_hooks::HookRun) {
        let cancelled = run.error.as_deref() == Some(command_hooks::CANCELLED);
        self.emitter.agent(|| {
            let status = if cancelled {
                HookStatus::Cancelled
            } else if run.blocked.is_some() {
                HookStatus::Blocked
            } else if run.exit_code == Some(0) {
                HookStatus::Success
            } else {
                HookStatus::Error
            };
            let output = match &run.error {
                Some(e) if run.stderr.is_empty() && run.stdout.is_empty() => e.clone(),
                _ => format!("{}{}", run.stdout, run.stderr),
            };
            AgentEvent::ItemCompleted {
                item: self.item(status, output, run.exit_code),
            }
        });
        if !self.lines {
            return;
        }
        let outcome = if cancelled {
            HookOutcome::Cancelled
        } else if run.exit_code == Some(0) {
            HookOutcome::Success
        } else {
            HookOutcome::Error
        };
        let stderr = match &run.error {
            Some(e) if run.stderr.is_empty() => e.clone(),
            _ => run.stderr.clone(),
        };
        self.emitter.system(SystemHookResponse::new(
            &self.id,
            self.label,
            self.event,
            run.stdout.clone(),
            stderr,
            run.exit_code.map(i64::from),
            outcome,
        ));
    }
}
