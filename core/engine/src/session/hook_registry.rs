//! The hooks the host registered in `initialize` (event, tool-name matcher, callback ids,
//! timeout). Session state holds the registry; running the hooks is `hooks`' job.

use std::time::Duration;

use dcl_events::HookEventName;
use dcl_protocol::{HookMatcherConfig, InitializeRequest};
use regex::Regex;
use serde_json::Value;

#[derive(Debug, Clone)]
pub(super) struct Registration {
    pub event: String,
    pub matcher: Option<Matcher>,
    /// The matcher as the host sent it (`""` for none), for `get_hooks_listing`.
    pub matcher_text: String,
    pub callback_ids: Vec<String>,
    pub timeout: Option<Duration>,
    pub block_on_failure: bool,
}

/// A tool-name matcher: `Bash`, `Edit|Write`, `mcp__.*`; empty or `*` matches all.
#[derive(Debug, Clone)]
pub(super) enum Matcher {
    All,
    Names(Vec<String>),
    Pattern(Regex),
}

impl Matcher {
    pub(super) fn parse(raw: &Option<Value>) -> Option<Matcher> {
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

    pub(super) fn matches(&self, subject: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(n) => n.iter().any(|x| x == subject),
            Matcher::Pattern(r) => r.is_match(subject),
        }
    }
}

/// Hooks registered by the host.
/// A malformed `initialize.hooks` block, as the protocol crate words it
/// (`hooks.PreToolUse must be an array`, `hooks.Stop: …`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HooksConfigError(#[from] pub dcl_protocol::InitializeError);

#[derive(Debug, Clone, Default)]
pub struct HookRegistry {
    pub(super) registrations: Vec<Registration>,
}

impl HookRegistry {
    /// Reads `initialize.hooks`; returns the registry and warnings for events that never fire.
    pub fn from_initialize(
        init: &InitializeRequest,
    ) -> Result<(HookRegistry, Vec<String>), HooksConfigError> {
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
            if let Some(w) = HookEventName::never_fired_warning(&event)
                && !warnings.contains(&w)
            {
                warnings.push(w);
            }
            registrations.push(Registration {
                matcher_text: matcher
                    .as_ref()
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
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

    pub(super) fn matching<'a>(
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
