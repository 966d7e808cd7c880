//! The HTTP plumbing both API clients share: one POST raced against cancellation and a
//! header timeout, error texts that name the host but never the URL (it may hold
//! credentials), and the response body as a byte stream with an idle timeout.

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ModelError;
use super::anthropic::{error_chain, idle_timeout, redact_url};

/// `host:port` of an endpoint, for error messages.
pub(crate) fn host_label(endpoint: &reqwest::Url) -> String {
    match (endpoint.host_str(), endpoint.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => redact_url(endpoint.as_str()),
    }
}

/// A failed request as a `Connection` error; reqwest's own text is stripped of the URL.
pub(crate) fn request_error(endpoint: &reqwest::Url, e: reqwest::Error) -> ModelError {
    let e = e.without_url();
    let host = host_label(endpoint);
    let what = if e.is_connect() {
        format!("cannot connect to {host}")
    } else if e.is_timeout() {
        format!("request to {host} timed out")
    } else {
        format!("request to {host} failed")
    };
    ModelError::Connection(format!("{what}: {}", error_chain(&e)))
}

/// POSTs `body` as JSON and returns the response once its headers are in, whatever its
/// status (each API reads its own error bodies).
pub(crate) async fn post_json(
    http: &reqwest::Client,
    endpoint: &reqwest::Url,
    headers: &HeaderMap,
    body: &Value,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, ModelError> {
    let send = http
        .post(endpoint.clone())
        .headers(headers.clone())
        .json(body)
        .send();
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(ModelError::Cancelled),
        r = tokio::time::timeout(timeout, send) => match r {
            Err(_) => Err(ModelError::Connection(format!(
                "no response from {} within {} s",
                host_label(endpoint),
                timeout.as_secs_f64()
            ))),
            Ok(Err(e)) => Err(request_error(endpoint, e)),
            Ok(Ok(r)) => Ok(r),
        },
    }
}

/// Whether the server answered with a whole JSON document instead of an SSE stream.
pub(crate) fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"))
}

/// The body as bytes; a read error or `idle` without a chunk ends it with an error.
pub(crate) fn body_stream(
    response: reqwest::Response,
    idle: Duration,
) -> impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static {
    let bytes = response.bytes_stream().map(|r| {
        r.map_err(|e| {
            ModelError::Connection(format!(
                "error reading the response stream: {}",
                error_chain(&e.without_url())
            ))
        })
    });
    idle_timeout(bytes, idle)
}
