//! The Anthropic Messages API client: `POST {base_url}/v1/messages` with `stream: true`,
//! decoded by [`super::sse`].
//!
//! The client never reads the process environment (many sessions with different settings
//! share one process in the bindings): callers build an [`AnthropicConfig`], usually with
//! [`AnthropicConfig::from_env_map`] over the environment they were given.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::http;
use super::sse::{self, snippet};
use super::{BoxFuture, EventStream, ModelClient, ModelError, ModelRequest};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Until the response headers arrive (the Anthropic SDKs default to 10 minutes).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
/// Longest silence allowed between two body chunks; the API pings every few seconds.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of an error body we read: enough for any JSON error, bounded for a bad proxy.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// How to reach the API. `Debug` redacts every secret.
#[derive(Clone)]
pub struct AnthropicConfig {
    /// Without the `/v1/messages` suffix; a trailing `/` is fine.
    pub base_url: String,
    /// Sent as `x-api-key`.
    pub api_key: Option<String>,
    /// Sent as `Authorization: Bearer …` (gateways and OAuth tokens).
    pub auth_token: Option<String>,
    /// Time allowed until the response headers arrive.
    pub request_timeout: Duration,
    /// Time allowed between two chunks of the streamed body.
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    /// Proxy URL for every request; `None` means a direct connection (the client never
    /// consults `HTTPS_PROXY` itself: `from_env_map` does, from the caller's map).
    pub proxy: Option<String>,
    /// Comma-separated hosts that bypass the proxy (`NO_PROXY` syntax).
    pub no_proxy: Option<String>,
    /// More headers (`anthropic-beta`, gateway headers). Values are treated as secrets.
    pub extra_headers: Vec<(String, String)>,
    pub user_agent: String,
}

impl AnthropicConfig {
    /// A config for `base_url` with no credentials and default timeouts.
    pub fn new(base_url: impl Into<String>) -> Self {
        AnthropicConfig {
            base_url: base_url.into(),
            api_key: None,
            auth_token: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            proxy: None,
            no_proxy: None,
            extra_headers: Vec::new(),
            user_agent: format!("dcl/{}", env!("CARGO_PKG_VERSION")),
        }
    }

    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    pub fn with_auth_token(mut self, token: impl Into<String>) -> Self {
        self.auth_token = Some(token.into());
        self
    }

    /// Reads, from the map the caller passes (never the process env):
    /// `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL` (default
    /// `https://api.anthropic.com`), `API_TIMEOUT_MS` (request timeout, as Claude Code
    /// reads it), `ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines), and the proxy variables
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` (either case, chosen by the base URL's
    /// scheme) with `NO_PROXY`. Empty values count as unset.
    pub fn from_env_map(env: &BTreeMap<String, String>) -> Self {
        let get = |k: &str| {
            env.get(k)
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let first = |keys: &[&str]| keys.iter().find_map(|k| get(k));
        let base_url = get("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let mut cfg = AnthropicConfig::new(base_url);
        cfg.api_key = get("ANTHROPIC_API_KEY");
        cfg.auth_token = get("ANTHROPIC_AUTH_TOKEN");
        if let Some(ms) = get("API_TIMEOUT_MS").and_then(|v| v.parse::<u64>().ok()) {
            cfg.request_timeout = Duration::from_millis(ms);
        }
        if let Some(lines) = get("ANTHROPIC_CUSTOM_HEADERS") {
            cfg.extra_headers = lines
                .lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .filter(|(k, _)| !k.is_empty())
                .collect();
        }
        cfg.proxy = if cfg.base_url.starts_with("http://") {
            first(&["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
        } else {
            first(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"])
        };
        cfg.no_proxy = first(&["NO_PROXY", "no_proxy"]);
        cfg
    }

    fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}

/// `scheme://user:pass@host/…` → `scheme://<redacted>@host/…`; other URLs unchanged.
pub(crate) fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) if scheme.is_empty() => format!("<redacted>@{}", &rest[at + 1..]),
        Some(at) => format!("{scheme}://<redacted>@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

pub(crate) fn redact(v: &Option<String>) -> &'static str {
    match v {
        Some(_) => "Some(<redacted>)",
        None => "None",
    }
}

impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .extra_headers
            .iter()
            .map(|(k, _)| (k.as_str(), "<redacted>"))
            .collect();
        // A proxy URL may hold `user:password@`; show it only when it holds none.
        let proxy = format!("{:?}", self.proxy.as_deref().map(redact_url));
        f.debug_struct("AnthropicConfig")
            .field("base_url", &redact_url(&self.base_url))
            .field("api_key", &format_args!("{}", redact(&self.api_key)))
            .field("auth_token", &format_args!("{}", redact(&self.auth_token)))
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("proxy", &format_args!("{proxy}"))
            .field("no_proxy", &self.no_proxy)
            .field("extra_headers", &headers)
            .field("user_agent", &self.user_agent)
            .finish()
    }
}

/// Streams Messages API responses over HTTPS (rustls).
pub struct AnthropicClient {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    config: AnthropicConfig,
}

impl std::fmt::Debug for AnthropicClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicClient")
            .field("endpoint", &redact_url(self.endpoint.as_str()))
            .field("config", &self.config)
            .finish()
    }
}

impl AnthropicClient {
    /// Validates the config (credentials present, URL and header values well formed) and
    /// builds the HTTP client. Errors are `ModelError::Config` and never echo a secret.
    pub fn new(config: AnthropicConfig) -> Result<Self, ModelError> {
        if config.api_key.is_none() && config.auth_token.is_none() {
            return Err(ModelError::Config(
                "no API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN".into(),
            ));
        }
        let endpoint = reqwest::Url::parse(&config.endpoint()).map_err(|e| {
            ModelError::Config(format!(
                "invalid base URL {:?}: {e}",
                redact_url(&config.base_url)
            ))
        })?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(ModelError::Config(format!(
                "invalid base URL {:?}: the scheme must be http or https",
                redact_url(&config.base_url)
            )));
        }
        let headers = build_headers(&config)?;
        let mut builder = reqwest::Client::builder()
            .use_rustls_tls()
            .connect_timeout(config.connect_timeout)
            .user_agent(config.user_agent.clone())
            // Not reqwest's env-based proxy discovery: the config decides.
            .no_proxy();
        if let Some(url) = &config.proxy {
            let no_proxy = config
                .no_proxy
                .as_deref()
                .and_then(reqwest::NoProxy::from_string);
            let proxy = reqwest::Proxy::all(url)
                .map_err(|_| ModelError::Config("invalid proxy URL".into()))?
                .no_proxy(no_proxy);
            builder = builder.proxy(proxy);
        }
        let http = builder
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(AnthropicClient {
            http,
            endpoint,
            headers,
            config,
        })
    }

    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    async fn send(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ModelError> {
        let body = request_body(&request);
        let response = http::post_json(
            &self.http,
            &self.endpoint,
            &self.headers,
            &body,
            self.config.request_timeout,
            &cancel,
        )
        .await?;
        if !response.status().is_success() {
            return Err(http_error(response, &cancel).await);
        }
        if http::is_json(&response) {
            // A proxy that ignored `stream: true`; say so instead of "stream ended early".
            let text = read_capped(response, &cancel).await;
            return Err(ModelError::Stream(format!(
                "expected an SSE stream (text/event-stream) but got application/json: {}",
                snippet(&text)
            )));
        }
        let bytes = http::body_stream(response, self.config.idle_timeout);
        Ok(sse::with_cancel(sse::event_stream(bytes), cancel))
    }
}

impl ModelClient for AnthropicClient {
    fn stream<'a>(
        &'a self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, ModelError>> {
        Box::pin(self.send(request, cancel))
    }
}

/// The JSON body of a streamed Messages request.
pub fn request_body(req: &ModelRequest) -> Value {
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_tokens,
        "messages": req.messages,
        "stream": true,
    });
    if let Some(system) = req.system.as_ref().filter(|s| !s.is_empty()) {
        body["system"] = Value::String(system.clone());
    }
    if !req.tools.is_empty() {
        body["tools"] = json!(req.tools);
    }
    if let Some(t) = req.thinking {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": t.budget_tokens});
    }
    body
}

fn header_value(value: &str, what: &str, secret: bool) -> Result<HeaderValue, ModelError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        ModelError::Config(format!(
            "{what} contains characters not allowed in an HTTP header"
        ))
    })?;
    // Keeps the value out of hyper's debug output and out of HTTP/2 header compression.
    v.set_sensitive(secret);
    Ok(v)
}

fn build_headers(config: &AnthropicConfig) -> Result<HeaderMap, ModelError> {
    let mut h = HeaderMap::new();
    h.insert(
        "anthropic-version",
        HeaderValue::from_static(ANTHROPIC_VERSION),
    );
    h.insert("accept", HeaderValue::from_static("text/event-stream"));
    if let Some(key) = &config.api_key {
        h.insert("x-api-key", header_value(key, "the API key", true)?);
    }
    if let Some(token) = &config.auth_token {
        h.insert(
            reqwest::header::AUTHORIZATION,
            header_value(&format!("Bearer {token}"), "the auth token", true)?,
        );
    }
    for (name, value) in &config.extra_headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ModelError::Config(format!("invalid header name {name:?}")))?;
        let value = header_value(value, &format!("header {name}"), true)?;
        h.append(name, value);
    }
    Ok(h)
}

/// Builds `ModelError::Http` from an error response: the message from the JSON error body
/// (`{"error": {"message": …}}`), else the body text, else the status reason.
async fn http_error(response: reqwest::Response, cancel: &CancellationToken) -> ModelError {
    let status = response.status();
    let retry_after = retry_after(response.headers());
    let text = read_capped(response, cancel).await;
    let message = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .filter(|m| !m.is_empty())
        .or_else(|| Some(snippet(text.trim())).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_string());
    ModelError::Http {
        status: status.as_u16(),
        message,
        retry_after,
    }
}

/// Reads at most [`MAX_ERROR_BODY`] bytes of a body, giving up after 10 s or on cancel:
/// an error body is only decoration, never worth a hang.
pub(crate) async fn read_capped(response: reqwest::Response, cancel: &CancellationToken) -> String {
    let mut buf = Vec::new();
    let mut body = response.bytes_stream();
    let read = async {
        while let Some(Ok(chunk)) = body.next().await {
            buf.extend_from_slice(&chunk);
            if buf.len() >= MAX_ERROR_BODY {
                buf.truncate(MAX_ERROR_BODY);
                break;
            }
        }
    };
    tokio::select! {
        _ = cancel.cancelled() => {}
        _ = tokio::time::timeout(Duration::from_secs(10), read) => {}
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Seconds to wait from `retry-after-ms` (what the Anthropic SDKs prefer) or
/// `retry-after` (seconds or an HTTP date).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<f64> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(ms / 1000.0);
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then_some(secs);
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let ms = (when.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_milliseconds();
    Some((ms.max(0) as f64) / 1000.0)
}

/// An error and its sources, `a: b: c` (reqwest's own text hides the root cause).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(src) = cur {
        let text = src.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cur = src.source();
    }
    s
}

/// Fails the byte stream with a connection error when no chunk arrives for `idle`: a
/// stalled server must not hang the turn forever.
pub(crate) fn idle_timeout<S>(
    bytes: S,
    idle: Duration,
) -> impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    futures::stream::unfold(Some(Box::pin(bytes)), move |state| async move {
        let mut bytes = state?;
        match tokio::time::timeout(idle, bytes.next()).await {
            Ok(Some(item)) => Some((item, Some(bytes))),
            Ok(None) => None,
            Err(_) => Some((
                Err(ModelError::Connection(format!(
                    "no data from the API for {} s",
                    idle.as_secs_f64()
                ))),
                None,
            )),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ApiMessage, Role, ThinkingConfig, ToolSpec};
    use dcl_protocol::ContentBlock;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn from_env_map_reads_only_the_map() {
        let cfg = AnthropicConfig::from_env_map(&env(&[]));
        assert_eq!(cfg.base_url, DEFAULT_BASE_URL);
        assert!(cfg.api_key.is_none() && cfg.auth_token.is_none());
        let cfg = AnthropicConfig::from_env_map(&env(&[
            ("ANTHROPIC_API_KEY", "sk-secret-1"),
            ("ANTHROPIC_AUTH_TOKEN", ""),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("API_TIMEOUT_MS", "1500"),
            ("HTTP_PROXY", "http://user:pw@proxy:3128"),
            ("HTTPS_PROXY", "http://other:3128"),
            ("ANTHROPIC_CUSTOM_HEADERS", "X-Gw: tok-secret-2\nbad line"),
        ]));
        assert_eq!(cfg.api_key.as_deref(), Some("sk-secret-1"));
        assert_eq!(cfg.auth_token, None, "empty means unset");
        assert_eq!(cfg.endpoint(), "http://127.0.0.1:9/v1/messages");
        assert_eq!(cfg.request_timeout, Duration::from_millis(1500));
        assert_eq!(cfg.proxy.as_deref(), Some("http://user:pw@proxy:3128"));
        assert_eq!(
            cfg.extra_headers,
            vec![("X-Gw".to_string(), "tok-secret-2".to_string())]
        );
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("sk-secret-1"), "{dbg}");
        assert!(!dbg.contains("tok-secret-2"), "{dbg}");
        assert!(!dbg.contains("pw@"), "{dbg}");
        let client = AnthropicClient::new(cfg).unwrap();
        let dbg = format!("{client:?}");
        assert!(!dbg.contains("sk-secret-1"), "{dbg}");
    }

    #[test]
    fn config_errors_do_not_leak_secrets() {
        let err = AnthropicClient::new(AnthropicConfig::new(DEFAULT_BASE_URL)).unwrap_err();
        assert!(matches!(err, ModelError::Config(_)));
        let err = AnthropicClient::new(
            AnthropicConfig::new(DEFAULT_BASE_URL).with_api_key("sk-bad\nsecret"),
        )
        .unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        let err =
            AnthropicClient::new(AnthropicConfig::new("not a url").with_api_key("k")).unwrap_err();
        assert!(matches!(err, ModelError::Config(_)));
    }

    #[test]
    fn body_has_the_messages_api_shape() {
        let req = ModelRequest {
            model: "claude-x".into(),
            system: Some("be brief".into()),
            messages: vec![ApiMessage {
                role: Role::User,
                content: vec![ContentBlock::text("hi")],
            }],
            tools: vec![ToolSpec {
                name: "Bash".into(),
                description: "run".into(),
                input_schema: json!({"type":"object"}),
            }],
            max_tokens: 1000,
            thinking: Some(ThinkingConfig { budget_tokens: 500 }),
        };
        assert_eq!(
            request_body(&req),
            json!({
                "model": "claude-x",
                "max_tokens": 1000,
                "messages": [{"role":"user","content":[{"type":"text","text":"hi"}]}],
                "stream": true,
                "system": "be brief",
                "tools": [{"name":"Bash","description":"run","input_schema":{"type":"object"}}],
                "thinking": {"type":"enabled","budget_tokens":500},
            })
        );
        let bare = ModelRequest {
            system: None,
            tools: vec![],
            thinking: None,
            ..req
        };
        let body = request_body(&bare);
        assert!(body.get("system").is_none());
        assert!(body.get("tools").is_none());
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn urls_lose_their_userinfo() {
        assert_eq!(
            redact_url("https://u:secret@gw.example/x@y"),
            "https://<redacted>@gw.example/x@y"
        );
        assert_eq!(redact_url("http://127.0.0.1:9"), "http://127.0.0.1:9");
        let cfg = AnthropicConfig::new("https://u:secret@gw.example").with_api_key("k");
        assert!(!format!("{cfg:?}").contains("secret"));
        let client = AnthropicClient::new(cfg).unwrap();
        assert!(!format!("{client:?}").contains("secret"));
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(7.0));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(1.5));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(0.0), "a past date means now");
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }
}
