//! The bindings' one door to sessions on disk (`dcl.list_sessions` in Python,
//! `listSessions` in Node): a JSON request in, JSON out, so every binding lists and reads
//! exactly what a session opened with the same environment would write.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::{Homes, Store, StoreError};

/// What a binding asks for.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionsRequest {
    pub op: Op,
    /// The project directory; `None` lists every project (and reads from any).
    #[serde(default)]
    pub directory: Option<PathBuf>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The environment the homes resolve from (`HOME`, `CLAUDE_CONFIG_DIR`, …).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    /// Sessions newest first ([`crate::SessionInfo`] each).
    List,
    /// One session's user and assistant messages, root first.
    Messages,
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("bad sessions request: {0}")]
    BadRequest(#[from] serde_json::Error),
    #[error("sessionId is required for op \"messages\"")]
    MissingSessionId,
    #[error("cannot read the current directory: {0}")]
    NoCurrentDir(std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Answers `request` (a [`SessionsRequest`] as JSON) with JSON: an array of session infos
/// for `list`, of messages for `messages` (empty when no home holds the session).
pub fn answer(request: &str) -> Result<String, RequestError> {
    let req: SessionsRequest = serde_json::from_str(request)?;
    let cwd = match &req.directory {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(RequestError::NoCurrentDir)?,
    };
    let homes = Homes::resolve(req.data_dir.as_deref(), |k| req.env.get(k).cloned(), &cwd);
    let store = Store::new(homes, &cwd);
    let out = match req.op {
        Op::List => serde_json::to_value(store.list(req.directory.is_none()))?,
        Op::Messages => {
            let id = req
                .session_id
                .as_deref()
                .ok_or(RequestError::MissingSessionId)?;
            match store.messages(id) {
                Ok(m) => Value::Array(m),
                Err(StoreError::SessionNotFound { .. } | StoreError::InvalidId { .. }) => {
                    Value::Array(Vec::new())
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    Ok(out.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_and_ops_are_refused_with_their_names() {
        let e = answer(r#"{"op":"list","dirr":"/x"}"#).unwrap_err();
        assert!(e.to_string().contains("dirr"), "{e}");
        let e = answer(r#"{"op":"drop"}"#).unwrap_err();
        assert!(e.to_string().contains("drop"), "{e}");
        let e = answer(r#"{"op":"messages","env":{}}"#).unwrap_err();
        assert!(matches!(e, RequestError::MissingSessionId));
    }

    #[test]
    fn an_empty_home_lists_nothing_and_reads_nothing() {
        let home = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let env = serde_json::json!({"HOME": home.path()});
        let list =
            answer(&serde_json::json!({"op":"list","directory":dir.path(),"env":env}).to_string())
                .unwrap();
        assert_eq!(list, "[]");
        let msgs = answer(
            &serde_json::json!({"op":"messages","sessionId":"not-a-uuid","env":env}).to_string(),
        )
        .unwrap();
        assert_eq!(msgs, "[]");
    }
}
