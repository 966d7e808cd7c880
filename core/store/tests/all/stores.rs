//! The session stores against real servers: the SDKs' SessionStore contracts (ported from
//! their conformance modules), positions and retried batches, lease fencing, corrupt
//! entries, and draining through an outage. Postgres and Redis run on 127.0.0.1 in temp
//! dirs (dcl_test_support::dbs); without their binaries these tests say so loudly and
//! skip, except under CI=true where they fail.

use std::sync::Arc;
use std::time::Duration;

use dcl_store::remote::file::FileStore;
use dcl_store::remote::postgres::PostgresStore;
use dcl_store::remote::redis::RedisStore;
use dcl_store::remote::sync::StoreSync;
use dcl_store::remote::{Appended, BackendError, Position, SessionKey, SessionStore};
use dcl_test_support::dbs::{PgServer, RedisServer};
use serde_json::{Value, json};

fn e(v: Value) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), json!("x"));
    if let Value::Object(o) = v {
        m.extend(o);
    }
    Value::Object(m)
}

fn key(p: &str, s: &str) -> SessionKey {
    SessionKey::main(p, s)
}

async fn append(store: &dyn SessionStore, k: &SessionKey, entries: Vec<Value>) {
    store
        .append(k, &entries, Position::End, None)
        .await
        .unwrap();
}

async fn load(store: &dyn SessionStore, k: &SessionKey) -> Option<Vec<Value>> {
    store.load(k).await.unwrap().map(|l| l.entries)
}

/// The SDKs' 14 behavioural contracts; `fresh` gives an empty, isolated store each time.
async fn contracts<F, Fut>(fresh: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn SessionStore>>,
{
    let k = key("proj", "sess");
    // 1. append then load: same entries, same order.
    let s = fresh().await;
    append(
        &*s,
        &k,
        vec![e(json!({"uuid":"b","n":1})), e(json!({"uuid":"a","n":2}))],
    )
    .await;
    assert_eq!(
        load(&*s, &k).await.unwrap(),
        vec![e(json!({"uuid":"b","n":1})), e(json!({"uuid":"a","n":2}))]
    );
    // 2. unknown key: None (a subpath never written too).
    let s = fresh().await;
    assert_eq!(load(&*s, &key("proj", "nope")).await, None);
    append(&*s, &k, vec![e(json!({"uuid":"x","n":1}))]).await;
    assert_eq!(load(&*s, &k.sub("nope")).await, None);
    // 3. several appends keep call order.
    let s = fresh().await;
    append(&*s, &k, vec![e(json!({"uuid":"z","n":1}))]).await;
    append(
        &*s,
        &k,
        vec![e(json!({"uuid":"a","n":2})), e(json!({"uuid":"m","n":3}))],
    )
    .await;
    append(&*s, &k, vec![e(json!({"uuid":"b","n":4}))]).await;
    let ns: Vec<Value> = load(&*s, &k)
        .await
        .unwrap()
        .iter()
        .map(|v| v["n"].clone())
        .collect();
    assert_eq!(ns, vec![json!(1), json!(2), json!(3), json!(4)]);
    // 4. an empty append is a no-op.
    let s = fresh().await;
    append(&*s, &k, vec![e(json!({"uuid":"a","n":1}))]).await;
    append(&*s, &k, vec![]).await;
    assert_eq!(load(&*s, &k).await.unwrap().len(), 1);
    // 5. subpaths are independent of the main transcript.
    let s = fresh().await;
    let sub = k.sub("subagents/agent-1");
    append(&*s, &k, vec![e(json!({"uuid":"m","n":1}))]).await;
    append(&*s, &sub, vec![e(json!({"uuid":"s","n":1}))]).await;
    assert_eq!(
        load(&*s, &k).await.unwrap(),
        vec![e(json!({"uuid":"m","n":1}))]
    );
    assert_eq!(
        load(&*s, &sub).await.unwrap(),
        vec![e(json!({"uuid":"s","n":1}))]
    );
    // 6. project isolation.
    let s = fresh().await;
    append(&*s, &key("A", "s1"), vec![e(json!({"from":"A"}))]).await;
    append(&*s, &key("B", "s1"), vec![e(json!({"from":"B"}))]).await;
    assert_eq!(
        load(&*s, &key("A", "s1")).await.unwrap(),
        vec![e(json!({"from":"A"}))]
    );
    assert_eq!(s.list_sessions("A").await.unwrap().len(), 1);
    // 7. list_sessions: ids of the project, epoch-ms mtimes.
    let s = fresh().await;
    append(&*s, &key("proj", "a"), vec![e(json!({"n":1}))]).await;
    append(&*s, &key("proj", "b"), vec![e(json!({"n":1}))]).await;
    append(&*s, &key("other", "c"), vec![e(json!({"n":1}))]).await;
    let mut ids: Vec<String> = s
        .list_sessions("proj")
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.session_id)
        .collect();
    ids.sort();
    assert_eq!(ids, ["a", "b"]);
    assert!(
        s.list_sessions("proj")
            .await
            .unwrap()
            .iter()
            .all(|l| l.mtime > 1_000_000_000_000)
    );
    assert!(s.list_sessions("never").await.unwrap().is_empty());
    // 8. subagent subpaths are not sessions.
    let s = fresh().await;
    append(&*s, &key("proj", "main"), vec![e(json!({"n":1}))]).await;
    append(
        &*s,
        &key("proj", "main").sub("subagents/agent-1"),
        vec![e(json!({"n":1}))],
    )
    .await;
    let ids: Vec<String> = s
        .list_sessions("proj")
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.session_id)
        .collect();
    assert_eq!(ids, ["main"]);
    // 14. summaries: folded, mtime not older than list_sessions', subagents never count.
    let s = fresh().await;
    let sk = key("proj", "summ-sess");
    append(
        &*s,
        &sk,
        vec![
            e(json!({"timestamp":"2024-01-01T00:00:00.000Z","customTitle":"first"})),
            e(json!({"timestamp":"2024-01-01T00:00:01.000Z"})),
        ],
    )
    .await;
    append(
        &*s,
        &sk,
        vec![e(
            json!({"timestamp":"2024-01-01T00:00:02.000Z","customTitle":"second"}),
        )],
    )
    .await;
    append(
        &*s,
        &key("other", "elsewhere"),
        vec![e(json!({"timestamp":"2024-01-01T00:00:00.000Z"}))],
    )
    .await;
    let sums = s.list_session_summaries("proj").await.unwrap();
    assert_eq!(sums.len(), 1);
    assert_eq!(sums[0].session_id, "summ-sess");
    assert_eq!(sums[0].data["custom_title"], json!("second"));
    assert_eq!(sums[0].data["created_at"], json!(1704067200000_i64));
    let listed = s.list_sessions("proj").await.unwrap();
    assert!(sums[0].mtime >= listed[0].mtime);
    append(
        &*s,
        &sk.sub("subagents/agent-1"),
        vec![e(json!({"customTitle":"subagent"}))],
    )
    .await;
    assert_eq!(
        s.list_session_summaries("proj").await.unwrap()[0].data,
        sums[0].data
    );
    s.delete(&sk).await.unwrap();
    assert!(s.list_session_summaries("proj").await.unwrap().is_empty());
    // 9. delete, then load: None (deleting what was never written is fine).
    let s = fresh().await;
    s.delete(&key("proj", "never-written")).await.unwrap();
    append(&*s, &k, vec![e(json!({"n":1}))]).await;
    s.delete(&k).await.unwrap();
    assert_eq!(load(&*s, &k).await, None);
    // 10. deleting a session cascades to its subkeys, and only its own.
    let s = fresh().await;
    let (s1, s2) = (k.sub("subagents/agent-1"), k.sub("subagents/agent-2"));
    for kk in [
        &k,
        &s1,
        &s2,
        &key("proj", "sess2"),
        &key("other-proj", "sess"),
    ] {
        append(&*s, kk, vec![e(json!({"n":1}))]).await;
    }
    s.delete(&k).await.unwrap();
    assert_eq!(load(&*s, &s1).await, None);
    assert_eq!(load(&*s, &s2).await, None);
    assert_eq!(load(&*s, &key("proj", "sess2")).await.unwrap().len(), 1);
    assert_eq!(
        load(&*s, &key("other-proj", "sess")).await.unwrap().len(),
        1
    );
    assert!(s.list_subkeys("proj", "sess").await.unwrap().is_empty());
    assert!(
        !s.list_sessions("proj")
            .await
            .unwrap()
            .iter()
            .any(|l| l.session_id == "sess")
    );
    // 11. deleting one subpath leaves the rest.
    let s = fresh().await;
    for kk in [&k, &s1, &s2] {
        append(&*s, kk, vec![e(json!({"n":1}))]).await;
    }
    s.delete(&s1).await.unwrap();
    assert_eq!(load(&*s, &s1).await, None);
    assert_eq!(load(&*s, &s2).await.unwrap().len(), 1);
    assert_eq!(
        s.list_subkeys("proj", "sess").await.unwrap(),
        ["subagents/agent-2"]
    );
    // 12/13. list_subkeys: this session's subpaths, never the main transcript.
    let s = fresh().await;
    append(&*s, &k, vec![e(json!({"n":1}))]).await;
    assert!(s.list_subkeys("proj", "sess").await.unwrap().is_empty());
    append(&*s, &s1, vec![e(json!({"n":1}))]).await;
    append(&*s, &s2, vec![e(json!({"n":1}))]).await;
    append(
        &*s,
        &key("proj", "other-sess").sub("subagents/agent-x"),
        vec![e(json!({"n":1}))],
    )
    .await;
    assert_eq!(
        s.list_subkeys("proj", "sess").await.unwrap(),
        ["subagents/agent-1", "subagents/agent-2"]
    );
    assert!(s.list_subkeys("proj", "never").await.unwrap().is_empty());
}

/// What dcl adds to the contract: positions, retried batches, leases and fences.
async fn ownership(s: Arc<dyn SessionStore>) {
    let k = key("proj", "4b0e8a52-5f0e-4b8f-9a56-1c2d3e4f5a6b");
    let ttl = Duration::from_secs(30);
    let a = s
        .acquire(&k.project_key, &k.session_id, "worker-a", ttl)
        .await
        .unwrap();
    // Another worker is refused while A's lease lives.
    let held = s
        .acquire(&k.project_key, &k.session_id, "worker-b", ttl)
        .await
        .unwrap_err();
    assert!(
        matches!(held, BackendError::LeaseHeld { ref holder, .. } if holder == "worker-a"),
        "{held}"
    );
    let batch = vec![e(json!({"uuid":"u1","n":1})), e(json!({"uuid":"u2","n":2}))];
    let done = s
        .append(&k, &batch, Position::At(0), Some(&a.fence()))
        .await
        .unwrap();
    assert_eq!(done, Appended::Written { len: 2 });
    // The same batch again at the same position (a retry after a lost answer): no-op.
    let again = s
        .append(&k, &batch, Position::At(0), Some(&a.fence()))
        .await
        .unwrap();
    assert_eq!(again, Appended::AlreadyThere { len: 2 });
    assert_eq!(load(&*s, &k).await.unwrap().len(), 2);
    // A different batch at a stale position is a conflict.
    let other = vec![e(json!({"uuid":"zz","n":9}))];
    let c = s
        .append(&k, &other, Position::At(1), Some(&a.fence()))
        .await
        .unwrap_err();
    assert!(
        matches!(
            c,
            BackendError::Conflict {
                expected: 1,
                actual: 2,
                ..
            }
        ),
        "{c}"
    );
    // A uuid already stored is never written twice, whatever the position says.
    let dup = s
        .append(&k, &[e(json!({"uuid":"u1","n":1}))], Position::End, None)
        .await
        .unwrap();
    assert_eq!(dup.len(), 2);
    // A released lease passes to B with a higher epoch; A is fenced off from then on.
    s.release(&k.project_key, &k.session_id, &a.fence())
        .await
        .unwrap();
    let b = s
        .acquire(&k.project_key, &k.session_id, "worker-b", ttl)
        .await
        .unwrap();
    assert!(b.epoch > a.epoch);
    let stale = s
        .append(&k, &other, Position::At(2), Some(&a.fence()))
        .await
        .unwrap_err();
    assert!(matches!(stale, BackendError::Fenced { .. }), "{stale}");
    assert!(stale.to_string().contains("taken over"), "{stale}");
    assert!(matches!(
        s.renew(&k.project_key, &k.session_id, &a.fence(), ttl)
            .await,
        Err(BackendError::Fenced { .. })
    ));
    s.append(&k, &other, Position::At(2), Some(&b.fence()))
        .await
        .unwrap();
    // An expired lease may be taken by anyone.
    s.renew(
        &k.project_key,
        &k.session_id,
        &b.fence(),
        Duration::from_millis(1),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let c2 = s
        .acquire(&k.project_key, &k.session_id, "worker-c", ttl)
        .await
        .unwrap();
    assert!(c2.epoch > b.epoch);
    let ns: Vec<Value> = load(&*s, &k)
        .await
        .unwrap()
        .iter()
        .map(|v| v["n"].clone())
        .collect();
    assert_eq!(ns, vec![json!(1), json!(2), json!(9)]);
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

#[tokio::test]
async fn file_store_keeps_the_contracts() {
    let root = tempfile::tempdir().unwrap();
    let n = std::sync::atomic::AtomicUsize::new(0);
    let base = root.path().to_path_buf();
    contracts(|| {
        let dir = base.join(
            n.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                .to_string(),
        );
        async move { Arc::new(FileStore::new(dir)) as Arc<dyn SessionStore> }
    })
    .await;
    ownership(Arc::new(FileStore::new(base.join("own")))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_store_keeps_the_contracts() {
    let Some(pg) = PgServer::start() else { return };
    let url = pg.url();
    let n = std::sync::atomic::AtomicUsize::new(0);
    contracts(|| {
        let table = format!("t{}", n.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        let url = url.clone();
        async move {
            Arc::new(PostgresStore::connect(&url, &table).await.unwrap()) as Arc<dyn SessionStore>
        }
    })
    .await;
    ownership(Arc::new(PostgresStore::connect(&url, "own").await.unwrap())).await;
    drop(pg);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_keeps_the_contracts() {
    let Some(r) = RedisServer::start() else {
        return;
    };
    let url = r.url();
    let n = std::sync::atomic::AtomicUsize::new(0);
    contracts(|| {
        let prefix = format!("p{}", n.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        let url = url.clone();
        async move {
            Arc::new(RedisStore::connect(&url, &prefix).await.unwrap()) as Arc<dyn SessionStore>
        }
    })
    .await;
    ownership(Arc::new(RedisStore::connect(&url, "own").await.unwrap())).await;
    drop(r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_reference_table_is_shared_and_corrupt_entries_are_skipped() {
    let Some(pg) = PgServer::start() else { return };
    let s = PostgresStore::connect(&pg.url(), "claude_session_store")
        .await
        .unwrap();
    let k = key("proj", "sess");
    append(&s, &k, vec![e(json!({"uuid":"a"}))]).await;
    // What an SDK adapter writes (its own INSERT, no uuid handling) is read back by dcl;
    // a row that is not an object is skipped with a warning.
    let mut c = sqlx_exec(&pg.url()).await;
    use sqlx::Executor;
    c.execute("INSERT INTO claude_session_store (project_key, session_id, subpath, entry, mtime) VALUES ('proj','sess','', '\"junk\"'::jsonb, 1), ('proj','sess','', '{\"type\":\"x\",\"uuid\":\"b\"}'::jsonb, 2)")
        .await
        .unwrap();
    let loaded = s.load(&k).await.unwrap().unwrap();
    assert_eq!(loaded.skipped, 1);
    let ids: Vec<&str> = loaded
        .entries
        .iter()
        .filter_map(|e| e["uuid"].as_str())
        .collect();
    assert_eq!(ids, ["a", "b"]);
}

async fn sqlx_exec(url: &str) -> sqlx::PgConnection {
    use sqlx::Connection;
    sqlx::PgConnection::connect(url).await.unwrap()
}

/// Entries written while the store is down wait, one warning is queued, and everything
/// lands in order once it is back.
fn drains_through_an_outage(
    stop: &mut dyn FnMut(),
    start: &mut dyn FnMut(),
    store: Arc<dyn SessionStore>,
) {
    let home = tempfile::tempdir().unwrap();
    let sid = "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b";
    let dir = home.path().join("projects").join("-repo");
    let file = dir.join(format!("{sid}.jsonl"));
    let sync = StoreSync::with_store(
        store.clone(),
        runtime(),
        "test".into(),
        "w1".into(),
        Duration::from_secs(30),
    );
    sync.acquire("-repo", sid).unwrap();
    let sink = sync.sink();
    for i in 0..5 {
        sink.push(&file, json!({"type":"user","uuid":format!("u{i}"),"n":i}));
    }
    assert!(
        sync.flush(Duration::from_secs(20)),
        "first batch never drained"
    );
    stop();
    for i in 5..10 {
        sink.push(&file, json!({"type":"user","uuid":format!("u{i}"),"n":i}));
    }
    sink.push(
        &dir.join(sid).join("subagents/agent-a1.jsonl"),
        json!({"type":"agent_metadata","agentType":"x"}),
    );
    // Pushing never blocks, whatever the store does.
    assert!(
        !sync.flush(Duration::from_millis(800)),
        "drained while the store was down?"
    );
    // The warning comes once the store has been found down (a pool may first wait for
    // a connection).
    let mut warnings = Vec::new();
    for _ in 0..200 {
        warnings.extend(sync.take_warnings());
        if !warnings.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    warnings.extend(sync.take_warnings());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].error.contains("unavailable") || warnings[0].error.contains("timed out"),
        "{warnings:?}"
    );
    start();
    assert!(
        sync.flush(Duration::from_secs(30)),
        "not drained after the store came back"
    );
    let after = sync.take_warnings();
    assert!(after.is_empty(), "one warning per outage: {after:?}");
    let rt = runtime();
    let loaded = rt
        .block_on(store.load(&key("-repo", sid)))
        .unwrap()
        .unwrap();
    let ns: Vec<i64> = loaded
        .entries
        .iter()
        .filter_map(|v| v["n"].as_i64())
        .collect();
    assert_eq!(ns, (0..10).collect::<Vec<_>>());
    let subs = rt.block_on(store.list_subkeys("-repo", sid)).unwrap();
    assert_eq!(subs, ["subagents/agent-a1"]);
    assert_eq!(sync.watermark()[&key("-repo", sid)], 10);
    sync.close(Duration::from_secs(5));
    // The lease was given up: another worker takes the session at once.
    rt.block_on(store.acquire("-repo", sid, "w2", Duration::from_secs(30)))
        .unwrap();
}

#[test]
fn postgres_outage_loses_nothing() {
    let Some(pg) = PgServer::start() else { return };
    let pg = std::sync::Mutex::new(pg);
    let url = pg.lock().unwrap().url();
    let rt = runtime();
    let store: Arc<dyn SessionStore> =
        Arc::new(rt.block_on(PostgresStore::connect(&url, "outage")).unwrap());
    drains_through_an_outage(
        &mut || pg.lock().unwrap().stop(),
        &mut || pg.lock().unwrap().resume(),
        store,
    );
}

#[test]
fn redis_outage_loses_nothing() {
    let Some(r) = RedisServer::start() else {
        return;
    };
    let r = std::sync::Mutex::new(r);
    let url = r.lock().unwrap().url();
    let rt = runtime();
    let store: Arc<dyn SessionStore> =
        Arc::new(rt.block_on(RedisStore::connect(&url, "outage")).unwrap());
    drains_through_an_outage(
        &mut || r.lock().unwrap().stop(),
        &mut || r.lock().unwrap().resume(),
        store,
    );
}

/// A worker that never saw a session gets it from the store in the reference layout:
/// the main transcript (`type` first on each line), each subagent transcript, and the
/// subagent's `.meta.json` from its `agent_metadata` entry; a corrupt stored entry is
/// skipped with a warning for the host.
#[test]
fn a_session_only_the_store_holds_is_written_into_the_local_layout() {
    let root = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(root.path().join("store")));
    let sid = "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b";
    let main = key("-repo", sid);
    let sub = main.sub("subagents/agent-a1");
    let rt = runtime();
    rt.block_on(async {
        store
            .append(
                &main,
                &[json!({"uuid":"u1","type":"user","message":{"content":"hi"}})],
                Position::End,
                None,
            )
            .await
            .unwrap();
        store
            .append(
                &sub,
                &[
                    json!({"type":"agent_metadata","agentType":"Explore","toolUseId":"t1"}),
                    json!({"type":"user","uuid":"s1","isSidechain":true}),
                ],
                Position::End,
                None,
            )
            .await
            .unwrap();
    });
    // A line that is not JSON, as a damaged store might hold.
    let stored_main = root
        .path()
        .join(format!("store/projects/-repo/{sid}.jsonl"));
    let mut text = std::fs::read_to_string(&stored_main).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&stored_main, text).unwrap();
    let sync = StoreSync::with_store(
        store,
        runtime(),
        "file".into(),
        "w".into(),
        Duration::from_secs(30),
    );
    let local = root.path().join("home/projects/-repo");
    assert!(sync.materialize(&local, "-repo", sid).unwrap());
    let main_text = std::fs::read_to_string(local.join(format!("{sid}.jsonl"))).unwrap();
    assert_eq!(main_text.lines().count(), 1);
    assert!(main_text.starts_with("{\"type\":\"user\""), "{main_text}");
    let sub_text =
        std::fs::read_to_string(local.join(sid).join("subagents/agent-a1.jsonl")).unwrap();
    assert_eq!(
        sub_text.lines().count(),
        1,
        "agent_metadata belongs in the sidecar: {sub_text}"
    );
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(local.join(sid).join("subagents/agent-a1.meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta, json!({"agentType":"Explore","toolUseId":"t1"}));
    let warnings = sync.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].error.contains("corrupt"), "{warnings:?}");
    assert!(
        !sync
            .materialize(&local, "-repo", "1b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b")
            .unwrap()
    );
}
