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
) -> Result<SseTransport, String> {
    let base = reqwest::Url::parse(url).map_err(|e| format!("invalid url: {e}"))?;
    let response = client
        .get(base.clone())
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| format!("cannot reach the SSE endpoint: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("the SSE endpoint answered HTTP {status}"));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    let (tx, rx) = mpsc::channel(64);
    let (endpoint_tx, endpoint_rx) = oneshot::channel::<Result<reqwest::Url, String>>();
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
                        .map_err(|e| format!("bad endpoint event {data:?}: {e}"));
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
            let _ = t.send(Err("the SSE stream ended before an endpoint event".into()));
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
            return Err("the SSE stream ended before an endpoint event".into());
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
) -> Result<reqwest::Client, String> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("invalid header name {k:?}"))?;
        let mut value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|_| format!("invalid value for header {k:?}"))?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    reqwest::Client::builder()
        .default_headers(map)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}
