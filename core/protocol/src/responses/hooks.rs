//! `get_hooks_listing`: the hooks a session runs, as the reference's /hooks menu lists them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Extra;
use crate::serde_helpers::compact_opt_f64;

/// `get_hooks_listing`: the hooks a session runs, grouped by event, as the reference's
/// /hooks menu lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetHooksListingResponse {
    /// Events with at least one hook, in the SDK's order.
    pub events: Vec<HookListingEvent>,
    pub hooks: Vec<HookListingRow>,
    /// Every event the SDK names, in its order.
    pub event_catalog: Vec<HookListingCatalogEntry>,
    pub policy: HookListingPolicy,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingEvent {
    pub name: String,
    pub summary: String,
    pub supports_matcher: bool,
    pub hook_count: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One hook: a settings file's or a plugin's command, or a host callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingRow {
    pub event: String,
    /// `""` when the entry has none.
    pub matcher: String,
    /// `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `pluginHook`,
    /// `sessionHook` (a host callback).
    pub source: String,
    pub source_label: String,
    /// `command` or `callback`.
    #[serde(rename = "type")]
    pub kind: String,
    pub display_text: String,
    pub command_text: String,
    pub content_label: String,
    /// Seconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub timeout: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingCatalogEntry {
    pub name: String,
    pub summary: String,
    pub supports_matcher: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookListingPolicy {
    pub disabled_by_policy: bool,
    pub managed_only: bool,
    pub plugin_only: bool,
    pub all_disabled: bool,
    pub policy_hook_count: u64,
    #[serde(flatten)]
    pub extra: Extra,
}
