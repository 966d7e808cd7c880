//! Which API, endpoint and key serve a model name.
//!
//! A small table maps model-name prefixes to provider defaults (API format, base URLs
//! per format, the key's environment variable, limits). [`resolve`] combines it with the
//! explicit settings (`--api-format`, `--base-url`, `--api-key`, and `DCL_API_FORMAT`,
//! `DCL_BASE_URL`, `DCL_API_KEY` from the session's environment map), which always win.
//!
//! Keys never travel to a host they were not configured for: a provider's own variable
//! (`DEEPSEEK_API_KEY`) goes to that provider's endpoint, `ANTHROPIC_*` / `OPENAI_*`
//! credentials go to the endpoint configured next to them (or the vendor's own), and an
//! explicit `--base-url` gets the explicit key, else the provider's, else the format's.
//!
//! Resolution of the API format: `--api-format`, else `DCL_API_FORMAT`, else the model's
//! provider's default, else (an unknown model) `openai` when an explicit base URL ends in
//! `/v1` (OpenAI-compatible servers are addressed that way) or names a known provider's
//! host, else `anthropic`.
//!
//! Resolution of the base URL: `--base-url`, else `DCL_BASE_URL`, else the provider's
//! variable (`DEEPSEEK_BASE_URL`), else the format's variable (`ANTHROPIC_BASE_URL`,
//! `OPENAI_BASE_URL`) when the model is the format's own vendor's or unknown, or when that
//! variable points at the provider's host, else the table's URL for that format, else the
//! format's default (`https://api.anthropic.com`, `https://api.openai.com/v1`).

use std::collections::BTreeMap;

/// The wire protocol of a model endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiFormat {
    /// Anthropic Messages API (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`POST {base}/chat/completions`).
    OpenAi,
}

/// An `--api-format` / `DCL_API_FORMAT` value that names no format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown API format {0:?}: use \"anthropic\" or \"openai\"")]
pub struct UnknownApiFormat(pub String);

/// Why no endpoint serves a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("--api-format: {0}")]
    ApiFormat(UnknownApiFormat),
    /// The provider does not serve the requested format and no base URL was given;
    /// `other` is the format it may serve instead.
    #[error(
        "model {model} ({provider}) has no known {format} endpoint: pass --base-url, or use --api-format {other}"
    )]
    NoEndpoint {
        model: String,
        provider: &'static str,
        format: &'static str,
        other: &'static str,
    },
}

impl ApiFormat {
    /// `anthropic` (also `messages`, `claude`) or `openai` (also `openai-chat`, `chat`,
    /// `chat-completions`); case-insensitive.
    pub fn parse(s: &str) -> Result<ApiFormat, UnknownApiFormat> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "anthropic" | "messages" | "claude" => Ok(ApiFormat::Anthropic),
            "openai" | "openai-chat" | "chat" | "chat-completions" => Ok(ApiFormat::OpenAi),
            other => Err(UnknownApiFormat(other.to_string())),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ApiFormat::Anthropic => "anthropic",
            ApiFormat::OpenAi => "openai",
        }
    }

    /// Where the format's own vendor serves it.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ApiFormat::Anthropic => "https://api.anthropic.com",
            ApiFormat::OpenAi => "https://api.openai.com/v1",
        }
    }

    /// The vendor's variables: `(base URL, keys)`.
    fn generic_vars(self) -> (&'static str, &'static [&'static str]) {
        match self {
            ApiFormat::Anthropic => (
                "ANTHROPIC_BASE_URL",
                &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
            ),
            ApiFormat::OpenAi => ("OPENAI_BASE_URL", &["OPENAI_API_KEY"]),
        }
    }
}

/// Defaults of one model provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Provider {
    pub id: &'static str,
    /// Model names that belong to the provider: a prefix ending in `-` matches any name
    /// starting with it; other prefixes match the name itself or the name followed by `-`
    /// or a digit (`o3` matches `o3-mini`, `qwen` matches `qwen3-coder-plus`).
    pub model_prefixes: &'static [&'static str],
    /// API hosts of the provider (to recognise a configured base URL as theirs).
    pub hosts: &'static [&'static str],
    pub default_format: ApiFormat,
    pub anthropic_base_url: Option<&'static str>,
    pub openai_base_url: Option<&'static str>,
    /// The provider's own key variable(s), first set wins.
    pub key_vars: &'static [&'static str],
    pub base_url_var: Option<&'static str>,
    /// The model used when none is named and this provider's endpoint is configured.
    pub default_model: &'static str,
    /// For models of the provider that the price table does not list.
    pub context_window: u64,
    pub max_output_tokens: u64,
}

pub const ANTHROPIC: Provider = Provider {
    id: "anthropic",
    model_prefixes: &["claude-", "claude"],
    hosts: &["api.anthropic.com"],
    default_format: ApiFormat::Anthropic,
    anthropic_base_url: Some("https://api.anthropic.com"),
    openai_base_url: None,
    key_vars: &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    base_url_var: Some("ANTHROPIC_BASE_URL"),
    default_model: "claude-sonnet-4-5",
    context_window: 200_000,
    max_output_tokens: 64_000,
};

pub const OPENAI: Provider = Provider {
    id: "openai",
    model_prefixes: &["gpt-", "chatgpt-", "o1", "o3", "o4", "codex-"],
    hosts: &["api.openai.com"],
    default_format: ApiFormat::OpenAi,
    anthropic_base_url: None,
    openai_base_url: Some("https://api.openai.com/v1"),
    key_vars: &["OPENAI_API_KEY"],
    base_url_var: Some("OPENAI_BASE_URL"),
    default_model: "gpt-4.1",
    context_window: 128_000,
    max_output_tokens: 16_384,
};

/// DeepSeek serves both formats; the Anthropic one is the default because it keeps
/// thinking and tool use closest to what the engine speaks.
pub const DEEPSEEK: Provider = Provider {
    id: "deepseek",
    model_prefixes: &["deepseek"],
    hosts: &["api.deepseek.com"],
    default_format: ApiFormat::Anthropic,
    anthropic_base_url: Some("https://api.deepseek.com/anthropic"),
    openai_base_url: Some("https://api.deepseek.com"),
    key_vars: &["DEEPSEEK_API_KEY"],
    base_url_var: Some("DEEPSEEK_BASE_URL"),
    default_model: "deepseek-chat",
    context_window: 128_000,
    max_output_tokens: 8_192,
};

/// Qwen on Alibaba Cloud Model Studio (DashScope), OpenAI-compatible mode.
pub const QWEN: Provider = Provider {
    id: "qwen",
    model_prefixes: &["qwen", "qwq", "qvq"],
    hosts: &["dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"],
    default_format: ApiFormat::OpenAi,
    anthropic_base_url: None,
    openai_base_url: Some("https://dashscope.aliyuncs.com/compatible-mode/v1"),
    key_vars: &["DASHSCOPE_API_KEY"],
    base_url_var: Some("DASHSCOPE_BASE_URL"),
    default_model: "qwen-plus",
    context_window: 131_072,
    max_output_tokens: 8_192,
};

pub const PROVIDERS: &[&Provider] = &[&ANTHROPIC, &OPENAI, &DEEPSEEK, &QWEN];

/// Limits assumed for a model no table knows (a local server, a new model).
pub const UNKNOWN_CONTEXT_WINDOW: u64 = 128_000;
pub const UNKNOWN_MAX_OUTPUT_TOKENS: u64 = 8_192;

fn prefix_matches(name: &str, prefix: &str) -> bool {
    if prefix.ends_with('-') {
        return name.starts_with(prefix);
    }
    match name.strip_prefix(prefix) {
        Some(rest) => {
            rest.is_empty()
                || rest.starts_with('-')
                || rest.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The provider whose models `model` names. A routed name (`vendor/model`) belongs to no
/// provider: it is meant for whatever router the base URL points at.
pub fn provider_for_model(model: &str) -> Option<&'static Provider> {
    let m = model.trim().to_ascii_lowercase();
    if m.contains('/') {
        return None;
    }
    let m = m.split('[').next().unwrap_or("");
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.model_prefixes.iter().any(|pre| prefix_matches(m, pre)))
}

/// The host of a URL, lower-cased, without port or credentials.
pub fn host_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url.trim())
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
}

/// The provider whose API host `url` names.
pub fn provider_for_host(url: &str) -> Option<&'static Provider> {
    let host = host_of(url)?;
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.hosts.iter().any(|h| *h == host))
}

/// Settings given explicitly for the session (flags); the env map's `DCL_*` variables
/// count as explicit too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub api_format: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
}

/// Where the base URL came from (decides which keys may go with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseUrlSource {
    /// `--base-url` or `DCL_BASE_URL`.
    Explicit,
    /// The provider's own variable (`DEEPSEEK_BASE_URL`).
    ProviderEnv,
    /// The format's variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`).
    FormatEnv,
    /// The provider table or the format's default.
    Default,
}

/// Everything needed to build a client for one model. `Debug` redacts the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `None` for a model no provider claims (local servers, routers, new names).
    pub provider: Option<&'static str>,
    pub format: ApiFormat,
    pub base_url: String,
    pub base_url_source: BaseUrlSource,
    /// Anthropic: `x-api-key`; OpenAI: `Authorization: Bearer`.
    pub api_key: Option<String>,
    /// Anthropic only: `Authorization: Bearer` (gateways, `ANTHROPIC_AUTH_TOKEN`).
    pub auth_token: Option<String>,
    /// Where the key came from (`system/init`'s `apiKeySource`): a variable name,
    /// `--api-key`, or `none`.
    pub key_source: &'static str,
    /// The variables that would have supplied a key, for error messages.
    pub key_hint: String,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redact = |v: &Option<String>| {
            if v.is_some() {
                "Some(<redacted>)"
            } else {
                "None"
            }
        };
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("format", &self.format)
            .field("base_url", &super::anthropic::redact_url(&self.base_url))
            .field("base_url_source", &self.base_url_source)
            .field("api_key", &format_args!("{}", redact(&self.api_key)))
            .field("auth_token", &format_args!("{}", redact(&self.auth_token)))
            .field("key_source", &self.key_source)
            .finish()
    }
}

impl Endpoint {
    pub fn has_credentials(&self) -> bool {
        self.api_key.is_some() || self.auth_token.is_some()
    }

    /// Whether requests to this endpoint need a key: every known provider's host does; a
    /// custom (local) OpenAI-compatible server may not.
    pub fn requires_key(&self) -> bool {
        match self.format {
            ApiFormat::Anthropic => true,
            ApiFormat::OpenAi => provider_for_host(&self.base_url).is_some(),
        }
    }
}

fn get<'a>(env: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    env.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// The first variable of `vars` that is set, with its name.
fn first_var(
    env: &BTreeMap<String, String>,
    vars: &[&'static str],
) -> Option<(&'static str, String)> {
    vars.iter()
        .find_map(|k| get(env, k).map(|v| (*k, v.to_string())))
}

fn non_empty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// The API format for `model`: explicit, else the provider's, else inferred from an
/// explicit base URL, else Anthropic.
pub fn resolve_format(
    model: &str,
    ov: &Overrides,
    env: &BTreeMap<String, String>,
) -> Result<ApiFormat, EndpointError> {
    if let Some(f) = non_empty(&ov.api_format).or_else(|| get(env, "DCL_API_FORMAT")) {
        return ApiFormat::parse(f).map_err(EndpointError::ApiFormat);
    }
    if let Some(p) = provider_for_model(model) {
        return Ok(p.default_format);
    }
    let base = non_empty(&ov.base_url).or_else(|| get(env, "DCL_BASE_URL"));
    if let Some(base) = base {
        if let Some(p) = provider_for_host(base) {
            return Ok(
                if base.contains("/anthropic") || p.openai_base_url.is_none() {
                    ApiFormat::Anthropic
                } else {
                    ApiFormat::OpenAi
                },
            );
        }
        if base.trim_end_matches('/').ends_with("/v1") {
            return Ok(ApiFormat::OpenAi);
        }
    }
    Ok(ApiFormat::Anthropic)
}

/// The endpoint, key and format that serve `model` (see the module docs for the order).
/// Fails only on an invalid `--api-format`, or a provider that does not serve the
/// requested format when no base URL was given.
pub fn resolve(
    model: &str,
    ov: &Overrides,
    env: &BTreeMap<String, String>,
) -> Result<Endpoint, EndpointError> {
    let format = resolve_format(model, ov, env)?;
    let provider = provider_for_model(model);
    let (format_base_var, format_key_vars) = format.generic_vars();
    // The format's own vendor (Anthropic for Anthropic, OpenAI for OpenAI), or no
    // provider at all: the format's variables apply as they always did.
    let native = match provider {
        None => true,
        Some(p) => match format {
            ApiFormat::Anthropic => p.id == ANTHROPIC.id,
            ApiFormat::OpenAi => p.id == OPENAI.id,
        },
    };
    let table_url = provider.and_then(|p| match format {
        ApiFormat::Anthropic => p.anthropic_base_url,
        ApiFormat::OpenAi => p.openai_base_url,
    });

    let explicit_base = non_empty(&ov.base_url)
        .or_else(|| get(env, "DCL_BASE_URL"))
        .map(str::to_string);
    let provider_base = provider
        .and_then(|p| p.base_url_var)
        .filter(|_| !native)
        .and_then(|var| get(env, var))
        .map(str::to_string);
    let format_base = get(env, format_base_var).map(str::to_string).filter(|url| {
        native
            || provider
                .is_some_and(|p| host_of(url).is_some_and(|h| p.hosts.iter().any(|ph| *ph == h)))
    });
    let (base_url, base_url_source) = if let Some(b) = explicit_base {
        (b, BaseUrlSource::Explicit)
    } else if let Some(b) = provider_base {
        (b, BaseUrlSource::ProviderEnv)
    } else if let Some(b) = format_base {
        (b, BaseUrlSource::FormatEnv)
    } else if let Some(b) = table_url {
        (b.to_string(), BaseUrlSource::Default)
    } else if native {
        (
            format.default_base_url().to_string(),
            BaseUrlSource::Default,
        )
    } else {
        return Err(EndpointError::NoEndpoint {
            model: model.to_string(),
            provider: provider.map_or("?", |p| p.id),
            format: format.as_str(),
            other: match format {
                ApiFormat::Anthropic => "openai",
                ApiFormat::OpenAi => "anthropic",
            },
        });
    };

    // Keys, in the order that may go to this base URL.
    let provider_vars: &[&'static str] = match provider {
        Some(p) if !native => p.key_vars,
        _ => &[],
    };
    let mut candidates: Vec<&'static str> = Vec::new();
    match base_url_source {
        BaseUrlSource::Explicit => {
            candidates.extend(provider_vars);
            candidates.extend(format_key_vars);
        }
        BaseUrlSource::ProviderEnv => candidates.extend(provider_vars),
        BaseUrlSource::FormatEnv => {
            candidates.extend(format_key_vars);
            candidates.extend(provider_vars);
        }
        BaseUrlSource::Default => {
            if native {
                candidates.extend(format_key_vars);
            } else {
                candidates.extend(provider_vars);
            }
        }
    }
    let key_hint = {
        let mut names: Vec<&str> = vec![];
        names.extend(candidates.iter().copied());
        if names.is_empty() {
            "--api-key".to_string()
        } else {
            format!("{} (or --api-key)", names.join(" or "))
        }
    };

    let mut ep = Endpoint {
        provider: provider.map(|p| p.id),
        format,
        base_url,
        base_url_source,
        api_key: None,
        auth_token: None,
        key_source: "none",
        key_hint,
    };
    // Bearer and x-api-key both carry a non-Anthropic provider's key on its Anthropic
    // endpoint: such gateways accept one or the other.
    let both_headers = format == ApiFormat::Anthropic && !native;
    let explicit_key = non_empty(&ov.api_key)
        .map(|k| ("--api-key", k.to_string()))
        .or_else(|| get(env, "DCL_API_KEY").map(|k| ("DCL_API_KEY", k.to_string())));
    if let Some((source, key)) = explicit_key {
        if both_headers {
            ep.auth_token = Some(key.clone());
        }
        ep.api_key = Some(key);
        ep.key_source = source;
        return Ok(ep);
    }
    if format == ApiFormat::Anthropic && !both_headers {
        // `ANTHROPIC_API_KEY` is sent as x-api-key and `ANTHROPIC_AUTH_TOKEN` as a bearer
        // token, both when both are set (as Claude Code does).
        let uses_generic = candidates.contains(&"ANTHROPIC_API_KEY");
        if uses_generic {
            ep.api_key = get(env, "ANTHROPIC_API_KEY").map(str::to_string);
            ep.auth_token = get(env, "ANTHROPIC_AUTH_TOKEN").map(str::to_string);
            ep.key_source = if ep.api_key.is_some() {
                "ANTHROPIC_API_KEY"
            } else if ep.auth_token.is_some() {
                "ANTHROPIC_AUTH_TOKEN"
            } else {
                "none"
            };
            if ep.has_credentials() {
                return Ok(ep);
            }
        }
    }
    if let Some((var, key)) = first_var(env, &candidates) {
        if var == "ANTHROPIC_AUTH_TOKEN" && !both_headers {
            ep.auth_token = Some(key);
        } else {
            if both_headers {
                ep.auth_token = Some(key.clone());
            }
            ep.api_key = Some(key);
        }
        ep.key_source = var;
    }
    Ok(ep)
}

/// The model to use when none is named: the provider's whose endpoint is configured
/// explicitly (`--base-url`, `DCL_BASE_URL`, or the format's variable), else that of the
/// explicit format (`gpt-4.1` for `openai`), else a current Claude Sonnet.
pub fn default_model(ov: &Overrides, env: &BTreeMap<String, String>) -> &'static str {
    let explicit_format = non_empty(&ov.api_format)
        .or_else(|| get(env, "DCL_API_FORMAT"))
        .and_then(|f| ApiFormat::parse(f).ok());
    let explicit_base = non_empty(&ov.base_url).or_else(|| get(env, "DCL_BASE_URL"));
    if let Some(p) = explicit_base.and_then(provider_for_host) {
        return p.default_model;
    }
    match explicit_format {
        Some(ApiFormat::OpenAi) => get(env, "OPENAI_BASE_URL")
            .and_then(provider_for_host)
            .map_or(OPENAI.default_model, |p| p.default_model),
        _ => get(env, "ANTHROPIC_BASE_URL")
            .and_then(provider_for_host)
            .filter(|p| p.anthropic_base_url.is_some())
            .map_or(ANTHROPIC.default_model, |p| p.default_model),
    }
}

pub use super::http::proxy_for;

/// Context window of a model no price table lists: its provider's default.
pub fn default_context_window(model: &str) -> u64 {
    provider_for_model(model).map_or(UNKNOWN_CONTEXT_WINDOW, |p| p.context_window)
}

/// Output limit of a model no price table lists: its provider's default.
pub fn default_max_output_tokens(model: &str) -> u64 {
    provider_for_model(model).map_or(UNKNOWN_MAX_OUTPUT_TOKENS, |p| p.max_output_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env as env;

    fn ov(format: Option<&str>, base: Option<&str>, key: Option<&str>) -> Overrides {
        Overrides {
            api_format: format.map(Into::into),
            base_url: base.map(Into::into),
            api_key: key.map(Into::into),
        }
    }

    #[test]
    fn formats_parse() {
        assert_eq!(ApiFormat::parse("Anthropic"), Ok(ApiFormat::Anthropic));
        assert_eq!(ApiFormat::parse("openai"), Ok(ApiFormat::OpenAi));
        assert_eq!(ApiFormat::parse("chat_completions"), Ok(ApiFormat::OpenAi));
        assert!(ApiFormat::parse("gemini").is_err());
    }

    #[test]
    fn providers_by_name() {
        let id = |m: &str| provider_for_model(m).map(|p| p.id);
        assert_eq!(id("claude-sonnet-4-5"), Some("anthropic"));
        assert_eq!(id("claude-opus-4-8[1m]"), Some("anthropic"));
        assert_eq!(id("gpt-4o"), Some("openai"));
        assert_eq!(id("o3"), Some("openai"));
        assert_eq!(id("o4-mini"), Some("openai"));
        assert_eq!(id("ollama"), None, "`o` alone is not a prefix");
        assert_eq!(id("o30b"), Some("openai"), "digits continue the family");
        assert_eq!(id("deepseek-flash"), Some("deepseek"));
        assert_eq!(id("DeepSeek-Chat"), Some("deepseek"));
        assert_eq!(id("qwen3-coder-plus"), Some("qwen"));
        assert_eq!(id("qwen-max"), Some("qwen"));
        assert_eq!(id("qwq-32b"), Some("qwen"));
        assert_eq!(id("qwenfoo"), None);
        assert_eq!(
            id("deepseek/deepseek-chat"),
            None,
            "routed names are the router's"
        );
        assert_eq!(id("llama3.1:8b"), None);
    }

    #[test]
    fn the_seed_example_deepseek_over_anthropic_format() {
        let e = env(&[
            ("DEEPSEEK_API_KEY", "sk-ds"),
            ("ANTHROPIC_API_KEY", "sk-ant-real"),
        ]);
        let ep = resolve("deepseek-flash", &ov(Some("anthropic"), None, None), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::Anthropic);
        assert_eq!(ep.base_url, "https://api.deepseek.com/anthropic");
        assert_eq!(ep.api_key.as_deref(), Some("sk-ds"));
        assert_eq!(ep.auth_token.as_deref(), Some("sk-ds"));
        assert_eq!(ep.key_source, "DEEPSEEK_API_KEY");
        // Without a DeepSeek key the Anthropic key is never sent to DeepSeek.
        let e = env(&[("ANTHROPIC_API_KEY", "sk-ant-real")]);
        let ep = resolve("deepseek-flash", &ov(Some("anthropic"), None, None), &e).unwrap();
        assert!(!ep.has_credentials());
        assert!(ep.key_hint.contains("DEEPSEEK_API_KEY"), "{}", ep.key_hint);
        // The OpenAI format goes to DeepSeek's OpenAI endpoint.
        let e = env(&[("DEEPSEEK_API_KEY", "sk-ds"), ("OPENAI_API_KEY", "sk-oa")]);
        let ep = resolve("deepseek-chat", &ov(Some("openai"), None, None), &e).unwrap();
        assert_eq!(ep.base_url, "https://api.deepseek.com");
        assert_eq!(ep.api_key.as_deref(), Some("sk-ds"));
        // By name alone: DeepSeek's default format is Anthropic.
        let ep = resolve("deepseek-chat", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::Anthropic);
    }

    #[test]
    fn deepseek_configured_through_the_anthropic_variables() {
        // DeepSeek's own guide for Claude Code.
        let e = env(&[
            ("ANTHROPIC_BASE_URL", "https://api.deepseek.com/anthropic"),
            ("ANTHROPIC_AUTH_TOKEN", "sk-ds"),
        ]);
        let ep = resolve("deepseek-chat", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.base_url, "https://api.deepseek.com/anthropic");
        assert_eq!(ep.base_url_source, BaseUrlSource::FormatEnv);
        assert_eq!(ep.auth_token.as_deref(), Some("sk-ds"));
        assert_eq!(ep.key_source, "ANTHROPIC_AUTH_TOKEN");
        // A gateway in ANTHROPIC_BASE_URL does not capture DeepSeek models.
        let e = env(&[
            ("ANTHROPIC_BASE_URL", "https://gw.example"),
            ("ANTHROPIC_API_KEY", "sk-gw"),
            ("DEEPSEEK_API_KEY", "sk-ds"),
        ]);
        let ep = resolve("deepseek-chat", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.base_url, "https://api.deepseek.com/anthropic");
        assert_eq!(ep.api_key.as_deref(), Some("sk-ds"));
        // But it does serve Claude models, with its key.
        let ep = resolve("claude-sonnet-4-5", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.base_url, "https://gw.example");
        assert_eq!(ep.api_key.as_deref(), Some("sk-gw"));
        assert_eq!(ep.auth_token, None);
    }

    #[test]
    fn qwen_and_openai_defaults() {
        let e = env(&[
            ("DASHSCOPE_API_KEY", "sk-dash"),
            ("OPENAI_API_KEY", "sk-oa"),
        ]);
        let ep = resolve("qwen3-coder-plus", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::OpenAi);
        assert_eq!(
            ep.base_url,
            "https://dashscope.aliyuncs.com/compatible-mode/v1"
        );
        assert_eq!(ep.api_key.as_deref(), Some("sk-dash"));
        let err = resolve("qwen-max", &ov(Some("anthropic"), None, None), &e).unwrap_err();
        assert!(err.to_string().contains("--base-url"), "{err}");
        let ep = resolve("gpt-4.1", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.base_url, "https://api.openai.com/v1");
        assert_eq!(ep.api_key.as_deref(), Some("sk-oa"));
        assert_eq!(ep.key_source, "OPENAI_API_KEY");
        let e = env(&[
            ("OPENAI_BASE_URL", "https://azure.example/openai/v1"),
            ("OPENAI_API_KEY", "sk-az"),
        ]);
        let ep = resolve("gpt-4o", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.base_url, "https://azure.example/openai/v1");
        assert_eq!(ep.api_key.as_deref(), Some("sk-az"));
        // The OpenAI variables do not capture Qwen models (nor send their key there).
        let ep = resolve("qwen-plus", &Overrides::default(), &e).unwrap();
        assert_eq!(
            ep.base_url,
            "https://dashscope.aliyuncs.com/compatible-mode/v1"
        );
        assert!(!ep.has_credentials());
        assert!(ep.requires_key());
    }

    #[test]
    fn explicit_settings_win() {
        let e = env(&[
            ("DEEPSEEK_API_KEY", "sk-ds"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("DCL_API_FORMAT", "openai"),
        ]);
        // DCL_API_FORMAT beats the provider default; --api-format beats DCL_API_FORMAT.
        let ep = resolve("deepseek-chat", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::OpenAi);
        let ep = resolve("deepseek-chat", &ov(Some("anthropic"), None, None), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::Anthropic);
        // --base-url and --api-key win over everything.
        let ep = resolve(
            "deepseek-chat",
            &ov(None, Some("http://127.0.0.1:9/v1"), Some("sk-flag")),
            &e,
        )
        .unwrap();
        assert_eq!(ep.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(ep.api_key.as_deref(), Some("sk-flag"));
        assert_eq!(ep.key_source, "--api-key");
        // An explicit base URL without a key gets the provider's key first.
        let ep = resolve(
            "deepseek-chat",
            &ov(None, Some("https://proxy.example"), None),
            &e,
        )
        .unwrap();
        assert_eq!(ep.api_key.as_deref(), Some("sk-ds"));
        // DCL_API_KEY and DCL_BASE_URL are explicit too.
        let e = env(&[
            ("DCL_BASE_URL", "http://localhost:8000/v1"),
            ("DCL_API_KEY", "sk-dcl"),
        ]);
        let ep = resolve("llama3", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.format, ApiFormat::OpenAi, "a /v1 base URL means OpenAI");
        assert_eq!(ep.base_url, "http://localhost:8000/v1");
        assert_eq!(ep.api_key.as_deref(), Some("sk-dcl"));
        assert_eq!(ep.key_source, "DCL_API_KEY");
        assert!(resolve("x", &ov(Some("grpc"), None, None), &e).is_err());
    }

    #[test]
    fn local_servers_need_no_key() {
        let ep = resolve(
            "llama3.1:8b",
            &ov(Some("openai"), Some("http://127.0.0.1:11434/v1"), None),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(ep.provider, None);
        assert!(!ep.has_credentials());
        assert!(!ep.requires_key());
        // Unknown models without any setting go to Anthropic as before.
        let ep = resolve("my-model", &Overrides::default(), &BTreeMap::new()).unwrap();
        assert_eq!(ep.format, ApiFormat::Anthropic);
        assert_eq!(ep.base_url, "https://api.anthropic.com");
        assert!(ep.requires_key());
        // A known provider's host as base URL picks its format.
        let ep = resolve(
            "some-model",
            &ov(
                None,
                Some("https://dashscope.aliyuncs.com/compatible-mode/v1"),
                None,
            ),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(ep.format, ApiFormat::OpenAi);
    }

    #[test]
    fn anthropic_keys_as_before() {
        let e = env(&[
            ("ANTHROPIC_API_KEY", "sk-a"),
            ("ANTHROPIC_AUTH_TOKEN", "tok"),
        ]);
        let ep = resolve("claude-x", &Overrides::default(), &e).unwrap();
        assert_eq!(ep.api_key.as_deref(), Some("sk-a"));
        assert_eq!(ep.auth_token.as_deref(), Some("tok"));
        assert_eq!(ep.key_source, "ANTHROPIC_API_KEY");
        let ep = resolve("claude-x", &ov(None, None, Some("sk-flag")), &e).unwrap();
        assert_eq!(ep.api_key.as_deref(), Some("sk-flag"));
        assert_eq!(ep.auth_token, None);
        let dbg = format!("{ep:?}");
        assert!(!dbg.contains("sk-flag"), "{dbg}");
    }

    #[test]
    fn default_models() {
        let none = BTreeMap::new();
        assert_eq!(
            default_model(&Overrides::default(), &none),
            "claude-sonnet-4-5"
        );
        assert_eq!(
            default_model(&ov(Some("openai"), None, None), &none),
            "gpt-4.1"
        );
        assert_eq!(
            default_model(
                &ov(None, Some("https://api.deepseek.com/anthropic"), None),
                &none
            ),
            "deepseek-chat"
        );
        let e = env(&[(
            "OPENAI_BASE_URL",
            "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        )]);
        assert_eq!(
            default_model(&ov(Some("openai"), None, None), &e),
            "qwen-plus"
        );
        let e = env(&[("ANTHROPIC_BASE_URL", "https://api.deepseek.com/anthropic")]);
        assert_eq!(default_model(&Overrides::default(), &e), "deepseek-chat");
    }

    #[test]
    fn proxies_follow_the_scheme() {
        let e = env(&[
            ("HTTP_PROXY", "http://p1"),
            ("https_proxy", "http://p2"),
            ("NO_PROXY", "x"),
        ]);
        assert_eq!(
            proxy_for("http://a", &e),
            (Some("http://p1".into()), Some("x".into()))
        );
        assert_eq!(proxy_for("https://a", &e).0.as_deref(), Some("http://p2"));
    }
}
