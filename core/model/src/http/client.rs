//! One model client for every HTTP API format: [`HttpClient`] over an [`ApiFormat`],
//! which supplies the endpoint, the credentials' headers, the request body and the
//! stream mapping; everything else is the shared [`Transport`].

use tokio_util::sync::CancellationToken;

use super::config::redact_url;
pub use super::format::ApiFormat;
use super::transport::Transport;
use crate::{BoxFuture, EventStream, ModelClient, ModelError, ModelRequest};

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
            type Target = $crate::http::HttpConfig;
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

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use crate::anthropic::{AnthropicClient, AnthropicConfig};
    use crate::openai::{OpenAiClient, OpenAiConfig};
    use crate::{ApiMessage, ErrorKind, ModelClient, ModelRequest, Role, test_env};
    use dcl_protocol::ContentBlock;
    use dcl_test_support::openai::{ChatStream, FakeOpenAiServer};
    use dcl_test_support::{FakeAnthropicServer, FakeResponse, sse_text};
    use tokio_util::sync::CancellationToken;

    fn request(model: &str) -> ModelRequest {
        ModelRequest {
            model: model.into(),
            system: None,
            messages: vec![ApiMessage {
                role: Role::User,
                content: vec![ContentBlock::text("hi")],
            }],
            tools: vec![],
            max_tokens: 10,
            thinking: None,
        }
    }

    /// A port nothing listens on: only a proxy can answer for it.
    fn closed_port() -> u16 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }

    async fn text_of(client: &dyn ModelClient, model: &str) -> Result<usize, crate::ModelError> {
        let stream = client
            .stream(request(model), CancellationToken::new())
            .await?;
        let items: Vec<_> = stream.collect().await;
        items
            .iter()
            .try_for_each(|i| i.as_ref().map(|_| ()).map_err(Clone::clone))?;
        Ok(items.len())
    }

    #[tokio::test]
    async fn both_formats_go_through_the_proxy_of_the_env_map_unless_no_proxy_says_otherwise() {
        let port = closed_port();
        let proxy_a = FakeAnthropicServer::start(vec![FakeResponse::sse(sse_text("via proxy"))])
            .await
            .unwrap();
        let proxy_o = FakeOpenAiServer::start(vec![FakeResponse::sse(
            ChatStream::new().text("via proxy").build(),
        )])
        .await
        .unwrap();
        let target_a = format!("http://127.0.0.1:{port}");
        let target_o = format!("http://127.0.0.1:{port}/v1");
        let env_a = |extra: &[(&str, &str)]| {
            let mut pairs = vec![
                ("ANTHROPIC_API_KEY", "k"),
                ("ANTHROPIC_BASE_URL", target_a.as_str()),
                // Chosen by the base URL's scheme: the https one must not be used.
                ("HTTPS_PROXY", "http://127.0.0.1:1"),
            ];
            pairs.extend_from_slice(extra);
            test_env(&pairs)
        };
        let via_a = proxy_a.base_url();
        let client = AnthropicClient::new(AnthropicConfig::from_env_map(&env_a(&[(
            "HTTP_PROXY",
            &via_a,
        )])))
        .unwrap();
        assert!(text_of(&client, "claude-x").await.unwrap() > 3);
        let seen = proxy_a.requests();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].path, "/v1/messages");
        assert_eq!(
            seen[0].header("host"),
            Some(format!("127.0.0.1:{port}").as_str())
        );

        let via_o = proxy_o.base_url();
        let env_o = test_env(&[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", &target_o),
            ("http_proxy", &via_o),
        ]);
        let client = OpenAiClient::new(OpenAiConfig::from_env_map(&env_o)).unwrap();
        assert!(text_of(&client, "gpt-x").await.unwrap() > 3);
        assert_eq!(proxy_o.requests()[0].path, "/v1/chat/completions");

        // NO_PROXY names the host: a direct connection, refused; the proxy sees nothing.
        let client = AnthropicClient::new(AnthropicConfig::from_env_map(&env_a(&[
            ("HTTP_PROXY", &via_a),
            ("NO_PROXY", "127.0.0.1"),
        ])))
        .unwrap();
        let err = text_of(&client, "claude-x").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Connection, "{err:?}");
        assert!(
            err.to_string().contains(&format!("127.0.0.1:{port}")),
            "{err}"
        );
        assert_eq!(proxy_a.requests().len(), 1);
        // No proxy variable at all: direct too (the process env is never consulted).
        let client = AnthropicClient::new(AnthropicConfig::from_env_map(&env_a(&[]))).unwrap();
        assert_eq!(
            text_of(&client, "claude-x").await.unwrap_err().kind(),
            ErrorKind::Connection
        );
        assert_eq!(proxy_a.requests().len(), 1);
    }

    #[tokio::test]
    async fn a_proxy_with_credentials_never_shows_them() {
        let cfg = {
            let mut c = AnthropicConfig::new("https://api.example").with_api_key("sk-key-secret");
            c.proxy = Some("http://user:proxy-secret@127.0.0.1:1".into());
            c.no_proxy = Some("localhost".into());
            c
        };
        let client = AnthropicClient::new(cfg).unwrap();
        let dbg = format!("{client:?}");
        assert!(dbg.starts_with("AnthropicClient"), "{dbg}");
        for secret in ["sk-key-secret", "proxy-secret", "user:"] {
            assert!(!dbg.contains(secret), "{secret} in {dbg}");
        }
        assert!(
            dbg.contains("127.0.0.1:1") && dbg.contains("localhost"),
            "{dbg}"
        );
        // The proxy refuses the connection; the error names neither it nor its password.
        let err = text_of(&client, "claude-x").await.unwrap_err();
        assert!(err.is_retryable(), "{err:?}");
        assert!(!err.to_string().contains("proxy-secret"), "{err}");
    }
}
