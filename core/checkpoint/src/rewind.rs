//! A rewind: what each file must go back to, whether someone else changed it since dcl's
//! last write (then nothing is done), the line counts, and the restore itself.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{CheckpointError, Result};
use crate::index::SessionIndex;
use crate::state::{self, FileState};

/// What a rewind did (or, for a dry run, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewindReport {
    /// Absolute paths of the files restored, recreated or deleted.
    pub files_changed: Vec<PathBuf>,
    /// Lines the rewind puts back (lines of the restored versions not in the current ones).
    pub insertions: u64,
    /// Lines the rewind takes away.
    pub deletions: u64,
}

/// One file to put back: its target state and the bytes for it.
pub(crate) struct Step {
    rel: String,
    target: Option<FileState>,
    bytes: Option<Vec<u8>>,
}

pub(crate) struct Plan {
    steps: Vec<Step>,
    report: RewindReport,
}

impl Plan {
    pub fn report(&self) -> RewindReport {
        self.report.clone()
    }
}

/// What [`apply`] managed: files restored (with the state they now have) and failures.
pub(crate) struct Applied {
    pub restored: Vec<(String, Option<FileState>)>,
    pub failed: Vec<(PathBuf, std::io::Error)>,
}

/// Works out the rewind of `turns` (indices into the index, oldest first): each file goes
/// back to its state before the earliest of them that changed it. Refuses, naming the
/// files, when a file is no longer as dcl left it.
pub(crate) fn plan(
    repo: &git2::Repository,
    index: &SessionIndex,
    turns: &[usize],
    root: &Path,
) -> Result<Plan> {
    let mut targets: BTreeMap<&str, &Option<FileState>> = BTreeMap::new();
    for &t in turns {
        for (rel, before) in &index.turns[t].before {
            targets.entry(rel.as_str()).or_insert(before);
        }
    }
    let mut outside = Vec::new();
    let mut current = BTreeMap::new();
    for rel in targets.keys() {
        let abs = root.join(rel);
        // A path that now leads out of the work tree (a directory swapped for a link) or
        // was never a plain relative path is not written: refused like someone's edit.
        if !crate::project::safe_target(root, rel) {
            outside.push(abs);
            continue;
        }
        let now = state::read(&abs)?;
        let now_state = match &now {
            Some((bytes, mode)) => Some(FileState {
                blob: state::hash(bytes)?,
                mode: *mode,
            }),
            None => None,
        };
        if let Some(last) = index.last_write.get(*rel)
            && *last != now_state
        {
            outside.push(abs);
        }
        current.insert(*rel, (now, now_state));
    }
    if !outside.is_empty() {
        return Err(CheckpointError::ChangedOutside(outside));
    }
    let git = |source| CheckpointError::Git {
        path: repo.path().to_path_buf(),
        source,
    };
    let mut steps = Vec::new();
    let mut report = RewindReport::default();
    for (rel, target) in targets {
        let (now, now_state) = current.remove(rel).unwrap_or((None, None));
        if *target == now_state {
            continue;
        }
        let bytes = match target {
            Some(t) => {
                let id = git2::Oid::from_str(&t.blob).map_err(git)?;
                Some(repo.find_blob(id).map_err(git)?.content().to_vec())
            }
            None => None,
        };
        let old: &[u8] = now.as_ref().map_or(&[], |(b, _)| b.as_slice());
        let new: &[u8] = bytes.as_deref().unwrap_or(&[]);
        let (adds, dels) = line_stats(old, new).map_err(git)?;
        report.insertions += adds;
        report.deletions += dels;
        report.files_changed.push(root.join(rel));
        steps.push(Step {
            rel: rel.to_string(),
            target: target.clone(),
            bytes,
        });
    }
    Ok(Plan { steps, report })
}

/// Lines added and removed going from `old` to `new` (zero for binary content).
fn line_stats(old: &[u8], new: &[u8]) -> std::result::Result<(u64, u64), git2::Error> {
    let patch = git2::Patch::from_buffers(old, None, new, None, None)?;
    let (_, adds, dels) = patch.line_stats()?;
    Ok((adds as u64, dels as u64))
}

/// Restores each file: new bytes go to a temporary file in the same directory that is
/// renamed over the old one, so a file is either as it was or as it should be.
pub(crate) fn apply(plan: &Plan, root: &Path) -> Applied {
    let mut applied = Applied {
        restored: Vec::new(),
        failed: Vec::new(),
    };
    for step in &plan.steps {
        let abs = root.join(&step.rel);
        let result = match (&step.target, &step.bytes) {
            (Some(t), Some(bytes)) => write_atomically(&abs, bytes, t.mode),
            _ => match std::fs::remove_file(&abs) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        match result {
            Ok(()) => applied
                .restored
                .push((step.rel.clone(), step.target.clone())),
            Err(e) => applied.failed.push((abs, e)),
        }
    }
    applied
}

fn write_atomically(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    // Durable like a file tool's write (they fsync too): a restored file is the user's work.
    tmp.as_file().sync_all()?;
    state::set_mode(tmp.path(), mode)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
