//! Reasoning effort: the levels `set_max_thinking_tokens` and `--effort` map to, and the
//! thinking budget each one asks the model for.

/// `0` off, `≤4096` low, `≤16384` medium, `≤32768` high, more max; `None` the default.
pub fn from_thinking_tokens(tokens: Option<u64>) -> Option<String> {
    let level = match tokens? {
        0 => "off",
        t if t <= 4096 => "low",
        t if t <= 16384 => "medium",
        t if t <= 32768 => "high",
        _ => "max",
    };
    Some(level.to_string())
}

/// The session's thinking level: its effort, else the level its thinking budget maps to.
pub(crate) fn current_level(live: &super::state::LiveSettings) -> Option<String> {
    live.effort
        .clone()
        .or_else(|| from_thinking_tokens(live.max_thinking_tokens.map(u64::from)))
}

/// An effort name that is none of the levels (lower-cased and trimmed, as it is named).
#[derive(Debug, thiserror::Error)]
#[error("unknown effort level {0:?}: expected low, medium, high or max")]
pub struct UnknownEffort(pub String);

/// Validates an effort name (`xhigh` is accepted as the SDKs send it, meaning `max`).
pub fn parse(level: &str) -> Result<String, UnknownEffort> {
    match level.trim().to_ascii_lowercase().as_str() {
        "off" | "none" => Ok("off".into()),
        "low" => Ok("low".into()),
        "medium" => Ok("medium".into()),
        "high" => Ok("high".into()),
        "max" | "xhigh" => Ok("max".into()),
        other => Err(UnknownEffort(other.to_string())),
    }
}

/// The thinking budget for a level, kept below the request's `max_tokens`.
pub fn thinking_budget(level: &str, max_tokens: u32) -> Option<u32> {
    let budget = match level {
        "low" => 4_096,
        "medium" => 16_384,
        "high" => 32_768,
        "max" => 63_999,
        _ => return None,
    };
    let cap = max_tokens.saturating_sub(1);
    (cap >= 1024).then(|| budget.min(cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_map_to_levels() {
        assert_eq!(from_thinking_tokens(None), None);
        assert_eq!(from_thinking_tokens(Some(0)).as_deref(), Some("off"));
        assert_eq!(from_thinking_tokens(Some(4096)).as_deref(), Some("low"));
        assert_eq!(from_thinking_tokens(Some(4097)).as_deref(), Some("medium"));
        assert_eq!(from_thinking_tokens(Some(16384)).as_deref(), Some("medium"));
        assert_eq!(from_thinking_tokens(Some(32768)).as_deref(), Some("high"));
        assert_eq!(from_thinking_tokens(Some(32769)).as_deref(), Some("max"));
    }

    #[test]
    fn budgets_stay_below_max_tokens() {
        assert_eq!(thinking_budget("max", 32_000), Some(31_999));
        assert_eq!(thinking_budget("low", 32_000), Some(4_096));
        assert_eq!(thinking_budget("off", 32_000), None);
        assert!(parse("bogus").is_err());
        assert_eq!(parse("xhigh").unwrap(), "max");
    }
}
