//! Folding what the hooks of one event answered into one verdict: the most restrictive
//! decision wins.

use dcl_events::HookEventName;
use dcl_policy::permissions::command_hooks;
use dcl_protocol::HookOutput;
use serde_json::Value;

/// The combined answer of every hook that ran for one event.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookVerdict {
    /// `continue: false` from any hook: stop the turn with this reason.
    pub stop: Option<String>,
    /// `decision: "block"` (or a PreToolUse `deny`): the reason.
    pub block: Option<String>,
    /// PreToolUse `permissionDecision`.
    pub permission: Option<String>,
    pub permission_reason: Option<String>,
    pub updated_input: Option<Value>,
    /// PermissionRequest `decision` object.
    pub permission_request_decision: Option<Value>,
    /// Elicitation / ElicitationResult: the hook's answer (`accept`, `decline`, `cancel`)
    /// and its form content, instead of (or over) the host's.
    pub elicitation_action: Option<String>,
    pub elicitation_content: Option<Value>,
    pub additional_context: Vec<String>,
    pub system_messages: Vec<String>,
}

/// A settings-file hook's run, its output already scrubbed of withheld secrets.
pub(super) struct CommandHookRun {
    pub command: String,
    pub run: command_hooks::HookRun,
}

/// Folds one command hook's run: exit 2 blocks with stderr as the reason; exit 0 with a
/// JSON object on stdout is a hook output like a callback's (plain stdout of a
/// UserPromptSubmit or SessionStart hook is context for the model); anything else is a
/// non-blocking error, returned for the user to see.
pub(super) fn fold_command(
    verdict: &mut HookVerdict,
    event: HookEventName,
    subject: Option<&str>,
    c: CommandHookRun,
) -> Option<String> {
    let CommandHookRun { command, run } = c;
    if let Some(reason) = run.blocked {
        verdict.block.get_or_insert(reason);
        return None;
    }
    if run.exit_code == Some(0) {
        match run.output {
            Some(out) => match serde_json::from_value::<HookOutput>(out) {
                Ok(out) => fold(verdict, event, subject, out),
                Err(e) => return Some(format!("`{command}`: unreadable hook output: {e}")),
            },
            None => {
                let text = run.stdout.trim();
                if !text.is_empty()
                    && matches!(
                        event,
                        HookEventName::UserPromptSubmit | HookEventName::SessionStart
                    )
                {
                    verdict.additional_context.push(text.to_string());
                }
            }
        }
        return None;
    }
    if run.error.as_deref() == Some(command_hooks::CANCELLED) {
        return None;
    }
    let detail = match (&run.error, run.stderr.trim()) {
        (Some(e), "") => e.clone(),
        (Some(e), err) => format!("{e}: {err}"),
        (None, err) => format!(
            "exit code {}{}",
            run.exit_code
                .map_or_else(|| "none".to_string(), |c| c.to_string()),
            if err.is_empty() {
                String::new()
            } else {
                format!(": {err}")
            }
        ),
    };
    Some(format!("`{command}`: {}", clip(&detail)))
}

/// A hook's error as shown to the user: its first [`MAX_SHOWN_ERROR`] characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN_ERROR) {
        Some((i, _)) => format!("{}… (truncated)", &text[..i]),
        None => text.to_string(),
    }
}

/// How much of a failing hook's stderr a warning shows.
const MAX_SHOWN_ERROR: usize = 4000;

pub(super) fn failure(
    verdict: &mut HookVerdict,
    event: HookEventName,
    callback_id: &str,
    block: bool,
    error: &str,
) {
    tracing::warn!("{event} hook {callback_id} failed: {error}");
    if block {
        verdict
            .block
            .get_or_insert_with(|| format!("{event} hook failed: {error}"));
    }
}

pub(super) fn fold(
    verdict: &mut HookVerdict,
    event: HookEventName,
    subject: Option<&str>,
    out: HookOutput,
) {
    let label = match subject {
        Some(s) => format!("{event}:{s}"),
        None => event.to_string(),
    };
    if out.continue_ == Some(false) {
        verdict.stop.get_or_insert_with(|| {
            out.stop_reason
                .clone()
                .unwrap_or_else(|| format!("Stopped by {label} hook"))
        });
    }
    if let Some(m) = &out.system_message {
        verdict.system_messages.push(format!("{label} says: {m}"));
    }
    if out.decision.as_deref() == Some("approve") && verdict.permission.is_none() {
        // The reference's older PreToolUse spelling of "allow".
        verdict.permission = Some("allow".to_string());
        verdict.permission_reason = out.reason.clone();
    }
    if out.decision.as_deref() == Some("block") {
        verdict.block.get_or_insert_with(|| {
            out.reason
                .clone()
                .unwrap_or_else(|| format!("Blocked by {label} hook"))
        });
    }
    let Some(specific) = out.hook_specific_output else {
        return;
    };
    if let Some(ctx) = specific.get("additionalContext").and_then(Value::as_str) {
        verdict.additional_context.push(ctx.to_string());
    }
    if let Some(d) = specific.get("permissionDecision").and_then(Value::as_str) {
        // The most restrictive decision wins: deny > ask > allow.
        let rank = |d: &str| match d {
            "deny" => 3,
            "defer" => 2,
            "ask" => 1,
            _ => 0,
        };
        if verdict
            .permission
            .as_deref()
            .is_none_or(|cur| rank(d) > rank(cur))
        {
            verdict.permission = Some(d.to_string());
            verdict.permission_reason = specific
                .get("permissionDecisionReason")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }
    if let Some(u) = specific.get("updatedInput").filter(|v| v.is_object()) {
        verdict.updated_input = Some(u.clone());
    }
    if let Some(d) = specific.get("decision").filter(|v| v.is_object()) {
        verdict.permission_request_decision = Some(d.clone());
    }
    if let Some(a) = specific.get("action").and_then(Value::as_str)
        && matches!(a, "accept" | "decline" | "cancel")
    {
        // The most cautious answer wins, as with permissions: cancel > decline > accept.
        let rank = |a: &str| match a {
            "cancel" => 2,
            "decline" => 1,
            _ => 0,
        };
        if verdict
            .elicitation_action
            .as_deref()
            .is_none_or(|cur| rank(a) > rank(cur))
        {
            verdict.elicitation_action = Some(a.to_string());
            verdict.elicitation_content =
                specific.get("content").filter(|c| c.is_object()).cloned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn specific(v: Value) -> HookOutput {
        HookOutput {
            hook_specific_output: v.as_object().cloned(),
            ..Default::default()
        }
    }

    #[test]
    fn the_most_restrictive_permission_decision_wins() {
        let mut v = HookVerdict::default();
        let out =
            |d: &str| specific(json!({"permissionDecision": d, "permissionDecisionReason": d}));
        let pre = HookEventName::PreToolUse;
        fold(&mut v, pre, Some("Bash"), out("allow"));
        fold(&mut v, pre, Some("Bash"), out("deny"));
        fold(&mut v, pre, Some("Bash"), out("ask"));
        assert_eq!(v.permission.as_deref(), Some("deny"));
    }

    #[test]
    fn the_most_cautious_elicitation_answer_wins() {
        let out = |a: &str| specific(json!({"action": a, "content": {"a": a}}));
        let mut v = HookVerdict::default();
        let e = HookEventName::Elicitation;
        fold(&mut v, e, None, out("accept"));
        assert_eq!(v.elicitation_action.as_deref(), Some("accept"));
        fold(&mut v, e, None, out("decline"));
        fold(&mut v, e, None, out("accept"));
        assert_eq!(v.elicitation_action.as_deref(), Some("decline"));
        assert_eq!(v.elicitation_content, Some(json!({"a": "decline"})));
    }
}
