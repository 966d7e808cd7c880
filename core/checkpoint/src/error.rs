//! The errors a checkpoint operation reports to its caller.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Checkpoints are recorded only inside a Git work tree (the seed's contract).
    #[error(
        "file checkpoints need a Git work tree: {0} is not inside one (no .git found in it or any parent)"
    )]
    NotAGitWorkTree(PathBuf),
    #[error("no checkpoint for user message {0:?}: it is not a message of this session")]
    UnknownMessage(String),
    /// Someone other than dcl changed these files after dcl's last write: rewinding would
    /// lose their work.
    #[error(
        "cannot rewind: changed outside dcl after its last edit: {}",
        .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    ChangedOutside(Vec<PathBuf>),
    #[error("checkpoint store {path}: {source}")]
    Git {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("checkpoint index {path}: {message}")]
    Index { path: PathBuf, message: String },
}

impl CheckpointError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CheckpointError::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = CheckpointError> = std::result::Result<T, E>;
