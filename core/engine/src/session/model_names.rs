//! Model names: aliases, the mock, context windows and prices, as the engine reads the
//! tables of [`dcl_model::pricing`] and [`dcl_model::providers`]. Pure functions the
//! model clients and the catalogue (`models`) share; re-exported as `session::models::*`.

use dcl_model::{pricing, providers};

/// The default model of the Anthropic format.
pub const DEFAULT_ANTHROPIC_MODEL: &str = providers::ANTHROPIC.default_model;
pub const MOCK_MODEL: &str = "mock-model";

pub fn is_mock(model: &str) -> bool {
    model == MOCK_MODEL || model.starts_with("mock-")
}

/// Resolves aliases (`sonnet`, `opus`, `haiku`) and the "default" spellings (`""`,
/// `default`, and Qoder's `auto`, which every Qoder sample asks for).
pub fn resolve_alias(model: Option<&str>, default: &str) -> String {
    match model.map(str::trim) {
        None | Some("") | Some("default") | Some("auto") => default.to_string(),
        Some("sonnet") => "claude-sonnet-4-5".to_string(),
        Some("opus") => "claude-opus-4-1".to_string(),
        Some("haiku") => "claude-haiku-4-5".to_string(),
        Some(other) => other.to_string(),
    }
}

/// (input, output, cache read, cache write) USD per million tokens; the mock is free,
/// `None` means the model is not in the price table (it is counted as free; see
/// [`pricing::lookup`] and `Clients::unpriced_notice`).
pub fn price_per_mtok(model: &str) -> Option<(f64, f64, f64, f64)> {
    if is_mock(model) {
        return Some(pricing::Price::FREE.as_tuple());
    }
    pricing::lookup(model).map(|p| p.as_tuple())
}

/// The price of `model`: the mock is free, `None` when the table does not list it.
pub fn price(model: &str) -> Option<pricing::Price> {
    if is_mock(model) {
        return Some(pricing::Price::FREE);
    }
    pricing::lookup(model)
}

/// Context window (`modelUsage[…].contextWindow`): the price table's, else the
/// provider's default, else 128k (200k for an unlisted Claude model).
pub fn context_window(model: &str) -> u64 {
    if is_mock(model) {
        return 200_000;
    }
    pricing::context_window(model).unwrap_or_else(|| providers::default_context_window(model))
}

/// Largest output (`max_tokens`, `modelUsage[…].maxOutputTokens`): the price table's,
/// else the provider's default, else 8192.
pub fn max_output_tokens(model: &str) -> u64 {
    if is_mock(model) {
        return 8_192;
    }
    pricing::max_output_tokens(model).unwrap_or_else(|| providers::default_max_output_tokens(model))
}
