//! `get_hooks_listing`: every hook the session would run, where it comes from, and the
//! events' catalogue.

use dcl_events::HookEventName;
use dcl_policy::permissions::command_hooks;
use dcl_protocol::{
    GetHooksListingResponse, HookListingCatalogEntry, HookListingEvent, HookListingPolicy,
    HookListingRow,
};

use super::DEFAULT_TIMEOUT;
use crate::session::services::SessionCore;

/// `get_hooks_listing`: the settings files' command hooks (layer by layer, as trusted),
/// the plugins', and the host's callbacks, by event in the SDK's order.
pub(crate) fn listing(core: &SessionCore) -> GetHooksListingResponse {
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
        .filter_map(|e| {
            let count = rows.iter().filter(|r| r.event == e.as_str()).count() as u64;
            (count > 0).then(|| HookListingEvent {
                name: e.to_string(),
                summary: e.summary(),
                supports_matcher: e.takes_matcher(),
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
            .map(|e| HookListingCatalogEntry {
                name: e.to_string(),
                summary: e.summary(),
                supports_matcher: e.takes_matcher(),
                extra: Default::default(),
            })
            .collect(),
        policy: HookListingPolicy::default(),
        extra: Default::default(),
    }
}
