//! The store's typed errors.

use std::path::PathBuf;

/// What went wrong reading or writing sessions.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or directory could not be read, created or written.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--resume <id>` (or a fork source) names a session no home holds.
    #[error("No conversation found with session ID: {session_id}")]
    SessionNotFound { session_id: String },
    /// `--continue` found no earlier session for this directory.
    #[error("No conversation found to continue in {cwd}")]
    NothingToContinue { cwd: PathBuf },
    /// A session id (or message uuid) that is not a UUID; never used to build a path.
    #[error("invalid {what} {value:?}: expected a UUID")]
    InvalidId { what: &'static str, value: String },
    /// The transcript holds no conversation entries (empty, or only metadata lines).
    #[error("session {session_id} has no messages")]
    EmptySession { session_id: String },
    /// `--resume-session-at <uuid>` names a message the session's chain does not hold.
    #[error("message {uuid} not found in session {session_id}")]
    MessageNotFound { session_id: String, uuid: String },
    /// `--resume-drops-turn <uuid>` guard: the named turn is not the session's last one.
    #[error("Resume rejected by --resume-drops-turn: {reason}")]
    DropsTurnRejected { reason: String },
    /// A session id for a new transcript that already exists (`--session-id` reuse).
    #[error("session ID {session_id} is already in use ({path})")]
    SessionExists { session_id: String, path: PathBuf },
    /// Neither a `HOME`, `--data-dir`, `DCL_CONFIG_DIR` nor a client config dir is set.
    #[error("no home for transcripts: set HOME, DCL_CONFIG_DIR or --data-dir")]
    NoHome,
    /// An entry that cannot be serialised (never happens for `serde_json::Value`).
    #[error("cannot serialise a transcript entry: {0}")]
    Serialise(#[from] serde_json::Error),
}

impl StoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        StoreError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
