//! Sessions that open later than the process starts.
//!
//! `--await-initialize`: the SDK delivers options inside `initialize` (external MCP
//! servers with their secrets, settings, tool rules, managed settings, plugins); nothing
//! starts before it arrives, and the session is built with them folded in
//! (`dcl_bridge::options::delivery`).
//!
//! `--await-claim`: an SDK's `prewarm()` starts a spare process in a parking directory and
//! initializes it; the next `query()` claims it with `claim_session`, naming the real cwd,
//! environment and options. The spare session is closed unused and the claimed one is
//! opened in its place, initialized with the spare's `initialize` request; the claim's
//! answer carries that `initialize` answer.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use dcl_bridge::SessionOptions;

use crate::error::ClaimError;
use dcl_protocol::{ControlRequestEnvelope, InitializeRequest, Message};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A host line that is an `initialize` request.
pub struct HeldInitialize {
    pub line: String,
    pub request_id: String,
    pub request: InitializeRequest,
    pub at: Instant,
}

/// The control request in `line` when its subtype is `subtype`.
pub fn control_request(line: &str, subtype: &str) -> Option<ControlRequestEnvelope> {
    match dcl_protocol::parse_line(line) {
        Ok(Message::ControlRequest(env)) if env.subtype() == Some(subtype) => Some(env),
        _ => None,
    }
}

/// `line` as an `initialize` request, if it is one that decodes.
pub fn initialize_in(line: &str) -> Option<Result<HeldInitialize, (String, String)>> {
    let env = control_request(line, "initialize")?;
    Some(
        match serde_json::from_value::<InitializeRequest>(env.request.clone()) {
            Ok(request) => Ok(HeldInitialize {
                line: line.to_string(),
                request_id: env.request_id,
                request,
                at: Instant::now(),
            }),
            Err(e) => Err((env.request_id, format!("malformed initialize request: {e}"))),
        },
    )
}

/// `claim_session`: what the claiming `query()` changes about the spare.
#[derive(Debug, Default, Deserialize)]
pub struct ClaimSession {
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub additional_directories: Vec<PathBuf>,
    pub append_system_prompt: Option<String>,
    pub title: Option<String>,
    pub agents: Option<Map<String, Value>>,
    /// `{accepted: true, …}`: the host attests that the user trusts this workspace.
    pub workspace_trust: Option<Value>,
    #[serde(default)]
    pub sdk_mcp_servers: Vec<String>,
    #[serde(default = "yes")]
    pub include_initialize: bool,
}

fn yes() -> bool {
    true
}

/// The claimed session's options: the spare's, with what the claim names.
pub fn claimed_options(
    spare: &SessionOptions,
    claim: &ClaimSession,
) -> Result<(SessionOptions, Vec<String>), ClaimError> {
    let mut opts = spare.clone();
    opts.await_claim = false;
    opts.await_initialize = false;
    let mut warnings = Vec::new();
    if let Some(cwd) = claim.cwd.as_deref().filter(|c| !c.is_empty()) {
        let path = PathBuf::from(cwd);
        if !path.is_absolute() {
            return Err(ClaimError::RelativeCwd(cwd.to_string()));
        }
        opts.cwd = Some(path);
    }
    // The claim's variables join the spare's environment (its own win).
    opts.env.extend(claim.env.clone());
    if let Some(mode) = &claim.permission_mode {
        opts.permission_mode = Some(mode.clone());
    }
    opts.add_dirs
        .extend(claim.additional_directories.iter().cloned());
    if let Some(a) = &claim.append_system_prompt {
        opts.append_system_prompt = Some(a.clone());
    }
    if let Some(defs) = &claim.agents {
        let mut all = opts.agents.clone().unwrap_or_default();
        all.extend(defs.clone());
        opts.agents = Some(all);
    }
    if claim
        .workspace_trust
        .as_ref()
        .and_then(|t| t.get("accepted"))
        .and_then(Value::as_bool)
        == Some(true)
        && let Some(cwd) = &opts.cwd
    {
        // The host's attestation counts as the user's trust record for this folder.
        let base = spare.cwd.clone().unwrap_or_default();
        let (mut flag, _) =
            dcl_bridge::options::read_flag_value("--settings", opts.settings.as_deref(), &base)
                .map_err(|e| ClaimError::Settings(e.into()))?;
        let list = flag
            .entry("trustedProjects")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = list {
            a.push(Value::String(cwd.display().to_string()));
        }
        opts.settings = Some(Value::Object(flag).to_string());
    }
    if claim.title.is_some() {
        warnings.push("claim_session.title is not supported by dcl; ignored".to_string());
    }
    Ok((opts, warnings))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn a_claim_moves_the_session_and_keeps_the_rest() {
        let spare = SessionOptions {
            cwd: Some("/spares/spare-1".into()),
            model: Some("mock-model".into()),
            mcp_config: vec!["{}".into()],
            await_claim: true,
            ..SessionOptions::default()
        };
        let claim: ClaimSession = serde_json::from_value(json!({
            "cwd": "/work/repo", "permission_mode": "acceptEdits", "env": {"A": "1"},
            "additional_directories": ["/x"], "workspace_trust": {"accepted": true},
            "sdk_mcp_servers": ["calc"], "title": "t"
        }))
        .unwrap();
        let (opts, warnings) = claimed_options(&spare, &claim).unwrap();
        assert_eq!(
            opts.cwd.as_deref(),
            Some(std::path::Path::new("/work/repo"))
        );
        assert_eq!(opts.permission_mode.as_deref(), Some("acceptEdits"));
        assert_eq!(opts.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(opts.add_dirs, [PathBuf::from("/x")]);
        assert_eq!(opts.model.as_deref(), Some("mock-model"));
        assert_eq!(opts.mcp_config, ["{}"]);
        assert!(!opts.await_claim);
        let settings: Value = serde_json::from_str(opts.settings.as_deref().unwrap()).unwrap();
        assert_eq!(settings, json!({"trustedProjects": ["/work/repo"]}));
        assert_eq!(warnings.len(), 1);
        assert!(claim.include_initialize);
    }

    #[test]
    fn workspace_trust_joins_a_settings_file_of_the_spare() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.json"), r#"{"model": "m"}"#).unwrap();
        let spare = SessionOptions {
            cwd: Some(dir.path().to_path_buf()),
            settings: Some("s.json".into()),
            ..SessionOptions::default()
        };
        let claim: ClaimSession = serde_json::from_value(json!({
            "cwd": "/work/repo", "workspace_trust": {"accepted": true}
        }))
        .unwrap();
        let (opts, _) = claimed_options(&spare, &claim).unwrap();
        let settings: Value = serde_json::from_str(opts.settings.as_deref().unwrap()).unwrap();
        assert_eq!(
            settings,
            json!({"model": "m", "trustedProjects": ["/work/repo"]})
        );
        // A settings file that is not there is a clear error, not a silent drop.
        let broken = SessionOptions {
            settings: Some("missing.json".into()),
            ..spare
        };
        let err = claimed_options(&broken, &claim).unwrap_err();
        assert!(err.to_string().contains("missing.json"), "{err}");
    }

    #[test]
    fn a_relative_cwd_is_refused() {
        let claim = ClaimSession {
            cwd: Some("repo".into()),
            ..ClaimSession::default()
        };
        assert!(claimed_options(&SessionOptions::default(), &claim).is_err());
    }

    #[test]
    fn only_initialize_requests_are_held() {
        let init = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize","hooks":null}}"#;
        let held = initialize_in(init).unwrap().ok().unwrap();
        assert_eq!(held.request_id, "r1");
        let other =
            r#"{"type":"control_request","request_id":"r2","request":{"subtype":"interrupt"}}"#;
        assert!(initialize_in(other).is_none());
        assert!(initialize_in("not json").is_none());
    }
}
