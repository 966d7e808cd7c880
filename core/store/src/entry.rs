//! Transcript entry shapes, as the reference writes them.
//!
//! Chain entries (`user`, `assistant`, `system`) carry the reference's keys in its order:
//! `parentUuid`, `isSidechain`, `userType`, `cwd`, `sessionId`, `version`, `gitBranch`,
//! (`agentId` in a subagent), `type`, `message`, `uuid`, `timestamp`. Metadata lines
//! (`custom-title`, `tag`, `last-prompt`, `summary`, `dcl-state`) start with `type`, as the
//! SDK helpers write and scan them (`list_sessions` finds a tag only on a line beginning
//! `{"type":"tag"`).

use std::path::Path;

use serde_json::{Map, Value, json};

/// The `type` of dcl's own state line; the SDK readers skip types they do not know.
pub const DCL_STATE_TYPE: &str = "dcl-state";

/// Text the reference puts before a compaction summary.
pub const COMPACT_SUMMARY_PREFIX: &str = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n";

/// What every chain entry of one transcript shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryContext {
    pub session_id: String,
    pub cwd: String,
    pub version: String,
    pub git_branch: Option<String>,
    /// True in a subagent's transcript.
    pub is_sidechain: bool,
    /// The subagent's id, in a subagent's transcript.
    pub agent_id: Option<String>,
}

impl EntryContext {
    /// A main-session context: the real cwd, dcl's protocol level, the current git branch.
    pub fn new(session_id: &str, cwd: &Path) -> EntryContext {
        EntryContext {
            session_id: session_id.to_string(),
            cwd: crate::sanitize::canonical_cwd(cwd),
            version: dcl_protocol::PROTOCOL_LEVEL.to_string(),
            git_branch: crate::git::current_branch(cwd),
            is_sidechain: false,
            agent_id: None,
        }
    }

    /// The same context for a subagent's transcript.
    pub fn for_subagent(&self, agent_id: &str) -> EntryContext {
        EntryContext {
            is_sidechain: true,
            agent_id: Some(agent_id.to_string()),
            ..self.clone()
        }
    }

    /// One chain entry. `message` is the API message (`role` + `content`, and for the
    /// assistant `id`, `model`, `usage`…); `extra` keys follow `timestamp` (e.g.
    /// `toolUseResult`, `isMeta`, `isCompactSummary`, `subtype`, `content`).
    pub fn chain_entry(
        &self,
        kind: &str,
        uuid: &str,
        parent: Option<&str>,
        message: Option<Value>,
        extra: Map<String, Value>,
    ) -> Value {
        let mut m = Map::new();
        m.insert(
            "parentUuid".into(),
            parent.map_or(Value::Null, |p| json!(p)),
        );
        m.insert("isSidechain".into(), json!(self.is_sidechain));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(self.cwd));
        m.insert("sessionId".into(), json!(self.session_id));
        m.insert("version".into(), json!(self.version));
        if let Some(b) = &self.git_branch {
            m.insert("gitBranch".into(), json!(b));
        }
        if let Some(a) = &self.agent_id {
            m.insert("agentId".into(), json!(a));
        }
        m.insert("type".into(), json!(kind));
        if let Some(msg) = message {
            m.insert("message".into(), msg);
        }
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(now()));
        for (k, v) in extra {
            m.insert(k, v);
        }
        Value::Object(m)
    }

    /// `{"type":"custom-title","customTitle":…,"sessionId":…}` (as `rename_session` writes).
    pub fn custom_title(&self, title: &str) -> Value {
        json!({"type": "custom-title", "customTitle": title, "sessionId": self.session_id})
    }

    /// `{"type":"tag","tag":…,"sessionId":…}` (as `tag_session` writes; `""` clears).
    pub fn tag(&self, tag: &str) -> Value {
        json!({"type": "tag", "tag": tag, "sessionId": self.session_id})
    }

    /// `{"type":"last-prompt","lastPrompt":…,"sessionId":…}`: what `list_sessions` shows as
    /// the summary of a session without a title.
    pub fn last_prompt(&self, prompt: &str) -> Value {
        json!({"type": "last-prompt", "lastPrompt": one_line(prompt, 200), "sessionId": self.session_id})
    }

    /// `{"type":"summary","summary":…,"leafUuid":…}`.
    pub fn summary(&self, summary: &str, leaf_uuid: &str) -> Value {
        json!({"type": "summary", "summary": summary, "leafUuid": leaf_uuid})
    }

    /// The compaction boundary: a `system/compact_boundary` entry that starts a new chain
    /// (`parentUuid` null) and points back with `logicalParentUuid`.
    pub fn compact_boundary(
        &self,
        uuid: &str,
        logical_parent: Option<&str>,
        trigger: &str,
        pre_tokens: u64,
    ) -> Value {
        let mut e = self.chain_entry("system", uuid, None, None, Map::new());
        if let Value::Object(m) = &mut e {
            // The reference puts logicalParentUuid right after parentUuid.
            let mut out = Map::new();
            for (k, v) in std::mem::take(m) {
                let after_parent = k == "parentUuid";
                out.insert(k, v);
                if after_parent {
                    out.insert(
                        "logicalParentUuid".into(),
                        logical_parent.map_or(Value::Null, |p| json!(p)),
                    );
                }
            }
            out.insert("subtype".into(), json!("compact_boundary"));
            out.insert("content".into(), json!("Conversation compacted"));
            out.insert("isMeta".into(), json!(false));
            out.insert("level".into(), json!("info"));
            out.insert(
                "compactMetadata".into(),
                json!({"trigger": trigger, "preTokens": pre_tokens}),
            );
            *m = out;
        }
        e
    }

    /// The summary that follows a boundary: a user entry marked `isCompactSummary`.
    pub fn compact_summary(&self, uuid: &str, boundary_uuid: &str, summary: &str) -> Value {
        let mut extra = Map::new();
        extra.insert("isVisibleInTranscriptOnly".into(), json!(true));
        extra.insert("isCompactSummary".into(), json!(true));
        self.chain_entry(
            "user",
            uuid,
            Some(boundary_uuid),
            Some(json!({"role": "user", "content": format!("{COMPACT_SUMMARY_PREFIX}{summary}")})),
            extra,
        )
    }

    /// dcl's state line: what a resumed session carries over (model, permission mode, cost
    /// and token totals). Keys avoid the ones the SDK readers scan (`summary`, `cwd`…).
    pub fn state(&self, state: &SessionState) -> Value {
        let mut v = json!({"type": DCL_STATE_TYPE, "sessionId": self.session_id});
        if let (Value::Object(m), Ok(Value::Object(s))) = (&mut v, serde_json::to_value(state)) {
            m.extend(s);
        }
        v
    }
}

/// What a resumed session keeps besides its history.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub total_cost_usd: f64,
    #[serde(default)]
    pub num_turns: u64,
    /// Token totals as the result's `usage` reports them.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub usage: Value,
    /// Per-model totals as the result's `modelUsage` reports them.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub model_usage: Value,
    /// Entries kept in the transcript but never sent to the model again (a prompt the API
    /// refused): a resumed session leaves them out of its requests as the live one did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
}

/// ISO-8601 UTC with milliseconds, as the reference stamps entries.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn one_line(s: &str, max_chars: usize) -> String {
    let flat: String = s.replace('\n', " ").trim().to_string();
    if flat.chars().count() <= max_chars {
        flat
    } else {
        let mut cut: String = flat.chars().take(max_chars).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> EntryContext {
        EntryContext {
            session_id: "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b".into(),
            cwd: "/repo".into(),
            version: "2.1.332".into(),
            git_branch: Some("main".into()),
            is_sidechain: false,
            agent_id: None,
        }
    }

    #[test]
    fn chain_entries_have_the_reference_keys_in_order() {
        let e = ctx().chain_entry(
            "user",
            "u1",
            None,
            Some(json!({"role":"user","content":"hi"})),
            Map::new(),
        );
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "parentUuid",
                "isSidechain",
                "userType",
                "cwd",
                "sessionId",
                "version",
                "gitBranch",
                "type",
                "message",
                "uuid",
                "timestamp"
            ]
        );
        let ts = e["timestamp"].as_str().unwrap();
        assert!(ts.ends_with('Z') && ts.len() == 24, "{ts}");
    }

    #[test]
    fn metadata_lines_begin_with_type() {
        let c = ctx();
        for v in [
            c.tag("x"),
            c.custom_title("t"),
            c.last_prompt("p"),
            c.state(&SessionState::default()),
        ] {
            assert!(
                serde_json::to_string(&v).unwrap().starts_with("{\"type\":"),
                "{v}"
            );
        }
    }

    #[test]
    fn compaction_entries_are_marked_as_the_reference_marks_them() {
        let c = ctx();
        let b = c.compact_boundary("b1", Some("a9"), "auto", 1234);
        assert_eq!(b["parentUuid"], Value::Null);
        assert_eq!(b["logicalParentUuid"], "a9");
        assert_eq!(b["subtype"], "compact_boundary");
        assert_eq!(b["compactMetadata"]["preTokens"], 1234);
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(&keys[..2], ["parentUuid", "logicalParentUuid"]);
        let s = c.compact_summary("s1", "b1", "we talked");
        assert_eq!(s["parentUuid"], "b1");
        assert_eq!(s["isCompactSummary"], true);
        assert!(
            s["message"]["content"]
                .as_str()
                .unwrap()
                .ends_with("we talked")
        );
    }
}
