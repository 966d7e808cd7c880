//! SDK hooks: callbacks the host registered in `initialize`, run as `hook_callback`
//! control requests at the reference's lifecycle points, their outputs folded into one
//! decision.

use std::time::Duration;

use super::host::HostError;
use super::turn::TurnContext;
use dcl_protocol::{
    HookCallbackRequest, HookCallbackTag, HookMatcherConfig, HookOutput, InformationalLevel,
    InitializeRequest, SystemInformational,
};
use regex::Regex;
use serde_json::{Map, Value, json};

/// Events dcl fires. Hooks registered for other events are accepted and reported as
/// never firing (a warning in the `initialize` answer).
pub const FIRED_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "PermissionRequest",
    "PermissionDenied",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
];

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
struct Registration {
    event: String,
    matcher: Option<Matcher>,
    callback_ids: Vec<String>,
    timeout: Option<Duration>,
    block_on_failure: bool,
}

/// A tool-name matcher: `Bash`, `Edit|Write`, `mcp__.*`; empty or `*` matches all.
#[derive(Debug, Clone)]
enum Matcher {
    All,
    Names(Vec<String>),
    Pattern(Regex),
}

impl Matcher {
    fn parse(raw: &Option<Value>) -> Option<Matcher> {
        let text = raw.as_ref()?.as_str()?.trim();
        if text.is_empty() || text == "*" {
            return Some(Matcher::All);
        }
        if text
            .split('|')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return Some(Matcher::Names(
                text.split('|').map(str::to_string).collect(),
            ));
        }
        match Regex::new(&format!("^(?:{text})$")) {
            Ok(r) => Some(Matcher::Pattern(r)),
            // An unparsable pattern is matched literally rather than silently matching all.
            Err(_) => Some(Matcher::Names(vec![text.to_string()])),
        }
    }

    fn matches(&self, subject: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(n) => n.iter().any(|x| x == subject),
            Matcher::Pattern(r) => r.is_match(subject),
        }
    }
}

/// Hooks registered by the host.
#[derive(Debug, Clone, Default)]
pub struct HookRegistry {
    registrations: Vec<Registration>,
}

impl HookRegistry {
    /// Reads `initialize.hooks`; returns the registry and warnings for events that never fire.
    pub fn from_initialize(
        init: &InitializeRequest,
    ) -> Result<(HookRegistry, Vec<String>), String> {
        let mut registrations = Vec::new();
        let mut warnings = Vec::new();
        for (event, cfg) in init.hook_matchers()? {
            let HookMatcherConfig {
                matcher,
                hook_callback_ids,
                timeout,
                on_failure,
                ..
            } = cfg;
            if !FIRED_EVENTS.contains(&event.as_str()) {
                let w = format!("hooks for {event} are accepted but dcl never fires that event");
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            registrations.push(Registration {
                matcher: Matcher::parse(&matcher),
                event,
                callback_ids: hook_callback_ids,
                timeout: timeout
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .map(Duration::from_secs_f64),
                block_on_failure: on_failure.as_deref() == Some("block"),
            });
        }
        Ok((HookRegistry { registrations }, warnings))
    }

    fn matching<'a>(
        &'a self,
        event: &'a str,
        subject: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Registration> + 'a {
        self.registrations.iter().filter(move |r| {
            r.event == event
                && match (&r.matcher, subject) {
                    (None, _) | (Some(Matcher::All), _) => true,
                    (Some(m), Some(s)) => m.matches(s),
                    (Some(_), None) => true,
                }
        })
    }
}

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
    pub additional_context: Vec<String>,
    pub system_messages: Vec<String>,
}

/// Runs every hook matching `event` (and `subject`, the tool name) concurrently.
pub(crate) async fn run(
    ctx: &TurnContext,
    event: &str,
    subject: Option<&str>,
    tool_use_id: Option<&str>,
    mut input: Map<String, Value>,
) -> HookVerdict {
    let core = &ctx.core;
    let cancel = &ctx.cancel;
    let regs: Vec<Registration> = core
        .state
        .with(|s| s.hooks.matching(event, subject).cloned().collect());
    let mut verdict = HookVerdict::default();
    if regs.is_empty() {
        return verdict;
    }
    for (k, v) in base_input(ctx, event) {
        input.entry(k).or_insert(v);
    }
    let input = Value::Object(input);
    let calls = regs
        .iter()
        .flat_map(|r| r.callback_ids.iter().map(move |id| (r, id.clone())));
    let futures = calls.map(|(reg, callback_id)| {
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
            let request = match serde_json::to_value(&request) {
                Ok(v) => v,
                Err(e) => {
                    return (
                        callback_id,
                        block_on_failure,
                        Err(HostError::Refused(e.to_string())),
                    );
                }
            };
            let answer = match tokio::time::timeout(
                timeout,
                core.services
                    .host
                    .request(&core.services.emitter, request, cancel),
            )
            .await
            {
                Ok(a) => a,
                Err(_) => Err(HostError::Timeout(timeout)),
            };
            (callback_id, block_on_failure, answer)
        }
    });
    for (callback_id, block_on_failure, answer) in futures::future::join_all(futures).await {
        match answer {
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
        }
    }
    for m in &verdict.system_messages {
        ctx.emitter.system(SystemInformational::new(
            m.clone(),
            InformationalLevel::Notice,
        ));
    }
    verdict
}

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
}

/// Fields every hook input carries.
fn base_input(ctx: &TurnContext, event: &str) -> Map<String, Value> {
    let core = &ctx.core;
    let live = core.state.live();
    let mut m = Map::new();
    m.insert(
        "session_id".into(),
        json!(core.services.emitter.session_id()),
    );
    m.insert("transcript_path".into(), json!(""));
    m.insert("cwd".into(), json!(core.services.cwd.display().to_string()));
    m.insert(
        "permission_mode".into(),
        json!(live.permission_mode.as_str()),
    );
    m.insert("hook_event_name".into(), json!(event));
    m
}

#[cfg(test)]
mod tests {
    use super::*;

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
                      "Notification": [{"hookCallbackIds": ["hook_2"]}]}
        }))
        .unwrap();
        let (reg, warnings) = HookRegistry::from_initialize(&init).unwrap();
        assert_eq!(reg.registrations.len(), 3);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("Notification"));
    }
}
