//! One model client for every HTTP API format: [`HttpClient`] over an [`ApiFormat`],
//! which supplies the endpoint, the credentials' headers, the request body and the
//! stream mapping; everything else is the shared [`Transport`].

use std::ops::Deref;

use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{HttpConfig, redact_url};
use super::transport::Transport;
use crate::model::sse::ByteStream;
use crate::model::{BoxFuture, EventStream, ModelClient, ModelError, ModelRequest};

/// What one API format adds to the shared transport. Implemented by the format's config
/// type, which derefs to its [`HttpConfig`].
pub trait ApiFormat:
    Clone + std::fmt::Debug + Deref<Target = HttpConfig> + Send + Sync + 'static
{
    /// The client's name in `Debug` output.
    const CLIENT_NAME: &'static str;

    /// The path under the base URL requests go to (`/v1/messages`).
    const PATH: &'static str;

    /// The format's own headers (version, credentials). An error (a missing or malformed
    /// key) refuses to build the client; it must not echo a secret.
    fn headers(&self) -> Result<HeaderMap, ModelError>;

    /// The JSON body of a streamed request.
    fn body(request: &ModelRequest) -> Value;

    /// The SSE body as typed events.
    fn events(body: ByteStream, request: &ModelRequest) -> EventStream;

    /// A successful answer that is one JSON document instead of a stream (a server or
    /// proxy that ignored `stream: true`).
    fn json_answer(text: &str, request: &ModelRequest) -> Result<EventStream, ModelError>;
}

/// Streams one API format's responses over HTTP(S) (rustls).
pub struct HttpClient<F: ApiFormat> {
    transport: Transport,
    config: F,
}

impl<F: ApiFormat> HttpClient<F> {
    /// Validates the config (credentials, URL and header values well formed) and builds
    /// the HTTP client. Errors are `ModelError::Config` and never echo a secret.
    pub fn new(config: F) -> Result<Self, ModelError> {
        let transport = Transport::new(&config, &config.url(F::PATH), config.headers()?)?;
        Ok(HttpClient { transport, config })
    }

    pub fn config(&self) -> &F {
        &self.config
    }
}

impl<F: ApiFormat> std::fmt::Debug for HttpClient<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(F::CLIENT_NAME)
            .field("endpoint", &redact_url(self.transport.endpoint().as_str()))
            .field("config", &self.config)
            .finish()
    }
}

impl<F: ApiFormat> ModelClient for HttpClient<F> {
    fn stream<'a>(
        &'a self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, ModelError>> {
        Box::pin(self.transport.stream::<F>(request, cancel))
    }
}

/// `Deref`/`DerefMut` from a format's config to its [`HttpConfig`] field `http`, so
/// `config.base_url` and `config.proxy = …` read as plain fields.
macro_rules! deref_to_http_config {
    ($config:ty) => {
        impl std::ops::Deref for $config {
            type Target = $crate::model::http::HttpConfig;
            fn deref(&self) -> &Self::Target {
                &self.http
            }
        }

        impl std::ops::DerefMut for $config {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.http
            }
        }
    };
}
pub(crate) use deref_to_http_config;
