//! A session store (`--session-store`, settings `sessionStore`): the session's local
//! transcript is drained to Postgres, Redis or a shared folder, so another worker can
//! resume it. This module is the engine's side: opening the store, bringing a session
//! the store holds into the local layout before a resume, taking the session's lease,
//! and collecting store trouble for the host (`emit::StoreFrames`). The draining itself is
//! `dcl_store::remote::sync`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use dcl_store::remote::sync::{StoreSync, StoreWarning};
use dcl_store::remote::{BackendError, SessionKey, StoreUrl};
use dcl_store::resume::{find_session, newest_session};
use dcl_store::{Redactor, Store, Target};
use serde_json::Value;

/// How long a lease lives without renewal (`DCL_SESSION_LEASE_SECS`, default 30).
const LEASE_SECS: u64 = 30;
/// How long closing waits for the queue to drain (`DCL_SESSION_STORE_FLUSH_SECS`,
/// default 10); the fork barrier waits as long.
const FLUSH_SECS: u64 = 10;

/// What a session store refused or could not do while a session opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RemoteError {
    #[error("--session-store: {0}")]
    Url(#[source] BackendError),
    #[error("--session-store {url}: {source}")]
    Open {
        url: String,
        #[source]
        source: BackendError,
    },
    /// Another worker holds the session, or the store refused it.
    #[error(transparent)]
    Store(#[from] BackendError),
    #[error("session {session_id} is not on this machine and {source}")]
    NotLocal {
        session_id: String,
        #[source]
        source: BackendError,
    },
    #[error("cannot load session {session_id} from the session store: {source}")]
    Load {
        session_id: String,
        #[source]
        source: BackendError,
    },
    #[error(transparent)]
    Layout(#[from] dcl_store::StoreError),
}

/// An open session store.
#[derive(Debug)]
pub(crate) struct RemoteStore {
    sync: StoreSync,
    project_key: String,
    flush: Duration,
}

fn env_secs(env: &BTreeMap<String, String>, name: &str, default: u64) -> Duration {
    Duration::from_secs(
        env.get(name)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(default),
    )
}

/// Who this worker is, for leases: host, process, and a random part (two sessions of
/// one process are two owners).
fn owner() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "dcl".into());
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{host}:{}:{}", std::process::id(), &id[..8])
}

impl RemoteStore {
    /// Opens the store `url` names; `Ok(None)` for `file:` or no URL. The URL's password
    /// is added to `redactor`, so it never reaches a transcript.
    pub fn open(
        url: Option<&str>,
        env: &BTreeMap<String, String>,
        store: &Store,
        redactor: &mut Redactor,
    ) -> Result<Option<RemoteStore>, RemoteError> {
        let Some(text) = url else { return Ok(None) };
        let parsed = StoreUrl::parse(text, |k| env.get(k).cloned()).map_err(RemoteError::Url)?;
        if let Some(secret) = parsed.secret() {
            redactor.add(&secret);
        }
        let lease = env_secs(env, "DCL_SESSION_LEASE_SECS", LEASE_SECS);
        let Some(sync) =
            StoreSync::open(&parsed, owner(), lease).map_err(|source| RemoteError::Open {
                url: parsed.redacted(),
                source,
            })?
        else {
            return Ok(None);
        };
        tracing::debug!("session store {}", sync.url());
        Ok(Some(RemoteStore {
            sync,
            project_key: store.project_key().to_string(),
            flush: env_secs(env, "DCL_SESSION_STORE_FLUSH_SECS", FLUSH_SECS),
        }))
    }

    pub fn sink(&self) -> dcl_store::remote::sync::SpoolSink {
        self.sync.sink()
    }

    /// Takes the lease of a session this worker is about to write; refused while another
    /// worker holds it.
    pub fn acquire(&self, session_id: &str) -> Result<(), RemoteError> {
        Ok(self.sync.acquire(&self.project_key, session_id)?)
    }

    /// Before a resume: a session the store holds more of than this machine (or that this
    /// machine has never seen) is written into the local layout; what the local file
    /// holds beyond the store (written while it was down) is queued again. `--continue`
    /// with nothing local takes the store's newest session. `writes_source` is false for
    /// a fork (the source is only read).
    pub fn prepare_resume(
        &self,
        store: &Store,
        target: &mut Target,
        writes_source: bool,
    ) -> Result<(), RemoteError> {
        let homes = store.homes().read_homes();
        let id = match target {
            Target::Id(id) => id.clone(),
            Target::Continue => {
                if newest_session(&homes, &self.project_key).is_some() {
                    return Ok(());
                }
                match self.sync.newest(&self.project_key) {
                    Ok(Some(id)) => {
                        *target = Target::Id(id.clone());
                        id
                    }
                    Ok(None) => return Ok(()),
                    Err(e) => {
                        tracing::warn!("session store: cannot list sessions: {e}");
                        return Ok(());
                    }
                }
            }
        };
        if writes_source {
            self.acquire(&id)?;
        }
        let local = find_session(&homes, &self.project_key, &id).ok();
        let key = SessionKey::main(&self.project_key, &id);
        let stored = match self.sync.len(&key) {
            Ok(n) => n,
            Err(e) if local.is_some() => {
                // The local copy serves; the drain task catches the store up later.
                tracing::warn!("session store: {e}; resuming from the local transcript");
                return Ok(());
            }
            Err(source) => {
                return Err(RemoteError::NotLocal {
                    session_id: id,
                    source,
                });
            }
        };
        let local_len = local
            .as_ref()
            .and_then(|f| std::fs::read_to_string(&f.files.transcript).ok())
            .map_or(0, |t| {
                t.lines().filter(|l| !l.trim().is_empty()).count() as u64
            });
        let project_dir = match &local {
            Some(f) => f.files.project_dir.clone(),
            None => store.files_for(&id)?.project_dir,
        };
        if stored > local_len {
            self.sync
                .materialize(&project_dir, &self.project_key, &id)
                .map_err(|source| RemoteError::Load {
                    session_id: id.clone(),
                    source,
                })?;
        } else if writes_source && local_len > stored {
            self.sync.replay_local(&project_dir, &self.project_key, &id);
        }
        Ok(())
    }

    /// Store trouble since the last call (the host reads it as `mirror_error` lines).
    pub fn warnings(&self) -> Vec<StoreWarning> {
        self.sync.take_warnings()
    }

    /// The fork barrier: waits until everything written so far (a fork's copied chain)
    /// is in the store. False when the store did not take it in time.
    pub fn barrier(&self) -> bool {
        self.sync.flush(self.flush)
    }

    /// At the end of the session: drain (bounded) and give the leases up.
    pub fn close(&self) {
        self.sync.close(self.flush);
    }
}

/// Settings as `get_settings` shows them: the password of a `sessionStore` URL is
/// replaced (the key's name does not look secret, its value may hold one).
pub(crate) fn redact_store_url(mut settings: Value) -> Value {
    if let Some(Value::String(url)) = settings.get_mut("sessionStore") {
        *url = dcl_store::remote::url::redact_url(url);
    }
    settings
}

/// Shared by the persistence and its subagent recorders.
pub(crate) type Remote = Option<Arc<RemoteStore>>;
