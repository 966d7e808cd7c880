//! Session store figures for BENCHMARKS.md: appends per second (one entry per append, as
//! the drain task sends a quiet session's entries, and batches of 100) and the resume of a
//! 1,000-message session (load from the store and write the local layout), on the file,
//! Postgres and Redis backends. Postgres and Redis run on 127.0.0.1 in temp dirs.
//!
//! `cargo run --release -p dcl-store --example store_bench`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly

use std::sync::Arc;
use std::time::{Duration, Instant};

use dcl_store::remote::file::FileStore;
use dcl_store::remote::postgres::PostgresStore;
use dcl_store::remote::redis::RedisStore;
use dcl_store::remote::sync::StoreSync;
use dcl_store::remote::{Position, SessionKey, SessionStore};
use dcl_test_support::dbs::{PgServer, RedisServer};
use serde_json::{Value, json};

const SINGLE: usize = 1_000;
const BATCHES: usize = 50;
const RESUME: usize = 1_000;

fn entry(i: usize, parent: Option<String>) -> Value {
    let role = if i.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    json!({
        "type": role,
        "uuid": format!("00000000-0000-4000-8000-{i:012}"),
        "parentUuid": parent,
        "sessionId": "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/repo",
        "message": {"role": role,
                    "content": [{"type": "text", "text": format!("message {i}: {}", "lorem ipsum ".repeat(20))}]},
    })
}

fn entries(n: usize, from: usize) -> Vec<Value> {
    (from..from + n)
        .map(|i| {
            entry(
                i,
                (i > 0).then(|| format!("00000000-0000-4000-8000-{:012}", i - 1)),
            )
        })
        .collect()
}

async fn bench(name: &str, store: Arc<dyn SessionStore>) {
    let key = SessionKey::main("-bench", "0b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b");
    let lease = store
        .acquire(
            &key.project_key,
            &key.session_id,
            "bench",
            Duration::from_secs(600),
        )
        .await
        .unwrap();
    let fence = lease.fence();
    let t = Instant::now();
    for (i, e) in entries(SINGLE, 0).into_iter().enumerate() {
        store
            .append(&key, &[e], Position::At(i as u64), Some(&fence))
            .await
            .unwrap();
    }
    let single = SINGLE as f64 / t.elapsed().as_secs_f64();
    let key2 = SessionKey::main("-bench", "1b6f4a52-5f0e-4b8f-9a56-1c2d3e4f5a6b");
    let lease2 = store
        .acquire(
            &key2.project_key,
            &key2.session_id,
            "bench",
            Duration::from_secs(600),
        )
        .await
        .unwrap();
    let t = Instant::now();
    for b in 0..BATCHES {
        let batch = entries(100, b * 100);
        store
            .append(
                &key2,
                &batch,
                Position::At((b * 100) as u64),
                Some(&lease2.fence()),
            )
            .await
            .unwrap();
    }
    let batched = (BATCHES * 100) as f64 / t.elapsed().as_secs_f64();
    // Resume: the first key holds 1,000 messages.
    assert_eq!(store.len(&key).await.unwrap(), RESUME as u64);
    let t = Instant::now();
    let loaded = store.load(&key).await.unwrap().unwrap();
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(loaded.entries.len(), RESUME);
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let sync = StoreSync::with_store(
        store.clone(),
        rt,
        name.into(),
        "bench-r".into(),
        Duration::from_secs(60),
    );
    let local = dir.path().join("projects/-bench");
    let t = tokio::task::block_in_place(|| {
        let t = Instant::now();
        assert!(
            sync.materialize(&local, &key.project_key, &key.session_id)
                .unwrap()
        );
        t.elapsed()
    });
    println!(
        "| {name} | {single:.0} | {batched:.0} | {load_ms:.1} | {:.1} |",
        t.as_secs_f64() * 1000.0
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    println!(
        "| backend | appends/s (1 entry each) | entries/s (batches of 100) | load 1,000 messages (ms) | resume into the local layout (ms) |"
    );
    println!("|---|---|---|---|---|");
    let dir = tempfile::tempdir().unwrap();
    bench("file", Arc::new(FileStore::new(dir.path().to_path_buf()))).await;
    let pg = PgServer::start().expect("postgres is needed");
    bench(
        "postgres",
        Arc::new(PostgresStore::connect(&pg.url(), "bench").await.unwrap()),
    )
    .await;
    let redis = RedisServer::start().expect("redis-server is needed");
    bench(
        "redis",
        Arc::new(RedisStore::connect(&redis.url(), "bench").await.unwrap()),
    )
    .await;
}
