//! Session handles as the JVM holds them: opaque numbers, never pointers.
//!
//! A `long` that Java passes back may be stale (closed twice, used after close from
//! another thread, forged by reflection). Looking it up in a table instead of casting it
//! to a pointer turns every such mistake into a "session closed" error instead of a
//! use-after-free. Numbers are never reused, so a stale handle cannot reach a newer
//! session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};

/// A table of live values keyed by handle.
pub struct Registry<T> {
    next: AtomicI64,
    live: RwLock<HashMap<i64, Arc<T>>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Registry<T> {
    pub fn new() -> Self {
        Registry {
            next: AtomicI64::new(1),
            live: RwLock::new(HashMap::new()),
        }
    }

    /// Stores a value; the handle returned is positive and unique for the process.
    pub fn insert(&self, value: T) -> i64 {
        let handle = self.next.fetch_add(1, Ordering::Relaxed);
        self.write().insert(handle, Arc::new(value));
        handle
    }

    /// The live value behind a handle. The clone keeps it alive for the caller even if
    /// another thread removes the handle meanwhile.
    pub fn get(&self, handle: i64) -> Option<Arc<T>> {
        self.read().get(&handle).cloned()
    }

    /// Forgets a handle; `Some` exactly once per inserted handle.
    pub fn remove(&self, handle: i64) -> Option<Arc<T>> {
        self.write().remove(&handle)
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    // A panic while the lock was held cannot leave the map half-updated (each operation
    // is one map call), so a poisoned lock is still safe to use.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<i64, Arc<T>>> {
        self.live.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<i64, Arc<T>>> {
        self.live.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_removed_exactly_once() {
        let r = Registry::new();
        let h = r.insert("a");
        assert_eq!(r.get(h).as_deref(), Some(&"a"));
        assert!(r.remove(h).is_some());
        assert!(r.remove(h).is_none(), "second free must find nothing");
        assert!(r.get(h).is_none(), "use after free must find nothing");
    }

    #[test]
    fn handles_are_never_reused_and_forged_ones_find_nothing() {
        let r = Registry::new();
        let a = r.insert(1);
        r.remove(a);
        let b = r.insert(2);
        assert_ne!(a, b);
        assert!(r.get(a).is_none());
        assert_eq!(r.get(b).as_deref(), Some(&2));
        for forged in [0, -1, i64::MAX, b + 1] {
            assert!(r.get(forged).is_none(), "{forged}");
        }
    }

    #[test]
    fn a_value_outlives_its_handle_while_a_caller_holds_it() {
        let r = Registry::new();
        let h = r.insert(String::from("kept"));
        let held = r.get(h).unwrap();
        assert!(r.remove(h).is_some());
        assert_eq!(held.as_str(), "kept");
        assert!(r.is_empty());
    }
}
