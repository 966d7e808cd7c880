//! Redis as a session store, in the SDK reference adapter's key scheme (`:` separated;
//! an empty prefix adds nothing):
//!
//! ```text
//! {prefix}{project_key}:{session_id}             list  main transcript (one JSON each)
//! {prefix}{project_key}:{session_id}:{subpath}   list  sub-transcript
//! {prefix}{project_key}:{session_id}:__subkeys   set   subpaths of the session
//! {prefix}{project_key}:__sessions               zset  session id -> mtime (ms)
//! ```
//!
//! dcl adds `{list key}:__uuids` (set: the uuids a list holds, so a retried batch is a
//! no-op), `{project_key}:{session_id}:__lease` (hash: owner, epoch, expires_at) and
//! `{project_key}:__summaries` (hash: session id -> summary JSON).
//!
//! Each append is one `MULTI`/`EXEC` under `WATCH` of the list, the lease and the
//! summaries: the position and fence checks hold for what `EXEC` writes, and a
//! concurrent change aborts the transaction, which is then retried. Lease times use the
//! server's `TIME`.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use redis::AsyncCommands;
use redis::aio::MultiplexedConnection;
use serde_json::Value;

use super::shared::{
    by_session_id, expected_elsewhere, folded, new_entries, now_ms, object_of, parse_stored,
    record_data, settle_mismatch, summary_of_record, summary_record,
};
use super::{
    Appended, BackendError, BackendResult, Fence, Lease, ListedSession, LoadedEntries, Position,
    SessionKey, SessionStore, SessionSummary,
};

/// How often a transaction aborted by a concurrent writer is retried.
const WATCH_RETRIES: usize = 50;

pub struct RedisStore {
    client: redis::Client,
    prefix: String,
    /// One connection, used by one request at a time: `WATCH` belongs to a connection, so
    /// nothing else may run on it between `WATCH` and `EXEC`.
    conn: tokio::sync::Mutex<Option<MultiplexedConnection>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn rd(e: redis::RedisError) -> BackendError {
    BackendError::Unavailable(format!("redis: {e}"))
}

impl RedisStore {
    /// A store on `url`; the connection is made at the first request.
    pub async fn connect(url: &str, prefix: &str) -> BackendResult<RedisStore> {
        let client = redis::Client::open(url)
            .map_err(|e| BackendError::Invalid(format!("redis URL: {e}")))?;
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{}:", prefix.trim_end_matches(':'))
        };
        Ok(RedisStore {
            client,
            prefix,
            conn: tokio::sync::Mutex::new(None),
        })
    }

    fn entry_key(&self, key: &SessionKey) -> String {
        match &key.subpath {
            Some(s) => format!("{}{}:{}:{s}", self.prefix, key.project_key, key.session_id),
            None => format!("{}{}:{}", self.prefix, key.project_key, key.session_id),
        }
    }

    fn subkeys_key(&self, project_key: &str, session_id: &str) -> String {
        format!("{}{project_key}:{session_id}:__subkeys", self.prefix)
    }

    fn sessions_key(&self, project_key: &str) -> String {
        format!("{}{project_key}:__sessions", self.prefix)
    }

    fn summaries_key(&self, project_key: &str) -> String {
        format!("{}{project_key}:__summaries", self.prefix)
    }

    fn lease_key(&self, project_key: &str, session_id: &str) -> String {
        format!("{}{project_key}:{session_id}:__lease", self.prefix)
    }

    fn uuids_key(&self, key: &SessionKey) -> String {
        format!("{}:__uuids", self.entry_key(key))
    }

    /// Runs `f` on the connection (made if needed); an error drops the connection so the
    /// next request reconnects.
    async fn with_conn<T>(
        &self,
        f: impl AsyncFnOnce(&mut MultiplexedConnection) -> BackendResult<T>,
    ) -> BackendResult<T> {
        let mut guard = self.conn.lock().await;
        if guard.is_none() {
            let cfg = redis::AsyncConnectionConfig::new()
                .set_connection_timeout(Some(Duration::from_secs(5)))
                .set_response_timeout(Some(Duration::from_secs(10)));
            let c = self
                .client
                .get_multiplexed_async_connection_with_config(&cfg)
                .await
                .map_err(rd)?;
            *guard = Some(c);
        }
        let Some(conn) = guard.as_mut() else {
            return Err(BackendError::Unavailable("redis: no connection".into()));
        };
        let out = f(conn).await;
        if matches!(
            out,
            Err(BackendError::Unavailable(_)) | Err(BackendError::Timeout(_))
        ) {
            *guard = None;
        } else if out.is_err() {
            // A refused request may leave a WATCH behind.
            let _: Result<(), _> = redis::cmd("UNWATCH").query_async(conn).await;
        }
        out
    }

    async fn server_ms(conn: &mut MultiplexedConnection) -> BackendResult<i64> {
        let (secs, micros): (i64, i64) = redis::cmd("TIME").query_async(conn).await.map_err(rd)?;
        Ok(secs * 1000 + micros / 1000)
    }

    async fn lease_of(
        &self,
        conn: &mut MultiplexedConnection,
        project_key: &str,
        session_id: &str,
    ) -> BackendResult<Option<(String, u64, i64)>> {
        let h: std::collections::HashMap<String, String> = conn
            .hgetall(self.lease_key(project_key, session_id))
            .await
            .map_err(rd)?;
        if h.is_empty() {
            return Ok(None);
        }
        let num = |k: &str| h.get(k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        Ok(Some((
            h.get("owner").cloned().unwrap_or_default(),
            num("epoch").max(0) as u64,
            num("expires_at"),
        )))
    }

    async fn check_fence(
        &self,
        conn: &mut MultiplexedConnection,
        key: &SessionKey,
        fence: &Fence,
    ) -> BackendResult<()> {
        let cur = self
            .lease_of(conn, &key.project_key, &key.session_id)
            .await?;
        let (holder, epoch) = cur.map(|(o, e, _)| (o, e)).unwrap_or_default();
        if epoch != fence.epoch || holder != fence.owner {
            return Err(BackendError::Fenced {
                session_id: key.session_id.clone(),
                epoch: fence.epoch,
                current: epoch,
                holder,
            });
        }
        Ok(())
    }

    async fn append_once(
        &self,
        conn: &mut MultiplexedConnection,
        key: &SessionKey,
        entries: &[Value],
        at: Position,
        fence: Option<&Fence>,
    ) -> BackendResult<Option<Appended>> {
        let list = self.entry_key(key);
        let uuids = self.uuids_key(key);
        let lease = self.lease_key(&key.project_key, &key.session_id);
        let summaries = self.summaries_key(&key.project_key);
        redis::cmd("WATCH")
            .arg(&list)
            .arg(&lease)
            .arg(&summaries)
            .query_async::<()>(conn)
            .await
            .map_err(rd)?;
        if let Some(f) = fence {
            self.check_fence(conn, key, f).await?;
        }
        let have: u64 = conn.llen(&list).await.map_err(rd)?;
        if let Some(n) = expected_elsewhere(at, have) {
            let mut tail = Vec::new();
            if n < have {
                let end = (n + entries.len() as u64).saturating_sub(1);
                tail = conn
                    .lrange(&list, n as isize, end as isize)
                    .await
                    .map_err(rd)?;
            }
            let settled = settle_mismatch(key, n, have, &tail, entries)?;
            redis::cmd("UNWATCH")
                .query_async::<()>(conn)
                .await
                .map_err(rd)?;
            return Ok(Some(settled));
        }
        // Entries whose uuid the list already holds are not written again.
        let named: Vec<&str> = entries
            .iter()
            .filter_map(|e| e.get("uuid").and_then(Value::as_str))
            .collect();
        let present: Vec<bool> = if named.is_empty() {
            Vec::new()
        } else {
            redis::cmd("SMISMEMBER")
                .arg(&uuids)
                .arg(&named)
                .query_async(conn)
                .await
                .map_err(rd)?
        };
        let stored: std::collections::HashSet<&str> = named
            .iter()
            .zip(present)
            .filter_map(|(id, there)| there.then_some(*id))
            .collect();
        let fresh = new_entries(entries, |u| stored.contains(u))?;
        let (texts, new_ids) = (fresh.texts, fresh.uuids);
        if texts.is_empty() {
            redis::cmd("UNWATCH")
                .query_async::<()>(conn)
                .await
                .map_err(rd)?;
            return Ok(Some(Appended::AlreadyThere { len: have }));
        }
        let now = now_ms();
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.rpush(&list, &texts).ignore();
        if !new_ids.is_empty() {
            pipe.sadd(&uuids, &new_ids).ignore();
        }
        match &key.subpath {
            Some(sub) => {
                pipe.sadd(self.subkeys_key(&key.project_key, &key.session_id), sub)
                    .ignore();
            }
            None => {
                let prev: Option<String> =
                    conn.hget(&summaries, &key.session_id).await.map_err(rd)?;
                let prev = object_of(prev.as_deref()).as_ref().and_then(record_data);
                let record = summary_record(now, folded(prev, entries));
                pipe.zadd(self.sessions_key(&key.project_key), &key.session_id, now)
                    .ignore();
                pipe.hset(&summaries, &key.session_id, record.to_string())
                    .ignore();
            }
        }
        let done: Option<()> = pipe.query_async(conn).await.map_err(rd)?;
        Ok(done.map(|()| Appended::Written {
            len: have + texts.len() as u64,
        }))
    }
}

impl SessionStore for RedisStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [Value],
        at: Position,
        fence: Option<&'a Fence>,
    ) -> BoxFuture<'a, BackendResult<Appended>> {
        async move {
            if entries.is_empty() {
                return Ok(Appended::AlreadyThere {
                    len: self.len(key).await?,
                });
            }
            self.with_conn(async |conn| {
                for _ in 0..WATCH_RETRIES {
                    if let Some(done) = self.append_once(conn, key, entries, at, fence).await? {
                        return Ok(done);
                    }
                }
                Err(BackendError::Unavailable(format!(
                    "redis: {key} kept changing under the append ({WATCH_RETRIES} tries)"
                )))
            })
            .await
        }
        .boxed()
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, BackendResult<Option<LoadedEntries>>> {
        async move {
            self.with_conn(async |conn| {
                let raw: Vec<String> = conn.lrange(self.entry_key(key), 0, -1).await.map_err(rd)?;
                Ok((!raw.is_empty()).then(|| parse_stored(key, raw)))
            })
            .await
        }
        .boxed()
    }

    fn len<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<u64>> {
        async move {
            self.with_conn(async |conn| conn.llen(self.entry_key(key)).await.map_err(rd))
                .await
        }
        .boxed()
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<ListedSession>>> {
        async move {
            self.with_conn(async |conn| {
                let pairs: Vec<(String, f64)> = conn
                    .zrange_withscores(self.sessions_key(project_key), 0, -1)
                    .await
                    .map_err(rd)?;
                Ok(pairs
                    .into_iter()
                    .map(|(session_id, score)| ListedSession {
                        session_id,
                        mtime: score as i64,
                    })
                    .collect())
            })
            .await
        }
        .boxed()
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<SessionSummary>>> {
        async move {
            self.with_conn(async |conn| {
                let all: std::collections::HashMap<String, String> = conn
                    .hgetall(self.summaries_key(project_key))
                    .await
                    .map_err(rd)?;
                Ok(by_session_id(
                    all.into_iter()
                        .filter_map(|(id, text)| summary_of_record(id, &object_of(Some(&text))?))
                        .collect(),
                ))
            })
            .await
        }
        .boxed()
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<()>> {
        async move {
            self.with_conn(async |conn| {
                let subkeys = self.subkeys_key(&key.project_key, &key.session_id);
                let mut pipe = redis::pipe();
                pipe.atomic();
                match &key.subpath {
                    Some(sub) => {
                        pipe.del(&[self.entry_key(key), self.uuids_key(key)])
                            .ignore();
                        pipe.srem(&subkeys, sub).ignore();
                    }
                    None => {
                        let subs: Vec<String> = conn.smembers(&subkeys).await.map_err(rd)?;
                        let mut dead = vec![
                            self.entry_key(key),
                            self.uuids_key(key),
                            subkeys.clone(),
                            self.lease_key(&key.project_key, &key.session_id),
                        ];
                        for s in &subs {
                            let k = key.sub(s);
                            dead.push(self.entry_key(&k));
                            dead.push(self.uuids_key(&k));
                        }
                        pipe.del(&dead).ignore();
                        pipe.zrem(self.sessions_key(&key.project_key), &key.session_id)
                            .ignore();
                        pipe.hdel(self.summaries_key(&key.project_key), &key.session_id)
                            .ignore();
                    }
                }
                pipe.query_async::<()>(conn).await.map_err(rd)
            })
            .await
        }
        .boxed()
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<String>>> {
        async move {
            self.with_conn(async |conn| {
                let mut subs: Vec<String> = conn
                    .smembers(self.subkeys_key(project_key, session_id))
                    .await
                    .map_err(rd)?;
                subs.sort();
                Ok(subs)
            })
            .await
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
            let key = self.lease_key(project_key, session_id);
            self.with_conn(async |conn| {
                for _ in 0..WATCH_RETRIES {
                    redis::cmd("WATCH")
                        .arg(&key)
                        .query_async::<()>(conn)
                        .await
                        .map_err(rd)?;
                    let cur = self.lease_of(conn, project_key, session_id).await?;
                    let now = Self::server_ms(conn).await?;
                    if let Some((holder, _, expires)) = &cur
                        && holder != owner
                        && *expires > now
                    {
                        return Err(BackendError::LeaseHeld {
                            session_id: session_id.to_string(),
                            holder: holder.clone(),
                            remaining_ms: expires - now,
                        });
                    }
                    let lease = Lease {
                        owner: owner.to_string(),
                        epoch: cur.map_or(0, |c| c.1) + 1,
                        expires_at_ms: now + ttl.as_millis() as i64,
                    };
                    let done: Option<()> = redis::pipe()
                        .atomic()
                        .hset_multiple(
                            &key,
                            &[
                                ("owner", lease.owner.clone()),
                                ("epoch", lease.epoch.to_string()),
                                ("expires_at", lease.expires_at_ms.to_string()),
                            ],
                        )
                        .ignore()
                        .query_async(conn)
                        .await
                        .map_err(rd)?;
                    if done.is_some() {
                        return Ok(lease);
                    }
                }
                Err(BackendError::Unavailable(
                    "redis: the lease kept changing".into(),
                ))
            })
            .await
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
            let key = self.lease_key(project_key, session_id);
            self.with_conn(async |conn| {
                for _ in 0..WATCH_RETRIES {
                    redis::cmd("WATCH")
                        .arg(&key)
                        .query_async::<()>(conn)
                        .await
                        .map_err(rd)?;
                    self.check_fence(conn, &SessionKey::main(project_key, session_id), fence)
                        .await?;
                    let expires = Self::server_ms(conn).await? + ttl.as_millis() as i64;
                    let done: Option<()> = redis::pipe()
                        .atomic()
                        .hset(&key, "expires_at", expires)
                        .ignore()
                        .query_async(conn)
                        .await
                        .map_err(rd)?;
                    if done.is_some() {
                        return Ok(Lease {
                            owner: fence.owner.clone(),
                            epoch: fence.epoch,
                            expires_at_ms: expires,
                        });
                    }
                }
                Err(BackendError::Unavailable(
                    "redis: the lease kept changing".into(),
                ))
            })
            .await
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
            let key = self.lease_key(project_key, session_id);
            self.with_conn(async |conn| {
                redis::cmd("WATCH")
                    .arg(&key)
                    .query_async::<()>(conn)
                    .await
                    .map_err(rd)?;
                if self
                    .check_fence(conn, &SessionKey::main(project_key, session_id), fence)
                    .await
                    .is_err()
                {
                    redis::cmd("UNWATCH")
                        .query_async::<()>(conn)
                        .await
                        .map_err(rd)?;
                    return Ok(());
                }
                // Aborted means someone else changed it: theirs now, nothing to release.
                let _: Option<()> = redis::pipe()
                    .atomic()
                    .hset(&key, "expires_at", 0)
                    .ignore()
                    .query_async(conn)
                    .await
                    .map_err(rd)?;
                Ok(())
            })
            .await
        }
        .boxed()
    }
}
