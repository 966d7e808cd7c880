//! `dcl._native.SessionStore`: dcl's session stores (Postgres, Redis, a folder) for Python,
//! in the shape the claude-agent-sdk's and qoder-agent-sdk's `SessionStore` protocols take
//! (`python/src/dcl/store.py` wraps it). Keys and entries cross as JSON text; every
//! method returns an awaitable that runs on the process's one tokio runtime.

use std::sync::Arc;

use dcl_store::remote::{BackendError, Position, SessionKey, SessionStore as Backend, StoreUrl};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value, json};

#[pyclass(frozen, module = "dcl._native", name = "SessionStore")]
pub struct NativeStore {
    store: Arc<dyn Backend>,
    url: String,
}

fn backend_err(e: BackendError) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

fn parse_key(key_json: &str) -> PyResult<SessionKey> {
    let v: Value = serde_json::from_str(key_json)
        .map_err(|e| PyValueError::new_err(format!("session key: {e}")))?;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(SessionKey {
        project_key: text("project_key")
            .ok_or_else(|| PyValueError::new_err("session key without project_key"))?,
        session_id: text("session_id")
            .ok_or_else(|| PyValueError::new_err("session key without session_id"))?,
        subpath: text("subpath").filter(|s| !s.is_empty()),
    })
}

#[pymethods]
impl NativeStore {
    /// Opens the store a URL names (`postgres://…?table=`, `redis://…?prefix=`,
    /// `file:/dir`). Connections are made at the first request; Postgres creates or
    /// migrates its schema then.
    #[new]
    fn new(py: Python<'_>, url: &str) -> PyResult<NativeStore> {
        let parsed = StoreUrl::parse(url, |k| std::env::var(k).ok())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let redacted = parsed.redacted();
        let rt = pyo3_async_runtimes::tokio::get_runtime();
        // Pools spawn their upkeep on the runtime they are made in: the shared one.
        let store = py
            .detach(|| rt.block_on(dcl_store::remote::open(&parsed)))
            .map_err(backend_err)?
            .ok_or_else(|| {
                PyValueError::new_err("`file:` names no store; give a folder (file:/dir)")
            })?;
        Ok(NativeStore {
            store,
            url: redacted,
        })
    }

    /// `append(key_json, entries_json)`: at the end, as the SDK adapters append.
    fn append<'py>(
        &self,
        py: Python<'py>,
        key_json: &str,
        entries_json: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key = parse_key(key_json)?;
        let entries: Vec<Value> = serde_json::from_str(entries_json)
            .map_err(|e| PyValueError::new_err(format!("entries: {e}")))?;
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            store
                .append(&key, &entries, Position::End, None)
                .await
                .map_err(backend_err)?;
            Ok(())
        })
    }

    /// `load(key_json)`: the entries as JSON text, or `None` for a key never written.
    fn load<'py>(&self, py: Python<'py>, key_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let key = parse_key(key_json)?;
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let loaded = store.load(&key).await.map_err(backend_err)?;
            Ok(loaded.map(|l| Value::Array(l.entries).to_string()))
        })
    }

    /// `list_sessions(project_key)`: `[{"session_id", "mtime"}]` as JSON text.
    fn list_sessions<'py>(
        &self,
        py: Python<'py>,
        project_key: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let list = store
                .list_sessions(&project_key)
                .await
                .map_err(backend_err)?;
            let out: Vec<Value> = list
                .into_iter()
                .map(|s| json!({"session_id": s.session_id, "mtime": s.mtime}))
                .collect();
            Ok(Value::Array(out).to_string())
        })
    }

    /// `list_session_summaries(project_key)`: `[{"session_id", "mtime", "data"}]`.
    fn list_session_summaries<'py>(
        &self,
        py: Python<'py>,
        project_key: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let list = store
                .list_session_summaries(&project_key)
                .await
                .map_err(backend_err)?;
            let out: Vec<Value> = list
                .into_iter()
                .map(|s| json!({"session_id": s.session_id, "mtime": s.mtime, "data": s.data}))
                .collect();
            Ok(Value::Array(out).to_string())
        })
    }

    /// `delete(key_json)`: a main key takes its subkeys along.
    fn delete<'py>(&self, py: Python<'py>, key_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let key = parse_key(key_json)?;
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            store.delete(&key).await.map_err(backend_err)
        })
    }

    /// `list_subkeys(key_json)`: the session's subpaths as JSON text.
    fn list_subkeys<'py>(&self, py: Python<'py>, key_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let key = parse_key(key_json)?;
        let store = self.store.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let subs = store
                .list_subkeys(&key.project_key, &key.session_id)
                .await
                .map_err(backend_err)?;
            Ok(json!(subs).to_string())
        })
    }

    fn __repr__(&self) -> String {
        format!("SessionStore({:?})", self.url)
    }
}
