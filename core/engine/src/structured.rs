//! Structured output (`--json-schema`): the model answers by calling a `StructuredOutput`
//! tool whose input schema is the caller's schema; its input is checked here.
//!
//! The check covers the keywords structured-output schemas use in practice (`type`,
//! `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const`);
//! other keywords are not enforced.

use serde_json::Value;

/// Checks `value` against `schema`; the error names the first offending path.
pub fn validate(value: &Value, schema: &Value) -> Result<(), String> {
    check(value, schema, "$")
}

fn check(value: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            return Err(format!("{path} should be {}", types.join(" or ")));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        return Err(format!(
            "{path} must be one of {}",
            Value::Array(options.clone())
        ));
    }
    if let Some(c) = schema.get("const")
        && c != value
    {
        return Err(format!("{path} must be {c}"));
    }
    if let Some(obj) = value.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = req.as_str()
                && !obj.contains_key(name)
            {
                return Err(format!("{path} is missing required property {name:?}"));
            }
        }
        for (k, v) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(sub) => check(v, sub, &format!("{path}.{k}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{path} has unexpected property {k:?}"));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(v, items, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_types_required_and_extras() {
        let schema = json!({"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["n"],"additionalProperties":false});
        assert!(validate(&json!({"n": 3, "tags": ["a"]}), &schema).is_ok());
        assert!(
            validate(&json!({"tags": []}), &schema)
                .unwrap_err()
                .contains("\"n\"")
        );
        assert!(validate(&json!({"n": 1.5}), &schema).is_err());
        assert!(
            validate(&json!({"n": 1, "tags": [1]}), &schema)
                .unwrap_err()
                .contains("tags[0]")
        );
        assert!(validate(&json!({"n": 1, "x": 1}), &schema).is_err());
        assert!(
            validate(
                &json!({"c": "b"}),
                &json!({"properties":{"c":{"enum":["a"]}}})
            )
            .is_err()
        );
    }
}
