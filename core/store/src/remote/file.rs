//! A directory as a session store, in the reference layout (`projects/<project
//! key>/<session id>.jsonl`, sub-transcripts under `<session id>/<subpath>.jsonl`), with
//! the lease and summary beside each session (`<session id>.lease.json`,
//! `<session id>.summary.json`). Its locking is per process: it serves one process (the
//! bindings, tests, benchmarks, a shared mount used by one writer at a time); several
//! machines share Postgres or Redis.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::shared::{
    by_session_id, expected_elsewhere, folded, new_entries, now_ms, object_of, parse_stored,
    record_data, settle_mismatch, summary_of_record, summary_record,
};
use super::{
    Appended, BackendError, BackendResult, Fence, Lease, ListedSession, LoadedEntries, Position,
    SessionKey, SessionStore, SessionSummary,
};

#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    lock: tokio::sync::Mutex<()>,
}

fn io(e: std::io::Error, path: &Path) -> BackendError {
    BackendError::Unavailable(format!("{}: {e}", path.display()))
}

/// A key part may not climb out of its folder.
fn check_part(what: &str, s: &str) -> BackendResult<()> {
    if s.is_empty() || s == "." || s == ".." || s.contains('/') || s.contains('\0') {
        return Err(BackendError::Invalid(format!(
            "{what} {s:?} cannot name a file"
        )));
    }
    Ok(())
}

impl FileStore {
    pub fn new(root: PathBuf) -> FileStore {
        FileStore {
            root,
            lock: tokio::sync::Mutex::new(()),
        }
    }

    fn project_dir(&self, project_key: &str) -> BackendResult<PathBuf> {
        check_part("project key", project_key)?;
        Ok(self.root.join("projects").join(project_key))
    }

    fn session_file(
        &self,
        project_key: &str,
        session_id: &str,
        ext: &str,
    ) -> BackendResult<PathBuf> {
        check_part("session id", session_id)?;
        Ok(self
            .project_dir(project_key)?
            .join(format!("{session_id}.{ext}")))
    }

    fn path(&self, key: &SessionKey) -> BackendResult<PathBuf> {
        match &key.subpath {
            None => self.session_file(&key.project_key, &key.session_id, "jsonl"),
            Some(sub) => {
                check_part("session id", &key.session_id)?;
                let mut p = self.project_dir(&key.project_key)?.join(&key.session_id);
                for part in sub.split('/') {
                    check_part("subpath", part)?;
                    p.push(part);
                }
                p.set_extension("jsonl");
                Ok(p)
            }
        }
    }

    fn read_lines(path: &Path) -> BackendResult<Option<Vec<String>>> {
        match std::fs::read_to_string(path) {
            Ok(s) => Ok(Some(
                s.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect(),
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e, path)),
        }
    }

    fn read_json(path: &Path) -> Option<Value> {
        std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
    }

    /// A summary record; `None` when absent or broken.
    fn read_record(path: &Path) -> Option<Map<String, Value>> {
        object_of(std::fs::read_to_string(path).ok().as_deref())
    }

    /// Writes a small JSON file by rename, so a reader never sees half of it.
    fn write_json(path: &Path, v: &Value) -> BackendResult<()> {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec(v).unwrap_or_default()).map_err(|e| io(e, &tmp))?;
        std::fs::rename(&tmp, path).map_err(|e| io(e, path))
    }

    fn current_lease(&self, project_key: &str, session_id: &str) -> BackendResult<Option<Lease>> {
        let p = self.session_file(project_key, session_id, "lease.json")?;
        Ok(Self::read_json(&p).map(|v| Lease {
            owner: v["owner"].as_str().unwrap_or_default().to_string(),
            epoch: v["epoch"].as_u64().unwrap_or(0),
            expires_at_ms: v["expires_at"].as_i64().unwrap_or(0),
        }))
    }

    fn check_fence(&self, key: &SessionKey, fence: Option<&Fence>) -> BackendResult<()> {
        let Some(f) = fence else { return Ok(()) };
        let cur = self.current_lease(&key.project_key, &key.session_id)?;
        let (epoch, holder) = cur
            .map(|l| (l.epoch, l.owner))
            .unwrap_or((0, String::new()));
        if epoch != f.epoch || holder != f.owner {
            return Err(BackendError::Fenced {
                session_id: key.session_id.clone(),
                epoch: f.epoch,
                current: epoch,
                holder,
            });
        }
        Ok(())
    }

    fn append_now(
        &self,
        key: &SessionKey,
        entries: &[Value],
        at: Position,
        fence: Option<&Fence>,
    ) -> BackendResult<Appended> {
        self.check_fence(key, fence)?;
        let path = self.path(key)?;
        let stored = Self::read_lines(&path)?.unwrap_or_default();
        let have = stored.len() as u64;
        if entries.is_empty() {
            return Ok(Appended::AlreadyThere { len: have });
        }
        if let Some(n) = expected_elsewhere(at, have) {
            let from = stored.get(n as usize..).unwrap_or_default();
            return settle_mismatch(key, n, have, from, entries);
        }
        let seen: std::collections::HashSet<String> = stored
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v.get("uuid").and_then(Value::as_str).map(str::to_string))
            .collect();
        let fresh = new_entries(entries, |u| seen.contains(u))?;
        let written = fresh.texts.len() as u64;
        let mut text = fresh.texts.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io(e, &path))?;
        f.write_all(text.as_bytes()).map_err(|e| io(e, &path))?;
        if key.subpath.is_none() {
            let sp = self.session_file(&key.project_key, &key.session_id, "summary.json")?;
            let prev = Self::read_record(&sp).as_ref().and_then(record_data);
            Self::write_json(&sp, &summary_record(now_ms(), folded(prev, entries)))?;
        }
        Ok(Appended::Written {
            len: have + written,
        })
    }

    fn mtime_ms(path: &Path) -> Option<i64> {
        let m = std::fs::metadata(path).ok()?.modified().ok()?;
        let d = m.duration_since(std::time::UNIX_EPOCH).ok()?;
        i64::try_from(d.as_millis()).ok()
    }

    /// Main transcripts of a project: `(session id, path)`.
    fn sessions(&self, project_key: &str) -> BackendResult<Vec<(String, PathBuf)>> {
        let dir = self.project_dir(project_key)?;
        let Ok(read) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        Ok(read
            .flatten()
            .filter_map(|d| {
                let name = d.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".jsonl")?.to_string();
                Some((id, d.path()))
            })
            .collect())
    }
}

fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for d in read.flatten() {
        let p = d.path();
        if p.is_dir() {
            walk(&p, base, out);
        } else if let Some(rel) = p
            .strip_prefix(base)
            .ok()
            .and_then(|r| r.to_str())
            .and_then(|r| r.strip_suffix(".jsonl"))
        {
            out.push(rel.to_string());
        }
    }
}

impl SessionStore for FileStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [Value],
        at: Position,
        fence: Option<&'a Fence>,
    ) -> BoxFuture<'a, BackendResult<Appended>> {
        async move {
            let _g = self.lock.lock().await;
            self.append_now(key, entries, at, fence)
        }
        .boxed()
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, BackendResult<Option<LoadedEntries>>> {
        async move {
            let path = self.path(key)?;
            Ok(Self::read_lines(&path)?
                .filter(|l| !l.is_empty())
                .map(|l| parse_stored(key, l)))
        }
        .boxed()
    }

    fn len<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<u64>> {
        async move {
            let path = self.path(key)?;
            Ok(Self::read_lines(&path)?.map_or(0, |l| l.len() as u64))
        }
        .boxed()
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<ListedSession>>> {
        async move {
            Ok(self
                .sessions(project_key)?
                .into_iter()
                .filter_map(|(id, p)| {
                    Some(ListedSession {
                        mtime: Self::mtime_ms(&p)?,
                        session_id: id,
                    })
                })
                .collect())
        }
        .boxed()
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<SessionSummary>>> {
        async move {
            let mut out = Vec::new();
            for (id, _) in self.sessions(project_key)? {
                let p = self.session_file(project_key, &id, "summary.json")?;
                if let Some(s) = Self::read_record(&p).and_then(|r| summary_of_record(id, &r)) {
                    out.push(s);
                }
            }
            Ok(by_session_id(out))
        }
        .boxed()
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<()>> {
        async move {
            let _g = self.lock.lock().await;
            let path = self.path(key)?;
            let rm = |p: &Path| match std::fs::remove_file(p) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io(e, p)),
            };
            rm(&path)?;
            if key.subpath.is_none() {
                for ext in ["summary.json", "lease.json"] {
                    rm(&self.session_file(&key.project_key, &key.session_id, ext)?)?;
                }
                let dir = self.project_dir(&key.project_key)?.join(&key.session_id);
                match std::fs::remove_dir_all(&dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io(e, &dir)),
                }
            }
            Ok(())
        }
        .boxed()
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<String>>> {
        async move {
            check_part("session id", session_id)?;
            let base = self.project_dir(project_key)?.join(session_id);
            let mut out = Vec::new();
            walk(&base, &base, &mut out);
            out.sort();
            Ok(out)
        }
        .boxed()
    }

    fn acquire<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        owner: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, BackendResult<Lease>> {
        async move {
            let _g = self.lock.lock().await;
            let now = now_ms();
            let cur = self.current_lease(project_key, session_id)?;
            if let Some(c) = &cur
                && c.owner != owner
                && c.expires_at_ms > now
            {
                return Err(BackendError::LeaseHeld {
                    session_id: session_id.to_string(),
                    holder: c.owner.clone(),
                    remaining_ms: c.expires_at_ms - now,
                });
            }
            let lease = Lease {
                owner: owner.to_string(),
                epoch: cur.map_or(0, |c| c.epoch) + 1,
                expires_at_ms: now + ttl.as_millis() as i64,
            };
            let p = self.session_file(project_key, session_id, "lease.json")?;
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
            }
            Self::write_json(
                &p,
                &json!({"owner": lease.owner, "epoch": lease.epoch, "expires_at": lease.expires_at_ms}),
            )?;
            Ok(lease)
        }
        .boxed()
    }

    fn renew<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        fence: &'a Fence,
        ttl: Duration,
    ) -> BoxFuture<'a, BackendResult<Lease>> {
        async move {
            let _g = self.lock.lock().await;
            let key = SessionKey::main(project_key, session_id);
            self.check_fence(&key, Some(fence))?;
            let lease = Lease {
                owner: fence.owner.clone(),
                epoch: fence.epoch,
                expires_at_ms: now_ms() + ttl.as_millis() as i64,
            };
            let p = self.session_file(project_key, session_id, "lease.json")?;
            Self::write_json(
                &p,
                &json!({"owner": lease.owner, "epoch": lease.epoch, "expires_at": lease.expires_at_ms}),
            )?;
            Ok(lease)
        }
        .boxed()
    }

    fn release<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        fence: &'a Fence,
    ) -> BoxFuture<'a, BackendResult<()>> {
        async move {
            let _g = self.lock.lock().await;
            let key = SessionKey::main(project_key, session_id);
            if self.check_fence(&key, Some(fence)).is_err() {
                return Ok(());
            }
            let p = self.session_file(project_key, session_id, "lease.json")?;
            Self::write_json(
                &p,
                &json!({"owner": fence.owner, "epoch": fence.epoch, "expires_at": 0}),
            )
        }
        .boxed()
    }
}
