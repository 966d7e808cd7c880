//! The reference layout under a home:
//! `projects/<project key>/<session id>.jsonl`, and a session's subagents in
//! `projects/<project key>/<session id>/subagents/agent-<id>.jsonl` + `agent-<id>.meta.json`.

use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};

/// `<home>/projects`.
pub fn projects_dir(home: &Path) -> PathBuf {
    home.join("projects")
}

/// True for a canonical hyphenated UUID (any version), the only session ids that become
/// file names: a caller-chosen id can never name a path outside the project folder.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Checks a session id (or message uuid) before it is used.
pub fn check_uuid(what: &'static str, value: &str) -> Result<()> {
    if is_uuid(value) {
        Ok(())
    } else {
        Err(StoreError::InvalidId {
            what,
            value: value.to_string(),
        })
    }
}

/// A subagent id becomes a file name: letters, digits, `-` and `_` only.
pub fn check_agent_id(agent_id: &str) -> Result<()> {
    let ok = !agent_id.is_empty()
        && agent_id.len() <= 128
        && agent_id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
    if ok {
        Ok(())
    } else {
        Err(StoreError::InvalidId {
            what: "agent id",
            value: agent_id.to_string(),
        })
    }
}

/// The files of one session under one home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    pub session_id: String,
    /// `<home>/projects/<key>`.
    pub project_dir: PathBuf,
    /// `<project dir>/<session id>.jsonl`.
    pub transcript: PathBuf,
}

impl SessionFiles {
    pub fn new(home: &Path, project_key: &str, session_id: &str) -> Result<SessionFiles> {
        check_uuid("session id", session_id)?;
        Ok(Self::in_project(
            projects_dir(home).join(project_key),
            session_id,
        ))
    }

    /// A session in a project directory already found on disk (id already checked).
    pub(crate) fn in_project(project_dir: PathBuf, session_id: &str) -> SessionFiles {
        SessionFiles {
            transcript: project_dir.join(format!("{session_id}.jsonl")),
            session_id: session_id.to_string(),
            project_dir,
        }
    }

    /// `<project dir>/<session id>/subagents`.
    pub fn subagents_dir(&self) -> PathBuf {
        self.project_dir.join(&self.session_id).join("subagents")
    }

    pub fn subagent_transcript(&self, agent_id: &str) -> Result<PathBuf> {
        check_agent_id(agent_id)?;
        Ok(self.subagents_dir().join(format!("agent-{agent_id}.jsonl")))
    }

    pub fn subagent_meta(&self, agent_id: &str) -> Result<PathBuf> {
        check_agent_id(agent_id)?;
        Ok(self
            .subagents_dir()
            .join(format!("agent-{agent_id}.meta.json")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_reference() {
        let f = SessionFiles::new(
            Path::new("/h"),
            "-repo",
            "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b",
        )
        .unwrap();
        assert_eq!(
            f.transcript,
            Path::new("/h/projects/-repo/0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b.jsonl")
        );
        assert_eq!(
            f.subagent_transcript("a1b2").unwrap(),
            Path::new(
                "/h/projects/-repo/0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b/subagents/agent-a1b2.jsonl"
            )
        );
        assert_eq!(
            f.subagent_meta("a1b2").unwrap(),
            Path::new(
                "/h/projects/-repo/0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b/subagents/agent-a1b2.meta.json"
            )
        );
    }

    #[test]
    fn ids_that_would_escape_the_folder_are_refused() {
        for bad in [
            "../../etc/passwd",
            "",
            "x/y",
            "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6",
        ] {
            assert!(
                SessionFiles::new(Path::new("/h"), "-r", bad).is_err(),
                "{bad}"
            );
        }
        let f = SessionFiles::new(
            Path::new("/h"),
            "-r",
            "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b",
        )
        .unwrap();
        for bad in ["../x", "a/b", "", "a.b"] {
            assert!(f.subagent_transcript(bad).is_err(), "{bad}");
        }
        assert!(f.subagent_transcript("task-1_A").is_ok());
    }
}
