//! `tests/transcript-allowlist.json`: the reviewed list of deliberate differences.
//!
//! ```json
//! {
//!   "ignore_lines": [{"line": "<key of a dcl-only line>", "reason": "..."}],
//!   "scenarios": {
//!     "*":            [{"kind": "...", "detail": "...", "reason": "..."}],
//!     "<transcript>": [{"kind": "...", "detail": "...", "reason": "..."}]
//!   }
//! }
//! ```
//!
//! `ignore_lines` drops dcl's lines with that key before the comparison. `"*"` entries hold
//! for every scenario. An entry matches a difference with the same `kind` and `detail`; an
//! entry (or ignored line key) that matches nothing is stale and fails the test.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::compare::Difference;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoreLine {
    pub line: String,
    pub reason: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub kind: String,
    pub detail: String,
    pub reason: String,
}

impl Entry {
    pub fn matches(&self, d: &Difference) -> bool {
        self.kind == d.kind && self.detail == d.detail
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowlist {
    /// Free text for readers of the file.
    #[serde(default)]
    _about: Option<serde_json::Value>,
    #[serde(default)]
    pub ignore_lines: Vec<IgnoreLine>,
    #[serde(default)]
    pub scenarios: BTreeMap<String, Vec<Entry>>,
}

pub const KINDS: &[&str] = &[
    "missing",
    "extra",
    "moved",
    "missing_key",
    "type",
    "empty",
    "value",
    "text",
    "pairing",
    "exit_code",
];

impl Allowlist {
    pub fn load(path: &Path) -> Result<Allowlist, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let list: Allowlist =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for l in &list.ignore_lines {
            if l.reason.trim().is_empty() {
                return Err(format!("ignore_lines {:?}: empty reason", l.line));
            }
        }
        for (scenario, entries) in &list.scenarios {
            for e in entries {
                if e.reason.trim().is_empty() {
                    return Err(format!(
                        "{scenario}: {} {:?}: empty reason",
                        e.kind, e.detail
                    ));
                }
                if !KINDS.contains(&e.kind.as_str()) {
                    return Err(format!("{scenario}: unknown kind {:?}", e.kind));
                }
                let same = |x: &Entry| x.kind == e.kind && x.detail == e.detail;
                let global =
                    scenario != "*" && list.scenarios.get("*").is_some_and(|g| g.iter().any(same));
                if entries.iter().filter(|x| same(x)).count() > 1 || global {
                    return Err(format!(
                        "{scenario}: {} {:?} is listed twice (or also under \"*\")",
                        e.kind, e.detail
                    ));
                }
            }
        }
        Ok(list)
    }

    pub fn ignores(&self, key: &str) -> bool {
        self.ignore_lines.iter().any(|l| l.line == key)
    }

    /// The entries that hold for `scenario`, as `(scope, index in scope, entry)`: its own,
    /// then the `"*"` ones.
    pub fn entries<'a>(
        &'a self,
        scenario: &str,
    ) -> impl Iterator<Item = (&'a str, usize, &'a Entry)> {
        [scenario, "*"]
            .into_iter()
            .filter_map(|scope| self.scenarios.get_key_value(scope))
            .flat_map(|(k, v)| v.iter().enumerate().map(move |(i, e)| (k.as_str(), i, e)))
    }
}
