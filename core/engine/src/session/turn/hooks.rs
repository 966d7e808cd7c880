//! SDK hooks: callbacks the host registered in `initialize`, run as `hook_callback`
//! control requests at the reference's lifecycle points, their outputs folded into one
//! decision.

use dcl_events::{AgentEvent, HookRun, HookStatus, Item, ItemBody, ItemDelta, NoticeLevel};
use std::time::Duration;

use std::sync::Arc;

use super::{TurnContext, TurnStop};
use crate::session::hook_registry::Registration;
use crate::session::host::HostError;
use crate::session::services::SessionCore;
use crate::session::state::TurnKind;
use dcl_policy::permissions::command_hooks;
use dcl_protocol::{
    GetHooksListingResponse, HookCallbackRequest, HookCallbackTag, HookEventName,
    HookListingCatalogEntry, HookListingEvent, HookListingPolicy, HookListingRow, HookOutcome,
    HookOutput, InformationalLevel, SystemHookProgress, SystemHookResponse, SystemHookStarted,
    SystemInformational,
};
use dcl_tools::environment::{self as tool_environment, redact_text};
use serde_json::{Map, Value, json};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The combined answer of every hook that ran for one event.
#[derive(Debug, Clone, Default)]
pub struct HookVerdict {
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

/// What one hook came to.
enum Ran {
    Callback {
        callback_id: String,
        block_on_failure: bool,
        answer: Result<Value, HostError>,
    },
    Command(CommandHookRun),
}

/// A settings-file hook's run, its output already scrubbed of withheld secrets.
struct CommandHookRun {
    command: String,
    run: command_hooks::HookRun,
}

/// Runs every hook matching `event` (and `subject`, the tool name) concurrently: the
/// host's callbacks and the settings files' command hooks together, as the reference
/// does, their outputs folded into one verdict (the most restrictive decision wins).
pub(crate) async fn run(
    ctx: &TurnContext,
    event: &str,
    subject: Option<&str>,
    tool_use_id: Option<&str>,
    mut input: Map<String, Value>,
) -> HookVerdict {
    let core = &ctx.core;
    let cancel = &ctx.cancel.token;
    let derived: Option<String> =
        subject
            .map(str::to_string)
            .or_else(|| match HookEventName::parse(event)?.matcher() {
                dcl_events::Matcher::Field(field) => input.get(field)?.as_str().map(str::to_string),
                _ => None,
            });
    let subject = derived.as_deref();
    let regs: Vec<Registration> = core
        .state
        .with(|s| s.hooks.matching(event, subject).cloned().collect());
    // The settings' hooks, then the plugins' (re-read by `reload_plugins`).
    let mut commands: Vec<command_hooks::CommandHook> = core
        .services
        .command_hooks
        .matching(event, subject)
        .into_iter()
        .cloned()
        .collect();
    commands.extend(crate::extensions::read(&core.services.extensions, |e| {
        e.command_hooks
            .matching(event, subject)
            .into_iter()
            .cloned()
            .collect::<Vec<_>>()
    }));
    let mut verdict = HookVerdict::default();
    if regs.is_empty() && commands.is_empty() {
        return verdict;
    }
    for (k, v) in base_input(ctx, event) {
        input.entry(k).or_insert(v);
    }
    let input = Value::Object(input);
    let calls = regs
        .iter()
        .flat_map(|r| r.callback_ids.iter().map(move |id| (r, id.clone())));
    let callbacks = calls.map(|(reg, callback_id)| {
        let request = HookCallbackRequest {
            subtype: HookCallbackTag::HookCallback,
            callback_id: callback_id.clone(),
            input: input.clone(),
            tool_use_id: tool_use_id.map(str::to_string),
            extra: Default::default(),
        };
        let timeout = reg.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let block_on_failure = reg.block_on_failure;
        async move {
            let answer = match serde_json::to_value(&request) {
                Ok(request) => match tokio::time::timeout(
                    timeout,
                    core.services
                        .host
                        .request(&core.services.emitter, request, cancel),
                )
                .await
                {
                    Ok(a) => a,
                    Err(_) => Err(HostError::Timeout(timeout)),
                },
                Err(e) => Err(HostError::Refused(e.to_string())),
            };
            Ran::Callback {
                callback_id,
                block_on_failure,
                answer,
            }
        }
    });
    let label = match subject {
        Some(s) => format!("{event}:{s}"),
        None => event.to_string(),
    };
    let env = core
        .services
        .shell
        .tool_environment()
        .apply(&tool_environment::dcl_environment(&core.services.env));
    let secrets = core
        .services
        .shell
        .tool_environment()
        .withheld_secrets(&tool_environment::dcl_environment(&core.services.env));
    // Hooks run in the project directory (CLAUDE_PROJECT_DIR), not where a `cd` went.
    let cwd = core.services.cwd.clone();
    // The frames' `hook_event` is a closed vocabulary; every event dcl fires is in it.
    let stream_as = HookEventName::parse(event)
        .filter(|_| core.services.opts.include_hook_events && core.services.stream_json());
    let emitter = &ctx.emitter;
    let commands = commands.iter().map(|hook| {
        let (input, env, secrets, cwd, label) = (&input, &env, &secrets, &cwd, &label);
        async move {
            let hook_id = uuid::Uuid::new_v4().to_string();
            let hook_item = |status: HookStatus, output: String, exit_code: Option<i32>| {
                Item::new(
                    hook_id.clone(),
                    ItemBody::HookRun(HookRun {
                        event: event.to_string(),
                        name: hook.command.clone(),
                        status,
                        output,
                        exit_code,
                    }),
                )
            };
            emitter.agent(|| AgentEvent::ItemStarted {
                item: hook_item(HookStatus::Running, String::new(), None),
            });
            if let Some(e) = stream_as {
                emitter.system(SystemHookStarted::new(&hook_id, label, e));
            }
            let progress = |out: &str, err: &str| {
                emitter.agent(|| AgentEvent::ItemDelta {
                    item_id: hook_id.clone(),
                    delta: ItemDelta::HookOutput {
                        output: redact_text(&format!("{out}{err}"), secrets),
                    },
                });
                if let Some(e) = stream_as {
                    emitter.system(SystemHookProgress::new(
                        &hook_id,
                        label,
                        e,
                        redact_text(out, secrets),
                        redact_text(err, secrets),
                    ));
                }
            };
            let mut run = command_hooks::run(hook, input, cwd, env, cancel, &progress).await;
            run.stdout = redact_text(&run.stdout, secrets);
            run.stderr = redact_text(&run.stderr, secrets);
            run.blocked = run.blocked.map(|b| redact_text(&b, secrets));
            emitter.agent(|| {
                let status = if run.error.as_deref() == Some(command_hooks::CANCELLED) {
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
                    item: hook_item(status, output, run.exit_code),
                }
            });
            if let Some(e) = stream_as {
                let outcome = if run.error.as_deref() == Some(command_hooks::CANCELLED) {
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
                emitter.system(SystemHookResponse::new(
                    &hook_id,
                    label,
                    e,
                    run.stdout.clone(),
                    stderr,
                    run.exit_code.map(i64::from),
                    outcome,
                ));
            }
            Ran::Command(CommandHookRun {
                command: hook.command.clone(),
                run,
            })
        }
    });
    let (from_host, from_settings) = futures::join!(
        futures::future::join_all(callbacks),
        futures::future::join_all(commands)
    );
    let mut errors = Vec::new();
    for ran in from_host.into_iter().chain(from_settings) {
        match ran {
            Ran::Callback {
                callback_id,
                block_on_failure,
                answer,
            } => match answer {
                Ok(payload) => match serde_json::from_value::<HookOutput>(payload) {
                    Ok(out) => fold(&mut verdict, event, subject, out),
                    Err(e) => failure(
                        &mut verdict,
                        event,
                        &callback_id,
                        block_on_failure,
                        &format!("unreadable hook output: {e}"),
                    ),
                },
                Err(HostError::Cancelled) => {}
                Err(e) => failure(
                    &mut verdict,
                    event,
                    &callback_id,
                    block_on_failure,
                    &e.to_string(),
                ),
            },
            Ran::Command(c) => {
                if let Some(e) = fold_command(&mut verdict, event, subject, c) {
                    errors.push(format!("{label} hook error: {e}"));
                }
            }
        }
    }
    for m in &verdict.system_messages {
        ctx.emitter
            .agent(|| AgentEvent::notice(NoticeLevel::Info, m.clone()));
        ctx.emitter.system(SystemInformational::new(
            m.clone(),
            InformationalLevel::Notice,
        ));
    }
    // The reference shows a failing (non-blocking) hook to the user and goes on.
    for e in errors {
        tracing::warn!("{e}");
        ctx.emitter.warning(e);
    }
    verdict
}

/// Folds one command hook's run: exit 2 blocks with stderr as the reason; exit 0 with a
/// JSON object on stdout is a hook output like a callback's (plain stdout of a
/// UserPromptSubmit or SessionStart hook is context for the model); anything else is a
/// non-blocking error, returned for the user to see.
fn fold_command(
    verdict: &mut HookVerdict,
    event: &str,
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
                if !text.is_empty() && matches!(event, "UserPromptSubmit" | "SessionStart") {
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

fn failure(verdict: &mut HookVerdict, event: &str, callback_id: &str, block: bool, error: &str) {
    tracing::warn!("{event} hook {callback_id} failed: {error}");
    if block {
        verdict
            .block
            .get_or_insert_with(|| format!("{event} hook failed: {error}"));
    }
}

fn fold(verdict: &mut HookVerdict, event: &str, subject: Option<&str>, out: HookOutput) {
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

/// Whether `event`'s hooks take a matcher in dcl.
fn supports_matcher(event: &str) -> bool {
    HookEventName::parse(event).is_some_and(|e| e.matcher() != dcl_events::Matcher::None)
}

/// `get_hooks_listing`: the settings files' command hooks (layer by layer, as trusted),
/// the plugins', and the host's callbacks, by event in the SDK's order.
pub(crate) fn listing(core: &SessionCore) -> GetHooksListingResponse {
    let summary = |event: &str| {
        let Some(e) = HookEventName::parse(event) else {
            return String::new();
        };
        match e.fired() {
            dcl_events::Fired::Never(why) => {
                format!("{} (dcl never fires this: {why})", e.description())
            }
            dcl_events::Fired::Yes => e.description().to_string(),
        }
    };
    let command_row = |event: &str,
                       m: &command_hooks::Matcher,
                       h: &command_hooks::CommandHook,
                       source: &str,
                       label: &str| HookListingRow {
        event: event.to_string(),
        matcher: m.text().to_string(),
        source: source.into(),
        source_label: label.into(),
        kind: "command".into(),
        display_text: h.command.clone(),
        command_text: h.command.clone(),
        content_label: "Command".into(),
        timeout: Some(h.timeout.as_secs_f64()),
        extra: Default::default(),
    };
    let mut rows = Vec::new();
    let settings = core.state.with(|s| s.settings.clone());
    for layer in &settings.layers {
        let (source, label) = match layer.source {
            "user" => ("userSettings", "User settings"),
            "project" => ("projectSettings", "Project settings"),
            "local" => ("localSettings", "Local settings"),
            _ => ("flagSettings", "--settings"),
        };
        let (hooks, _) = command_hooks::CommandHooks::from_settings(layer.settings.get("hooks"));
        for (event, matchers) in &hooks.events {
            for m in matchers {
                for h in &m.hooks {
                    rows.push(command_row(event, m, h, source, label));
                }
            }
        }
    }
    let plugin_hooks =
        crate::extensions::read(&core.services.extensions, |e| e.command_hooks.clone());
    for (event, matchers) in &plugin_hooks.events {
        for m in matchers {
            for h in &m.hooks {
                rows.push(command_row(event, m, h, "pluginHook", "Plugin"));
            }
        }
    }
    let registrations = core.state.with(|s| s.hooks.registrations.clone());
    for r in &registrations {
        for id in &r.callback_ids {
            rows.push(HookListingRow {
                event: r.event.clone(),
                matcher: r.matcher_text.clone(),
                source: "sessionHook".into(),
                source_label: "Host callback (initialize.hooks)".into(),
                kind: "callback".into(),
                display_text: id.clone(),
                command_text: id.clone(),
                content_label: "Callback".into(),
                timeout: Some(r.timeout.unwrap_or(DEFAULT_TIMEOUT).as_secs_f64()),
                extra: Default::default(),
            });
        }
    }
    let order = |event: &str| HookEventName::ALL.iter().position(|e| e.as_str() == event);
    rows.sort_by_key(|r| order(&r.event));
    let events = HookEventName::ALL
        .iter()
        .map(|e| e.as_str())
        .filter_map(|name| {
            let count = rows.iter().filter(|r| r.event == *name).count() as u64;
            (count > 0).then(|| HookListingEvent {
                name: name.to_string(),
                summary: summary(name),
                supports_matcher: supports_matcher(name),
                hook_count: count,
                extra: Default::default(),
            })
        })
        .collect();
    GetHooksListingResponse {
        events,
        hooks: rows,
        event_catalog: HookEventName::ALL
            .iter()
            .map(|e| e.as_str())
            .map(|name| HookListingCatalogEntry {
                name: name.to_string(),
                summary: summary(name),
                supports_matcher: supports_matcher(name),
                extra: Default::default(),
            })
            .collect(),
        policy: HookListingPolicy::default(),
        extra: Default::default(),
    }
}

/// Fields every hook input carries (the SDK's `BaseHookInput`), and a subagent's id and
/// type when the event happens inside one.
fn base_input(ctx: &TurnContext, event: &str) -> Map<String, Value> {
    let core = &ctx.core;
    let live = core.state.live();
    let mut m = Map::new();
    m.insert(
        "session_id".into(),
        json!(core.services.emitter.session_id()),
    );
    // Empty when the session keeps no transcript (`--no-session-persistence`, or before
    // the first entry creates the file).
    let transcript = core
        .persistence
        .transcript_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    m.insert("transcript_path".into(), json!(transcript));
    m.insert("cwd".into(), json!(core.services.cwd.display().to_string()));
    m.insert(
        "permission_mode".into(),
        json!(live.permission_mode.as_str()),
    );
    if let TurnKind::Subagent {
        agent_id,
        agent_type,
    } = &ctx.kind
    {
        m.insert("agent_id".into(), json!(agent_id));
        m.insert("agent_type".into(), json!(agent_type));
    }
    m.insert("hook_event_name".into(), json!(event));
    m
}

/// Runs `event`'s hooks for a moment outside any turn (a control request, the session's
/// end, an MCP server's elicitation): as the main thread, with nothing to cancel them
/// but their own timeouts.
pub(crate) async fn run_outside(
    core: &Arc<SessionCore>,
    event: &str,
    input: Map<String, Value>,
) -> HookVerdict {
    let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::default());
    run(&ctx, event, None, None, input).await
}

/// Whether any hook (the host's or a settings file's) is registered for `event`, so a
/// firing site can skip work that only feeds hooks.
pub(crate) fn any_for(core: &SessionCore, event: &str) -> bool {
    core.state
        .with(|s| s.hooks.registrations.iter().any(|r| r.event == event))
        || core.services.command_hooks.events.contains_key(event)
        || crate::extensions::read(&core.services.extensions, |e| {
            e.command_hooks.events.contains_key(event)
        })
}

/// TaskCreated / TaskCompleted for a background agent: `task_subject` is the agent call's
/// description, `task_description` its prompt.
pub(crate) async fn task_hook(
    core: &Arc<SessionCore>,
    event: &str,
    task_id: &str,
    subject: &str,
    description: &str,
) {
    let mut input = Map::new();
    input.insert("task_id".into(), json!(task_id));
    input.insert("task_subject".into(), json!(subject));
    input.insert("task_description".into(), json!(description));
    run_outside(core, event, input).await;
}

/// TaskCreated / TaskCompleted for background shells (`run_in_background`): `task_subject`
/// is the command. Completed means it exited 0 by itself; a failing or killed shell fires
/// no TaskCompleted. Weak: the shells belong to the session.
pub(crate) struct ShellTaskHooks(pub std::sync::Weak<SessionCore>);

impl dcl_tools::background::ShellListener for ShellTaskHooks {
    fn started<'a>(&'a self, id: &'a str, command: &'a str) -> dcl_model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(core) = self.0.upgrade() {
                task_hook(&core, "TaskCreated", id, command, command).await;
            }
        })
    }

    fn exited<'a>(
        &'a self,
        id: &'a str,
        command: &'a str,
        code: i32,
    ) -> dcl_model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if code == 0
                && let Some(core) = self.0.upgrade()
            {
                task_hook(&core, "TaskCompleted", id, command, command).await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::hook_registry::{HookRegistry, Matcher, never_fired_warning};
    use dcl_protocol::InitializeRequest;

    #[test]
    fn every_fired_event_has_a_hook_frame_name_and_a_settings_name() {
        for e in HookEventName::fired_events() {
            assert!(command_hooks::is_event(e.as_str()), "{e}");
        }
    }

    #[test]
    fn matchers() {
        let all = Matcher::parse(&Some(json!("*"))).unwrap();
        assert!(all.matches("Bash"));
        let names = Matcher::parse(&Some(json!("Edit|Write"))).unwrap();
        assert!(names.matches("Write") && !names.matches("Bash") && !names.matches("WriteX"));
        let pat = Matcher::parse(&Some(json!("mcp__.*"))).unwrap();
        assert!(pat.matches("mcp__app__x") && !pat.matches("Bash"));
        assert!(Matcher::parse(&None).is_none());
    }

    #[test]
    fn the_most_restrictive_permission_decision_wins() {
        let mut v = HookVerdict::default();
        let out = |d: &str| {
            HookOutput {
            hook_specific_output: Some(
                json!({"hookEventName":"PreToolUse","permissionDecision": d, "permissionDecisionReason": d})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            ..Default::default()
        }
        };
        fold(&mut v, "PreToolUse", Some("Bash"), out("allow"));
        fold(&mut v, "PreToolUse", Some("Bash"), out("deny"));
        fold(&mut v, "PreToolUse", Some("Bash"), out("ask"));
        assert_eq!(v.permission.as_deref(), Some("deny"));
    }

    #[test]
    fn unfired_events_are_reported() {
        let init: InitializeRequest = serde_json::from_value(json!({
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
                      "PreCompact": [{"hookCallbackIds": ["hook_1"]}],
                      "Notification": [{"hookCallbackIds": ["hook_2"]}],
                      "Setup": [{"hookCallbackIds": ["hook_3"]}, {"hookCallbackIds": ["hook_4"]}]}
        }))
        .unwrap();
        let (reg, warnings) = HookRegistry::from_initialize(&init).unwrap();
        assert_eq!(reg.registrations.len(), 5);
        // Once per event, with the reason.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("Setup") && warnings[0].contains("never fires"));
    }

    #[test]
    fn every_sdk_event_is_fired_or_said_never_to_fire() {
        assert_eq!(HookEventName::ALL.len(), 35);
        for e in HookEventName::ALL {
            let name = e.as_str();
            let never = matches!(e.fired(), dcl_events::Fired::Never(_));
            assert_eq!(never_fired_warning(name).is_some(), never, "{name}");
            assert!(!e.description().is_empty(), "{name}");
        }
        assert!(never_fired_warning("NoSuchEvent").is_some());
    }

    #[test]
    fn the_most_cautious_elicitation_answer_wins() {
        let out = |a: &str| HookOutput {
            hook_specific_output: Some(
                json!({"hookEventName": "Elicitation", "action": a, "content": {"a": a}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            ..Default::default()
        };
        let mut v = HookVerdict::default();
        fold(&mut v, "Elicitation", None, out("accept"));
        assert_eq!(v.elicitation_action.as_deref(), Some("accept"));
        fold(&mut v, "Elicitation", None, out("decline"));
        fold(&mut v, "Elicitation", None, out("accept"));
        assert_eq!(v.elicitation_action.as_deref(), Some("decline"));
        assert_eq!(v.elicitation_content, Some(json!({"a": "decline"})));
    }
}
