//! The HTTP side of a model call, the same for every API format: one reqwest client per
//! config (rustls, proxy from the config only), one POST raced against cancellation and
//! the request timeout, error responses read into [`ModelError::Http`], and the body as
//! a byte stream with an idle timeout. Error texts name the host, never the URL (it may
//! hold credentials).

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{HttpConfig, redact_url};
use super::format::ApiFormat;
use crate::sse::{self, snippet};
use crate::{EventStream, ModelError, ModelRequest};

/// The most of an error body we read: enough for any JSON error, bounded for a bad proxy.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// The most of a whole (non-streamed) JSON answer we read.
const MAX_JSON_BODY: usize = 32 * 1024 * 1024;
/// An error body is decoration: never worth a longer wait than this.
const ERROR_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// A header value that is a secret: kept out of hyper's debug output and out of HTTP/2
/// header compression. Errors name `what`, never the value.
pub(crate) fn secret_header(value: &str, what: &str) -> Result<HeaderValue, ModelError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        ModelError::Config(format!(
            "{what} contains characters not allowed in an HTTP header"
        ))
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// One endpoint of one API, ready to stream.
pub(crate) struct Transport {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    request_timeout: Duration,
    idle_timeout: Duration,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("endpoint", &redact_url(self.endpoint.as_str()))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// Validates `endpoint` (http or https) and the headers, and builds the client. `headers`
    /// are the format's own (version, credentials); `accept` and the config's extra
    /// headers are added here. Errors are `ModelError::Config` and never echo a secret.
    pub(crate) fn new(
        config: &HttpConfig,
        endpoint: &str,
        mut headers: HeaderMap,
    ) -> Result<Self, ModelError> {
        let bad_url = |why: String| {
            ModelError::Config(format!(
                "invalid base URL {:?}: {why}",
                redact_url(&config.base_url)
            ))
        };
        let endpoint = reqwest::Url::parse(endpoint).map_err(|e| bad_url(e.to_string()))?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(bad_url("the scheme must be http or https".into()));
        }
        headers.insert("accept", HeaderValue::from_static("text/event-stream"));
        for (name, value) in &config.extra_headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ModelError::Config(format!("invalid header name {name:?}")))?;
            let value = secret_header(value, &format!("header {name}"))?;
            headers.append(name, value);
        }
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
        Ok(Transport {
            http,
            endpoint,
            headers,
            request_timeout: config.request_timeout,
            idle_timeout: config.idle_timeout,
        })
    }

    pub(crate) fn endpoint(&self) -> &reqwest::Url {
        &self.endpoint
    }

    /// Sends `request` in format `F` and returns its events once the response headers are
    /// in; an error status is an `Err` here, before any event. The stream ends on cancel.
    pub(crate) async fn stream<F: ApiFormat>(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ModelError> {
        let response = self.post(&F::body(&request), &cancel).await?;
        if !response.status().is_success() {
            return Err(http_error(response, &cancel).await);
        }
        let events = if is_json(&response) {
            let text = self.read_json(response, &cancel).await?;
            F::json_answer(&text, &request)?
        } else {
            F::events(Box::pin(self.body_stream(response)), &request)
        };
        Ok(sse::with_cancel(events, cancel))
    }

    /// POSTs `body` as JSON; the response once its headers are in, whatever its status.
    async fn post(
        &self,
        body: &Value,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, ModelError> {
        let send = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(body)
            .send();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ModelError::Cancelled),
            r = tokio::time::timeout(self.request_timeout, send) => match r {
                Err(_) => Err(ModelError::timeout(format!(
                    "no response from {} within {} s",
                    self.host(),
                    self.request_timeout.as_secs_f64()
                ))),
                Ok(Err(e)) => Err(self.request_error(e)),
                Ok(Ok(r)) => Ok(r),
            },
        }
    }

    /// `host:port` of the endpoint, for error messages.
    fn host(&self) -> String {
        match (self.endpoint.host_str(), self.endpoint.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => redact_url(self.endpoint.as_str()),
        }
    }

    /// A failed request as a connection error; reqwest's own text is stripped of the URL.
    fn request_error(&self, e: reqwest::Error) -> ModelError {
        let e = e.without_url();
        let host = self.host();
        if e.is_timeout() {
            return ModelError::timeout(format!(
                "request to {host} timed out: {}",
                error_chain(&e)
            ));
        }
        let what = if e.is_connect() {
            format!("cannot connect to {host}")
        } else {
            format!("request to {host} failed")
        };
        ModelError::connection(format!("{what}: {}", error_chain(&e)))
    }

    /// The body as bytes; a read error, or `idle_timeout` without a chunk, ends it with
    /// an error (a stalled server must not hang the turn).
    fn body_stream(
        &self,
        response: reqwest::Response,
    ) -> impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static {
        let idle = self.idle_timeout;
        let bytes = response.bytes_stream().map(|r| {
            r.map_err(|e| {
                ModelError::connection(format!(
                    "error reading the response stream: {}",
                    error_chain(&e.without_url())
                ))
            })
        });
        futures::stream::unfold(Some(Box::pin(bytes)), move |state| async move {
            let mut bytes = state?;
            match tokio::time::timeout(idle, bytes.next()).await {
                Ok(Some(item)) => Some((item, Some(bytes))),
                Ok(None) => None,
                Err(_) => Some((
                    Err(ModelError::timeout(format!(
                        "no data from the API for {} s",
                        idle.as_secs_f64()
                    ))),
                    None,
                )),
            }
        })
    }

    /// A whole JSON answer, at most [`MAX_JSON_BODY`] bytes, within the idle timeout.
    async fn read_json(
        &self,
        response: reqwest::Response,
        cancel: &CancellationToken,
    ) -> Result<String, ModelError> {
        let read = read_body(response, MAX_JSON_BODY);
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ModelError::Cancelled),
            r = tokio::time::timeout(self.idle_timeout, read) => match r {
                Err(_) => Err(ModelError::timeout(format!(
                    "no data from the API for {} s",
                    self.idle_timeout.as_secs_f64()
                ))),
                Ok(Ok((text, false))) => Ok(text),
                Ok(Ok((_, true))) => Err(ModelError::stream(format!(
                    "JSON answer larger than {MAX_JSON_BODY} bytes"
                ))),
                Ok(Err(e)) => Err(e),
            },
        }
    }
}

/// Whether the server answered with a whole JSON document instead of an SSE stream.
fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"))
}

/// Up to `limit` bytes of the body as text, and whether there was more.
async fn read_body(
    response: reqwest::Response,
    limit: usize,
) -> Result<(String, bool), ModelError> {
    let mut buf = Vec::new();
    let mut body = response.bytes_stream();
    let mut truncated = false;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            ModelError::connection(format!(
                "error reading the response: {}",
                error_chain(&e.without_url())
            ))
        })?;
        buf.extend_from_slice(&chunk);
        if buf.len() > limit {
            buf.truncate(limit);
            truncated = true;
            break;
        }
    }
    Ok((String::from_utf8_lossy(&buf).into_owned(), truncated))
}

/// `ModelError::Http` from an error response: the message of its body ([`error_message`]),
/// else the status reason. The body is read only so far and so long: it is decoration.
async fn http_error(response: reqwest::Response, cancel: &CancellationToken) -> ModelError {
    let status = response.status();
    let retry_after = retry_after(response.headers());
    let text = tokio::select! {
        _ = cancel.cancelled() => String::new(),
        r = tokio::time::timeout(ERROR_BODY_TIMEOUT, read_body(response, MAX_ERROR_BODY)) => {
            match r {
                Ok(Ok((text, _))) => text,
                _ => String::new(),
            }
        }
    };
    ModelError::Http {
        status: status.as_u16(),
        message: error_message(&text)
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_string()),
        retry_after,
    }
}

/// The message of an error body. Servers disagree on its shape: `{"error": {"message"}}`
/// (Anthropic, OpenAI, DeepSeek, DashScope), `{"error": "…"}` (Ollama), `{"detail": …}`
/// (FastAPI servers), `{"message": …}`; else the body text itself.
pub(crate) fn error_message(text: &str) -> Option<String> {
    let from_json = serde_json::from_str::<Value>(text).ok().and_then(|v| {
        [
            v.pointer("/error/message"),
            v.get("error"),
            v.get("message"),
            v.get("detail"),
        ]
        .into_iter()
        .flatten()
        .find_map(|m| match m {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Array(_) | Value::Object(_) if m != &v["error"] => Some(m.to_string()),
            _ => None,
        })
    });
    from_json.or_else(|| Some(snippet(text.trim())).filter(|t| !t.is_empty()))
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn error_bodies_of_many_servers() {
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            )
            .as_deref(),
            Some("Overloaded")
        );
        assert_eq!(
            error_message(r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#)
                .as_deref(),
            Some("Rate limit reached")
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#).as_deref(),
            Some("model not found")
        );
        assert_eq!(
            error_message(r#"{"detail":"Not Found"}"#).as_deref(),
            Some("Not Found")
        );
        assert_eq!(
            error_message("upstream down").as_deref(),
            Some("upstream down")
        );
        assert_eq!(error_message("  "), None);
    }

    #[test]
    fn header_and_url_errors_do_not_echo_secrets() {
        let err = secret_header("sk-bad\nsecret", "the API key").unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        assert!(secret_header("ok", "k").unwrap().is_sensitive());
        let cfg = HttpConfig::new("ftp://u:pw-secret@x");
        let err = Transport::new(&cfg, "ftp://u:pw-secret@x/v1", HeaderMap::new()).unwrap_err();
        assert!(matches!(&err, ModelError::Config(m) if m.contains("http or https")));
        assert!(!err.to_string().contains("pw-secret"), "{err}");
        let mut cfg = HttpConfig::new("http://h");
        cfg.extra_headers = vec![("X-Key".into(), "v\u{7f}secret".into())];
        let err = Transport::new(&cfg, "http://h/v1", HeaderMap::new()).unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        let mut cfg = HttpConfig::new("http://h");
        cfg.proxy = Some("::not a proxy::".into());
        let err = Transport::new(&cfg, "http://h/v1", HeaderMap::new()).unwrap_err();
        assert_eq!(err, ModelError::Config("invalid proxy URL".into()));
    }

    #[test]
    fn debug_shows_header_names_only() {
        let mut cfg = HttpConfig::new("http://u:pw-secret@h:9");
        cfg.extra_headers = vec![("X-Key".into(), "hdr-secret".into())];
        let t = Transport::new(&cfg, "http://u:pw-secret@h:9/v1", HeaderMap::new()).unwrap();
        let dbg = format!("{t:?}");
        assert!(dbg.contains("x-key"), "{dbg}");
        assert!(
            !dbg.contains("pw-secret") && !dbg.contains("hdr-secret"),
            "{dbg}"
        );
        assert_eq!(t.host(), "h:9");
    }
}
