//! The permission decision for one call: the policy first, a PreToolUse hook's say,
//! PermissionRequest hooks, then the host (`can_use_tool`) — or an automatic denial when
//! nobody can be asked.

use dcl_protocol::{CanUseToolRequest, CanUseToolTag, Extra, PermissionDecision, ToolUseBlock};
use serde_json::{Value, json};

use super::{StopCause, TurnContext};
use crate::session::hooks;
use crate::session::host::HostError;
use dcl_events::hook_input::{ConfigChange, DirectoryAdded, Notification, PermissionRequest};
use dcl_policy::permissions::{self, PermissionMode, Policy, Verdict, host_decision};
use dcl_tool_api::{Approval, Tool, ToolContext, ToolKind};

/// A PreToolUse hook's say in the permission decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum HookPermission {
    None,
    /// Skips the prompt (never a deny rule or plan mode).
    Allow,
    /// Asks even where the policy would allow.
    Ask,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Decision {
    Allow(Value),
    Deny(String),
}

/// The policy as it stands now: rules from the flags, the settings and the host's
/// session grants, in the mode of this moment (a mode change acts at once, mid-turn).
fn policy(ctx: &TurnContext) -> Policy {
    let core = &ctx.core;
    let opts = &core.services.opts;
    let (mode, allowed, denied, ask) = core.state.with(|s| {
        let granted = &s.session_permissions;
        let mut allowed = opts.allowed_tools.clone();
        allowed.extend(s.settings.get_strings("permissions.allow"));
        allowed.extend(granted.allow.iter().cloned());
        allowed.extend(dcl_tool_api::ToolContext::granted_in(&ctx.grants));
        let mut denied = opts.disallowed_tools.clone();
        denied.extend(s.settings.get_strings("permissions.deny"));
        denied.extend(granted.deny.iter().cloned());
        let mut ask = s.settings.get_strings("permissions.ask");
        ask.extend(granted.ask.iter().cloned());
        (s.live.permission_mode, allowed, denied, ask)
    });
    Policy::new(
        mode,
        &allowed,
        &denied,
        &core.services.cwd,
        &core.allowed_dirs(),
    )
    .with_ask(&ask)
}

/// Combines a PreToolUse hook's permission with the policy's verdict: a hook's "allow"
/// skips the prompt, never a deny rule or plan mode; its "ask" asks where the policy
/// would allow.
pub(super) fn with_hook(permission: HookPermission, verdict: Verdict) -> Verdict {
    match (permission, verdict) {
        (HookPermission::Allow, Verdict::Ask { .. }) => Verdict::Allow,
        (HookPermission::Ask, Verdict::Allow) => Verdict::Ask {
            blocked_path: None,
            decision_reason_type: Some("hook"),
        },
        (_, v) => v,
    }
}

pub(super) async fn decide(
    ctx: &TurnContext,
    tu: &ToolUseBlock,
    input: &Value,
    tool: Option<&dyn Tool>,
    tool_ctx: &ToolContext,
    hook_permission: HookPermission,
) -> Decision {
    match tool.map(|t| t.approval(input)) {
        // No action of its own (a subagent, whose calls are each decided on their own;
        // the structured answer): nothing to decide.
        Some(Approval::Exempt) => return Decision::Allow(input.clone()),
        // A question for the user always goes to the host, in every mode.
        Some(Approval::AlwaysAskHost) => {
            if !ctx.core.services.can_ask_host() {
                return Decision::Deny(super::interactive::NO_ONE_TO_ASK.to_string());
            }
            if let Some(d) = permission_request_hooks(ctx, tu, input).await {
                return d;
            }
            return ask_host(ctx, tu, tool, None, None).await;
        }
        Some(Approval::NotNeeded | Approval::ByPolicy) | None => {}
    }
    // Each path is resolved once, here: the decision judges the resolution beside the
    // path as given, and the tool opens that resolution (never resolving it again).
    if let Some(t) = tool {
        tool_ctx.checked.resolve_all(t.paths(input, tool_ctx));
    }
    let policy = policy(ctx);
    let kind = tool.map_or(ToolKind::Other, |t| t.kind());
    let verdict = with_hook(
        hook_permission,
        policy.check(&tu.name, tool, input, tool_ctx),
    );
    let (blocked_path, decision_reason_type) = match verdict {
        Verdict::Allow => return Decision::Allow(input.clone()),
        Verdict::Deny(msg) => return Decision::Deny(msg),
        // Nothing to approve: the call fails as an unknown tool.
        Verdict::Ask { .. } if tool.is_none() => return Decision::Allow(input.clone()),
        Verdict::Ask {
            blocked_path,
            decision_reason_type,
        } => (blocked_path, decision_reason_type),
    };
    if let Some(d) = permission_request_hooks(ctx, tu, input).await {
        return d;
    }
    let services = &ctx.core.services;
    let can_ask = services.can_ask_host();
    if !can_ask || policy.mode == PermissionMode::DontAsk {
        let message = permissions::auto_denial_message(&tu.name, kind, blocked_path.as_deref());
        // Nobody was asked: say so on the stream as well as in the tool result.
        ctx.emitter.permission_denied(&tu.name, &tu.id, &message);
        return Decision::Deny(message);
    }
    let asked = ToolUseBlock {
        input: input.clone(),
        ..tu.clone()
    };
    ask_host(
        ctx,
        &asked,
        tool,
        blocked_path.map(|p| p.display().to_string()),
        decision_reason_type,
    )
    .await
}

/// PermissionRequest hooks may decide before the host is asked.
async fn permission_request_hooks(
    ctx: &TurnContext,
    tu: &ToolUseBlock,
    input: &Value,
) -> Option<Decision> {
    let request = PermissionRequest {
        tool_name: tu.name.clone(),
        tool_input: input.clone(),
        tool_use_id: tu.id.clone(),
    };
    let v = hooks::fire(&ctx.hooks(), &request).await;
    // A blocking answer (a settings hook's exit code 2, `decision: "block"`) denies.
    if let Some(reason) = v.block {
        return Some(Decision::Deny(reason));
    }
    let d = v.permission_request_decision?;
    match d.get("behavior").and_then(Value::as_str) {
        Some("allow") => Some(Decision::Allow({
            if let Some(updates) = d.get("updatedPermissions").and_then(Value::as_array) {
                apply_permission_updates(ctx, updates).await;
            }
            d.get("updatedInput")
                .filter(|u| u.as_object().is_some_and(|o| !o.is_empty()))
                .cloned()
                .unwrap_or_else(|| input.clone())
        })),
        Some("deny") => {
            if d.get("interrupt").and_then(Value::as_bool) == Some(true) {
                // A hook decided, not a person: the SDK's `system`, with no `via`.
                ctx.cancel.stop(StopCause::Stopped {
                    source: "system",
                    reason: "permission_denied",
                    via: None,
                });
            }
            Some(Decision::Deny(
                d.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("Denied by a PermissionRequest hook")
                    .to_string(),
            ))
        }
        _ => None,
    }
}

async fn ask_host(
    ctx: &TurnContext,
    tu: &ToolUseBlock,
    tool: Option<&dyn Tool>,
    blocked_path: Option<String>,
    decision_reason_type: Option<&'static str>,
) -> Decision {
    let description = tool.and_then(|t| t.describe(&tu.input));
    let mut suggestions = Vec::new();
    if let Some(cmd) = tu.input.get("command").and_then(Value::as_str) {
        suggestions.push(json!({"type":"addRules","rules":[{"toolName":tu.name,"ruleContent":cmd}],"behavior":"allow","destination":"localSettings"}));
    }
    suggestions.push(json!({"type":"setMode","mode":"acceptEdits","destination":"session"}));
    let request = CanUseToolRequest {
        subtype: CanUseToolTag::CanUseTool,
        tool_name: tu.name.clone(),
        display_name: tu.name.clone(),
        input: tu.input.clone(),
        tool_use_id: tu.id.clone(),
        description,
        permission_suggestions: suggestions,
        blocked_path,
        decision_reason_type: decision_reason_type.map(str::to_string),
        extra: Extra::new(),
    };
    let request = match serde_json::to_value(&request) {
        Ok(v) => v,
        Err(e) => return Decision::Deny(format!("could not build the approval request: {e}")),
    };
    notify_permission_prompt(ctx, &tu.name).await;
    let services = &ctx.core.services;
    let answer = services
        .host
        .request(&services.emitter, request, &ctx.cancel.token)
        .await;
    match answer {
        Ok(answer) => match serde_json::from_value::<PermissionDecision>(answer.clone()) {
            Ok(PermissionDecision::Allow {
                updated_input,
                updated_permissions,
                ..
            }) => {
                if let Some(updates) = updated_permissions {
                    apply_permission_updates(ctx, &updates).await;
                }
                // `{}` means "as it is" (Java SDKs send it for a plain allow).
                Decision::Allow(
                    updated_input
                        .filter(|u| u.as_object().is_none_or(|o| !o.is_empty()))
                        .unwrap_or_else(|| tu.input.clone()),
                )
            }
            Ok(PermissionDecision::Deny {
                message,
                interrupt,
                extra,
            }) => {
                // "Reject always" (dcl acp): the deny rule is recorded as an allow's is.
                if let Some(updates) = extra.get("updatedPermissions").and_then(Value::as_array) {
                    apply_permission_updates(ctx, updates).await;
                }
                if interrupt == Some(true) {
                    // The host wants the whole turn stopped, not only this call; its
                    // answer does not say who sent it, so the SDK counts it as the user.
                    ctx.cancel.stop(StopCause::Stopped {
                        source: "user",
                        reason: "permission_denied",
                        via: Some("client"),
                    });
                }
                Decision::Deny(if message.is_empty() {
                    "The user denied this tool use.".to_string()
                } else {
                    message
                })
            }
            Err(e) => Decision::Deny(format!(
                "The host's permission answer was not understood ({e}): {answer}"
            )),
        },
        Err(HostError::Cancelled) => Decision::Deny("Interrupted by user".into()),
        Err(e) => Decision::Deny(format!(
            "Permission to use {} was not granted: {e}",
            tu.name
        )),
    }
}

/// Applies a host's `updatedPermissions`: every entry changes this session, and one
/// with a settings destination (`userSettings`, `projectSettings`, `localSettings`) is
/// also written to that file, atomically. Only the host's answer (or a hook it or the
/// user configured) reaches here, never the model's input: the write is the host's
/// explicit decision, so protected-file asks do not apply to it. What could not be
/// applied is said on the stream as a warning.
async fn apply_permission_updates(ctx: &TurnContext, updates: &[Value]) {
    let core = &ctx.core;
    let files = &core.services.settings_files;
    let (errors, mode) = core.state.with(|s| {
        let errors = host_decision::apply_updates(updates, &mut s.session_permissions, files);
        let mode = s.session_permissions.mode.take();
        if let Some(m) = mode {
            s.live.permission_mode = m;
        }
        (errors, mode)
    });
    if let Some(m) = mode {
        tracing::debug!("updatedPermissions: permission mode is now {}", m.as_str());
    }
    let (added, changed) = update_hook_events(updates, files, &core.services.cwd, &errors);
    for event in added {
        hooks::fire(&ctx.hooks(), &event).await;
    }
    for event in changed {
        hooks::fire(&ctx.hooks(), &event).await;
    }
    for e in errors {
        tracing::warn!("{e}");
        ctx.emitter.warning(e.to_string());
    }
}

/// Notification (`permission_prompt`) as dcl asks the host to approve a call, worded as
/// the reference words it. Only `additionalContext` could come back, and a permission
/// prompt has nowhere to put it, so the answer is not read.
async fn notify_permission_prompt(ctx: &TurnContext, tool_name: &str) {
    let note = Notification {
        message: format!("Claude needs your permission to use {tool_name}"),
        title: Some("Permission needed".into()),
        notification_type: "permission_prompt".into(),
    };
    hooks::fire(&ctx.hooks(), &note).await;
}

/// The hooks applied `updatedPermissions` call for: ConfigChange for each settings file
/// written (`user_settings`, `project_settings`, `local_settings`, with its path), and
/// DirectoryAdded for each `addDirectories` directory (`register_repo_root`: the SDK's
/// word for a directory a host added, as opposed to a user's `/add-dir`). Entries that
/// failed fire nothing.
fn update_hook_events(
    updates: &[Value],
    files: &host_decision::SettingsFiles,
    cwd: &std::path::Path,
    errors: &[host_decision::UpdateError],
) -> (Vec<DirectoryAdded>, Vec<ConfigChange>) {
    use host_decision::UpdateError;
    let failed_index = |i: usize| {
        errors.iter().any(|e| match e {
            UpdateError::Invalid { index, .. } | UpdateError::BypassInProject { index } => {
                *index == i
            }
            _ => false,
        })
    };
    let failed_path = |p: &std::path::Path| {
        errors.iter().any(|e| match e {
            UpdateError::Write { path, .. }
            | UpdateError::NotAnObject { path }
            | UpdateError::Symlinked { path } => path == p,
            _ => false,
        })
    };
    let mut added = Vec::new();
    let mut written: Vec<(&'static str, std::path::PathBuf)> = Vec::new();
    for (i, u) in updates.iter().enumerate() {
        if failed_index(i) {
            continue;
        }
        let file = match u.get("destination").and_then(Value::as_str) {
            Some("userSettings") => files.user.clone().map(|p| ("user_settings", p)),
            Some("projectSettings") => Some(("project_settings", files.project.clone())),
            Some("localSettings") => Some(("local_settings", files.local.clone())),
            _ => None,
        };
        if let Some((source, path)) = file
            && !failed_path(&path)
            && !written.iter().any(|(_, p)| *p == path)
        {
            written.push((source, path));
        }
        if u.get("type").and_then(Value::as_str) == Some("addDirectories") {
            for dir in u
                .get("directories")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                added.push(DirectoryAdded {
                    // The SDK's `directory` is absolute; a relative one is the session's.
                    directory: cwd.join(dir).display().to_string(),
                    source: "register_repo_root".into(),
                });
            }
        }
    }
    let changed = written
        .into_iter()
        .map(|(source, path)| ConfigChange {
            source: source.into(),
            file_path: path.display().to_string(),
        })
        .collect();
    (added, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Verdict {
        Verdict::Ask {
            blocked_path: None,
            decision_reason_type: None,
        }
    }

    #[test]
    fn a_hook_allow_skips_the_prompt_but_not_a_deny() {
        assert_eq!(with_hook(HookPermission::Allow, ask()), Verdict::Allow);
        assert_eq!(
            with_hook(HookPermission::Allow, Verdict::Deny("no".into())),
            Verdict::Deny("no".into())
        );
    }

    #[test]
    fn a_hook_ask_asks_where_the_policy_allows() {
        assert_eq!(
            with_hook(HookPermission::Ask, Verdict::Allow),
            Verdict::Ask {
                blocked_path: None,
                decision_reason_type: Some("hook")
            }
        );
        assert_eq!(
            with_hook(HookPermission::None, Verdict::Allow),
            Verdict::Allow
        );
    }
}
