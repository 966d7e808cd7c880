//! Hooks: the host's callbacks (registered in `initialize`, run as `hook_callback`
//! control requests) and the settings files' and plugins' command hooks, run at the
//! reference's lifecycle points and folded into one verdict. Every event is a typed
//! [`dcl_events::HookEvent`] fired through [`fire`]; the session's registries say which
//! hooks hear it.

mod listing;
mod tasks;
mod verdict;

use std::time::Duration;

use dcl_events::{HookEvent, HookEventName};
use dcl_policy::permissions::command_hooks;
use dcl_protocol::{HookCallbackRequest, HookCallbackTag, HookOutput};
use dcl_tools::environment::{self as tool_environment, redact_text};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::session::emit::{HookRunReport, TurnEmitter};
use crate::session::hook_registry::Registration;
use crate::session::host::HostError;
use crate::session::services::SessionCore;
pub(crate) use listing::listing;
pub(crate) use tasks::ShellTaskHooks;
pub(crate) use verdict::HookVerdict;
use verdict::{CommandHookRun, failure, fold, fold_command};

/// Where an event happens, as its hooks need to know it: the session (its hook
/// registries, host, id, transcript, cwd and permission mode), where the runs are
/// reported, what cancels them, and the subagent the event happens in. Not a turn: the
/// session's own hook points (a control request, its end, an MCP elicitation) have none.
pub(crate) struct HookScope<'a> {
    pub core: &'a SessionCore,
    pub emitter: TurnEmitter,
    pub cancel: CancellationToken,
    /// The subagent's id and type, when the event happens inside one.
    pub agent: Option<(&'a str, &'a str)>,
}

impl<'a> HookScope<'a> {
    /// Outside any turn: as the main thread, with nothing to cancel the hooks but their
    /// own timeouts.
    pub(crate) fn session(core: &'a SessionCore) -> Self {
        HookScope {
            emitter: TurnEmitter::new(core.services.emitter.clone(), None),
            core,
            cancel: CancellationToken::new(),
            agent: None,
        }
    }
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What one hook came to.
enum Ran {
    Callback {
        callback_id: String,
        block_on_failure: bool,
        answer: Result<Value, HostError>,
    },
    Command(CommandHookRun),
}

/// Runs every hook matching `event` (and its matcher subject) concurrently: the host's
/// callbacks and the settings files' and plugins' command hooks together, as the
/// reference does, their outputs folded into one verdict (the most restrictive decision
/// wins). The one way the engine fires a hook.
pub(crate) async fn fire<E: HookEvent>(scope: &HookScope<'_>, event_input: &E) -> HookVerdict {
    let name = E::NAME;
    let core = scope.core;
    let cancel = &scope.cancel;
    let subject = event_input.matcher_subject();
    let tool_use_id = event_input.tool_use_id();
    let event = name.as_str();
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
    let mut input = match serde_json::to_value(event_input) {
        Ok(Value::Object(m)) => m,
        // Every hook input type is a struct of plain fields.
        other => {
            tracing::error!("{event} hook input is not an object: {other:?}");
            Map::new()
        }
    };
    for (k, v) in base_input(scope, name) {
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
    // The host asked for the `system/hook_*` lines.
    let lines = core.services.opts.include_hook_events && core.services.stream_json();
    let emitter = &scope.emitter;
    let commands = commands.iter().map(|hook| {
        let (input, env, secrets, cwd, label) = (&input, &env, &secrets, &cwd, &label);
        async move {
            let report = HookRunReport::started(emitter, name, label, &hook.command, lines);
            let progress =
                |out: &str, err: &str| report.progress(out, err, |t| redact_text(t, secrets));
            let mut run = command_hooks::run(hook, input, cwd, env, cancel, &progress).await;
            run.stdout = redact_text(&run.stdout, secrets);
            run.stderr = redact_text(&run.stderr, secrets);
            run.blocked = run.blocked.map(|b| redact_text(&b, secrets));
            report.finished(&run);
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
                    Ok(out) => fold(&mut verdict, name, subject, out),
                    Err(e) => failure(
                        &mut verdict,
                        name,
                        &callback_id,
                        block_on_failure,
                        &format!("unreadable hook output: {e}"),
                    ),
                },
                Err(HostError::Cancelled) => {}
                Err(e) => failure(
                    &mut verdict,
                    name,
                    &callback_id,
                    block_on_failure,
                    &e.to_string(),
                ),
            },
            Ran::Command(c) => {
                if let Some(e) = fold_command(&mut verdict, name, subject, c) {
                    errors.push(format!("{label} hook error: {e}"));
                }
            }
        }
    }
    for m in &verdict.system_messages {
        scope.emitter.notice(m.clone());
    }
    // The reference shows a failing (non-blocking) hook to the user and goes on.
    for e in errors {
        tracing::warn!("{e}");
        scope.emitter.warning(e);
    }
    verdict
}

/// Fields every hook input carries (the SDK's `BaseHookInput`), and a subagent's id and
/// type when the event happens inside one.
fn base_input(scope: &HookScope<'_>, event: HookEventName) -> Map<String, Value> {
    let core = scope.core;
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
    if let Some((agent_id, agent_type)) = scope.agent {
        m.insert("agent_id".into(), json!(agent_id));
        m.insert("agent_type".into(), json!(agent_type));
    }
    m.insert("hook_event_name".into(), json!(event.as_str()));
    m
}

/// Whether any hook (the host's or a settings file's) is registered for `event`, so a
/// firing site can skip work that only feeds hooks.
pub(crate) fn any_for(core: &SessionCore, event: HookEventName) -> bool {
    let event = event.as_str();
    core.state
        .with(|s| s.hooks.registrations.iter().any(|r| r.event == event))
        || core.services.command_hooks.events.contains_key(event)
        || crate::extensions::read(&core.services.extensions, |e| {
            e.command_hooks.events.contains_key(event)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::hook_registry::{HookRegistry, Matcher};
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
            let warning = HookEventName::never_fired_warning(name);
            assert_eq!(warning.is_some(), never, "{name}");
            assert!(!e.description().is_empty(), "{name}");
        }
        assert!(HookEventName::never_fired_warning("NoSuchEvent").is_some());
    }
}
