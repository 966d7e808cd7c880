//! Draining a session to its store. The local JSONL stays the write-ahead spool: every
//! entry is written there first (as without a store), then handed to a background task
//! that appends it to the store in order, each batch naming the position it extends and
//! the session's lease epoch. A store that is down or slow never blocks a turn: the task
//! retries with backoff, one warning is queued for the host per outage, and what is
//! pending goes out when the store is back. How far each key got (the watermark) is kept
//! in memory and in `<session id>.store.json` beside the transcript.
//!
//! The store runs on a runtime of its own (one thread), so a host's runtime (a binding's,
//! a test's) never owns the store's connections, and sync callers can wait on it.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{BackendError, BackendResult, Lease, Position, SessionKey, SessionStore, StoreUrl};
use crate::layout::is_uuid;

/// How long one store request may take before it counts as failed (and is retried).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most entries one append carries.
const MAX_BATCH: usize = 256;
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Where written entries go to be drained: cloned into each transcript's options.
#[derive(Debug, Clone)]
pub struct SpoolSink {
    tx: mpsc::UnboundedSender<(PathBuf, Value)>,
    enqueued: Arc<AtomicU64>,
}

impl SpoolSink {
    /// Queues an entry written to `path` (never blocks).
    pub fn push(&self, path: &Path, entry: Value) {
        if self.tx.send((path.to_path_buf(), entry)).is_ok() {
            self.enqueued.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A warning for the host, in the SDKs' `mirror_error` shape (`error`, `key`).
#[derive(Debug, Clone, PartialEq)]
pub struct StoreWarning {
    pub error: String,
    pub key: Option<Value>,
}

#[derive(Debug, Default)]
struct Status {
    /// Set while an outage is going on, so it is reported once.
    failing: bool,
    warnings: Vec<StoreWarning>,
    /// Entries per key the store holds, as far as this process knows.
    watermark: BTreeMap<SessionKey, u64>,
}

#[derive(Debug)]
struct Shared {
    store: Arc<dyn SessionStore>,
    /// The store URL without credentials (watermark files name it).
    url: String,
    owner: String,
    ttl: Duration,
    leases: Mutex<HashMap<(String, String), Lease>>,
    status: Mutex<Status>,
    enqueued: Arc<AtomicU64>,
    /// Entries that reached the store, or were given up on (after a fatal error).
    settled: AtomicU64,
    stopped: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn warn(&self, error: &BackendError, key: Option<&SessionKey>) {
        let mut st = lock(&self.status);
        if st.failing {
            return;
        }
        st.failing = true;
        tracing::warn!("session store: {error}");
        st.warnings.push(StoreWarning {
            error: error.to_string(),
            key: key.map(SessionKey::to_json),
        });
    }

    fn recovered(&self) {
        let mut st = lock(&self.status);
        if st.failing {
            st.failing = false;
            tracing::info!("session store reachable again; pending entries replayed");
        }
    }

    async fn timed<T>(&self, f: impl Future<Output = BackendResult<T>>) -> BackendResult<T> {
        match tokio::time::timeout(REQUEST_TIMEOUT, f).await {
            Ok(r) => r,
            Err(_) => Err(BackendError::Timeout(REQUEST_TIMEOUT)),
        }
    }

    /// The session's lease, taken when this process has none yet.
    async fn lease(&self, key: &SessionKey) -> BackendResult<Lease> {
        let id = (key.project_key.clone(), key.session_id.clone());
        if let Some(l) = lock(&self.leases).get(&id) {
            return Ok(l.clone());
        }
        let l = self
            .timed(self.store.acquire(&id.0, &id.1, &self.owner, self.ttl))
            .await?;
        lock(&self.leases).insert(id, l.clone());
        Ok(l)
    }
}

/// Owns the store runtime; shutting it down never blocks (a drop inside a host's async
/// context must not panic).
#[derive(Debug)]
struct Rt(Option<tokio::runtime::Runtime>);

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// A session store in use by this process, with its drain task. Dereferences to
/// [`SyncCore`], which holds the methods; every open store is also registered, so a
/// process can drain them all on its way out ([`close_all`]) even when a session's
/// owner is never dropped.
#[derive(Debug)]
pub struct StoreSync(Arc<SyncCore>);

impl std::ops::Deref for StoreSync {
    type Target = SyncCore;
    fn deref(&self) -> &SyncCore {
        &self.0
    }
}

/// The stores this process opened (weakly: a dropped one is gone).
static OPEN: Mutex<Vec<std::sync::Weak<SyncCore>>> = Mutex::new(Vec::new());

/// How long a process on its way out waits for each store to drain:
/// `DCL_SESSION_STORE_FLUSH_SECS`, default 10.
pub fn exit_flush_timeout() -> Duration {
    Duration::from_secs(
        std::env::var("DCL_SESSION_STORE_FLUSH_SECS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(10),
    )
}

/// Drains every open store (each up to `timeout`) and gives its leases up: for a
/// process about to exit (the CLI's end, the bindings' exit hooks). A store a session is
/// closing meanwhile is waited for.
pub fn close_all(timeout: Duration) {
    let open: Vec<Arc<SyncCore>> = lock(&OPEN)
        .iter()
        .filter_map(std::sync::Weak::upgrade)
        .collect();
    for core in open {
        core.close(timeout);
    }
}

#[derive(Debug)]
pub struct SyncCore {
    shared: Arc<Shared>,
    sink: SpoolSink,
    url: String,
    /// Held for the whole of [`SyncCore::close`], so a second closer (a process's exit
    /// hook while a session's drop is closing the store) waits for the first to finish
    /// instead of returning while the drain still runs.
    closed: Mutex<bool>,
    /// Last field: dropped after everything that may still hold runtime handles.
    rt: Rt,
}

impl StoreSync {
    /// Opens the store `url` names (`None` for `file:`). Nothing is contacted yet: a store
    /// that is down is found out by the first request.
    pub fn open(
        url: &StoreUrl,
        owner: String,
        lease_ttl: Duration,
    ) -> BackendResult<Option<StoreSync>> {
        if url.is_local() {
            return Ok(None);
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("dcl-store")
            .enable_all()
            .build()
            .map_err(|e| {
                BackendError::Unavailable(format!("cannot start the store runtime: {e}"))
            })?;
        let u = url.clone();
        let store = block(rt.handle(), async move { super::open(&u).await })?
            .ok_or_else(|| BackendError::Invalid("no store".into()))?;
        Ok(Some(Self::with_store(
            store,
            rt,
            url.redacted(),
            owner,
            lease_ttl,
        )))
    }

    /// Drains to an already opened store (tests, benchmarks).
    pub fn with_store(
        store: Arc<dyn SessionStore>,
        rt: tokio::runtime::Runtime,
        url: String,
        owner: String,
        lease_ttl: Duration,
    ) -> StoreSync {
        let (tx, rx) = mpsc::unbounded_channel();
        let enqueued = Arc::new(AtomicU64::new(0));
        let shared = Arc::new(Shared {
            store,
            url: url.clone(),
            owner,
            ttl: lease_ttl,
            leases: Mutex::new(HashMap::new()),
            status: Mutex::new(Status::default()),
            enqueued: enqueued.clone(),
            settled: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        });
        rt.spawn(drain(shared.clone(), rx));
        rt.spawn(renew(shared.clone()));
        let core = Arc::new(SyncCore {
            shared,
            sink: SpoolSink { tx, enqueued },
            url,
            closed: Mutex::new(false),
            rt: Rt(Some(rt)),
        });
        let mut open = lock(&OPEN);
        open.retain(|w| w.strong_count() > 0);
        open.push(Arc::downgrade(&core));
        StoreSync(core)
    }
}

impl SyncCore {
    /// The URL without credentials.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn store(&self) -> Arc<dyn SessionStore> {
        self.shared.store.clone()
    }

    /// The sink transcripts push their written entries to.
    pub fn sink(&self) -> SpoolSink {
        self.sink.clone()
    }

    /// Takes this session's lease now, so a session another worker holds is refused
    /// before anything runs. An unreachable store is not an error here: the drain task
    /// takes the lease once the store answers.
    pub fn acquire(&self, project_key: &str, session_id: &str) -> BackendResult<()> {
        let shared = self.shared.clone();
        let key = SessionKey::main(project_key, session_id);
        match block(self.handle(), async move { shared.lease(&key).await }) {
            Ok(_) => Ok(()),
            Err(e) if e.is_retryable() => {
                self.shared
                    .warn(&e, Some(&SessionKey::main(project_key, session_id)));
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn handle(&self) -> &tokio::runtime::Handle {
        match &self.rt.0 {
            Some(rt) => rt.handle(),
            // Only `drop` takes the runtime, and nothing runs after it.
            None => unreachable!("store runtime used after shutdown"),
        }
    }

    /// How many entries the store holds under `key`.
    pub fn len(&self, key: &SessionKey) -> BackendResult<u64> {
        let shared = self.shared.clone();
        let key = key.clone();
        block(self.handle(), async move {
            shared.timed(shared.store.len(&key)).await
        })
    }

    /// The newest session of a project the store knows.
    pub fn newest(&self, project_key: &str) -> BackendResult<Option<String>> {
        let shared = self.shared.clone();
        let pk = project_key.to_string();
        let list = block(self.handle(), async move {
            shared.timed(shared.store.list_sessions(&pk)).await
        })?;
        Ok(list
            .into_iter()
            .filter(|s| is_uuid(&s.session_id))
            .max_by_key(|s| s.mtime)
            .map(|s| s.session_id))
    }

    /// Writes a session held by the store into `project_dir` in the reference layout:
    /// `<id>.jsonl`, and each sub-transcript under `<id>/` (a subagent's `agent_metadata`
    /// entries become its `.meta.json`). Returns false when the store has no such session.
    pub fn materialize(
        &self,
        project_dir: &Path,
        project_key: &str,
        session_id: &str,
    ) -> BackendResult<bool> {
        let shared = self.shared.clone();
        let pk = project_key.to_string();
        let sid = session_id.to_string();
        let loaded = block(self.handle(), async move {
            let main = SessionKey::main(&pk, &sid);
            let Some(entries) = shared.timed(shared.store.load(&main)).await? else {
                return Ok(None);
            };
            let mut subs = Vec::new();
            for sub in shared.timed(shared.store.list_subkeys(&pk, &sid)).await? {
                if let Some(e) = shared.timed(shared.store.load(&main.sub(&sub))).await? {
                    subs.push((sub, e));
                }
            }
            Ok::<_, BackendError>(Some((entries, subs)))
        })?;
        let Some((main, subs)) = loaded else {
            return Ok(false);
        };
        let mut skipped = main.skipped;
        let main_len = main.entries.len() as u64;
        write_jsonl(
            &project_dir.join(format!("{session_id}.jsonl")),
            &main.entries,
        )?;
        let mut marks = vec![(SessionKey::main(project_key, session_id), main_len)];
        for (sub, loaded) in subs {
            skipped += loaded.skipped;
            let Some(rel) = safe_subpath(&sub) else {
                tracing::warn!("session store: sub-transcript {sub:?} cannot name a file; skipped");
                continue;
            };
            let base = project_dir.join(session_id).join(rel);
            let (meta, entries): (Vec<&Value>, Vec<&Value>) = loaded
                .entries
                .iter()
                .partition(|e| e.get("type").and_then(Value::as_str) == Some("agent_metadata"));
            marks.push((
                SessionKey::main(project_key, session_id).sub(&sub),
                loaded.entries.len() as u64,
            ));
            write_jsonl(
                &base.with_extension("jsonl"),
                &entries.into_iter().cloned().collect::<Vec<_>>(),
            )?;
            if let Some(m) = meta.last() {
                let mut m = (*m).clone();
                if let Value::Object(o) = &mut m {
                    o.remove("type");
                }
                let p = base.with_extension("meta.json");
                std::fs::write(&p, format!("{m}\n"))
                    .map_err(|e| BackendError::Unavailable(format!("{}: {e}", p.display())))?;
            }
        }
        if skipped > 0 {
            lock(&self.shared.status).warnings.push(StoreWarning {
                error: format!(
                    "{skipped} corrupt entr{} in the session store were skipped while loading session {session_id}",
                    if skipped == 1 { "y" } else { "ies" }
                ),
                key: Some(SessionKey::main(project_key, session_id).to_json()),
            });
        }
        let mut st = lock(&self.shared.status);
        for (k, n) in marks {
            st.watermark.insert(k, n);
        }
        Ok(true)
    }

    /// Queues what the local files of a session hold beyond what the store has (entries
    /// written while the store was down, by an earlier process): the replay from the
    /// watermark. `files` are the session's transcript and its sub-transcripts.
    pub fn replay_local(&self, project_dir: &Path, project_key: &str, session_id: &str) {
        let main = project_dir.join(format!("{session_id}.jsonl"));
        let mut files = vec![main];
        let sub_dir = project_dir.join(session_id);
        collect_jsonl(&sub_dir, &mut files);
        for f in files {
            let Some(key) = key_for_path(&f) else {
                continue;
            };
            if key.project_key != project_key || key.session_id != session_id {
                continue;
            }
            let have = match self.len(&key) {
                Ok(n) => n as usize,
                Err(e) => {
                    // Not reachable now: the drain task cannot know where to start for this
                    // file, so its old entries wait for the next open.
                    self.shared.warn(&e, Some(&key));
                    return;
                }
            };
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let entries: Vec<Value> = text
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .collect();
            for e in entries.into_iter().skip(have) {
                self.sink.push(&f, e);
            }
        }
    }

    /// Warnings for the host since the last call (`mirror_error` system messages).
    pub fn take_warnings(&self) -> Vec<StoreWarning> {
        std::mem::take(&mut lock(&self.shared.status).warnings)
    }

    /// Entries per key the store is known to hold.
    pub fn watermark(&self) -> BTreeMap<SessionKey, u64> {
        lock(&self.shared.status).watermark.clone()
    }

    /// Whether everything queued so far reached the store (or was given up on).
    pub fn drained(&self) -> bool {
        self.shared.settled.load(Ordering::SeqCst) >= self.shared.enqueued.load(Ordering::SeqCst)
    }

    /// Waits up to `timeout` for the queue to drain; false when it did not.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if self.drained() {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Drains (up to `timeout`) and gives the leases up, so the next worker may take the
    /// session at once.
    pub fn close(&self, timeout: Duration) {
        let mut closed = lock(&self.closed);
        if *closed {
            return;
        }
        *closed = true;
        if !self.flush(timeout) {
            let pending = self.shared.enqueued.load(Ordering::SeqCst)
                - self
                    .shared
                    .settled
                    .load(Ordering::SeqCst)
                    .min(self.shared.enqueued.load(Ordering::SeqCst));
            tracing::warn!(
                "session store {}: {pending} entries not yet stored; they stay in the local transcript and are replayed when the session is next opened here",
                self.url
            );
            return;
        }
        let leases: Vec<((String, String), Lease)> = lock(&self.shared.leases).drain().collect();
        let shared = self.shared.clone();
        let _ = block(self.handle(), async move {
            for ((pk, sid), l) in leases {
                let _ = shared
                    .timed(shared.store.release(&pk, &sid, &l.fence()))
                    .await;
            }
            Ok::<_, BackendError>(())
        });
    }
}

/// Runs `f` on the store runtime and waits for it from sync code (any thread but the
/// store's own).
fn block<T: Send + 'static>(
    rt: &tokio::runtime::Handle,
    f: impl Future<Output = BackendResult<T>> + Send + 'static,
) -> BackendResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        let _ = tx.send(f.await);
    });
    rx.recv()
        .map_err(|_| BackendError::Unavailable("the store runtime stopped".into()))?
}

/// The store key of a transcript file in the reference layout:
/// `…/projects/<key>/<id>.jsonl` or `…/projects/<key>/<id>/<subpath>.jsonl`.
pub fn key_for_path(path: &Path) -> Option<SessionKey> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let parent = path.parent()?;
    if is_uuid(stem) && parent.parent()?.file_name()? == "projects" {
        return Some(SessionKey::main(parent.file_name()?.to_str()?, stem));
    }
    for dir in path.ancestors().skip(1) {
        let name = dir.file_name()?.to_str()?;
        let project = dir.parent()?;
        if is_uuid(name) && project.parent()?.file_name()? == "projects" {
            let rel = path
                .strip_prefix(dir)
                .ok()?
                .to_str()?
                .strip_suffix(".jsonl")?;
            return Some(SessionKey::main(project.file_name()?.to_str()?, name).sub(rel));
        }
    }
    None
}

/// `<dir>/<id>.jsonl` -> `<dir>/<id>.<ext>`.
fn path_with(path: &Path, ext: &str) -> PathBuf {
    path.with_extension(ext)
}

fn safe_subpath(sub: &str) -> Option<PathBuf> {
    let mut p = PathBuf::new();
    for part in sub.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\0') {
            return None;
        }
        p.push(part);
    }
    Some(p)
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<PathBuf> = read.flatten().map(|d| d.path()).collect();
    found.sort();
    for p in found {
        if p.is_dir() {
            collect_jsonl(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

/// Writes a transcript whole (by rename: a reader never sees half), `type` first on each
/// line as the reference CLI writes it (stored `jsonb` may have reordered the keys).
fn write_jsonl(path: &Path, entries: &[Value]) -> BackendResult<()> {
    let io = |e: std::io::Error| BackendError::Unavailable(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut text = String::new();
    for e in entries {
        let line = match e {
            Value::Object(o) if o.contains_key("type") => {
                let mut m = serde_json::Map::new();
                if let Some(t) = o.get("type") {
                    m.insert("type".into(), t.clone());
                }
                for (k, v) in o {
                    if k != "type" {
                        m.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(m).to_string()
            }
            other => other.to_string(),
        };
        text.push_str(&line);
        text.push('\n');
    }
    let tmp = path.with_extension("jsonl.tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)?;
    // A handle the process kept for the replaced file would append to the old inode.
    crate::handles::release(path);
    Ok(())
}

/// The drain task: batches of consecutive entries of one key, in order.
async fn drain(shared: Arc<Shared>, mut rx: mpsc::UnboundedReceiver<(PathBuf, Value)>) {
    let mut queue: VecDeque<(Option<SessionKey>, PathBuf, Value)> = VecDeque::new();
    let mut lens: HashMap<SessionKey, u64> = HashMap::new();
    let mut backoff = BACKOFF_MIN;
    loop {
        if queue.is_empty() {
            match rx.recv().await {
                Some((p, v)) => queue.push_back((key_for_path(&p), p, v)),
                None => return,
            }
        }
        while let Ok((p, v)) = rx.try_recv() {
            queue.push_back((key_for_path(&p), p, v));
        }
        if shared.stopped.load(Ordering::SeqCst) {
            shared
                .settled
                .fetch_add(queue.len() as u64, Ordering::SeqCst);
            queue.clear();
            continue;
        }
        let Some((first, path, _)) = queue.front() else {
            continue;
        };
        let path = path.clone();
        let Some(key) = first.clone() else {
            tracing::warn!(
                "session store: {} is not in the reference layout; not stored",
                path.display()
            );
            queue.pop_front();
            shared.settled.fetch_add(1, Ordering::SeqCst);
            continue;
        };
        let n = queue
            .iter()
            .take(MAX_BATCH)
            .take_while(|(k, _, _)| k.as_ref() == Some(&key))
            .count();
        let batch: Vec<Value> = queue.iter().take(n).map(|(_, _, v)| v.clone()).collect();
        let result = async {
            let lease = shared.lease(&key).await?;
            let at = match lens.get(&key) {
                Some(l) => *l,
                None => shared.timed(shared.store.len(&key)).await?,
            };
            shared
                .timed(
                    shared
                        .store
                        .append(&key, &batch, Position::At(at), Some(&lease.fence())),
                )
                .await
        }
        .await;
        match result {
            Ok(done) => {
                lens.insert(key.clone(), done.len());
                queue.drain(..n);
                shared.settled.fetch_add(n as u64, Ordering::SeqCst);
                let marks = {
                    let mut st = lock(&shared.status);
                    st.watermark.insert(key.clone(), done.len());
                    st.watermark
                        .iter()
                        .filter(|(k, _)| {
                            k.project_key == key.project_key && k.session_id == key.session_id
                        })
                        .map(|(k, n)| (k.clone(), *n))
                        .collect::<BTreeMap<_, _>>()
                };
                if key.subpath.is_none() {
                    // How far this session got, beside its transcript (best effort: the
                    // store's own length stays the truth a replay starts from).
                    let _ = std::fs::write(
                        path_with(&path, "store.json"),
                        watermark_json(&shared.url, &marks).to_string(),
                    );
                }
                shared.recovered();
                backoff = BACKOFF_MIN;
            }
            Err(e) if e.is_retryable() => {
                shared.warn(&e, Some(&key));
                // The length is asked again after an outage: a timed-out append may have
                // landed, and the position check then finds it already there.
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
            }
            Err(e) => {
                // Ownership lost or the store holds something else: this writer stops for
                // good; its entries stay in the local transcript.
                {
                    let mut st = lock(&shared.status);
                    st.failing = false;
                }
                shared.warn(&e, Some(&key));
                tracing::error!("session store: stopped draining: {e}");
                shared.stopped.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// Renews this process's leases at a third of their life. A lease taken over stops the
/// drain (the next append would be refused anyway).
async fn renew(shared: Arc<Shared>) {
    let every = (shared.ttl / 3).max(Duration::from_millis(50));
    loop {
        tokio::time::sleep(every).await;
        let held: Vec<((String, String), Lease)> = lock(&shared.leases)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for ((pk, sid), l) in held {
            match shared
                .timed(shared.store.renew(&pk, &sid, &l.fence(), shared.ttl))
                .await
            {
                Ok(new) => {
                    lock(&shared.leases).insert((pk, sid), new);
                }
                Err(e) if e.is_retryable() => {}
                Err(e) => {
                    shared.warn(&e, Some(&SessionKey::main(&pk, &sid)));
                    shared.stopped.store(true, Ordering::SeqCst);
                }
            }
        }
    }
}

/// The JSON of a watermark file (`<session id>.store.json`).
pub fn watermark_json(url: &str, marks: &BTreeMap<SessionKey, u64>) -> Value {
    let keys: serde_json::Map<String, Value> = marks
        .iter()
        .map(|(k, n)| (k.subpath.clone().unwrap_or_default(), json!(n)))
        .collect();
    json!({"store": url, "stored": keys})
}
