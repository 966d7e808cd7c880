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
    input_schema: Schema,
    /// The size of the definition's JSON, counted the first time it is asked for.
    #[serde(skip)]
    json_size: OnceLock<JsonSize>,
}

/// An input schema: a JSON value, or the compact JSON text of one fixed when dcl was built.
///
/// A built-in tool's schema is text: a session's first turn counts the size of every offer
/// (dcl's token estimate, the mock model's usage), and building the schemas as values and
/// serializing them to count them was ~8% of a `dcl` session's start-up (BENCHMARKS.md,
/// "Start-up: where the session's own time goes"). Text is counted by its length and parsed
/// only when the value is read or put on the wire.
enum Schema {
    Value(Value),
    Text {
        text: String,
        value: OnceLock<Value>,
    },
}

impl Schema {
    fn value(&self) -> &Value {
        match self {
            Schema::Value(v) => v,
            // The text is the compact form of a valid schema (checked by the tools' tests):
            // an unparsable one would read as null rather than take the session down.
            Schema::Text { text, value } => {
                value.get_or_init(|| serde_json::from_str(text).unwrap_or(Value::Null))
            }
        }
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Schema, D::Error> {
        Value::deserialize(deserializer).map(Schema::Value)
    }
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value().fmt(f)
    }
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
            input_schema: Schema::Value(input_schema),
            json_size: OnceLock::new(),
        }))
    }

    /// A definition whose input schema is JSON text (a built-in tool's, written in its
    /// source as a pretty-printed file). The text is kept compact, as `serde_json` writes
    /// it, so its length is the length of the schema on the wire.
    pub fn from_schema_text(
        name: impl Into<String>,
        description: impl Into<String>,
        schema_json: &str,
    ) -> ToolSpec {
        ToolSpec(Arc::new(Definition {
            name: name.into(),
            description: description.into(),
            input_schema: Schema::Text {
                text: compact_json(schema_json),
                value: OnceLock::new(),
            },
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
        self.0.input_schema.value()
    }

    /// The schema's compact JSON text when it was given as text (for the tests that check
    /// it is what `serde_json` writes for its value).
    pub fn schema_text(&self) -> Option<&str> {
        match &self.0.input_schema {
            Schema::Text { text, .. } => Some(text),
            Schema::Value(_) => None,
        }
    }

    /// Whether `a` and `b` are the same shared definition (not merely equal ones).
    pub fn ptr_eq(a: &ToolSpec, b: &ToolSpec) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The size of `serde_json::to_string(self)`; serialized once per definition.
    pub fn json_size(&self) -> JsonSize {
        *self.0.json_size.get_or_init(|| match &self.0.input_schema {
            // A definition is strings and a JSON value: serializing it cannot fail.
            Schema::Value(_) => {
                serde_json::to_string(self).map_or(JsonSize::default(), |s| JsonSize::of(&s))
            }
            // The name and description as they are escaped, around a one-character stand-in
            // for the schema, then the schema text in its place.
            Schema::Text { text, .. } => {
                #[derive(Serialize)]
                struct Shell<'a> {
                    name: &'a str,
                    description: &'a str,
                    input_schema: u8,
                }
                let shell = Shell {
                    name: &self.0.name,
                    description: &self.0.description,
                    input_schema: 0,
                };
                let shell =
                    serde_json::to_string(&shell).map_or(JsonSize::default(), |s| JsonSize::of(&s));
                let schema = JsonSize::of(text);
                JsonSize {
                    bytes: shell.bytes - 1 + schema.bytes,
                    chars: shell.chars - 1 + schema.chars,
                }
            }
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
                && self.0.input_schema.value() == other.0.input_schema.value())
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

/// `json` without the whitespace between its tokens (what `serde_json::to_string` leaves
/// out); strings are copied as they are. Hand-written rather than parsed and written again:
/// it runs once per built-in tool when a process first offers tools, and one pass over the
/// text is what keeps that cheap.
fn compact_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\n' | '\r' | '\t') {
            out.push(c);
        }
    }
    out
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
    fn a_schema_given_as_text_is_compacted_counted_and_read_like_a_value() {
        let pretty = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"x\": {\"description\": \"a \\\"quoted\\\" word,\\n then: more\", \"type\": \"string\"}\n  }\n}\n";
        let text = ToolSpec::from_schema_text("Größe", "misst — „genau“", pretty);
        let value: Value = serde_json::from_str(pretty).unwrap();
        let same = ToolSpec::new("Größe", "misst — „genau“", value.clone());
        assert_eq!(text.input_schema(), &value);
        assert_eq!(
            text.schema_text(),
            Some(serde_json::to_string(&value).unwrap().as_str())
        );
        assert_eq!(
            serde_json::to_string(&text).unwrap(),
            serde_json::to_string(&same).unwrap()
        );
        assert_eq!(text.json_size(), same.json_size());
        assert_eq!(text, same);
        let list = vec![text.clone(), same.clone(), text];
        let json = serde_json::to_string(&list).unwrap();
        assert_eq!(ToolSpec::list_json_size(&list).bytes, json.len());
        assert_eq!(ToolSpec::list_json_size(&list).chars, json.chars().count());
    }

    #[test]
    fn compacting_keeps_what_is_inside_strings() {
        assert_eq!(
            compact_json("{ \"a b\" : [ 1 , \"\\\" }\" ] }"),
            "{\"a b\":[1,\"\\\" }\"]}"
        );
        assert_eq!(compact_json("\"\\\\\" , 2"), "\"\\\\\",2");
        // The positive twin: compact text is left as it is.
        assert_eq!(compact_json("{\"a\":[1,2]}"), "{\"a\":[1,2]}");
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
