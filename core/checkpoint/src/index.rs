//! The per-session index: which files each turn changed and how they were before, and
//! dcl's last write to each. One small JSON file per session in the shadow repository,
//! replaced atomically, so a resumed session (same id) can rewind.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CheckpointError, Result};
use crate::state::FileState;

const VERSION: u32 = 1;

/// One user message's turn: the state each file had before the turn first changed it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub prompt_uuid: String,
    /// Path relative to the project root → state before (`None`: the file did not exist).
    pub before: BTreeMap<String, Option<FileState>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionIndex {
    pub version: u32,
    pub session_id: String,
    pub project_root: PathBuf,
    /// User messages of the session in order (turns without changes included), so a
    /// rewind to a message that changed nothing still undoes the turns after it.
    pub prompts: Vec<String>,
    pub turns: Vec<Turn>,
    /// Path → the state dcl left it in (`None`: dcl deleted it).
    pub last_write: BTreeMap<String, Option<FileState>>,
}

impl SessionIndex {
    pub fn new(session_id: &str, project_root: &Path) -> Self {
        SessionIndex {
            version: VERSION,
            session_id: session_id.to_string(),
            project_root: project_root.to_path_buf(),
            prompts: Vec::new(),
            turns: Vec::new(),
            last_write: BTreeMap::new(),
        }
    }

    /// Loads the index at `path`; `None` when the session has none yet.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CheckpointError::io(path, e)),
        };
        let index: SessionIndex =
            serde_json::from_slice(&text).map_err(|e| CheckpointError::Index {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        if index.version != VERSION {
            return Err(CheckpointError::Index {
                path: path.to_path_buf(),
                message: format!("version {} (this dcl reads {VERSION})", index.version),
            });
        }
        Ok(Some(index))
    }

    /// Writes the index next to its final place and renames it over, so a crash leaves
    /// the old or the new index, never half of one.
    pub fn save(&self, path: &Path) -> Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| CheckpointError::io(dir, e))?;
        let bytes = serde_json::to_vec(self).map_err(|e| CheckpointError::Index {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut tmp =
            tempfile::NamedTempFile::new_in(dir).map_err(|e| CheckpointError::io(dir, e))?;
        // Renamed over without an fsync: atomic against a crash of dcl, which is what a
        // resume needs; two fsyncs per edit (before and after it) cost more than the edit.
        tmp.write_all(&bytes)
            .map_err(|e| CheckpointError::io(tmp.path(), e))?;
        tmp.persist(path)
            .map_err(|e| CheckpointError::io(path, e.error))?;
        Ok(())
    }

    pub fn note_prompt(&mut self, prompt_uuid: &str) {
        if !self.prompts.iter().any(|p| p == prompt_uuid) {
            self.prompts.push(prompt_uuid.to_string());
        }
    }

    /// The turn of `prompt_uuid`, made when it has none yet.
    pub fn turn_mut(&mut self, prompt_uuid: &str) -> &mut Turn {
        self.note_prompt(prompt_uuid);
        let at = match self.turns.iter().position(|t| t.prompt_uuid == prompt_uuid) {
            Some(i) => i,
            None => {
                self.turns.push(Turn {
                    prompt_uuid: prompt_uuid.to_string(),
                    before: BTreeMap::new(),
                });
                self.turns.len() - 1
            }
        };
        &mut self.turns[at]
    }

    /// Indices of the turns a rewind to `prompt_uuid` undoes: its own and every later one.
    pub fn turns_from(&self, prompt_uuid: &str) -> Option<Vec<usize>> {
        let at = self.prompts.iter().position(|p| p == prompt_uuid)?;
        let later = &self.prompts[at..];
        Some(
            self.turns
                .iter()
                .enumerate()
                .filter(|(_, t)| later.contains(&t.prompt_uuid))
                .map(|(i, _)| i)
                .collect(),
        )
    }
}
