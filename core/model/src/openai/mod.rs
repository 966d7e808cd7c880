//! The OpenAI Chat Completions client: `POST {base_url}/chat/completions` with
//! `stream: true` and `stream_options: {include_usage: true}`. It serves OpenAI and every
//! OpenAI-compatible server (DeepSeek, Qwen/DashScope, vLLM, llama.cpp, Ollama, routers).
//!
//! The request is mapped from the engine's Messages-API [`ModelRequest`] (see
//! [`request_body`]); the streamed `chat.completion.chunk`s are converted by
//! [`ChunkConverter`] into the same typed Messages-API [`StreamEvent`]s the Anthropic
//! client yields, so the engine's accumulator and output are the same for both:
//!
//! | chunk | events |
//! |---|---|
//! | first chunk | `message_start` (`id` and `model` of the chunk, zero usage) |
//! | `delta.reasoning_content` / `delta.reasoning` | a `thinking` block; at its end a `signature_delta` with a synthesised signature ([`synthetic_signature`]) |
//! | `delta.content`, `delta.refusal` | a `text` block with `text_delta`s |
//! | `delta.tool_calls[i]` | a `tool_use` block per call index (`id`, `function.name`), `function.arguments` pieces as `input_json_delta`s |
//! | `finish_reason` | `stop`→`end_turn`, `tool_calls`→`tool_use`, `length`→`max_tokens`, `content_filter`→`refusal` |
//! | `usage` | `prompt_tokens` minus cached → `input_tokens`; cached (`prompt_tokens_details.cached_tokens` or DeepSeek's `prompt_cache_hit_tokens`) → `cache_read_input_tokens`; `completion_tokens` → `output_tokens` |
//! | `data: [DONE]` (or the end of the body after a `finish_reason`) | `message_delta` (stop reason and usage), `message_stop` |
//!
//! Blocks are streamed one after the other as the Messages API does: a new kind of delta
//! closes the open block. Tool calls whose deltas interleave (a delta for a call that
//! was already closed) are refused with a clear stream error.
//!
//! Like the Anthropic client it never reads the process environment: callers build an
//! [`OpenAiConfig`], usually with [`OpenAiConfig::from_env_map`].

mod chunks;
mod request;

use std::collections::BTreeMap;

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::http::{
    ApiFormat, HttpClient, HttpConfig, Redacted, deref_to_http_config, env_value, secret_header,
};
use crate::sse::ByteStream;
use crate::{EventStream, ModelError, ModelRequest};

use chunks::completion_to_events;
pub use chunks::{
    ChunkConverter, SYNTHETIC_SIGNATURE_PREFIX, chunk_event_stream, map_finish_reason, map_usage,
    synthetic_signature,
};
pub use request::{reasoning_effort, request_body, takes_thinking};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How to reach an OpenAI-compatible API: the shared transport settings (reached through
/// `Deref`, so `config.base_url` and `config.proxy` read as before) and the key. `Debug`
/// redacts every secret.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// Its `base_url` goes up to and including the version segment
    /// (`https://api.openai.com/v1`); the client appends `/chat/completions`.
    pub http: HttpConfig,
    /// Sent as `Authorization: Bearer …`; `None` sends no credentials (local servers).
    pub api_key: Option<String>,
}

deref_to_http_config!(OpenAiConfig);

impl OpenAiConfig {
    /// A config for `base_url` with no key and default timeouts.
    pub fn new(base_url: impl Into<String>) -> Self {
        OpenAiConfig {
            http: HttpConfig::new(base_url),
            api_key: None,
        }
    }

    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Reads, from the map the caller passes (never the process env): the key from
    /// `DCL_API_KEY` or `OPENAI_API_KEY`; the base URL from `DCL_BASE_URL` or
    /// `OPENAI_BASE_URL` (default `https://api.openai.com/v1`); `OPENAI_ORG_ID` /
    /// `OPENAI_PROJECT_ID` as headers; and what [`HttpConfig::apply_env_map`] reads (the
    /// timeouts `DCL_REQUEST_TIMEOUT_MS` or `API_TIMEOUT_MS` and `DCL_IDLE_TIMEOUT_MS`, and
    /// the proxy variables). Empty values are unset. (Which provider serves a model is
    /// [`crate::providers::resolve`]'s business.)
    pub fn from_env_map(env: &BTreeMap<String, String>) -> Self {
        let get = |k: &str| env_value(env, k);
        let base = get("DCL_BASE_URL")
            .or_else(|| get("OPENAI_BASE_URL"))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let mut cfg = OpenAiConfig::new(base);
        cfg.api_key = get("DCL_API_KEY").or_else(|| get("OPENAI_API_KEY"));
        if let Some(org) = get("OPENAI_ORG_ID") {
            cfg.extra_headers.push(("OpenAI-Organization".into(), org));
        }
        if let Some(project) = get("OPENAI_PROJECT_ID") {
            cfg.extra_headers.push(("OpenAI-Project".into(), project));
        }
        cfg.http.apply_env_map(env);
        cfg
    }

    pub fn endpoint(&self) -> String {
        self.url(<Self as ApiFormat>::PATH)
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("http", &self.http)
            .field("api_key", &Redacted(&self.api_key))
            .finish()
    }
}

/// Streams Chat Completions over HTTP(S).
pub type OpenAiClient = HttpClient<OpenAiConfig>;

impl ApiFormat for OpenAiConfig {
    const CLIENT_NAME: &'static str = "OpenAiClient";

    const PATH: &'static str = "/chat/completions";

    /// `Authorization: Bearer` when there is a key. A missing key is allowed here (local
    /// servers); the caller decides whether one is required.
    fn headers(&self) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.api_key {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                secret_header(&format!("Bearer {key}"), "the API key")?,
            );
        }
        Ok(headers)
    }

    fn body(request: &ModelRequest) -> Value {
        request_body(request)
    }

    fn events(body: ByteStream, request: &ModelRequest) -> EventStream {
        chunk_event_stream(body, request.model.clone())
    }

    fn json_answer(text: &str, request: &ModelRequest) -> Result<EventStream, ModelError> {
        // A server that ignored `stream: true`: convert the whole completion.
        let events = completion_to_events(text, &request.model);
        Ok(Box::pin(futures::stream::iter(events)))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::test_env as env;

    #[test]
    fn config_from_the_map_and_redaction() {
        let cfg = OpenAiConfig::from_env_map(&env(&[]));
        assert_eq!(cfg.endpoint(), "https://api.openai.com/v1/chat/completions");
        assert!(cfg.api_key.is_none());
        let cfg = OpenAiConfig::from_env_map(&env(&[
            ("OPENAI_API_KEY", "sk-open-secret"),
            ("OPENAI_BASE_URL", "http://u:pw@127.0.0.1:9/v1/"),
            ("DCL_IDLE_TIMEOUT_MS", "250"),
            ("DCL_REQUEST_TIMEOUT_MS", "900"),
            ("OPENAI_ORG_ID", "org-secret"),
        ]));
        assert_eq!(
            cfg.endpoint(),
            "http://u:pw@127.0.0.1:9/v1/chat/completions"
        );
        assert_eq!(cfg.idle_timeout, Duration::from_millis(250));
        assert_eq!(cfg.request_timeout, Duration::from_millis(900));
        let dbg = format!("{cfg:?}");
        for secret in ["sk-open-secret", "pw@", "org-secret"] {
            assert!(!dbg.contains(secret), "{dbg}");
        }
        let client = OpenAiClient::new(cfg).unwrap();
        let dbg = format!("{client:?}");
        assert!(
            !dbg.contains("sk-open-secret") && !dbg.contains("pw@"),
            "{dbg}"
        );
        let cfg = OpenAiConfig::from_env_map(&env(&[
            ("DCL_API_KEY", "k1"),
            ("OPENAI_API_KEY", "k2"),
            ("DCL_BASE_URL", "http://h/v1"),
        ]));
        assert_eq!(cfg.api_key.as_deref(), Some("k1"));
        assert_eq!(cfg.base_url, "http://h/v1");
        // Bad keys and URLs are config errors that do not echo the secret.
        let err = OpenAiClient::new(OpenAiConfig::new(DEFAULT_BASE_URL).with_api_key("sk\nsecret"))
            .unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        assert!(matches!(
            OpenAiClient::new(OpenAiConfig::new("ftp://x")),
            Err(ModelError::Config(_))
        ));
    }
}
