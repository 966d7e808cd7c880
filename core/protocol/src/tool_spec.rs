//! A tool as offered to the model: shared by the model clients (which put it on the wire)
//! and the tool API (where each tool describes itself), so neither depends on the other.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A tool as offered to the model: its name, description and input schema.
///
/// A definition is immutable and shared: cloning one copies a pointer, so a tool builds
/// its definition once (per process for the built-in tools) and every offer, request
/// and count of an offer's size uses that one copy. It serializes as
/// `{"name", "description", "input_schema"}`.
#[derive(Clone)]
pub struct ToolSpec(Arc<Definition>);

#[derive(Serialize, Deserialize)]
struct Definition {
    name: String,
    description: String,
    input_schema: Value,
    /// The size of the definition's JSON, counted the first time it is asked for.
    #[serde(skip)]
    json_size: OnceLock<JsonSize>,
}

/// The size of a JSON text, in bytes and in characters (what dcl's token estimate and the
/// mock model's count read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonSize {
    pub bytes: usize,
    pub chars: usize,
}

impl JsonSize {
    fn of(text: &str) -> JsonSize {
        JsonSize {
            bytes: text.len(),
            chars: text.chars().count(),
        }
    }
}

impl ToolSpec {
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> ToolSpec {
        ToolSpec(Arc::new(Definition {
            name: name.into(),
            description: description.into(),
            input_schema,
            json_size: OnceLock::new(),
        }))
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn description(&self) -> &str {
        &self.0.description
    }

    pub fn input_schema(&self) -> &Value {
        &self.0.input_schema
    }

    /// Whether `a` and `b` are the same shared definition (not merely equal ones).
    pub fn ptr_eq(a: &ToolSpec, b: &ToolSpec) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The size of `serde_json::to_string(self)`; serialized once per definition.
    pub fn json_size(&self) -> JsonSize {
        *self.0.json_size.get_or_init(|| {
            // A definition is strings and a JSON value: serializing it cannot fail.
            serde_json::to_string(self).map_or(JsonSize::default(), |s| JsonSize::of(&s))
        })
    }

    /// The size of `serde_json::to_string(specs)` (a JSON array of the definitions),
    /// from each definition's own counted size.
    pub fn list_json_size<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> JsonSize {
        let mut size = JsonSize::default();
        let mut count = 0usize;
        for spec in specs {
            let one = spec.json_size();
            size.bytes += one.bytes;
            size.chars += one.chars;
            count += 1;
        }
        // `[`, `]` and a comma between neighbours, each one byte and one character.
        let punctuation = 2 + count.saturating_sub(1);
        size.bytes += punctuation;
        size.chars += punctuation;
        size
    }
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.0.name)
            .field("description", &self.0.description)
            .field("input_schema", &self.0.input_schema)
            .finish()
    }
}

impl PartialEq for ToolSpec {
    fn eq(&self, other: &ToolSpec) -> bool {
        ToolSpec::ptr_eq(self, other)
            || (self.0.name == other.0.name
                && self.0.description == other.0.description
                && self.0.input_schema == other.0.input_schema)
    }
}

impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolSpec, D::Error> {
        Definition::deserialize(deserializer).map(|d| ToolSpec(Arc::new(d)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec::new(
            name,
            description,
            json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        )
    }

    #[test]
    fn serializes_as_name_description_and_schema() {
        let s = spec("Bash", "run");
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"name":"Bash","description":"run","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}"#
        );
        let back: ToolSpec = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(!ToolSpec::ptr_eq(&back, &s));
    }

    #[test]
    fn a_clone_is_the_same_definition() {
        let s = spec("Bash", "run");
        assert!(ToolSpec::ptr_eq(&s, &s.clone()));
        assert!(!ToolSpec::ptr_eq(&s, &spec("Bash", "run")));
    }

    #[test]
    fn the_counted_size_of_a_list_is_the_size_of_its_json() {
        let lists = [
            vec![],
            vec![spec("Bash", "run")],
            vec![
                spec("Bash", "run"),
                spec("Größe", "misst — „genau“"),
                spec("", ""),
            ],
        ];
        for list in lists {
            let text = serde_json::to_string(&list).unwrap();
            let size = ToolSpec::list_json_size(&list);
            assert_eq!(size.bytes, text.len(), "{text}");
            assert_eq!(size.chars, text.chars().count(), "{text}");
            // Counted again from the cache, the same.
            assert_eq!(ToolSpec::list_json_size(&list), size);
        }
    }
}
