//! Small serde helpers that keep the wire shape of a line exactly as it was received.
//!
//! Use them with `deserialize_with` / `serialize_with` (never `with`: schemars reads a `with`
//! path as a type).

use serde::{Deserialize, Deserializer, Serializer};
use serde_json::Value;

/// For `Option<Option<T>>` fields: absent → `None` (via `#[serde(default)]`), explicit `null`
/// → `Some(None)`, a value → `Some(Some(v))`. Pair with
/// `skip_serializing_if = "Option::is_none"` so an absent field stays absent and a `null`
/// stays `null`.
pub fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// For `Option<Value>` fields: a present `null` becomes `Some(Value::Null)` instead of `None`,
/// so `"x": null` survives a round trip. Absent stays `None` (via `#[serde(default)]`).
pub fn present_value<'de, D>(deserializer: D) -> Result<Option<Value>, D::Error>
where
    D: Deserializer<'de>,
{
    Value::deserialize(deserializer).map(Some)
}

/// Largest integer an `f64` holds exactly (2^53).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// Writes a whole-valued `f64` as an integer (`0`, not `0.0`), as JavaScript would.
pub fn compact_f64<S>(value: &f64, serializer: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    let v = *value;
    if v.is_finite() && v.fract() == 0.0 && v.abs() < MAX_EXACT {
        serializer.serialize_i64(v as i64)
    } else {
        serializer.serialize_f64(v)
    }
}

/// [`compact_f64`] for an optional number (`None` is written as `null`; combine with
/// `skip_serializing_if` to omit it).
pub fn compact_opt_f64<S>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
{
    match value {
        Some(v) => compact_f64(v, serializer),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct N(#[serde(serialize_with = "compact_f64")] f64);

    #[test]
    fn compact_numbers() {
        assert_eq!(serde_json::to_string(&N(0.0)).unwrap(), "0");
        assert_eq!(serde_json::to_string(&N(2.0)).unwrap(), "2");
        assert_eq!(serde_json::to_string(&N(-3.0)).unwrap(), "-3");
        assert_eq!(serde_json::to_string(&N(538.3)).unwrap(), "538.3");
        assert_eq!(serde_json::to_string(&N(1e300)).unwrap(), "1e+300");
        assert_eq!(serde_json::to_string(&N(f64::NAN)).unwrap(), "null");
    }
}
