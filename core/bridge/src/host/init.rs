//! Building `initialize` from what a language declares: its hooks become callback ids
//! (`hook_<n>`, numbered in declaration order, so a language keeps its callbacks in one
//! list and finds them by index), its in-process MCP servers are announced by name, and
//! the rest (`agents`, `agent`, `systemPrompt`, `jsonSchema`, `skills`, …) is passed on.

use serde::Deserialize;
use serde_json::{Map, Value, json};

/// One hook matcher: `callbacks` functions for `event`, where `matcher` applies.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct HookSpec {
    pub event: String,
    #[serde(default)]
    pub matcher: Option<String>,
    pub callbacks: usize,
    #[serde(default)]
    pub timeout: Option<Value>,
    #[serde(default)]
    pub on_failure: Option<Value>,
}

/// What a language declares for `initialize`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct InitSpec {
    /// In the order the callbacks are numbered.
    #[serde(default)]
    pub hooks: Vec<HookSpec>,
    /// The servers are listed in the MCP config already (`{"type": "sdk"}` entries, as
    /// claude-agent-sdk's CLI transport does): not announced again.
    #[serde(default)]
    pub sdk_servers_in_mcp_config: bool,
    /// Every other `initialize` field, passed on as given (nulls left out).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// The id of hook callback number `index`.
pub fn callback_id(index: usize) -> String {
    format!("hook_{index}")
}

/// The number of a callback id made by [`callback_id`].
pub fn callback_index(id: &str) -> Option<usize> {
    id.strip_prefix("hook_")?.parse().ok()
}

impl InitSpec {
    /// The `initialize` request, announcing `servers` (in-process MCP servers by name).
    pub fn request(&self, servers: &[&str]) -> Value {
        let mut hooks: Map<String, Value> = Map::new();
        let mut next = 0usize;
        for h in &self.hooks {
            let ids: Vec<String> = (next..next + h.callbacks).map(callback_id).collect();
            next += h.callbacks;
            let mut entry = Map::new();
            entry.insert("matcher".into(), json!(h.matcher));
            entry.insert("hookCallbackIds".into(), json!(ids));
            if let Some(t) = h.timeout.as_ref().filter(|t| !t.is_null()) {
                entry.insert("timeout".into(), t.clone());
            }
            if let Some(f) = h.on_failure.as_ref().filter(|f| !f.is_null()) {
                entry.insert("onFailure".into(), f.clone());
            }
            if let Some(list) = hooks
                .entry(h.event.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
            {
                list.push(Value::Object(entry));
            }
        }
        let mut request = Map::new();
        request.insert("subtype".into(), json!("initialize"));
        request.insert(
            "hooks".into(),
            if hooks.is_empty() {
                Value::Null
            } else {
                Value::Object(hooks)
            },
        );
        if !servers.is_empty() && !self.sdk_servers_in_mcp_config {
            request.insert("sdkMcpServers".into(), json!(servers));
        }
        for (k, v) in &self.rest {
            if !v.is_null() && k != "subtype" {
                request.insert(k.clone(), v.clone());
            }
        }
        Value::Object(request)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn hooks_become_numbered_callback_ids_and_the_rest_passes() {
        let spec: InitSpec = serde_json::from_value(json!({
            "hooks": [
                {"event": "PreToolUse", "matcher": "Bash", "callbacks": 2, "timeout": 5},
                {"event": "PostToolUse", "callbacks": 1},
                {"event": "PreToolUse", "matcher": "Write", "callbacks": 1, "onFailure": "block"}
            ],
            "agents": {"rev": {"description": "d", "prompt": "p"}},
            "systemPrompt": "be brief",
            "jsonSchema": {"type": "object"},
            "agent": null
        }))
        .unwrap();
        let r = spec.request(&["calc"]);
        assert_eq!(r["subtype"], "initialize");
        assert_eq!(
            r["hooks"]["PreToolUse"],
            json!([
                {"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5},
                {"matcher": "Write", "hookCallbackIds": ["hook_3"], "onFailure": "block"}
            ])
        );
        assert_eq!(
            r["hooks"]["PostToolUse"],
            json!([{"matcher": null, "hookCallbackIds": ["hook_2"]}])
        );
        assert_eq!(r["sdkMcpServers"], json!(["calc"]));
        assert_eq!(r["systemPrompt"], "be brief");
        assert_eq!(r["jsonSchema"], json!({"type": "object"}));
        assert!(r.get("agent").is_none());
        assert_eq!(callback_index("hook_3"), Some(3));
    }

    #[test]
    fn no_hooks_is_null_and_servers_in_config_are_not_announced() {
        let spec: InitSpec =
            serde_json::from_value(json!({"sdkServersInMcpConfig": true})).unwrap();
        let r = spec.request(&["calc"]);
        assert_eq!(r["hooks"], Value::Null);
        assert!(r.get("sdkMcpServers").is_none());
        assert!(r.get("sdkServersInMcpConfig").is_none());
    }
}
