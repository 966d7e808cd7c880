//! Prices (USD per million tokens), context windows and output limits of the models dcl
//! knows. Only list prices we are sure of are here; any other model costs 0 and
//! [`lookup`] says so with `None`, so the session can tell the user once.
//!
//! Model ids are matched after [`normalize`]: lower case, without a router prefix
//! (`anthropic/…`, `us.anthropic.…`), without the `[1m]` context marker, with Vertex's
//! `@date` as `-date`. A table entry matches its exact id, a dated snapshot of it
//! (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`, Bedrock's `…-20250929-v1:0`) or
//! `…-latest`, never a longer name (`gpt-4o` does not price `gpt-4o-mini`, and
//! `claude-opus-4` does not price a future `claude-opus-4-9`).

use dcl_protocol::Usage;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    /// 5-minute cache writes (Anthropic); providers without cache writes repeat `input`.
    pub cache_write: f64,
}

impl Price {
    pub const FREE: Price = Price {
        input: 0.0,
        output: 0.0,
        cache_read: 0.0,
        cache_write: 0.0,
    };

    const fn new(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Price {
        Price {
            input,
            output,
            cache_read,
            cache_write,
        }
    }

    /// Cost of `usage` in USD. `input_tokens` are the uncached input tokens, as the
    /// Messages API counts them (the OpenAI client converts to that convention).
    pub fn cost_usd(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input
            + usage.output_tokens as f64 * self.output
            + usage.cache_read_input_tokens as f64 * self.cache_read
            + usage.cache_creation_input_tokens as f64 * self.cache_write)
            / 1_000_000.0
    }

    /// `(input, output, cache read, cache write)`.
    pub fn as_tuple(&self) -> (f64, f64, f64, f64) {
        (self.input, self.output, self.cache_read, self.cache_write)
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct ModelSpec {
    /// Ids this row prices (see the module docs for how they match).
    pub ids: &'static [&'static str],
    pub price: Price,
    pub context_window: u64,
    pub max_output_tokens: u64,
}

const OPUS_45: Price = Price::new(5.0, 25.0, 0.5, 6.25);
const OPUS_4: Price = Price::new(15.0, 75.0, 1.5, 18.75);
const SONNET: Price = Price::new(3.0, 15.0, 0.3, 3.75);
const HAIKU_45: Price = Price::new(1.0, 5.0, 0.1, 1.25);
const HAIKU_35: Price = Price::new(0.8, 4.0, 0.08, 1.0);
const HAIKU_3: Price = Price::new(0.25, 1.25, 0.03, 0.3);
const DEEPSEEK: Price = Price::new(0.28, 0.42, 0.028, 0.28);

const fn spec(
    ids: &'static [&'static str],
    price: Price,
    context_window: u64,
    max_output_tokens: u64,
) -> ModelSpec {
    ModelSpec {
        ids,
        price,
        context_window,
        max_output_tokens,
    }
}

/// The table. Order does not matter: ids match exactly (or as dated snapshots).
pub const MODELS: &[ModelSpec] = &[
    // Anthropic.
    spec(
        &[
            "claude-opus-4-8",
            "claude-opus-4-7",
            "claude-opus-4-6",
            "claude-opus-4-5",
        ],
        OPUS_45,
        200_000,
        64_000,
    ),
    spec(
        &["claude-opus-4-1", "claude-opus-4-0", "claude-opus-4"],
        OPUS_4,
        200_000,
        32_000,
    ),
    spec(&["claude-3-opus"], OPUS_4, 200_000, 4_096),
    spec(
        &[
            "claude-sonnet-4-6",
            "claude-sonnet-4-5",
            "claude-sonnet-4-0",
            "claude-sonnet-4",
            "claude-3-7-sonnet",
        ],
        SONNET,
        200_000,
        64_000,
    ),
    spec(&["claude-3-5-sonnet"], SONNET, 200_000, 8_192),
    spec(&["claude-haiku-4-5"], HAIKU_45, 200_000, 64_000),
    spec(&["claude-3-5-haiku"], HAIKU_35, 200_000, 8_192),
    spec(&["claude-3-haiku"], HAIKU_3, 200_000, 4_096),
    // OpenAI (cached input is `cache_read`; there is no cache-write charge).
    spec(
        &["gpt-5", "gpt-5-codex", "gpt-5.1", "gpt-5.1-codex"],
        Price::new(1.25, 10.0, 0.125, 1.25),
        400_000,
        128_000,
    ),
    spec(
        &["gpt-5-chat"],
        Price::new(1.25, 10.0, 0.125, 1.25),
        128_000,
        16_384,
    ),
    spec(
        &["gpt-5-mini"],
        Price::new(0.25, 2.0, 0.025, 0.25),
        400_000,
        128_000,
    ),
    spec(
        &["gpt-5-nano"],
        Price::new(0.05, 0.4, 0.005, 0.05),
        400_000,
        128_000,
    ),
    spec(
        &["gpt-4.1"],
        Price::new(2.0, 8.0, 0.5, 2.0),
        1_047_576,
        32_768,
    ),
    spec(
        &["gpt-4.1-mini"],
        Price::new(0.4, 1.6, 0.1, 0.4),
        1_047_576,
        32_768,
    ),
    spec(
        &["gpt-4.1-nano"],
        Price::new(0.1, 0.4, 0.025, 0.1),
        1_047_576,
        32_768,
    ),
    spec(
        &["gpt-4o"],
        Price::new(2.5, 10.0, 1.25, 2.5),
        128_000,
        16_384,
    ),
    spec(
        &["gpt-4o-mini"],
        Price::new(0.15, 0.6, 0.075, 0.15),
        128_000,
        16_384,
    ),
    spec(&["o3"], Price::new(2.0, 8.0, 0.5, 2.0), 200_000, 100_000),
    spec(
        &["o4-mini", "o3-mini"],
        Price::new(1.1, 4.4, 0.275, 1.1),
        200_000,
        100_000,
    ),
    spec(&["o1"], Price::new(15.0, 60.0, 7.5, 15.0), 200_000, 100_000),
    // DeepSeek (V3.2 list prices; a cache hit is `cache_read`).
    spec(&["deepseek-chat"], DEEPSEEK, 128_000, 8_192),
    spec(&["deepseek-reasoner"], DEEPSEEK, 128_000, 65_536),
];

/// The id as the table spells it (see the module docs).
pub fn normalize(model: &str) -> String {
    let mut m = model.trim().to_ascii_lowercase();
    // `claude-opus-4-8[1m]`: Claude Code's marker of the 1M-token context window.
    if m.ends_with(']')
        && let Some(i) = m.rfind('[')
    {
        m.truncate(i);
    }
    // Router prefixes: `anthropic/claude-…`, `openai/gpt-4o`.
    if let Some(i) = m.rfind('/') {
        m = m[i + 1..].to_string();
    }
    // Bedrock: `us.anthropic.claude-…`, `anthropic.claude-…`.
    if let Some(i) = m.find("anthropic.") {
        m = m[i + "anthropic.".len()..].to_string();
    }
    // Vertex: `claude-sonnet-4-5@20250929`.
    m = m.replace('@', "-");
    // OpenRouter spells Claude versions with dots (`claude-sonnet-4.5`).
    if m.starts_with("claude") {
        m = m.replace('.', "-");
    }
    m
}

/// Whether `name` is `id`, a dated snapshot of it, or `id-latest`.
fn matches_id(name: &str, id: &str) -> bool {
    let Some(rest) = name.strip_prefix(id) else {
        return false;
    };
    if rest.is_empty() || rest == "-latest" {
        return true;
    }
    // `-20250929`, `-2024-08-06`, `-20250929-v1:0`: a date starts with four digits.
    rest.strip_prefix('-')
        .is_some_and(|r| r.len() >= 4 && r.as_bytes()[..4].iter().all(u8::is_ascii_digit))
}

/// The table row of `model`, if it has one.
pub fn spec_for(model: &str) -> Option<&'static ModelSpec> {
    let name = normalize(model);
    MODELS
        .iter()
        .find(|s| s.ids.iter().any(|id| matches_id(&name, id)))
}

/// The price of `model`; `None` for a model not in the table (it costs 0, and the caller
/// should say so once).
pub fn lookup(model: &str) -> Option<Price> {
    spec_for(model).map(|s| s.price)
}

/// Context window from the table; a `[1m]` id has 1,000,000 tokens.
pub fn context_window(model: &str) -> Option<u64> {
    if model.trim().to_ascii_lowercase().ends_with("[1m]") {
        return Some(1_000_000);
    }
    spec_for(model).map(|s| s.context_window)
}

/// Largest output (`max_tokens`) the model accepts, from the table.
pub fn max_output_tokens(model: &str) -> Option<u64> {
    spec_for(model).map(|s| s.max_output_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_input_tokens: cache_read,
            cache_creation_input_tokens: cache_write,
            ..Usage::default()
        }
    }

    #[test]
    fn claude_ids_and_snapshots() {
        assert_eq!(lookup("claude-sonnet-4-5"), Some(SONNET));
        assert_eq!(lookup("claude-sonnet-4-5-20250929"), Some(SONNET));
        assert_eq!(lookup("claude-sonnet-4-20250514"), Some(SONNET));
        assert_eq!(lookup("Claude-Sonnet-4-5@20250929"), Some(SONNET));
        assert_eq!(
            lookup("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            Some(SONNET)
        );
        assert_eq!(lookup("anthropic/claude-sonnet-4.5"), Some(SONNET));
        assert_eq!(lookup("claude-opus-4-8[1m]"), Some(OPUS_45));
        assert_eq!(lookup("claude-opus-4-5-20251101"), Some(OPUS_45));
        assert_eq!(lookup("claude-opus-4-1-20250805"), Some(OPUS_4));
        assert_eq!(lookup("claude-opus-4-20250514"), Some(OPUS_4));
        assert_eq!(lookup("claude-haiku-4-5-20251001"), Some(HAIKU_45));
        assert_eq!(lookup("claude-3-5-haiku-latest"), Some(HAIKU_35));
        assert_eq!(lookup("claude-3-haiku-20240307"), Some(HAIKU_3));
        // Unknown versions are not guessed.
        assert_eq!(lookup("claude-opus-4-9"), None);
        assert_eq!(lookup("claude-sonnet-5"), None);
    }

    #[test]
    fn other_providers() {
        assert_eq!(lookup("gpt-4o").map(|p| p.input), Some(2.5));
        assert_eq!(lookup("gpt-4o-2024-08-06").map(|p| p.input), Some(2.5));
        assert_eq!(lookup("gpt-4o-mini").map(|p| p.input), Some(0.15));
        assert_eq!(lookup("gpt-4.1-nano").map(|p| p.output), Some(0.4));
        assert_eq!(lookup("gpt-5").map(|p| p.output), Some(10.0));
        assert_eq!(lookup("gpt-5-2025-08-07").map(|p| p.output), Some(10.0));
        assert_eq!(lookup("gpt-5-mini").map(|p| p.output), Some(2.0));
        assert_eq!(lookup("openai/gpt-5-nano").map(|p| p.input), Some(0.05));
        assert_eq!(lookup("gpt-5.2"), None);
        assert_eq!(lookup("o3").map(|p| p.input), Some(2.0));
        assert_eq!(lookup("o3-pro"), None);
        assert_eq!(lookup("deepseek-chat"), Some(DEEPSEEK));
        assert_eq!(lookup("deepseek-reasoner"), Some(DEEPSEEK));
        assert_eq!(lookup("deepseek-flash"), None);
        assert_eq!(lookup("qwen-plus"), None);
        assert_eq!(lookup("llama3"), None);
    }

    #[test]
    fn limits() {
        assert_eq!(context_window("claude-opus-4-8[1m]"), Some(1_000_000));
        assert_eq!(context_window("claude-opus-4-8"), Some(200_000));
        assert_eq!(max_output_tokens("claude-opus-4-8[1m]"), Some(64_000));
        assert_eq!(max_output_tokens("claude-opus-4-1"), Some(32_000));
        assert_eq!(context_window("gpt-4.1"), Some(1_047_576));
        assert_eq!(max_output_tokens("deepseek-chat"), Some(8_192));
        assert_eq!(context_window("something-else"), None);
    }

    #[test]
    fn cost_counts_every_kind_of_token() {
        // The reference CLI: claude-opus-4-8, 100 in / 10 out = $0.00075.
        let p = lookup("claude-opus-4-8[1m]").unwrap();
        assert!((p.cost_usd(&usage(100, 10, 0, 0)) - 0.00075).abs() < 1e-12);
        let p = lookup("claude-sonnet-4-5").unwrap();
        let c = p.cost_usd(&usage(1_000_000, 1_000_000, 1_000_000, 1_000_000));
        assert!((c - (3.0 + 15.0 + 0.3 + 3.75)).abs() < 1e-9, "{c}");
        assert_eq!(Price::FREE.cost_usd(&usage(5, 5, 5, 5)), 0.0);
    }
}
