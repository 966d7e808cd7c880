//! The process's open transcript handles: at most [`CAPACITY`] files stay open
//! (append-only), in shards by path; within its shard the least recently written is
//! closed when another is needed. A handle being written when it is evicted stays open
//! until that write is done.

#[cfg(not(unix))]
use crate::unix_modes::ModeExt as _;
use std::fs::{File, OpenOptions};
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Open transcripts kept at most: a turn's writers and the subagents it runs.
pub const CAPACITY: usize = SHARDS * PER_SHARD;

/// The pool is split by key so the runtime's workers, each writing for other
/// sessions, rarely wait on one another's lock (one lock was contended on every write
/// with thousands of sessions in a process).
const SHARDS: usize = 8;
const PER_SHARD: usize = 8;

type Shard = Mutex<Vec<(PathBuf, Arc<File>)>>;

static POOL: [Shard; SHARDS] = [const { Mutex::new(Vec::new()) }; SHARDS];

fn shard(key: &Path) -> std::sync::MutexGuard<'static, Vec<(PathBuf, Arc<File>)>> {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    // Any bits of the hash pick a shard equally well, so a narrowing cast is fine.
    let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(key.as_os_str());
    match POOL[hash as usize % SHARDS].lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The pool's key for `path`: its components joined again, so paths that `Path`'s `==`
/// calls equal (`a//b`, `a/./b`, `a/b/`) are equal bytes. `==` itself parses both
/// paths from the end on every comparison; the pool is scanned on every transcript
/// write, and with many sessions (each write a miss) that parsing was a tenth of a
/// turn's CPU. Now each call parses its own path once.
fn key(path: &Path) -> PathBuf {
    path.components().collect()
}

/// An append handle of `path` (most recently used last).
pub fn get(path: &Path) -> std::io::Result<Arc<File>> {
    let key = key(path);
    {
        let mut pool = shard(&key);
        if let Some(i) = pool
            .iter()
            .position(|(p, _)| p.as_os_str() == key.as_os_str())
        {
            let entry = pool.remove(i);
            let file = Arc::clone(&entry.1);
            pool.push(entry);
            return Ok(file);
        }
    }
    // Opened without the lock: every session's writer shares the pool.
    let file = Arc::new(
        OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)?,
    );
    let mut pool = shard(&key);
    pool.retain(|(p, _)| p.as_os_str() != key.as_os_str());
    push(&mut pool, key, Arc::clone(&file));
    Ok(file)
}

/// Keeps `file`, just opened for appending to `path`, as its handle.
pub(super) fn keep(path: &Path, file: File) {
    let key = key(path);
    let mut pool = shard(&key);
    pool.retain(|(p, _)| p.as_os_str() != key.as_os_str());
    push(&mut pool, key, Arc::new(file));
}

fn push(pool: &mut Vec<(PathBuf, Arc<File>)>, key: PathBuf, file: Arc<File>) {
    if pool.len() >= PER_SHARD {
        pool.remove(0);
    }
    pool.push((key, file));
}

/// Closes the handle of `path`, if open: for a transcript that is deleted or replaced
/// (its next entry then recreates the file rather than reaching the old one).
pub fn release(path: &Path) {
    let key = key(path);
    shard(&key).retain(|(p, _)| p.as_os_str() != key.as_os_str());
}

/// How many transcripts the process holds open.
pub fn open_count() -> usize {
    POOL.iter()
        .map(|s| match s.lock() {
            Ok(g) => g.len(),
            Err(p) => p.into_inner().len(),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_path_calls_equal_share_a_key_and_others_do_not() {
        // Keys are compared as bytes (`PathBuf`'s own `==` would hide the difference).
        let k = |p: &str| key(Path::new(p)).into_os_string();
        assert_eq!(k("/h/p//./s.jsonl"), k("/h/p/s.jsonl"));
        assert_eq!(k("/h/p/"), k("/h/p"));
        assert_ne!(k("/h/p/a.jsonl"), k("/h/p/b.jsonl"));
        assert_ne!(k("/h/p/../s.jsonl"), k("/h/s.jsonl"));
        assert_ne!(k("h/s.jsonl"), k("/h/s.jsonl"));
    }
}
