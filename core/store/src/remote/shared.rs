//! What the file, Postgres and Redis backends share, so that they cannot drift apart: where
//! an append at a [`Position`] goes (at the end, a retry that already landed, or a
//! conflict), which entries of a batch are new, the summary fold onto what a store holds,
//! the `{"mtime", "data"}` summary records the file and Redis backends keep, and the order
//! summaries are listed in. Each backend keeps only its storage: reading, writing, locking.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{
    Appended, BackendError, BackendResult, LoadedEntries, Position, SessionKey, SessionSummary,
    summary,
};

/// Milliseconds since the Unix epoch, by this machine's clock.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Parses stored entry text; what does not parse as a JSON object is skipped with a
/// warning naming the key and position.
pub(crate) fn parse_stored(key: &SessionKey, texts: Vec<String>) -> LoadedEntries {
    let mut out = LoadedEntries::default();
    for (i, t) in texts.into_iter().enumerate() {
        match serde_json::from_str::<Value>(&t) {
            Ok(v @ Value::Object(_)) => out.entries.push(v),
            Ok(_) | Err(_) => {
                tracing::warn!("session store: entry {i} of {key} is not a JSON object; skipped");
                out.skipped += 1;
            }
        }
    }
    out
}

/// Where the writer of an append at `at` believed the key ends, when that is not where it
/// ends (`have` entries): `None` means the batch goes at the end. With `Some(n)` the
/// backend reads the stored entries from `n` on (when `n < have`; the batch's length is
/// enough) and asks [`settle_mismatch`].
pub(crate) fn expected_elsewhere(at: Position, have: u64) -> Option<u64> {
    match at {
        Position::At(n) if n != have => Some(n),
        _ => None,
    }
}

/// An append that named position `n` on a key holding `have` entries: a retried batch
/// that already landed (the stored entries from `n` on begin with it; compared as JSON,
/// since Postgres `jsonb` may reorder keys) is [`Appended::AlreadyThere`]; anything else
/// is a [`BackendError::Conflict`]. `stored_from_n` is the stored text from `n` on.
pub(crate) fn settle_mismatch(
    key: &SessionKey,
    n: u64,
    have: u64,
    stored_from_n: &[String],
    batch: &[Value],
) -> BackendResult<Appended> {
    if n < have {
        let tail: Vec<Value> = stored_from_n
            .iter()
            .filter_map(|s| serde_json::from_str(s).ok())
            .collect();
        if tail.len() >= batch.len() && tail.iter().zip(batch).all(|(a, b)| a == b) {
            return Ok(Appended::AlreadyThere { len: have });
        }
    }
    Err(BackendError::Conflict {
        key: key.to_string(),
        expected: n,
        actual: have,
    })
}

/// The entries of a batch to write, in order, as JSON text.
pub(crate) struct NewEntries<'a> {
    pub texts: Vec<String>,
    /// The `uuid`s of the entries in `texts` that carry one.
    pub uuids: Vec<&'a str>,
}

/// Leaves out each entry whose `uuid` the key already holds (`stored`) or an earlier entry
/// of the same batch carries, so a retried batch never duplicates.
pub(crate) fn new_entries<'a>(
    batch: &'a [Value],
    stored: impl Fn(&str) -> bool,
) -> BackendResult<NewEntries<'a>> {
    let mut seen = HashSet::new();
    let mut out = NewEntries {
        texts: Vec::with_capacity(batch.len()),
        uuids: Vec::new(),
    };
    for e in batch {
        if let Some(id) = e.get("uuid").and_then(Value::as_str) {
            if stored(id) || !seen.insert(id) {
                continue;
            }
            out.uuids.push(id);
        }
        out.texts
            .push(serde_json::to_string(e).map_err(|e| BackendError::Invalid(e.to_string()))?);
    }
    Ok(out)
}

/// The summary data after a main-transcript append: `entries` folded onto what the store
/// held (`None` before the first append).
pub(crate) fn folded(prev: Option<Map<String, Value>>, entries: &[Value]) -> Map<String, Value> {
    let mut data = prev.unwrap_or_default();
    summary::fold(&mut data, entries);
    data
}

/// The object a stored JSON text holds; `None` when absent, unparsable or not an object.
pub(crate) fn object_of(text: Option<&str>) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text?).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// A summary as the file and Redis backends keep it: `{"mtime": …, "data": {…}}`.
pub(crate) fn summary_record(mtime: i64, data: Map<String, Value>) -> Value {
    json!({"mtime": mtime, "data": data})
}

/// The `data` of a stored summary record.
pub(crate) fn record_data(record: &Map<String, Value>) -> Option<Map<String, Value>> {
    record.get("data")?.as_object().cloned()
}

/// A stored summary record as a listing shows it; a record without its `mtime` or `data`
/// is left out.
pub(crate) fn summary_of_record(
    session_id: String,
    record: &Map<String, Value>,
) -> Option<SessionSummary> {
    Some(SessionSummary {
        session_id,
        mtime: record.get("mtime")?.as_i64()?,
        data: record_data(record)?,
    })
}

/// Summary listings come in one order on every backend: by session id.
pub(crate) fn by_session_id(mut summaries: Vec<SessionSummary>) -> Vec<SessionSummary> {
    summaries.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    summaries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SessionKey {
        SessionKey::main("p", "s")
    }

    #[test]
    fn a_batch_already_there_is_a_retry_and_another_is_a_conflict() {
        let batch = [json!({"uuid": "a"}), json!({"uuid": "b"})];
        let stored: Vec<String> = batch.iter().map(Value::to_string).collect();
        assert_eq!(expected_elsewhere(Position::End, 5), None);
        assert_eq!(expected_elsewhere(Position::At(5), 5), None);
        assert_eq!(expected_elsewhere(Position::At(3), 5), Some(3));
        assert!(matches!(
            settle_mismatch(&key(), 3, 5, &stored, &batch),
            Ok(Appended::AlreadyThere { len: 5 })
        ));
        let other = [json!({"uuid": "a"}), json!({"uuid": "c"})];
        assert!(matches!(
            settle_mismatch(&key(), 3, 5, &stored, &other),
            Err(BackendError::Conflict {
                expected: 3,
                actual: 5,
                ..
            })
        ));
        // The writer is ahead of the store: nothing to compare, a conflict.
        assert!(matches!(
            settle_mismatch(&key(), 7, 5, &[], &batch),
            Err(BackendError::Conflict { .. })
        ));
    }

    #[test]
    fn stored_and_repeated_uuids_are_left_out() {
        let batch = [
            json!({"uuid": "old"}),
            json!({"uuid": "new"}),
            json!({"type": "no uuid"}),
            json!({"uuid": "new", "again": true}),
        ];
        let fresh = new_entries(&batch, |u| u == "old").expect("serialises");
        assert_eq!(fresh.uuids, vec!["new"]);
        assert_eq!(
            fresh.texts,
            vec![batch[1].to_string(), batch[2].to_string()]
        );
    }

    #[test]
    fn records_round_trip_and_a_broken_one_is_left_out() {
        let data = folded(None, &[json!({"type": "user", "cwd": "/r"})]);
        let record = summary_record(7, data.clone());
        let m = object_of(Some(&record.to_string())).expect("an object");
        let s = summary_of_record("s".into(), &m).expect("a summary");
        assert_eq!((s.mtime, &s.data), (7, &data));
        assert_eq!(object_of(Some("[1]")), None);
        assert_eq!(object_of(None), None);
        let broken = object_of(Some(r#"{"data": {}}"#)).expect("an object");
        assert_eq!(summary_of_record("s".into(), &broken), None);
    }
}
