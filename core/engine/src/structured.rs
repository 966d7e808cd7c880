//! Structured output (`--json-schema`, `initialize.jsonSchema`): the model answers by
//! calling a `StructuredOutput` tool whose input schema is the caller's schema; its input
//! is validated with the `jsonschema` crate, so every keyword of the drafts the SDKs emit
//! (`$ref`/`$defs`, `anyOf`/`oneOf`, `enum`, `pattern`, `minimum`, `format`…) is enforced.

use serde_json::Value;

/// How often the model may answer with output that does not match before the turn ends
/// with `error_max_structured_output_retries`.
pub const MAX_INVALID_OUTPUTS: u32 = 3;

/// Why a `--json-schema` / `initialize.jsonSchema` schema was refused.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("the output schema must be a JSON object")]
    NotAnObject,
    #[error("the output schema is not valid: {0}")]
    Invalid(String),
}

/// Every way a value fails an output schema (at most ten), each with its path; shown to
/// the model one per line.
#[derive(Debug, thiserror::Error)]
#[error("{}", .violations.join("\n"))]
pub struct SchemaViolations {
    pub violations: Vec<String>,
}

/// Why a value could not be checked, or did not fit, in [`validate`].
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Violations(#[from] SchemaViolations),
}

/// A schema that was checked when the session opened.
pub struct OutputSchema {
    validator: jsonschema::Validator,
}

impl OutputSchema {
    /// Compiles `schema`; an invalid schema (or one that needs a remote `$ref`) is an error
    /// naming what is wrong.
    pub fn compile(schema: &Value) -> Result<OutputSchema, SchemaError> {
        if !schema.is_object() {
            return Err(SchemaError::NotAnObject);
        }
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(|validator| OutputSchema { validator })
            .map_err(|e| SchemaError::Invalid(e.to_string()))
    }

    /// Every way `value` fails the schema, one per line with its path; `Ok` when it fits.
    pub fn validate(&self, value: &Value) -> Result<(), SchemaViolations> {
        let violations: Vec<String> = self
            .validator
            .iter_errors(value)
            .take(10)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "/".to_string()
                } else {
                    path
                };
                format!("{at}: {e}")
            })
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(SchemaViolations { violations })
        }
    }
}

/// Checks `value` against `schema` (compiling it first).
pub fn validate(value: &Value, schema: &Value) -> Result<(), ValidateError> {
    Ok(OutputSchema::compile(schema)?.validate(value)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn types_required_and_extra_keys() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "required": ["n"], "additionalProperties": false});
        assert!(validate(&json!({"n": 1}), &schema).is_ok());
        assert!(validate(&json!({"n": "1"}), &schema).is_err());
        assert!(validate(&json!({}), &schema).is_err());
        assert!(validate(&json!({"n": 1, "x": 2}), &schema).is_err());
    }

    #[test]
    fn the_keywords_pydantic_schemas_use_are_enforced() {
        // What a Pydantic model with a nested model, a Literal, a pattern and bounds emits.
        let schema = json!({
            "$defs": {"Item": {"type": "object", "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"},
                "qty": {"type": "integer", "minimum": 1}}, "required": ["sku", "qty"]}},
            "type": "object",
            "properties": {
                "kind": {"enum": ["order", "quote"]},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "email": {"type": "string", "format": "email"}
            },
            "required": ["kind", "items"]
        });
        let good = json!({"kind": "order", "items": [{"sku": "ABC-1", "qty": 2}], "note": null,
            "email": "a@b.example"});
        assert!(
            validate(&good, &schema).is_ok(),
            "{:?}",
            validate(&good, &schema)
        );
        for bad in [
            json!({"kind": "gift", "items": []}),
            json!({"kind": "order", "items": [{"sku": "abc", "qty": 2}]}),
            json!({"kind": "order", "items": [{"sku": "ABC-1", "qty": 0}]}),
            json!({"kind": "order", "items": [], "note": 3}),
            json!({"kind": "order", "items": [], "email": "not an address"}),
        ] {
            let e = validate(&bad, &schema);
            assert!(e.is_err(), "{bad} passed");
        }
    }

    #[test]
    fn errors_name_the_path() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "object",
            "properties": {"b": {"type": "integer"}}}}});
        let e = validate(&json!({"a": {"b": "x"}}), &schema)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/a/b"), "{e}");
    }

    #[test]
    fn a_broken_schema_is_refused_when_compiled() {
        assert!(OutputSchema::compile(&json!({"type": "nonsense"})).is_err());
        assert!(OutputSchema::compile(&json!([1])).is_err());
        assert!(OutputSchema::compile(&json!({"$ref": "https://example.invalid/s.json"})).is_err());
    }
}
