//! A tool as offered to the model: shared by the model clients (which put it on the wire)
//! and the tool API (where each tool describes itself), so neither depends on the other.

use std::borrow::Cow;
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
    name: Cow<'static, str>,
    description: Cow<'static, str>,
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
/// only when the value is read or put on the wire. The text is compacted when dcl is
/// compiled ([`compact_schema!`](crate::compact_schema)), so a definition borrows it
/// rather than copying it.
enum Schema {
    Value(Value),
    Text {
        text: &'static str,
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

    /// The size of `text` as a JSON string, quotes included, escaped as `serde_json`
    /// escapes it: `"`, `\` and the five control characters with a short escape (`\n`…)
    /// take two characters, other control characters six (`\u00XX`), everything else one.
    /// Counted, not written out: a built-in tool's description is kilobytes (the tests
    /// compare this with `serde_json`'s output).
    fn of_json_string(text: &str) -> JsonSize {
        let extra: usize = text
            .bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
                0x00..=0x1f => 5,
                _ => 0,
            })
            .sum();
        JsonSize {
            bytes: text.len() + extra + 2,
            chars: text.chars().count() + extra + 2,
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
            name: Cow::Owned(name.into()),
            description: Cow::Owned(description.into()),
            input_schema: Schema::Value(input_schema),
            json_size: OnceLock::new(),
        }))
    }

    /// A built-in definition: its input schema is compact JSON text, as `serde_json`
    /// writes it (from [`compact_schema!`](crate::compact_schema)), so its length is the
    /// length of the schema on the wire; nothing is copied.
    pub fn from_schema_text(
        name: &'static str,
        description: &'static str,
        compact_schema: &'static str,
    ) -> ToolSpec {
        ToolSpec(Arc::new(Definition {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            input_schema: Schema::Text {
                text: compact_schema,
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
            // `{"name":…,"description":…,"input_schema":…}` around the two strings and the
            // schema text.
            Schema::Text { text, .. } => {
                let punctuation = r#"{"name":,"description":,"input_schema":}"#.len();
                let name = JsonSize::of_json_string(&self.0.name);
                let description = JsonSize::of_json_string(&self.0.description);
                let schema = JsonSize::of(text);
                JsonSize {
                    bytes: punctuation + name.bytes + description.bytes + schema.bytes,
                    chars: punctuation + name.chars + description.chars + schema.chars,
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

/// Whether `byte` stays when JSON text is compacted (whitespace between tokens goes,
/// strings are kept as they are), given and updating where the text is: inside a string,
/// after a backslash there. Bytes, not characters: UTF-8 never puts an ASCII byte inside a
/// multi-byte character.
const fn keeps(byte: u8, in_string: &mut bool, escaped: &mut bool) -> bool {
    if *in_string {
        if *escaped {
            *escaped = false;
        } else if byte == b'\\' {
            *escaped = true;
        } else if byte == b'"' {
            *in_string = false;
        }
        true
    } else if byte == b'"' {
        *in_string = true;
        true
    } else {
        !matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
    }
}

/// The length of `json` compacted (see [`compact_json`]).
pub const fn compact_json_len(json: &[u8]) -> usize {
    let (mut in_string, mut escaped) = (false, false);
    let (mut i, mut n) = (0, 0);
    while i < json.len() {
        if keeps(json[i], &mut in_string, &mut escaped) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `json` without the whitespace between its tokens, as `serde_json::to_string` writes
/// it; `N` is [`compact_json_len`]. A `const fn`, so a built-in schema is compacted when
/// dcl is compiled ([`compact_schema!`](crate::compact_schema)) instead of in every
/// process that offers it.
pub const fn compact_json<const N: usize>(json: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut in_string, mut escaped) = (false, false);
    let (mut i, mut n) = (0, 0);
    while i < json.len() {
        if keeps(json[i], &mut in_string, &mut escaped) {
            out[n] = json[i];
            n += 1;
        }
        i += 1;
    }
    assert!(n == N, "N must be compact_json_len(json)");
    out
}

/// A JSON schema file's bytes (`include_bytes!`) as compact `&'static str`, computed at
/// compile time; a file that is not UTF-8 fails the build.
#[macro_export]
macro_rules! compact_schema {
    ($bytes:expr) => {{
        const SOURCE: &[u8] = $bytes;
        const COMPACT: [u8; $crate::tool_spec::compact_json_len(SOURCE)] =
            $crate::tool_spec::compact_json(SOURCE);
        const TEXT: &str = match ::core::str::from_utf8(&COMPACT) {
            Ok(text) => text,
            Err(_) => panic!("a schema file is not UTF-8"),
        };
        TEXT
    }};
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// What `compact_schema!` computes, at run time.
    fn compact(json: &str) -> String {
        let (mut in_string, mut escaped) = (false, false);
        let kept: Vec<u8> = json
            .bytes()
            .filter(|b| keeps(*b, &mut in_string, &mut escaped))
            .collect();
        assert_eq!(kept.len(), compact_json_len(json.as_bytes()));
        String::from_utf8(kept).unwrap()
    }

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
        const PRETTY: &[u8] = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"x\": {\"description\": \"a \\\"quoted\\\" Größe,\\n then: more\", \"type\": \"string\"}\n  }\n}\n".as_bytes();
        // Every escape serde_json writes, in the name and the description.
        const NAME: &str = "Größe\\\"";
        const DESCRIPTION: &str = "misst — „genau“\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f} \"q\" \\ end";
        let text = ToolSpec::from_schema_text(NAME, DESCRIPTION, compact_schema!(PRETTY));
        let value: Value = serde_json::from_slice(PRETTY).unwrap();
        let same = ToolSpec::new(NAME, DESCRIPTION, value.clone());
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
            compact("{ \"a b\" : [ 1 , \"\\\" }\" ] }"),
            "{\"a b\":[1,\"\\\" }\"]}"
        );
        assert_eq!(compact("\"\\\\\" , 2"), "\"\\\\\",2");
        assert_eq!(compact("[\"ä ö\" ,\t\"—\"\r\n]"), "[\"ä ö\",\"—\"]");
        // The positive twin: compact text is left as it is.
        assert_eq!(compact("{\"a\":[1,2]}"), "{\"a\":[1,2]}");
        // At compile time, the same.
        assert_eq!(
            compact_schema!(b"{ \"a b\" : [ 1 , 2 ] }"),
            "{\"a b\":[1,2]}"
        );
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
