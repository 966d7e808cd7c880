//! Session stores: where a session's transcript lives besides this machine's JSONL files,
//! so that any worker can resume any session.
//!
//! [`SessionStore`] is the SDKs' `SessionStore` contract (append under
//! `{project_key, session_id, subpath?}`, load, list sessions with their mtime, list
//! summaries, delete with cascade, list subkeys) plus what that contract lacks for several
//! writers: an append names the sequence it extends ([`Position`]) and the writer's
//! [`Fence`] (lease epoch), and a conflict is a typed [`BackendError`].
//!
//! Backends: [`file::FileStore`] (a directory in the reference layout), [`postgres`] and
//! [`redis`] (behind the cargo features of the same names), which share their
//! append, dedupe and summary rules (`shared`). [`open`] picks one from a
//! `--session-store` URL; [`sync::StoreSync`] drains the local JSONL (the write-ahead
//! spool) to it.
//!
//! Ownership: each session has a lease (owner, expiry, epoch). [`SessionStore::acquire`]
//! takes it when the session opens (a new epoch each time); it is refused while another
//! owner's lease is unexpired. Every fenced append carries the epoch; an append whose
//! epoch is not the session's current one is refused with [`BackendError::Fenced`], so a
//! writer that lost its lease (it stalled past the expiry and another worker took over)
//! can never interleave with the new owner.

pub mod file;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "redis")]
pub mod redis;
mod shared;
pub mod summary;
pub mod sync;
pub mod url;

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

pub use url::StoreUrl;

/// Where a batch of entries goes: a session's main transcript (`subpath` `None`) or one of
/// its sub-transcripts (`subagents/agent-<id>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    pub project_key: String,
    pub session_id: String,
    pub subpath: Option<String>,
}

impl SessionKey {
    pub fn main(project_key: &str, session_id: &str) -> SessionKey {
        SessionKey {
            project_key: project_key.to_string(),
            session_id: session_id.to_string(),
            subpath: None,
        }
    }

    pub fn sub(&self, subpath: &str) -> SessionKey {
        SessionKey {
            subpath: Some(subpath.to_string()),
            ..self.clone()
        }
    }

    /// The SDKs' JSON shape of a key (`mirror_error` carries it).
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("project_key".into(), Value::from(self.project_key.clone()));
        m.insert("session_id".into(), Value::from(self.session_id.clone()));
        if let Some(s) = &self.subpath {
            m.insert("subpath".into(), Value::from(s.clone()));
        }
        Value::Object(m)
    }
}

impl std::fmt::Display for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.project_key, self.session_id)?;
        if let Some(s) = &self.subpath {
            write!(f, "/{s}")?;
        }
        Ok(())
    }
}

/// Which sequence an append extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The SDK adapters' append: at the end, whatever is there.
    End,
    /// The key holds exactly this many entries. When it holds more and the entries from
    /// here on equal the batch, the batch already landed (a retry) and the append is a
    /// no-op; any other difference is a [`BackendError::Conflict`].
    At(u64),
}

/// A writer's proof of ownership: the epoch [`SessionStore::acquire`] handed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub owner: String,
    pub epoch: u64,
}

/// A session's lease as the store granted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    pub epoch: u64,
    /// Unix epoch milliseconds.
    pub expires_at_ms: i64,
}

impl Lease {
    pub fn fence(&self) -> Fence {
        Fence {
            owner: self.owner.clone(),
            epoch: self.epoch,
        }
    }
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// The batch was written; the key now holds this many entries.
    Written { len: u64 },
    /// The batch was already there (a retried batch); nothing was written.
    AlreadyThere { len: u64 },
}

impl Appended {
    pub fn len(self) -> u64 {
        match self {
            Appended::Written { len } | Appended::AlreadyThere { len } => len,
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// One session in a listing: its id and when its main transcript was last appended to
/// (Unix epoch milliseconds, the store's clock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    pub session_id: String,
    pub mtime: i64,
}

/// A session's summary sidecar (the SDKs' `SessionSummaryEntry`): `data` is the fold of
/// its main transcript's entries ([`summary::fold`]), `mtime` the store's write time.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub session_id: String,
    pub mtime: i64,
    pub data: serde_json::Map<String, Value>,
}

/// A key's entries as loaded; entries the store holds but that do not parse are left out
/// and counted in `skipped` (each logged with a warning).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedEntries {
    pub entries: Vec<Value>,
    pub skipped: usize,
}

/// What went wrong talking to a store.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The store could not be reached or failed the request; worth retrying.
    #[error("session store unavailable: {0}")]
    Unavailable(String),
    /// The request timed out; it may still have landed (a retry is safe: appends are
    /// idempotent by position).
    #[error("session store timed out after {0:?}")]
    Timeout(Duration),
    /// The append named a position the key is not at, and the entries there differ.
    #[error(
        "session store conflict on {key}: the writer expected {expected} entries, the store holds {actual}; another writer appended to this session"
    )]
    Conflict {
        key: String,
        expected: u64,
        actual: u64,
    },
    /// The writer's lease epoch is not the session's current one.
    #[error(
        "session {session_id} was taken over by another worker ({holder}, lease epoch {current}); this writer's epoch {epoch} is stale and its append was refused"
    )]
    Fenced {
        session_id: String,
        epoch: u64,
        current: u64,
        holder: String,
    },
    /// Another worker holds the session's lease.
    #[error(
        "session {session_id} is in use by another worker ({holder}) for up to {remaining_ms} ms more; retry once it has finished"
    )]
    LeaseHeld {
        session_id: String,
        holder: String,
        remaining_ms: i64,
    },
    /// A key or option the store cannot take (e.g. an invalid table name).
    #[error("session store: {0}")]
    Invalid(String),
}

impl BackendError {
    /// Whether retrying later may succeed (outages), as opposed to ownership errors.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            BackendError::Unavailable(_) | BackendError::Timeout(_)
        )
    }
}

pub type BackendResult<T> = std::result::Result<T, BackendError>;

/// The SDKs' `SessionStore` contract, plus positions and fences for several writers.
/// Every method is async and `Send`, so one store serves a whole runtime.
pub trait SessionStore: Send + Sync + std::fmt::Debug {
    /// Appends `entries` to `key` in order. `at` is where the writer believes the key
    /// ends; `fence` (when given) must carry the session's current lease epoch.
    /// An empty batch is a no-op. Entries carrying a `uuid` already stored under the key
    /// are skipped (a retried batch never duplicates).
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [Value],
        at: Position,
        fence: Option<&'a Fence>,
    ) -> BoxFuture<'a, BackendResult<Appended>>;

    /// A key's entries in append order; `None` when the key was never written (or was
    /// deleted).
    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, BackendResult<Option<LoadedEntries>>>;

    /// How many entries a key holds (0 when it was never written).
    fn len<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<u64>>;

    /// The sessions of a project that have a main transcript, with their mtime.
    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<ListedSession>>>;

    /// The summary sidecars of a project's sessions (subagent appends never count).
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<SessionSummary>>>;

    /// Deletes a key; a main key (no subpath) takes its sub-keys, summary and lease along.
    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<()>>;

    /// The subpaths under a session (never the main transcript).
    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<String>>>;

    /// Takes the session's lease for `owner` for `ttl`, with a new epoch. Refused with
    /// [`BackendError::LeaseHeld`] while another owner's lease is unexpired.
    fn acquire<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        owner: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, BackendResult<Lease>>;

    /// Extends a held lease; [`BackendError::Fenced`] when it was taken over.
    fn renew<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        fence: &'a Fence,
        ttl: Duration,
    ) -> BoxFuture<'a, BackendResult<Lease>>;

    /// Gives the lease up (it expires now; the epoch stays, so the next owner's is
    /// higher). A lease already taken over is left alone.
    fn release<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
        fence: &'a Fence,
    ) -> BoxFuture<'a, BackendResult<()>>;
}

/// Opens the store a URL names; `Ok(None)` for `file:` without a path (local files only).
pub async fn open(url: &StoreUrl) -> BackendResult<Option<std::sync::Arc<dyn SessionStore>>> {
    match url {
        StoreUrl::Local => Ok(None),
        StoreUrl::File(dir) => Ok(Some(std::sync::Arc::new(file::FileStore::new(dir.clone())))),
        #[cfg(feature = "postgres")]
        StoreUrl::Postgres { url, table } => Ok(Some(std::sync::Arc::new(
            postgres::PostgresStore::connect(url, table).await?,
        ))),
        #[cfg(not(feature = "postgres"))]
        StoreUrl::Postgres { .. } => Err(BackendError::Invalid(
            "this build has no Postgres support (cargo feature `postgres`)".into(),
        )),
        #[cfg(feature = "redis")]
        StoreUrl::Redis { url, prefix } => Ok(Some(std::sync::Arc::new(
            redis::RedisStore::connect(url, prefix).await?,
        ))),
        #[cfg(not(feature = "redis"))]
        StoreUrl::Redis { .. } => Err(BackendError::Invalid(
            "this build has no Redis support (cargo feature `redis`)".into(),
        )),
    }
}
