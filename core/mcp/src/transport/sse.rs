//! The HTTP+SSE transport of MCP 2024-11-05 (rmcp dropped its client for it): GET the URL as
//! an event stream; its first `endpoint` event names the URL to POST messages to; replies
//! arrive as `message` events on the stream.

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use sse_stream::SseStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{TransportError, decode_incoming};

/// Why the event stream gave no endpoint to POST to.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("invalid url: {0}")]
    InvalidUrl(url::ParseError),
    #[error("cannot reach the SSE endpoint: {0}")]
    Unreachable(reqwest::Error),
    #[error("the SSE endpoint answered HTTP {0}")]
    Status(reqwest::StatusCode),
    #[error("bad endpoint event {data:?}: {source}")]
    BadEndpoint {
        data: String,
        source: url::ParseError,
    },
    #[error("the SSE stream ended before an endpoint event")]
    EndedEarly,
}

/// Why the configured headers make no HTTP client.
#[derive(Debug, thiserror::Error)]
pub enum HttpClientError {
    #[error("invalid header name {0:?}")]
    HeaderName(String),
    #[error("invalid value for header {0:?}")]
    HeaderValue(String),
    #[error("cannot build an HTTP client: {0}")]
    Build(reqwest::Error),
}

pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    rx: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
}

/// Opens the event stream and waits for the `endpoint` event (the caller bounds the wait).
/// `client` carries the configured headers as default headers.
pub(crate) async fn connect(
    server: &str,
    client: reqwest::Client,
    url: &str,
) -> Result<SseTransport, SseError> {
    let base = reqwest::Url::parse(url).map_err(SseError::InvalidUrl)?;
    let response = client
        .get(base.clone())
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(SseError::Unreachable)?;
    let status = response.status();
    if !status.is_success() {
        return Err(SseError::Status(status));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    let (tx, rx) = mpsc::channel(64);
    let (endpoint_tx, endpoint_rx) = oneshot::channel::<Result<reqwest::Url, SseError>>();
    let server_name = server.to_string();
    let reader = tokio::spawn(async move {
        let mut endpoint_tx = Some(endpoint_tx);
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(e) => e,
                Err(e) => {
                    tracing::debug!(server = %server_name, "SSE stream error: {e}");
                    break;
                }
            };
            let data = event.data.unwrap_or_default();
            match event.event.as_deref() {
                Some("endpoint") => {
                    let resolved = base
                        .join(data.trim())
                        .map_err(|source| SseError::BadEndpoint {
                            data: data.clone(),
                            source,
                        });
                    if let Some(t) = endpoint_tx.take() {
                        let _ = t.send(resolved);
                    }
                }
                None | Some("message") => {
                    let Ok(value) = serde_json::from_str::<Value>(&data) else {
                        tracing::debug!(server = %server_name, "ignoring a non-JSON SSE message");
                        continue;
                    };
                    let items = match value {
                        Value::Array(items) => items,
                        other => vec![other],
                    };
                    for item in items {
                        if let Some(m) = decode_incoming(item, &server_name)
                            && tx.send(m).await.is_err()
                        {
                            return;
                        }
                    }
                }
                Some(_) => {}
            }
        }
        if let Some(t) = endpoint_tx.take() {
            let _ = t.send(Err(SseError::EndedEarly));
        }
    });
    let endpoint = match endpoint_rx.await {
        Ok(Ok(url)) => url,
        Ok(Err(e)) => {
            reader.abort();
            return Err(e);
        }
        Err(_) => {
            reader.abort();
            return Err(SseError::EndedEarly);
        }
    };
    Ok(SseTransport {
        client,
        endpoint,
        rx,
        reader,
    })
}

impl Transport<RoleClient> for SseTransport {
    type Error = TransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let endpoint = self.endpoint.clone();
        async move {
            let body = serde_json::to_vec(&item)
                .map_err(|e| TransportError(format!("cannot encode a message: {e}")))?;
            let response = client
                .post(endpoint)
                .header(CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| TransportError(format!("cannot POST to the server: {e}")))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(TransportError(format!("the server answered HTTP {status}")))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.rx.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.rx.close();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// A reqwest client that sends `headers` with every request; values are marked sensitive.
pub(crate) fn http_client(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<reqwest::Client, HttpClientError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| HttpClientError::HeaderName(k.clone()))?;
        let mut value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|_| HttpClientError::HeaderValue(k.clone()))?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    reqwest::Client::builder()
        .default_headers(map)
        .build()
        .map_err(HttpClientError::Build)
}
