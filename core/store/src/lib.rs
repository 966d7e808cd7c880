//! dcl's sessions on disk, in the reference CLI's layout so the SDKs' own session helpers
//! (`list_sessions`, `get_session_messages`, `fork_session`, …) read what dcl writes.
//!
//! - [`home`]: dcl home, the client home, and which one holds transcripts.
//! - [`sanitize`] / [`layout`]: `projects/<project key>/<session id>.jsonl` and subagents.
//! - [`entry`] / [`writer`]: entry shapes and the append-only writer ([`Transcript`]).
//! - [`loader`] / [`chain`]: reading back, the `parentUuid` chain, the model history.
//! - [`resume`]: `--resume`, `--continue`, `--resume-session-at`, `--resume-drops-turn`,
//!   `--fork-session`.
//! - [`listing`]: listing and reading sessions; [`mirror`]: `--session-mirror` frames.
//! - [`requests`]: the bindings' JSON door to listing and reading.
//!
//! [`Store`] ties them together for one session's home and working directory.

pub mod chain;
pub mod entry;
pub mod error;
pub mod git;
pub mod handles;
pub mod home;
pub mod layout;
pub mod listing;
pub mod loader;
pub mod mirror;
pub mod redact;
pub mod remote;
pub mod requests;
pub mod resume;
pub mod sanitize;
#[cfg(not(unix))]
mod unix_modes;
pub mod writer;

use std::path::{Path, PathBuf};

pub use chain::HistoryMessage;
pub use entry::{EntryContext, SessionState};
pub use error::{Result, StoreError};
pub use home::{Dialect, Homes};
pub use layout::SessionFiles;
pub use listing::SessionInfo;
pub use loader::{LoadWarning, Loaded};
pub use mirror::MirrorSink;
pub use redact::Redactor;
pub use resume::{ResumeRequest, Resumed, Target};
pub use writer::{CompactIds, Transcript, TranscriptOptions, new_uuid};

/// A resumed session, open for writing.
#[derive(Debug)]
pub struct Reopened {
    pub transcript: Transcript,
    /// The chain's entries as the transcript now holds them (copies, for a fork), root
    /// first.
    pub entries: Vec<serde_json::Value>,
    /// The model-facing history of those entries.
    pub history: Vec<HistoryMessage>,
}

/// The sessions of one working directory under one set of homes.
#[derive(Debug, Clone)]
pub struct Store {
    homes: Homes,
    cwd: PathBuf,
    project_key: String,
}

impl Store {
    pub fn new(homes: Homes, cwd: &Path) -> Store {
        let project_key = sanitize::project_key(cwd, homes.dialect);
        Store {
            homes,
            cwd: cwd.to_path_buf(),
            project_key,
        }
    }

    pub fn homes(&self) -> &Homes {
        &self.homes
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// This directory's folder name under `projects/`.
    pub fn project_key(&self) -> &str {
        &self.project_key
    }

    /// Where a new session's files go (under the transcript home).
    pub fn files_for(&self, session_id: &str) -> Result<SessionFiles> {
        let home = self.homes.transcript_home().ok_or(StoreError::NoHome)?;
        SessionFiles::new(home, &self.project_key, session_id)
    }

    /// The entry fields of a session in this directory.
    pub fn context(&self, session_id: &str) -> EntryContext {
        EntryContext::new(session_id, &self.cwd)
    }

    /// Starts a new session's transcript.
    pub fn start(&self, session_id: &str, opts: TranscriptOptions) -> Result<Transcript> {
        Transcript::create(self.files_for(session_id)?, self.context(session_id), opts)
    }

    /// Loads a session to resume (looking in every home dcl reads).
    pub fn resume(&self, req: &ResumeRequest) -> Result<Resumed> {
        resume::resume(&self.homes.read_homes(), &self.project_key, &self.cwd, req)
    }

    /// Continues a resumed session: the same id and file, or with `fork` a new session
    /// `new_session_id` holding copies of its chain.
    pub fn reopen(
        &self,
        resumed: &Resumed,
        fork: Option<&str>,
        opts: TranscriptOptions,
    ) -> Result<Reopened> {
        let (transcript, entries) = match fork {
            None => {
                let ctx = self.context(resumed.session_id());
                let entries = resumed.chain_entries().cloned().collect();
                (resumed.continue_transcript(ctx, opts)?, entries)
            }
            Some(new_id) => resumed.fork(self.files_for(new_id)?, self.context(new_id), opts)?,
        };
        let all: Vec<usize> = (0..entries.len()).collect();
        let history = chain::history(&entries, &all);
        Ok(Reopened {
            transcript,
            entries,
            history,
        })
    }

    /// Sessions of this directory (or of every directory), newest first.
    pub fn list(&self, all_projects: bool) -> Vec<SessionInfo> {
        let key = (!all_projects).then_some(self.project_key.as_str());
        listing::list_sessions(&self.homes.read_homes(), key)
    }

    /// A session's visible messages, as `get_session_messages` returns them.
    pub fn messages(&self, session_id: &str) -> Result<Vec<serde_json::Value>> {
        listing::session_messages(&self.homes.read_homes(), &self.project_key, session_id)
    }
}
