//! File checkpoints in a session: the glue between the tool pipeline and `dcl-checkpoint`.
//!
//! Enabled by `enableFileCheckpointing` (the CLI's `--enable-file-checkpointing`), the
//! Claude SDK's `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`, the Qoder settings key
//! `general.fileCheckpointing.enabled`, or `initialize.enableFileCheckpointing`. When they
//! are on but cannot work (not a Git work tree, no dcl home), `rewind_files` says why.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use dcl_checkpoint::{CheckpointConfig, CheckpointError, Checkpointer, Snapshot};
use dcl_protocol::RewindFilesResponse;
use serde_json::{Value, json};

use super::conversation::{Entry, Item, Recorder, UserOrigin};
use dcl_tool_api::ToolKind;

/// The Claude SDK's switch (`enable_file_checkpointing=True` sets it).
pub(crate) const CLAUDE_ENV: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";
/// The Qoder SDK's switch, in its `--settings`.
pub(crate) const QODER_SETTING: &str = "general.fileCheckpointing.enabled";

/// Why `rewind_files` is answered with an error (a refusal the host can act on is an
/// answer, `can_rewind: false`, not one of these).
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    #[error(
        "rewind_files: file checkpointing is not enabled for this session (enable_file_checkpointing / CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING, general.fileCheckpointing.enabled, or dcl --enable-file-checkpointing)"
    )]
    NotEnabled,
    /// Checkpoints were switched on but could not be opened.
    #[error("rewind_files: {0}")]
    Unavailable(CheckpointTaskError),
    #[error("rewind_files: checkpoint task failed: {0}")]
    Task(tokio::task::JoinError),
    /// The checkpoint store itself failed.
    #[error("rewind_files: {0}")]
    Store(CheckpointError),
    #[error("{0}")]
    Serialize(serde_json::Error),
}

/// A checkpoint operation run on the blocking pool that failed, or whose task did.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CheckpointTaskError {
    #[error("file checkpoints need a dcl home: set HOME, DCL_CONFIG_DIR or --data-dir")]
    NoHome,
    /// The store's error, as text: it is kept (in a `OnceLock`) and reported more than once.
    #[error("{0}")]
    Store(String),
    #[error("checkpoint task failed: {0}")]
    Task(String),
}

pub(crate) struct Checkpoints {
    home: Option<PathBuf>,
    cwd: PathBuf,
    session_id: String,
    /// Set once, when checkpoints are switched on: the checkpointer, or why there is none.
    cell: OnceLock<Result<Arc<Checkpointer>, CheckpointTaskError>>,
}

/// What a call's checkpoint needs after the tool ran.
#[derive(Default)]
pub(crate) enum Pending {
    #[default]
    None,
    Files(Arc<Checkpointer>, Vec<PathBuf>),
    Shell(Arc<Checkpointer>, Box<Snapshot>),
}

impl Checkpoints {
    pub fn new(home: Option<PathBuf>, cwd: PathBuf, session_id: String) -> Arc<Self> {
        Arc::new(Checkpoints {
            home,
            cwd,
            session_id,
            cell: OnceLock::new(),
        })
    }

    /// Switches checkpoints on (idempotent). Opening the shadow repository is quick (an
    /// existing directory, or `git init --bare` of an empty one).
    pub fn enable(&self) {
        self.cell.get_or_init(|| {
            let home = self.home.clone().ok_or(CheckpointTaskError::NoHome)?;
            Checkpointer::open(CheckpointConfig::new(
                home,
                self.cwd.clone(),
                self.session_id.clone(),
            ))
            .map(Arc::new)
            .map_err(|e| CheckpointTaskError::Store(e.to_string()))
        });
    }

    fn active(&self) -> Option<Arc<Checkpointer>> {
        self.cell.get().and_then(|r| r.as_ref().ok()).cloned()
    }

    /// Before an approved call runs: records the files an edit tool will change, or
    /// snapshots the work tree before a shell command. Returns warnings to pass on.
    pub async fn before(
        &self,
        prompt_uuid: &str,
        kind: ToolKind,
        paths: Vec<PathBuf>,
    ) -> (Pending, Vec<String>) {
        let Some(cp) = self.active() else {
            return (Pending::None, Vec::new());
        };
        let prompt = prompt_uuid.to_string();
        match kind {
            ToolKind::Edit if !paths.is_empty() => {
                let c = cp.clone();
                let p = paths.clone();
                match blocking(move || c.before_change(&prompt, &p)).await {
                    Ok(warnings) => (Pending::Files(cp, paths), warnings),
                    Err(e) => (Pending::None, vec![format!("checkpoint not recorded: {e}")]),
                }
            }
            ToolKind::Execute => {
                let c = cp.clone();
                match blocking(move || c.snapshot()).await {
                    Ok(snap) => {
                        let warnings = snap.warnings();
                        (Pending::Shell(cp, Box::new(snap)), warnings)
                    }
                    Err(e) => (Pending::None, vec![format!("checkpoint not recorded: {e}")]),
                }
            }
            _ => (Pending::None, Vec::new()),
        }
    }

    /// After the call ran: remembers dcl's writes, or records what the shell changed.
    pub async fn after(&self, prompt_uuid: &str, pending: Pending) -> Vec<String> {
        let prompt = prompt_uuid.to_string();
        let done = match pending {
            Pending::None => return Vec::new(),
            Pending::Files(cp, paths) => blocking(move || cp.after_change(&paths)).await,
            Pending::Shell(cp, snap) => {
                blocking(move || cp.record_since(&prompt, &snap).map(drop)).await
            }
        };
        match done {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("checkpoint not recorded: {e}")],
        }
    }

    /// `rewind_files`: the answer, or why there is nothing to rewind with.
    pub async fn rewind(
        &self,
        user_message_id: String,
        dry_run: bool,
    ) -> Result<Value, RewindError> {
        let cp = match self.cell.get() {
            None => return Err(RewindError::NotEnabled),
            Some(Err(why)) => return Err(RewindError::Unavailable(why.clone())),
            Some(Ok(cp)) => cp.clone(),
        };
        let done = tokio::task::spawn_blocking(move || cp.rewind(&user_message_id, dry_run))
            .await
            .map_err(RewindError::Task)?;
        let answer = match done {
            Ok(report) => RewindFilesResponse {
                can_rewind: true,
                files_changed: Some(
                    report
                        .files_changed
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect(),
                ),
                insertions: Some(report.insertions),
                deletions: Some(report.deletions),
                ..Default::default()
            },
            // The store itself failed: a control error, not a refusal.
            Err(
                e @ (CheckpointError::Io { .. }
                | CheckpointError::Git { .. }
                | CheckpointError::Index { .. }),
            ) => return Err(RewindError::Store(e)),
            // A refusal the host can act on (someone else's edit, an unknown message).
            Err(e) => RewindFilesResponse {
                can_rewind: false,
                error: Some(e.to_string()),
                ..Default::default()
            },
        };
        serde_json::to_value(answer).map_err(RewindError::Serialize)
    }
}

/// Learns the session's user messages in order, so a rewind to a message whose turn
/// changed nothing still undoes the turns after it.
pub(crate) struct PromptOrder(pub Arc<Checkpoints>);

impl Recorder for PromptOrder {
    fn record(&self, item: &Item) {
        let Entry::User {
            origin: UserOrigin::Prompt,
            ..
        } = &item.entry
        else {
            return;
        };
        if let Some(cp) = self.0.active()
            && let Err(e) = cp.note_prompt(&item.prompt_uuid)
        {
            tracing::warn!("checkpoints: {e}");
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> dcl_checkpoint::Result<T> + Send + 'static,
) -> Result<T, CheckpointTaskError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| CheckpointTaskError::Store(e.to_string())),
        Err(e) => Err(CheckpointTaskError::Task(e.to_string())),
    }
}

/// Whether the options, environment or settings switch checkpoints on at start.
pub(crate) fn enabled_at_start(
    option: bool,
    env: &std::collections::BTreeMap<String, String>,
    setting: Option<&Value>,
) -> bool {
    let truthy = |v: &str| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes");
    option || env.get(CLAUDE_ENV).is_some_and(|v| truthy(v)) || setting == Some(&json!(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_switch_turns_checkpoints_on_and_nothing_else_does() {
        let none = std::collections::BTreeMap::new();
        assert!(!enabled_at_start(false, &none, None));
        assert!(enabled_at_start(true, &none, None));
        let mut env = none.clone();
        env.insert(CLAUDE_ENV.to_string(), "true".to_string());
        assert!(enabled_at_start(false, &env, None));
        env.insert(CLAUDE_ENV.to_string(), "false".to_string());
        assert!(!enabled_at_start(false, &env, None));
        assert!(enabled_at_start(false, &none, Some(&json!(true))));
        assert!(!enabled_at_start(false, &none, Some(&json!("yes"))));
    }
}
