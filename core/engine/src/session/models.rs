//! Model names: aliases, the mock, context windows and prices.

/// The default model of the Anthropic format.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub const MOCK_MODEL: &str = "mock-model";

pub fn is_mock(model: &str) -> bool {
    model == MOCK_MODEL || model.starts_with("mock-")
}

/// Resolves aliases (`sonnet`, `opus`, `haiku`) and the "default" spellings.
pub fn resolve_alias(model: Option<&str>, default: &str) -> String {
    match model.map(str::trim) {
        None | Some("") | Some("default") => default.to_string(),
        Some("sonnet") => "claude-sonnet-4-5".to_string(),
        Some("opus") => "claude-opus-4-1".to_string(),
        Some("haiku") => "claude-haiku-4-5".to_string(),
        Some(other) => other.to_string(),
    }
}

/// (input, output, cache read, cache write) USD per million tokens.
pub fn price_per_mtok(model: &str) -> Option<(f64, f64, f64, f64)> {
    let m = model.to_ascii_lowercase();
    if is_mock(&m) {
        return Some((0.0, 0.0, 0.0, 0.0));
    }
    if m.contains("opus-4-5") || m.contains("opus-4-6") {
        Some((5.0, 25.0, 0.5, 6.25))
    } else if m.contains("opus") {
        Some((15.0, 75.0, 1.5, 18.75))
    } else if m.contains("sonnet") {
        Some((3.0, 15.0, 0.3, 3.75))
    } else if m.contains("haiku-4") {
        Some((1.0, 5.0, 0.1, 1.25))
    } else if m.contains("haiku") {
        Some((0.8, 4.0, 0.08, 1.0))
    } else {
        None
    }
}

pub fn context_window(_model: &str) -> u64 {
    200_000
}

pub fn max_output_tokens(model: &str) -> u64 {
    let m = model.to_ascii_lowercase();
    if is_mock(&m) {
        8_192
    } else if m.contains("opus-4-1") || m.contains("opus-4-0") {
        32_000
    } else {
        64_000
    }
}
