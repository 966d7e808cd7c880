//! Definitions that depend on what a session has loaded — Skill lists the skills, Agent
//! the agents — built once per change of what they list rather than for every offer, and
//! shared by every session that lists the same.

use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use dcl_protocol::ToolSpec;

/// A definition derived from the catalog that holds it: built the first time it is asked
/// for, and again only after the catalog changes (every method that changes the catalog
/// calls [`DerivedSpec::reset`]).
#[derive(Debug, Clone, Default)]
pub struct DerivedSpec(OnceLock<ToolSpec>);

impl DerivedSpec {
    pub fn get_or_build(&self, build: impl FnOnce() -> ToolSpec) -> ToolSpec {
        self.0.get_or_init(build).clone()
    }

    /// The catalog changed: the next ask builds the definition again.
    pub fn reset(&mut self) {
        self.0 = OnceLock::new();
    }
}

/// The last definition built through `slot`: one with the same name and description is
/// reused (sessions that load the same skills or agents share one copy, as 10,000
/// sessions in a process mostly do); any other is built with `schema` and kept instead.
pub fn shared_through(
    slot: &Mutex<Option<ToolSpec>>,
    name: &str,
    description: String,
    schema: impl FnOnce() -> Value,
) -> ToolSpec {
    let mut last = match slot.lock() {
        Ok(g) => g,
        // Only whole definitions are ever stored: a panicking writer left nothing half-done.
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(spec) = last
        .as_ref()
        .filter(|s| s.name() == name && s.description() == description)
    {
        return spec.clone();
    }
    let spec = ToolSpec::new(name, description, schema());
    *last = Some(spec.clone());
    spec
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_listing_is_one_definition_and_another_is_built_anew() {
        let slot = Mutex::new(None);
        let a = shared_through(&slot, "Skill", "lists x".into(), || json!({}));
        let b = shared_through(&slot, "Skill", "lists x".into(), || json!({"unused": 1}));
        assert!(ToolSpec::ptr_eq(&a, &b));
        assert_eq!(b.input_schema(), &json!({}));
        let c = shared_through(&slot, "Skill", "lists y".into(), || json!({}));
        assert!(!ToolSpec::ptr_eq(&a, &c));
        assert_eq!(c.description(), "lists y");
    }

    #[test]
    fn a_derived_definition_is_built_again_only_after_a_reset() {
        let mut cache = DerivedSpec::default();
        let a = cache.get_or_build(|| ToolSpec::new("A", "one", json!({})));
        let b = cache.get_or_build(|| ToolSpec::new("A", "two", json!({})));
        assert!(ToolSpec::ptr_eq(&a, &b));
        cache.reset();
        let c = cache.get_or_build(|| ToolSpec::new("A", "two", json!({})));
        assert_eq!(c.description(), "two");
    }
}
