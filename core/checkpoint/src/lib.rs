//! File checkpoints for dcl sessions: before a tool changes a file, the file's previous
//! state (bytes, mode, or absence) is recorded under the uuid of the user message whose turn
//! made the change; `rewind` puts every file back as it was before that message.
//!
//! - [`project`]: the work-tree root (found by its `.git` entry, never opened) and the
//!   shadow repository's place under dcl home
//! - [`state`]: a file's state and how it is read and hashed
//! - [`index`]: the per-session index (turns, before-states, dcl's last writes), on disk
//! - [`snapshot`]: bounded work-tree snapshots around shell commands
//! - [`rewind`]: planning and applying a rewind
//!
//! The shadow repository is a bare git repository of dcl's own, driven in-process with
//! git2: the user's `.git` (objects, refs, index, config, hooks) is never read or written,
//! no hook ever runs, and no `GIT_*` variable is set (they would leak into the agent's
//! child processes). Blobs stay reachable through one commit per change under
//! `refs/dcl/sessions/<session id>`.

mod error;
mod index;
mod project;
mod rewind;
mod snapshot;
mod state;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

pub use error::{CheckpointError, Result};
pub use rewind::RewindReport;
pub use snapshot::{Limits, Snapshot};
pub use state::FileState;

use index::SessionIndex;
use snapshot::StatCache;

/// Default bound on a shell-command snapshot; a larger work tree is not snapshotted.
pub const DEFAULT_MAX_SNAPSHOT_FILES: usize = 20_000;
/// Files larger than this are left out of shell-command snapshots.
pub const DEFAULT_MAX_SNAPSHOT_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Where and for whom checkpoints are kept.
#[derive(Debug, Clone)]
pub struct CheckpointConfig {
    /// dcl home (`--data-dir`, `DCL_CONFIG_DIR`, `~/.dcl`): shadow repositories live in
    /// `<home>/checkpoints/`.
    pub home: PathBuf,
    /// The session's working directory; its Git work tree is what is checkpointed.
    pub cwd: PathBuf,
    pub session_id: String,
    pub limits: Limits,
}

impl CheckpointConfig {
    pub fn new(home: PathBuf, cwd: PathBuf, session_id: impl Into<String>) -> Self {
        CheckpointConfig {
            home,
            cwd,
            session_id: session_id.into(),
            limits: Limits {
                max_files: DEFAULT_MAX_SNAPSHOT_FILES,
                max_file_bytes: DEFAULT_MAX_SNAPSHOT_FILE_BYTES,
            },
        }
    }
}

/// One session's checkpoints. All calls block (git2, file reads): async callers run them
/// on a blocking thread.
pub struct Checkpointer {
    root: PathBuf,
    home: PathBuf,
    shadow: PathBuf,
    index_path: PathBuf,
    session_ref: String,
    limits: Limits,
    inner: Mutex<Inner>,
}

struct Inner {
    repo: git2::Repository,
    index: SessionIndex,
    cache: StatCache,
    /// The index exists on disk (it is first written with the first recorded change).
    saved: bool,
}

impl Checkpointer {
    /// Opens (or creates) the shadow repository of the Git work tree holding `cfg.cwd`, and
    /// this session's index when it has one (a resumed session).
    pub fn open(cfg: CheckpointConfig) -> Result<Checkpointer> {
        let root = project::work_tree_root(&cfg.cwd)?;
        let home = absolute(&cfg.home, &cfg.cwd);
        let shadow = project::shadow_dir(&home, &root);
        let repo = open_shadow(&shadow)?;
        let session = sanitise_id(&cfg.session_id);
        let index_path = shadow.join("dcl-sessions").join(format!("{session}.json"));
        let (index, saved) = match SessionIndex::load(&index_path)? {
            Some(i) => (i, true),
            None => (SessionIndex::new(&cfg.session_id, &root), false),
        };
        Ok(Checkpointer {
            session_ref: format!("refs/dcl/sessions/{session}"),
            root,
            home,
            shadow,
            index_path,
            limits: cfg.limits,
            inner: Mutex::new(Inner {
                repo,
                index,
                cache: StatCache::default(),
                saved,
            }),
        })
    }

    /// The work tree checkpoints cover.
    pub fn project_root(&self) -> &Path {
        &self.root
    }

    /// The bare shadow repository.
    pub fn shadow_dir(&self) -> &Path {
        &self.shadow
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes a user message in the session's order (messages whose turns change nothing
    /// included, so rewinding to one of them undoes the turns after it).
    pub fn note_prompt(&self, prompt_uuid: &str) -> Result<()> {
        let mut inner = self.lock();
        if inner.index.prompts.iter().any(|p| p == prompt_uuid) {
            return Ok(());
        }
        inner.index.note_prompt(prompt_uuid);
        if inner.saved {
            inner.index.save(&self.index_path)?;
        }
        Ok(())
    }

    /// Records the state of `paths` before a file tool changes them, under `prompt_uuid`.
    /// A file already recorded in this turn keeps its first state. Returns warnings for
    /// paths that are not checkpointed (outside the work tree, inside a `.git`).
    pub fn before_change(&self, prompt_uuid: &str, paths: &[PathBuf]) -> Result<Vec<String>> {
        let mut warnings = Vec::new();
        let mut inner = self.lock();
        let inner = &mut *inner;
        let mut recorded = false;
        for path in paths {
            let Some((rel, abs)) = self.relative(path, &mut warnings) else {
                continue;
            };
            if inner.index.turn_mut(prompt_uuid).before.contains_key(&rel) {
                continue;
            }
            let before = match state::read(&abs)? {
                Some((bytes, mode)) => Some(FileState {
                    blob: store_blob(&inner.repo, &bytes)?,
                    mode,
                }),
                None => None,
            };
            inner.index.turn_mut(prompt_uuid).before.insert(rel, before);
            recorded = true;
        }
        if recorded {
            self.commit(inner, prompt_uuid)?;
        }
        Ok(warnings)
    }

    /// Remembers what dcl left at `paths` after a file tool ran, so a later change by
    /// someone else is recognised at rewind.
    pub fn after_change(&self, paths: &[PathBuf]) -> Result<()> {
        let mut ignored = Vec::new();
        let mut inner = self.lock();
        let mut changed = false;
        for path in paths {
            let Some((rel, abs)) = self.relative(path, &mut ignored) else {
                continue;
            };
            if !inner
                .index
                .turns
                .iter()
                .any(|t| t.before.contains_key(&rel))
            {
                continue;
            }
            let now = state::current(&abs)?;
            inner.index.last_write.insert(rel, now);
            changed = true;
        }
        if changed {
            inner.index.save(&self.index_path)?;
            inner.saved = true;
        }
        Ok(())
    }

    /// Snapshots the work tree before a shell command (see [`snapshot`]). Its
    /// [`Snapshot::warnings`] say what it does not cover.
    pub fn snapshot(&self) -> Result<Snapshot> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        snapshot::take(
            &inner.repo,
            &self.root,
            &self.home,
            self.limits,
            &mut inner.cache,
        )
    }

    /// Snapshots the work tree again after a shell command and records every file it
    /// created, deleted or changed under `prompt_uuid`, as a file tool's change would be.
    /// Returns the paths recorded.
    pub fn record_since(&self, prompt_uuid: &str, before: &Snapshot) -> Result<Vec<PathBuf>> {
        if before.skipped.is_some() {
            return Ok(Vec::new());
        }
        let mut inner = self.lock();
        let inner = &mut *inner;
        let after = snapshot::take(
            &inner.repo,
            &self.root,
            &self.home,
            self.limits,
            &mut inner.cache,
        )?;
        if after.skipped.is_some() {
            return Ok(Vec::new());
        }
        let changes = snapshot::changes(before, &after);
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let mut paths = Vec::with_capacity(changes.len());
        for (rel, was, now) in changes {
            inner
                .index
                .turn_mut(prompt_uuid)
                .before
                .entry(rel.clone())
                .or_insert(was);
            paths.push(self.root.join(&rel));
            inner.index.last_write.insert(rel, now);
        }
        self.commit(inner, prompt_uuid)?;
        Ok(paths)
    }

    /// Puts every file changed since `user_message_id` (that message's turn and all later
    /// ones) back as it was before it. `dry_run` reports the same and changes nothing.
    pub fn rewind(&self, user_message_id: &str, dry_run: bool) -> Result<RewindReport> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let turns = inner
            .index
            .turns_from(user_message_id)
            .ok_or_else(|| CheckpointError::UnknownMessage(user_message_id.to_string()))?;
        let plan = rewind::plan(&inner.repo, &inner.index, &turns, &self.root)?;
        let report = plan.report();
        if dry_run {
            return Ok(report);
        }
        let applied = rewind::apply(&plan, &self.root);
        for (rel, state) in &applied.restored {
            inner.index.last_write.insert(rel.clone(), state.clone());
        }
        if applied.failed.is_empty() {
            let mut at = 0;
            inner.index.turns.retain(|_| {
                let keep = !turns.contains(&at);
                at += 1;
                keep
            });
        }
        inner.index.save(&self.index_path)?;
        inner.saved = true;
        match applied.failed.into_iter().next() {
            Some((path, source)) => Err(CheckpointError::Io { path, source }),
            None => Ok(report),
        }
    }

    /// `path` relative to the work-tree root (links resolved), or a warning saying why it
    /// is not checkpointed.
    fn relative(&self, path: &Path, warnings: &mut Vec<String>) -> Option<(String, PathBuf)> {
        let abs = project::normalise(&absolute(path, &self.root));
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            warnings.push(format!(
                "{} is outside the Git work tree {}: its change is not checkpointed",
                path.display(),
                self.root.display()
            ));
            return None;
        };
        if project::inside_git_dir(rel) {
            warnings.push(format!(
                "{} is inside a .git directory: dcl never checkpoints or restores there",
                path.display()
            ));
            return None;
        }
        if abs.starts_with(&self.home) {
            return None;
        }
        match rel.to_str() {
            Some(r) if !r.is_empty() => Some((r.to_string(), abs)),
            _ => {
                warnings.push(format!(
                    "{}: not a UTF-8 file path, not checkpointed",
                    path.display()
                ));
                None
            }
        }
    }

    /// One commit per change under the session's ref, holding the turn's before-states,
    /// so every blob a rewind may need stays reachable; then the index.
    fn commit(&self, inner: &mut Inner, prompt_uuid: &str) -> Result<()> {
        let git = |source| CheckpointError::Git {
            path: self.shadow.clone(),
            source,
        };
        let repo = &inner.repo;
        let mut tree_index = git2::Index::new().map_err(git)?;
        if let Some(turn) = inner
            .index
            .turns
            .iter()
            .find(|t| t.prompt_uuid == prompt_uuid)
        {
            for (rel, state) in &turn.before {
                let Some(state) = state else { continue };
                let id = git2::Oid::from_str(&state.blob).map_err(git)?;
                tree_index
                    .add(&git2::IndexEntry {
                        ctime: git2::IndexTime::new(0, 0),
                        mtime: git2::IndexTime::new(0, 0),
                        dev: 0,
                        ino: 0,
                        mode: state.git_mode(),
                        uid: 0,
                        gid: 0,
                        file_size: 0,
                        id,
                        flags: 0,
                        flags_extended: 0,
                        path: rel.as_bytes().to_vec(),
                    })
                    .map_err(git)?;
            }
        }
        let tree_id = tree_index.write_tree_to(repo).map_err(git)?;
        let tree = repo.find_tree(tree_id).map_err(git)?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let sig =
            git2::Signature::new("dcl", "dcl@localhost", &git2::Time::new(now, 0)).map_err(git)?;
        let parent = repo
            .refname_to_id(&self.session_ref)
            .ok()
            .and_then(|id| repo.find_commit(id).ok());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        let message = format!(
            "dcl checkpoint\n\nsession: {}\nuser-message: {prompt_uuid}\n",
            inner.index.session_id
        );
        repo.commit(
            Some(&self.session_ref),
            &sig,
            &sig,
            &message,
            &tree,
            &parents,
        )
        .map_err(git)?;
        inner.index.save(&self.index_path)?;
        inner.saved = true;
        Ok(())
    }
}

impl Snapshot {
    /// What this snapshot does not cover, for the caller to pass on.
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = self.skipped.iter().cloned().collect();
        if !self.too_large.is_empty() {
            out.push(format!(
                "{} file(s) over the snapshot size limit are not checkpointed around shell commands: {}",
                self.too_large.len(),
                self.too_large.join(", ")
            ));
        }
        out
    }
}

fn open_shadow(shadow: &Path) -> Result<git2::Repository> {
    let git = |source| CheckpointError::Git {
        path: shadow.to_path_buf(),
        source,
    };
    // NO_SEARCH: the given directory or nothing; never a parent's repository.
    let no_dirs: [&std::ffi::OsStr; 0] = [];
    if let Ok(repo) =
        git2::Repository::open_ext(shadow, git2::RepositoryOpenFlags::NO_SEARCH, no_dirs)
    {
        return Ok(repo);
    }
    let mut opts = git2::RepositoryInitOptions::new();
    opts.bare(true).mkpath(true).mkdir(true);
    git2::Repository::init_opts(shadow, &opts).map_err(git)
}

fn store_blob(repo: &git2::Repository, bytes: &[u8]) -> Result<String> {
    repo.blob(bytes)
        .map(|o| o.to_string())
        .map_err(|source| CheckpointError::Git {
            path: repo.path().to_path_buf(),
            source,
        })
}

/// Session ids are UUIDs; anything else is made safe for a file and ref name.
fn sanitise_id(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".to_string() } else { s }
}

fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}
