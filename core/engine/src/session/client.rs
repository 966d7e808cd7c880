//! Which model client serves a model name: the mock for `mock-*` (and for every model of
//! a session started on the mock, so `set_model` in tests never reaches the network),
//! else the Anthropic or OpenAI client for the endpoint [`providers::resolve`] picks.
//! Clients are built on first use and shared per endpoint.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::options::SessionOptions;
use dcl_model::anthropic::{AnthropicClient, AnthropicConfig};
use dcl_model::mock::MockClient;
use dcl_model::openai::{OpenAiClient, OpenAiConfig, SYNTHETIC_SIGNATURE_PREFIX};
use dcl_model::providers::{self, ApiFormat, BaseUrlSource, Endpoint, Overrides};
use dcl_model::{BoxFuture, EventStream, ModelClient, ModelError, ModelRequest, pricing, retry};
use dcl_protocol::{ContentBlock, KnownBlock};
use tokio_util::sync::CancellationToken;

use super::model_names as models;

/// An endpoint: format, base URL, API key, bearer token.
type ClientKey = (ApiFormat, String, Option<String>, Option<String>);

pub struct Clients {
    mock: Arc<MockClient>,
    mock_session: bool,
    env: Arc<BTreeMap<String, String>>,
    overrides: Overrides,
    default_model: &'static str,
    api_key_source: &'static str,
    /// Built clients by endpoint (format, base URL, credentials).
    cache: Mutex<HashMap<ClientKey, Arc<dyn ModelClient>>>,
    /// Models already reported as missing from the price table.
    unpriced: Mutex<HashSet<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why the session's model clients could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ClientsError {
    /// `mockScript` could not be read.
    #[error("{0}")]
    MockScript(ModelError),
    /// The endpoint of the session's model (a bad `--api-format`, …), as dcl-model words it.
    #[error("{0}")]
    Endpoint(providers::EndpointError),
}

impl Clients {
    pub fn new(
        opts: &SessionOptions,
        env: &Arc<BTreeMap<String, String>>,
    ) -> Result<Clients, ClientsError> {
        // `mockScript` and `model` already hold their environment defaults (options.rs).
        let mock = match opts.mock_script.clone() {
            Some(path) => MockClient::from_script(&path).map_err(ClientsError::MockScript)?,
            None => MockClient::new(),
        };
        let mock_session = opts.model.as_deref().is_some_and(models::is_mock);
        let overrides = Overrides {
            api_format: opts.api_format.clone(),
            base_url: opts.base_url.clone(),
            api_key: opts.api_key.clone(),
        };
        let default_model = providers::default_model(&overrides, env);
        let mut api_key_source = "none";
        if !mock_session {
            // A bad --api-format is refused when the session opens, not at the first call.
            let model = models::resolve_alias(opts.model.as_deref(), default_model);
            let endpoint =
                providers::resolve(&model, &overrides, env).map_err(ClientsError::Endpoint)?;
            api_key_source = endpoint.key_source;
        }
        Ok(Clients {
            mock: Arc::new(mock),
            mock_session,
            env: env.clone(),
            overrides,
            default_model,
            api_key_source,
            cache: Mutex::new(HashMap::new()),
            unpriced: Mutex::new(HashSet::new()),
        })
    }

    pub fn default_model(&self) -> &'static str {
        if self.mock_session {
            models::MOCK_MODEL
        } else {
            self.default_model
        }
    }

    /// `system/init`'s `apiKeySource` for the session's first model.
    pub fn api_key_source(&self) -> &'static str {
        self.api_key_source
    }

    /// Where calls for `model` go (no client is built). `None` for the mock.
    pub fn endpoint_for(&self, model: &str) -> Result<Option<Endpoint>, ModelError> {
        if self.mock_session || models::is_mock(model) {
            return Ok(None);
        }
        providers::resolve(model, &self.overrides, &self.env)
            .map(Some)
            .map_err(|e| ModelError::Config(e.to_string()))
    }

    pub fn client_for(&self, model: &str) -> Result<Arc<dyn ModelClient>, ModelError> {
        let Some(ep) = self.endpoint_for(model)? else {
            return Ok(self.mock.clone());
        };
        if ep.requires_key() && !ep.has_credentials() {
            return Err(ModelError::Config(format!(
                "No API key for model {model} ({} API at {}): set {}, or use --model mock-model",
                ep.format.as_str(),
                host_or_url(&ep.base_url),
                ep.key_hint
            )));
        }
        let key = (
            ep.format,
            ep.base_url.clone(),
            ep.api_key.clone(),
            ep.auth_token.clone(),
        );
        let mut cache = lock(&self.cache);
        if let Some(c) = cache.get(&key) {
            return Ok(c.clone());
        }
        let client: Arc<dyn ModelClient> = match ep.format {
            ApiFormat::Anthropic => Arc::new(WithoutSyntheticThinking(AnthropicClient::new(
                self.anthropic_config(&ep),
            )?)),
            ApiFormat::OpenAi => Arc::new(OpenAiClient::new(self.openai_config(&ep))?),
        };
        cache.insert(key, client.clone());
        Ok(client)
    }

    /// The first time (per session) a model without a price is used: the text to show
    /// the user, also logged as a warning. `None` for priced models and the mock, and
    /// every later time.
    pub fn unpriced_notice(&self, model: &str) -> Option<String> {
        if models::is_mock(model) || pricing::lookup(model).is_some() {
            return None;
        }
        if !lock(&self.unpriced).insert(model.to_string()) {
            return None;
        }
        tracing::warn!(
            model,
            "no price known for this model; its cost is counted as 0"
        );
        Some(format!(
            "No price is known for model {model}: its usage is counted as $0 in total_cost_usd."
        ))
    }

    fn anthropic_config(&self, ep: &Endpoint) -> AnthropicConfig {
        // Proxies, API_TIMEOUT_MS and custom headers come from the env map as before.
        let mut cfg = AnthropicConfig::from_env_map(&self.env);
        cfg.base_url = ep.base_url.trim_end_matches('/').to_string();
        cfg.api_key = ep.api_key.clone();
        cfg.auth_token = ep.auth_token.clone();
        // Gateway headers belong to the endpoint they were configured for.
        let own_endpoint = matches!(
            ep.base_url_source,
            BaseUrlSource::Explicit | BaseUrlSource::FormatEnv
        ) || ep.provider.is_none_or(|p| p == providers::ANTHROPIC.id);
        if !own_endpoint {
            cfg.extra_headers.clear();
        }
        let (proxy, no_proxy) = providers::proxy_for(&cfg.base_url, &self.env);
        cfg.proxy = proxy;
        cfg.no_proxy = no_proxy;
        if let Some(t) = retry::request_timeout(&self.env) {
            cfg.request_timeout = t;
        }
        if let Some(t) = retry::idle_timeout(&self.env) {
            cfg.idle_timeout = t;
        }
        cfg
    }

    fn openai_config(&self, ep: &Endpoint) -> OpenAiConfig {
        let mut cfg = OpenAiConfig::from_env_map(&self.env);
        cfg.base_url = ep.base_url.trim_end_matches('/').to_string();
        cfg.api_key = ep.api_key.clone();
        // `OpenAI-Organization` / `OpenAI-Project` go to OpenAI, or to the endpoint
        // configured next to them in OPENAI_BASE_URL.
        let openai_host = providers::provider_for_host(&ep.base_url)
            .is_some_and(|p| p.id == providers::OPENAI.id);
        if !openai_host && ep.base_url_source != BaseUrlSource::FormatEnv {
            cfg.extra_headers.clear();
        }
        let (proxy, no_proxy) = providers::proxy_for(&cfg.base_url, &self.env);
        cfg.proxy = proxy;
        cfg.no_proxy = no_proxy;
        cfg
    }
}

/// An Anthropic-format client that leaves out thinking blocks whose signature dcl
/// synthesised (from an OpenAI-format model earlier in the session): the API would refuse
/// their signature.
struct WithoutSyntheticThinking<C>(C);

impl<C: ModelClient> ModelClient for WithoutSyntheticThinking<C> {
    fn stream<'a>(
        &'a self,
        mut request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, ModelError>> {
        for m in &mut request.messages {
            m.content.retain(|b| {
                !matches!(b, ContentBlock::Known(KnownBlock::Thinking(t))
                    if t.signature.starts_with(SYNTHETIC_SIGNATURE_PREFIX))
            });
        }
        // A message left empty (thinking only) would be refused too.
        request.messages.retain(|m| !m.content.is_empty());
        self.0.stream(request, cancel)
    }
}

fn host_or_url(url: &str) -> String {
    providers::host_of(url).unwrap_or_else(|| dcl_model::anthropic::redact_url(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(model: Option<&str>, format: Option<&str>, base: Option<&str>) -> SessionOptions {
        SessionOptions {
            model: model.map(Into::into),
            api_format: format.map(Into::into),
            base_url: base.map(Into::into),
            ..Default::default()
        }
    }

    fn env(pairs: &[(&str, &str)]) -> Arc<BTreeMap<String, String>> {
        Arc::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn mock_sessions_stay_on_the_mock() {
        let c = Clients::new(&opts(Some("mock-model"), Some("openai"), None), &env(&[])).unwrap();
        assert_eq!(c.default_model(), "mock-model");
        assert_eq!(c.api_key_source(), "none");
        assert!(c.endpoint_for("gpt-4o").unwrap().is_none());
        assert!(c.client_for("claude-sonnet-4-5").is_ok());
    }

    #[test]
    fn openai_format_is_accepted_and_bad_formats_are_refused() {
        let e = env(&[("OPENAI_API_KEY", "sk-o")]);
        let c = Clients::new(&opts(None, Some("openai"), None), &e).unwrap();
        assert_eq!(c.default_model(), "gpt-4.1");
        assert_eq!(c.api_key_source(), "OPENAI_API_KEY");
        assert!(c.client_for("gpt-4.1").is_ok());
        let err = Clients::new(&opts(Some("x"), Some("soap"), None), &e)
            .err()
            .unwrap();
        let err = err.to_string();
        assert!(err.contains("soap"), "{err}");
    }

    #[test]
    fn missing_keys_name_the_variable() {
        let c = Clients::new(
            &opts(Some("deepseek-flash"), Some("anthropic"), None),
            &env(&[("ANTHROPIC_API_KEY", "sk-ant")]),
        )
        .unwrap();
        let err = c.client_for("deepseek-flash").err().unwrap().to_string();
        assert!(err.contains("DEEPSEEK_API_KEY"), "{err}");
        assert!(err.contains("api.deepseek.com"), "{err}");
        // A local OpenAI-compatible server needs none.
        let c = Clients::new(
            &opts(
                Some("llama3"),
                Some("openai"),
                Some("http://127.0.0.1:9/v1"),
            ),
            &env(&[]),
        )
        .unwrap();
        assert!(c.client_for("llama3").is_ok());
    }

    #[test]
    fn clients_are_shared_per_endpoint() {
        let e = env(&[("ANTHROPIC_API_KEY", "k"), ("DEEPSEEK_API_KEY", "d")]);
        let c = Clients::new(&opts(Some("claude-sonnet-4-5"), None, None), &e).unwrap();
        let a = c.client_for("claude-sonnet-4-5").unwrap();
        let b = c.client_for("claude-opus-4-1").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let d = c.client_for("deepseek-chat").unwrap();
        assert!(!Arc::ptr_eq(&a, &d));
    }

    struct Recorder(Mutex<Vec<ModelRequest>>);

    impl ModelClient for Recorder {
        fn stream<'a>(
            &'a self,
            request: ModelRequest,
            _cancel: CancellationToken,
        ) -> BoxFuture<'a, Result<EventStream, ModelError>> {
            lock(&self.0).push(request);
            Box::pin(async { Err(ModelError::Cancelled) })
        }
    }

    #[tokio::test]
    async fn synthetic_thinking_never_reaches_an_anthropic_endpoint() {
        use dcl_model::openai::synthetic_signature;
        use dcl_model::{ApiMessage, Role};
        let c = WithoutSyntheticThinking(Recorder(Mutex::new(Vec::new())));
        let msg = |role, content| ApiMessage { role, content };
        let req = ModelRequest {
            model: "claude-sonnet-4-5".into(),
            system: None,
            messages: vec![
                msg(Role::User, vec![ContentBlock::text("q")]),
                msg(
                    Role::Assistant,
                    vec![
                        ContentBlock::thinking("t", synthetic_signature("t")),
                        ContentBlock::text("a"),
                    ],
                ),
                msg(
                    Role::Assistant,
                    vec![ContentBlock::thinking("u", synthetic_signature("u"))],
                ),
                msg(
                    Role::Assistant,
                    vec![ContentBlock::thinking("real", "EqRealSig")],
                ),
            ],
            tools: vec![],
            max_tokens: 10,
            thinking: None,
        };
        let _ = c.stream(req, CancellationToken::new()).await;
        let sent = lock(&c.0.0).pop().unwrap();
        assert_eq!(sent.messages.len(), 3);
        assert_eq!(sent.messages[1].content, vec![ContentBlock::text("a")]);
        assert_eq!(
            sent.messages[2].content,
            vec![ContentBlock::thinking("real", "EqRealSig")]
        );
    }

    #[test]
    fn unpriced_models_are_reported_once() {
        let c = Clients::new(&opts(Some("mock-model"), None, None), &env(&[])).unwrap();
        assert_eq!(c.unpriced_notice("mock-model"), None);
        assert_eq!(c.unpriced_notice("claude-sonnet-4-5"), None);
        let first = c.unpriced_notice("llama3").unwrap();
        assert!(first.contains("llama3"));
        assert_eq!(c.unpriced_notice("llama3"), None);
        assert!(c.unpriced_notice("qwen-plus").is_some());
    }
}
