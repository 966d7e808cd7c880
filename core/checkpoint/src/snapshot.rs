//! Work-tree snapshots around a shell command: every tracked or untracked-but-not-ignored
//! file, found with the `ignore` walker (the user's `.git` is never opened: `.git` entries
//! are skipped at every depth, so nested repositories are plain directories).
//!
//! Cost is bounded: a stat key (size, times, inode, mode) per file decides whether its
//! bytes are read again; a tree over the file-count limit is not snapshotted at all.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::error::{CheckpointError, Result};
use crate::state::{FileState, mode_of};

/// What decides that a file is unchanged without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatKey {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    mode: u32,
}

impl StatKey {
    fn of(meta: &std::fs::Metadata) -> StatKey {
        #[cfg(unix)]
        let (ctime_ns, ino) = {
            use std::os::unix::fs::MetadataExt;
            (
                meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, ino) = (0, 0);
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        StatKey {
            size: meta.len(),
            mtime_ns,
            ctime_ns,
            ino,
            mode: mode_of(meta),
        }
    }
}

/// The work tree at one moment: relative path → stat key and stored state.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub files: BTreeMap<String, (StatKey, FileState)>,
    /// Why this snapshot covers nothing (over the file limit); changes are then not known.
    pub skipped: Option<String>,
    /// Files left out (over the size limit), named in the warning.
    pub too_large: Vec<String>,
}

/// Limits that keep a snapshot's cost bounded.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_files: usize,
    pub max_file_bytes: u64,
}

/// Blobs already stored, by path and stat key: only files whose key changed are read.
#[derive(Default)]
pub struct StatCache {
    entries: HashMap<String, (StatKey, String)>,
}

/// Walks `root` (skipping `exclude`, dcl's own store when it lies inside the project) and
/// stores every file's bytes in `repo`, reading only files whose stat key changed.
pub fn take(
    repo: &git2::Repository,
    root: &Path,
    exclude: &Path,
    limits: Limits,
    cache: &mut StatCache,
) -> Result<Snapshot> {
    let mut found: Vec<(String, PathBuf, std::fs::Metadata)> = Vec::new();
    let exclude = exclude.to_path_buf();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_ignore(true)
        // `.git/info/exclude` lives in the user's `.git`, and the global excludes in their
        // git config: neither is read.
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .follow_links(false)
        .filter_entry(move |e| e.file_name() != ".git" && !e.path().starts_with(&exclude))
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!("checkpoint snapshot: {e}");
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if found.len() >= limits.max_files {
            return Ok(Snapshot {
                skipped: Some(format!(
                    "the work tree has more than {} files, so changes made by shell commands are not checkpointed (file tools still are)",
                    limits.max_files
                )),
                ..Snapshot::default()
            });
        }
        let path = entry.path().to_path_buf();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str().map(str::to_string) else {
            tracing::debug!(
                "checkpoint snapshot: skipping non-UTF-8 path {}",
                path.display()
            );
            continue;
        };
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(_) => continue,
        };
        found.push((rel, path, meta));
    }
    let mut snap = Snapshot::default();
    for (rel, path, meta) in found {
        let key = StatKey::of(&meta);
        if key.size > limits.max_file_bytes {
            snap.too_large.push(rel);
            continue;
        }
        let blob = match cache.entries.get(&rel) {
            Some((k, blob)) if *k == key => blob.clone(),
            _ => {
                let bytes = match std::fs::read(&path) {
                    Ok(b) => b,
                    // Gone between the walk and the read: not part of this snapshot.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(CheckpointError::io(&path, e)),
                };
                let oid = repo.blob(&bytes).map_err(|source| CheckpointError::Git {
                    path: repo.path().to_path_buf(),
                    source,
                })?;
                let blob = oid.to_string();
                cache.entries.insert(rel.clone(), (key, blob.clone()));
                blob
            }
        };
        snap.files.insert(
            rel,
            (
                key,
                FileState {
                    blob,
                    mode: key.mode,
                },
            ),
        );
    }
    Ok(snap)
}

/// A path whose state differs between two snapshots: `(path, before, after)`.
pub type Change = (String, Option<FileState>, Option<FileState>);

/// Paths created, deleted or changed (bytes or mode) from `before` to `after`.
pub fn changes(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
    let mut out = Vec::new();
    for (rel, (_, b)) in &before.files {
        match after.files.get(rel) {
            Some((_, a)) if a == b => {}
            Some((_, a)) => out.push((rel.clone(), Some(b.clone()), Some(a.clone()))),
            // A file that became too large is not known to be gone.
            None if after.too_large.contains(rel) => {}
            None => out.push((rel.clone(), Some(b.clone()), None)),
        }
    }
    for (rel, (_, a)) in &after.files {
        if !before.files.contains_key(rel) && !before.too_large.contains(rel) {
            out.push((rel.clone(), None, Some(a.clone())));
        }
    }
    out
}
