//! The Anthropic Messages API: `POST {base_url}/v1/messages` with `stream: true`. This
//! module holds only what is particular to the format — its config (credentials), its
//! headers, its request body and the meaning of its SSE events; the HTTP transport and
//! the SSE framing are shared ([`super::http`], [`super::sse`]).
//!
//! The client never reads the process environment (many sessions with different settings
//! share one process in the bindings): callers build an [`AnthropicConfig`], usually with
//! [`AnthropicConfig::from_env_map`] over the environment they were given.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::events::StreamEvent;
use super::http::{
    ApiFormat, HttpClient, HttpConfig, Redacted, deref_to_http_config, env_value, secret_header,
};
pub use super::http::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, redact_url,
};
use super::sse::{self, ByteStream, EventMapper, SseEvent, snippet};
use super::{EventStream, ModelError, ModelRequest};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// How to reach the API: the shared transport settings (reached through `Deref`, so
/// `config.base_url` and `config.proxy` read as before) and the credentials. `Debug`
/// redacts every secret.
#[derive(Clone)]
pub struct AnthropicConfig {
    pub http: HttpConfig,
    /// Sent as `x-api-key`.
    pub api_key: Option<String>,
    /// Sent as `Authorization: Bearer …` (gateways and OAuth tokens).
    pub auth_token: Option<String>,
}

deref_to_http_config!(AnthropicConfig);

impl AnthropicConfig {
    /// A config for `base_url` (without `/v1/messages`) with no credentials and default
    /// timeouts.
    pub fn new(base_url: impl Into<String>) -> Self {
        AnthropicConfig {
            http: HttpConfig::new(base_url),
            api_key: None,
            auth_token: None,
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
    /// `https://api.anthropic.com`), `ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines), and
    /// what [`HttpConfig::apply_env_map`] reads: the timeouts (`API_TIMEOUT_MS`, as Claude
    /// Code reads it, or `DCL_REQUEST_TIMEOUT_MS`; `DCL_IDLE_TIMEOUT_MS`) and the proxy
    /// variables `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` (either case, chosen by the base
    /// URL's scheme) with `NO_PROXY`. Empty values count as unset.
    pub fn from_env_map(env: &BTreeMap<String, String>) -> Self {
        let get = |k: &str| env_value(env, k);
        let base_url = get("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let mut cfg = AnthropicConfig::new(base_url);
        cfg.api_key = get("ANTHROPIC_API_KEY");
        cfg.auth_token = get("ANTHROPIC_AUTH_TOKEN");
        if let Some(lines) = get("ANTHROPIC_CUSTOM_HEADERS") {
            cfg.extra_headers = lines
                .lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .filter(|(k, _)| !k.is_empty())
                .collect();
        }
        cfg.http.apply_env_map(env);
        cfg
    }

    /// `{base_url}/v1/messages`.
    pub fn endpoint(&self) -> String {
        self.url(<Self as ApiFormat>::PATH)
    }
}

impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("http", &self.http)
            .field("api_key", &Redacted(&self.api_key))
            .field("auth_token", &Redacted(&self.auth_token))
            .finish()
    }
}

/// Streams Messages API responses over HTTPS (rustls).
pub type AnthropicClient = HttpClient<AnthropicConfig>;

impl ApiFormat for AnthropicConfig {
    const CLIENT_NAME: &'static str = "AnthropicClient";

    const PATH: &'static str = "/v1/messages";

    /// `anthropic-version`, and `x-api-key` and/or `Authorization: Bearer`; one of the
    /// two credentials is required.
    fn headers(&self) -> Result<HeaderMap, ModelError> {
        if self.api_key.is_none() && self.auth_token.is_none() {
            return Err(ModelError::Config(
                "no API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN".into(),
            ));
        }
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = &self.api_key {
            headers.insert("x-api-key", secret_header(key, "the API key")?);
        }
        if let Some(token) = &self.auth_token {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                secret_header(&format!("Bearer {token}"), "the auth token")?,
            );
        }
        Ok(headers)
    }

    fn body(request: &ModelRequest) -> Value {
        request_body(request)
    }

    fn events(body: ByteStream, _: &ModelRequest) -> EventStream {
        event_stream(body)
    }

    fn json_answer(text: &str, _: &ModelRequest) -> Result<EventStream, ModelError> {
        // A proxy that ignored `stream: true`; say so instead of "stream ended early".
        Err(ModelError::stream(format!(
            "expected an SSE stream (text/event-stream) but got application/json: {}",
            snippet(text)
        )))
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

// ---------------------------------------------------------------------------
// The stream
// ---------------------------------------------------------------------------

/// Event types of the Messages API stream. Anything else is skipped, as the API docs ask
/// clients to do, so new event kinds do not break old clients.
const KNOWN_EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

/// Delta types [`super::Delta`] models; other delta kinds are skipped for the same reason.
const KNOWN_DELTAS: &[&str] = &[
    "text_delta",
    "thinking_delta",
    "signature_delta",
    "input_json_delta",
    "citations_delta",
];

/// Turns one SSE event into a typed stream event. `Ok(None)` for events to skip (unknown
/// types, empty data); an `error` event becomes a `ModelError::Stream`
/// (`"<type>: <message>"`) of the kind its type says.
pub fn parse_event(ev: &SseEvent) -> Result<Option<StreamEvent>, ModelError> {
    let data = ev.data.trim();
    if data.is_empty() || data == "[DONE]" {
        return Ok(None);
    }
    let name = if ev.event.is_empty() {
        "message"
    } else {
        ev.event.as_str()
    };
    // Straight to the typed event when the data is one dcl knows: most of a stream is
    // deltas, and going through a `Value` first cost a map per event. Anything else
    // (errors, unknown types, a missing `type`, bad JSON) takes the path below, which
    // says what was wrong.
    if let Ok(se) = serde_json::from_str::<StreamEvent>(data)
        && !matches!(se, StreamEvent::Error { .. })
    {
        return Ok(Some(se));
    }
    let mut value: Value = serde_json::from_str(data).map_err(|e| {
        ModelError::stream(format!(
            "malformed JSON in the data of SSE event `{name}`: {e}; data: {}",
            snippet(data)
        ))
    })?;
    let Some(obj) = value.as_object_mut() else {
        return Err(ModelError::stream(format!(
            "SSE event `{name}` carries JSON that is not an object: {}",
            snippet(data)
        )));
    };
    // The data's own `type` decides; fall back to the `event:` name when it is missing.
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => {
            obj.insert("type".into(), Value::String(name.to_string()));
            name.to_string()
        }
    };
    if kind == "error" {
        return Err(api_error(obj.get("error")));
    }
    if !KNOWN_EVENTS.contains(&kind.as_str()) {
        tracing::debug!(event = %kind, "skipping unknown SSE event type");
        return Ok(None);
    }
    if kind == "content_block_delta" {
        let delta_kind = obj
            .get("delta")
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !KNOWN_DELTAS.contains(&delta_kind) {
            tracing::debug!(delta = %delta_kind, "skipping unknown delta type");
            return Ok(None);
        }
    }
    serde_json::from_value(value).map(Some).map_err(|e| {
        ModelError::stream(format!(
            "unexpected shape of `{kind}` event: {e}; data: {}",
            snippet(data)
        ))
    })
}

/// `{"type": "overloaded_error", "message": "Overloaded"}` →
/// `overloaded_error: Overloaded`, of kind [`super::ErrorKind::Overloaded`].
fn api_error(error: Option<&Value>) -> ModelError {
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("error");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("the API sent an error event without a message");
    ModelError::api_stream_error(kind, message)
}

/// The Messages stream's [`EventMapper`]: typed events until `message_stop`.
#[derive(Debug, Default)]
struct MessagesEvents {
    saw_stop: bool,
}

impl EventMapper for MessagesEvents {
    fn event(&mut self, ev: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        if let Some(se) = parse_event(ev)? {
            self.saw_stop = matches!(se, StreamEvent::MessageStop);
            out.push(se);
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.saw_stop
    }

    fn end(&mut self, _: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        Err(ModelError::Connection(
            "stream ended before message_stop".into(),
        ))
    }
}

/// Decodes a Messages SSE body into typed events. The stream ends after `message_stop`
/// or after the first error; if the bytes end before `message_stop` the last item is
/// `ModelError::Connection("stream ended before message_stop")`. The mock model streams
/// through this too, so the offline path decodes exactly what the network path does.
pub fn event_stream(bytes: ByteStream) -> EventStream {
    sse::decode(bytes, MessagesEvents::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Delta;
    use crate::test_env as env;
    use crate::{ApiMessage, Role, ThinkingConfig, ToolSpec};
    use bytes::Bytes;
    use dcl_protocol::ContentBlock;
    use futures::StreamExt;
    use std::time::Duration;

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
            tools: vec![ToolSpec::new("Bash", "run", json!({"type":"object"}))],
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

    const SAMPLE: &str = "event: message_start\r\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\r\n\
\r\n\
: keep-alive comment\n\
event: ping\n\
data: {\"type\": \"ping\"}\n\
\n\
event: content_block_start\r\
data: {\"type\":\"content_block_start\",\"index\":0,\r\
data: \"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\
\r\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\u{e9}llo \u{1F600}\"}}\n\
\n\
event: content_block_stop\n\
data: {\"type\":\"content_block_stop\",\"index\":0}\n\
\n\
event: message_delta\n\
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":7}}\n\
\n\
event: message_stop\n\
data: {\"type\":\"message_stop\"}\n\
\n";

    fn ev(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.into(),
            data: data.into(),
        }
    }

    #[test]
    fn parse_typed_events() {
        let got = parse_event(&ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}"#,
        ))
        .unwrap();
        assert_eq!(
            got,
            Some(StreamEvent::ContentBlockDelta {
                index: 2,
                delta: Delta::InputJsonDelta {
                    partial_json: "{\"a".into()
                }
            })
        );
        // `type` missing from data: the event name is used.
        assert_eq!(
            parse_event(&ev("message_stop", "{}")).unwrap(),
            Some(StreamEvent::MessageStop)
        );
    }

    #[test]
    fn malformed_json_is_a_stream_error() {
        let err = parse_event(&ev("content_block_delta", "{not json")).unwrap_err();
        match err {
            ModelError::Stream(m) => {
                assert!(m.contains("malformed JSON"), "{m}");
                assert!(m.contains("content_block_delta"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_event(&ev("x", "[1,2]")),
            Err(ModelError::Stream(_))
        ));
        // Known type, wrong shape.
        assert!(matches!(
            parse_event(&ev(
                "content_block_stop",
                r#"{"type":"content_block_stop"}"#
            )),
            Err(ModelError::Stream(_))
        ));
    }

    #[test]
    fn error_event_carries_type_and_message() {
        let err = parse_event(&ev(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ))
        .unwrap_err();
        assert_eq!(
            err,
            ModelError::api_stream_error("overloaded_error", "Overloaded")
        );
        assert_eq!(err.kind(), crate::ErrorKind::Overloaded);
        assert!(err.is_retryable());
        assert!(err.to_string().contains("overloaded"));
    }

    #[test]
    fn unknown_events_and_deltas_are_skipped() {
        assert_eq!(
            parse_event(&ev("future", r#"{"type":"future_event"}"#)).unwrap(),
            None
        );
        assert_eq!(
            parse_event(&ev(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta"}}"#
            ))
            .unwrap(),
            None
        );
        assert_eq!(parse_event(&ev("", "")).unwrap(), None);
    }

    fn chunks_stream(chunks: Vec<Result<Bytes, ModelError>>) -> ByteStream {
        Box::pin(futures::stream::iter(chunks))
    }

    async fn collect(s: EventStream) -> Vec<Result<StreamEvent, ModelError>> {
        s.collect().await
    }

    #[tokio::test]
    async fn event_stream_ends_at_message_stop_at_any_chunking() {
        let bytes = SAMPLE.as_bytes();
        let whole = collect(event_stream(chunks_stream(vec![Ok(Bytes::from_static(
            bytes,
        ))])))
        .await;
        assert_eq!(whole.len(), 7, "ping is typed too: {whole:?}");
        assert!(whole.iter().all(Result::is_ok));
        assert_eq!(whole.last(), Some(&Ok(StreamEvent::MessageStop)));
        for i in 0..=bytes.len() {
            let parts = vec![
                Ok(Bytes::copy_from_slice(&bytes[..i])),
                Ok(Bytes::copy_from_slice(&bytes[i..])),
            ];
            assert_eq!(collect(event_stream(chunks_stream(parts))).await, whole);
        }
    }

    #[tokio::test]
    async fn early_end_is_a_connection_error() {
        let cut = &SAMPLE[..SAMPLE.find("event: message_delta").unwrap()];
        let got = collect(event_stream(chunks_stream(vec![Ok(Bytes::from(cut))]))).await;
        assert_eq!(
            got.last(),
            Some(&Err(ModelError::Connection(
                "stream ended before message_stop".into()
            )))
        );
        assert_eq!(got.len(), 6);
    }

    #[tokio::test]
    async fn malformed_data_ends_the_stream_with_one_error() {
        let body = "event: message_start\ndata: {oops\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let got = collect(event_stream(chunks_stream(vec![Ok(Bytes::from(body))]))).await;
        assert_eq!(got.len(), 1);
        assert!(matches!(&got[0], Err(ModelError::Stream(m)) if m.contains("malformed JSON")));
    }

    #[tokio::test]
    async fn byte_errors_pass_through() {
        let got = collect(event_stream(chunks_stream(vec![
            Ok(Bytes::from_static(
                b"event: ping\ndata: {\"type\":\"ping\"}\n\n",
            )),
            Err(ModelError::Connection("reset".into())),
        ])))
        .await;
        assert_eq!(
            got,
            [
                Ok(StreamEvent::Ping),
                Err(ModelError::Connection("reset".into()))
            ]
        );
    }
}
