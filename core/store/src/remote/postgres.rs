//! Postgres as a session store: one row per entry in the SDK reference adapter's table
//! (`project_key, session_id, subpath, seq bigserial, entry jsonb, mtime bigint`, primary
//! key `(project_key, session_id, subpath, seq)`), so the SDKs' adapters and dcl share it.
//! dcl adds, by migration: a unique index on each entry's `uuid` within its key (a retried
//! batch is a no-op), and two side tables, `<table>_leases` (owner, epoch, expiry per
//! session) and `<table>_summaries` (the SDKs' summary sidecar).
//!
//! Appends to one session are serialised by a transaction-scoped advisory lock on the
//! session, so the position check, the fence check, the insert and the summary fold see
//! one state. Lease times use the database's clock, never a worker's.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, Row, Transaction};

use super::shared::{
    by_session_id, expected_elsewhere, folded, new_entries, object_of, parse_stored,
    settle_mismatch,
};
use super::url::check_ident;
use super::{
    Appended, BackendError, BackendResult, Fence, Lease, ListedSession, LoadedEntries, Position,
    SessionKey, SessionStore, SessionSummary,
};

/// The schema version this build creates; older tables are migrated step by step.
const SCHEMA_VERSION: i32 = 2;

/// The database's clock in Unix milliseconds, as SQL.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

pub struct PostgresStore {
    pool: PgPool,
    table: String,
    migrated: tokio::sync::OnceCell<()>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

fn db(e: sqlx::Error) -> BackendError {
    BackendError::Unavailable(format!("postgres: {e}"))
}

/// Runs `;`-separated DDL one statement at a time (prepared statements take one each).
async fn run_all(tx: &mut Transaction<'static, Postgres>, sql: &str) -> BackendResult<()> {
    for stmt in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        sqlx::query(stmt).execute(&mut **tx).await.map_err(db)?;
    }
    Ok(())
}

impl PostgresStore {
    /// A pooled store on `url`. Connecting is lazy: a database that is down at start-up
    /// fails the first request (retried by the caller), not the opening.
    pub async fn connect(url: &str, table: &str) -> BackendResult<PostgresStore> {
        check_ident(table)?;
        let opts: PgConnectOptions = url
            .parse()
            .map_err(|e| BackendError::Invalid(format!("postgres URL: {e}")))?;
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(3))
            .connect_lazy_with(opts);
        Ok(PostgresStore {
            pool,
            table: table.to_string(),
            migrated: tokio::sync::OnceCell::new(),
        })
    }

    /// Creates or migrates the schema once per process (retried after a failure).
    async fn ready(&self) -> BackendResult<()> {
        self.migrated
            .get_or_try_init(|| self.migrate())
            .await
            .map(|_| ())
    }

    async fn migrate(&self) -> BackendResult<()> {
        let t = &self.table;
        let mut tx = self.pool.begin().await.map_err(db)?;
        // Several workers may start at once: one migrates, the others wait and find it done.
        sqlx::query("SELECT pg_advisory_xact_lock(hashtext('dcl_store_schema'))")
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS dcl_store_schema (table_name text PRIMARY KEY, version int NOT NULL)",
        )
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        let version: Option<i32> =
            sqlx::query_scalar("SELECT version FROM dcl_store_schema WHERE table_name = $1")
                .bind(t)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let version = version.unwrap_or(0);
        if version < 1 {
            // The SDK reference adapter's schema, exactly (IF NOT EXISTS: an adapter may
            // have made it already).
            let sql0 = format!(
                "CREATE TABLE IF NOT EXISTS {t} (
                   project_key text NOT NULL,
                   session_id text NOT NULL,
                   subpath text NOT NULL DEFAULT '',
                   seq bigserial,
                   entry jsonb NOT NULL,
                   mtime bigint NOT NULL,
                   PRIMARY KEY (project_key, session_id, subpath, seq));
                 CREATE INDEX IF NOT EXISTS {t}_list_idx ON {t} (project_key, session_id) WHERE subpath = '';"
            );
            run_all(&mut tx, &sql0).await?;
        }
        if version < 2 {
            let sql1 = format!(
                "CREATE UNIQUE INDEX IF NOT EXISTS {t}_uuid_idx
                   ON {t} (project_key, session_id, subpath, (entry->>'uuid')) WHERE entry ? 'uuid';
                 CREATE TABLE IF NOT EXISTS {t}_leases (
                   project_key text NOT NULL,
                   session_id text NOT NULL,
                   owner text NOT NULL,
                   epoch bigint NOT NULL,
                   expires_at bigint NOT NULL,
                   PRIMARY KEY (project_key, session_id));
                 CREATE TABLE IF NOT EXISTS {t}_summaries (
                   project_key text NOT NULL,
                   session_id text NOT NULL,
                   mtime bigint NOT NULL,
                   data jsonb NOT NULL,
                   PRIMARY KEY (project_key, session_id));"
            );
            run_all(&mut tx, &sql1).await?;
        }
        sqlx::query(
            "INSERT INTO dcl_store_schema (table_name, version) VALUES ($1, $2)
             ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version",
        )
        .bind(t)
        .bind(SCHEMA_VERSION)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)
    }

    /// Starts a transaction holding the session's advisory lock.
    async fn locked(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> BackendResult<Transaction<'static, Postgres>> {
        self.ready().await?;
        let mut tx = self.pool.begin().await.map_err(db)?;
        sqlx::query(
            "SELECT pg_advisory_xact_lock(hashtextextended($1 || chr(1) || $2 || chr(1) || $3, 0))",
        )
        .bind(&self.table)
        .bind(project_key)
        .bind(session_id)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        Ok(tx)
    }

    async fn lease_row(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        project_key: &str,
        session_id: &str,
    ) -> BackendResult<Option<(String, u64, i64, i64)>> {
        let sql2 = format!(
            "SELECT owner, epoch, expires_at, {NOW_MS} AS now FROM {}_leases
             WHERE project_key = $1 AND session_id = $2",
            self.table
        );
        let row = sqlx::query(&sql2)
            .bind(project_key)
            .bind(session_id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(db)?;
        Ok(row.map(|r| {
            let epoch: i64 = r.get("epoch");
            (
                r.get("owner"),
                epoch.max(0) as u64,
                r.get("expires_at"),
                r.get("now"),
            )
        }))
    }

    async fn check_fence(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        key: &SessionKey,
        fence: &Fence,
    ) -> BackendResult<()> {
        let cur = self
            .lease_row(tx, &key.project_key, &key.session_id)
            .await?;
        let (holder, epoch) = cur.map(|(o, e, _, _)| (o, e)).unwrap_or_default();
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

    async fn count(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        key: &SessionKey,
    ) -> BackendResult<u64> {
        let sql3 = format!(
            "SELECT count(*) FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3",
            self.table
        );
        let n: i64 = sqlx::query_scalar(&sql3)
            .bind(&key.project_key)
            .bind(&key.session_id)
            .bind(key.subpath.as_deref().unwrap_or(""))
            .fetch_one(&mut **tx)
            .await
            .map_err(db)?;
        Ok(n.max(0) as u64)
    }

    async fn append_tx(
        &self,
        key: &SessionKey,
        entries: &[Value],
        at: Position,
        fence: Option<&Fence>,
    ) -> BackendResult<Appended> {
        let t = &self.table;
        let sub = key.subpath.as_deref().unwrap_or("");
        let mut tx = self.locked(&key.project_key, &key.session_id).await?;
        if let Some(f) = fence {
            self.check_fence(&mut tx, key, f).await?;
        }
        let have = self.count(&mut tx, key).await?;
        if entries.is_empty() {
            return Ok(Appended::AlreadyThere { len: have });
        }
        if let Some(n) = expected_elsewhere(at, have) {
            let mut tail = Vec::new();
            if n < have {
                let sql4 = format!(
                    "SELECT entry::text FROM {t} WHERE project_key = $1 AND session_id = $2 AND subpath = $3
                     ORDER BY seq OFFSET $4 LIMIT $5"
                );
                tail = sqlx::query_scalar(&sql4)
                    .bind(&key.project_key)
                    .bind(&key.session_id)
                    .bind(sub)
                    .bind(n as i64)
                    .bind(entries.len() as i64)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(db)?;
            }
            return settle_mismatch(key, n, have, &tail, entries);
        }
        // The uuids already stored are skipped by the unique index (ON CONFLICT below).
        let texts = new_entries(entries, |_| false)?.texts;
        // One statement for the batch, in order (one bigserial draw per row, by ordinality);
        // an entry whose uuid the key already holds is skipped.
        let sql5 = format!(
            "INSERT INTO {t} (project_key, session_id, subpath, entry, mtime)
             SELECT $1, $2, $3, e::jsonb, {NOW_MS}
             FROM unnest($4::text[]) WITH ORDINALITY AS x(e, ord) ORDER BY ord
             ON CONFLICT (project_key, session_id, subpath, (entry->>'uuid')) WHERE entry ? 'uuid' DO NOTHING"
        );
        let written = sqlx::query(&sql5)
            .bind(&key.project_key)
            .bind(&key.session_id)
            .bind(sub)
            .bind(&texts)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        if key.subpath.is_none() {
            let sql6 = format!(
                "SELECT data::text FROM {t}_summaries WHERE project_key = $1 AND session_id = $2"
            );
            let prev: Option<String> = sqlx::query_scalar(&sql6)
                .bind(&key.project_key)
                .bind(&key.session_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
            let data = folded(object_of(prev.as_deref()), entries);
            // Stamped after the rows, by the same clock: never older than list_sessions' mtime.
            let sql7 = format!(
                "INSERT INTO {t}_summaries (project_key, session_id, mtime, data)
                 VALUES ($1, $2, {NOW_MS}, $3::jsonb)
                 ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = EXCLUDED.mtime, data = EXCLUDED.data"
            );
            sqlx::query(&sql7)
                .bind(&key.project_key)
                .bind(&key.session_id)
                .bind(Value::Object(data).to_string())
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(Appended::Written {
            len: have + written,
        })
    }
}

impl SessionStore for PostgresStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [Value],
        at: Position,
        fence: Option<&'a Fence>,
    ) -> BoxFuture<'a, BackendResult<Appended>> {
        self.append_tx(key, entries, at, fence).boxed()
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, BackendResult<Option<LoadedEntries>>> {
        async move {
            self.ready().await?;
            let sql8 = format!(
                "SELECT entry::text FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3 ORDER BY seq",
                self.table
            );
            let rows: Vec<String> = sqlx::query_scalar(&sql8)
            .bind(&key.project_key)
            .bind(&key.session_id)
            .bind(key.subpath.as_deref().unwrap_or(""))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            Ok((!rows.is_empty()).then(|| parse_stored(key, rows)))
        }
        .boxed()
    }

    fn len<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<u64>> {
        async move {
            self.ready().await?;
            let sql9 = format!(
                "SELECT count(*) FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3",
                self.table
            );
            let n: i64 = sqlx::query_scalar(&sql9)
            .bind(&key.project_key)
            .bind(&key.session_id)
            .bind(key.subpath.as_deref().unwrap_or(""))
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
            Ok(n.max(0) as u64)
        }
        .boxed()
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<ListedSession>>> {
        async move {
            self.ready().await?;
            let sql10 = format!(
                "SELECT session_id, MAX(mtime) AS mtime FROM {} WHERE project_key = $1 AND subpath = '' GROUP BY session_id",
                self.table
            );
            let rows = sqlx::query(&sql10)
            .bind(project_key)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            Ok(rows
                .iter()
                .map(|r| ListedSession {
                    session_id: r.get("session_id"),
                    mtime: r.get("mtime"),
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
            self.ready().await?;
            let sql11 = format!(
                "SELECT session_id, mtime, data::text AS data FROM {}_summaries WHERE project_key = $1",
                self.table
            );
            let rows = sqlx::query(&sql11)
            .bind(project_key)
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            Ok(by_session_id(
                rows.iter()
                    .map(|r| {
                        let data: String = r.get("data");
                        SessionSummary {
                            session_id: r.get("session_id"),
                            mtime: r.get("mtime"),
                            data: object_of(Some(&data)).unwrap_or_default(),
                        }
                    })
                    .collect(),
            ))
        }
        .boxed()
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, BackendResult<()>> {
        async move {
            let t = &self.table;
            let mut tx = self.locked(&key.project_key, &key.session_id).await?;
            match &key.subpath {
                Some(sub) => {
                    let sql12 = format!(
                        "DELETE FROM {t} WHERE project_key = $1 AND session_id = $2 AND subpath = $3"
                    );
                    sqlx::query(&sql12)
                    .bind(&key.project_key)
                    .bind(&key.session_id)
                    .bind(sub)
                    .execute(&mut *tx)
                    .await
                    .map_err(db)?;
                }
                None => {
                    for table in [t.clone(), format!("{t}_summaries"), format!("{t}_leases")] {
                        let sql13 = format!(
                            "DELETE FROM {table} WHERE project_key = $1 AND session_id = $2"
                        );
                        sqlx::query(&sql13)
                        .bind(&key.project_key)
                        .bind(&key.session_id)
                        .execute(&mut *tx)
                        .await
                        .map_err(db)?;
                    }
                }
            }
            tx.commit().await.map_err(db)
        }
        .boxed()
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, BackendResult<Vec<String>>> {
        async move {
            self.ready().await?;
            let sql14 = format!(
                "SELECT DISTINCT subpath FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath <> '' ORDER BY subpath",
                self.table
            );
            sqlx::query_scalar(&sql14)
            .bind(project_key)
            .bind(session_id)
            .fetch_all(&self.pool)
            .await
            .map_err(db)
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
            let mut tx = self.locked(project_key, session_id).await?;
            let cur = self.lease_row(&mut tx, project_key, session_id).await?;
            if let Some((holder, _, expires, now)) = &cur
                && holder != owner
                && expires > now
            {
                return Err(BackendError::LeaseHeld {
                    session_id: session_id.to_string(),
                    holder: holder.clone(),
                    remaining_ms: expires - now,
                });
            }
            let epoch = cur.as_ref().map_or(0, |c| c.1) + 1;
            let sql15 = format!(
                "INSERT INTO {}_leases (project_key, session_id, owner, epoch, expires_at)
                 VALUES ($1, $2, $3, $4, {NOW_MS} + $5)
                 ON CONFLICT (project_key, session_id) DO UPDATE
                   SET owner = EXCLUDED.owner, epoch = EXCLUDED.epoch, expires_at = EXCLUDED.expires_at
                 RETURNING expires_at",
                self.table
            );
            let expires: i64 = sqlx::query_scalar(&sql15)
            .bind(project_key)
            .bind(session_id)
            .bind(owner)
            .bind(epoch as i64)
            .bind(ttl.as_millis() as i64)
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Lease {
                owner: owner.to_string(),
                epoch,
                expires_at_ms: expires,
            })
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
            let mut tx = self.locked(project_key, session_id).await?;
            self.check_fence(&mut tx, &SessionKey::main(project_key, session_id), fence)
                .await?;
            let sql16 = format!(
                "UPDATE {}_leases SET expires_at = {NOW_MS} + $3
                 WHERE project_key = $1 AND session_id = $2 RETURNING expires_at",
                self.table
            );
            let expires: i64 = sqlx::query_scalar(&sql16)
                .bind(project_key)
                .bind(session_id)
                .bind(ttl.as_millis() as i64)
                .fetch_one(&mut *tx)
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Lease {
                owner: fence.owner.clone(),
                epoch: fence.epoch,
                expires_at_ms: expires,
            })
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
            let mut tx = self.locked(project_key, session_id).await?;
            let sql17 = format!(
                "UPDATE {}_leases SET expires_at = 0
                 WHERE project_key = $1 AND session_id = $2 AND owner = $3 AND epoch = $4",
                self.table
            );
            sqlx::query(&sql17)
                .bind(project_key)
                .bind(session_id)
                .bind(&fence.owner)
                .bind(fence.epoch as i64)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)
        }
        .boxed()
    }
}
