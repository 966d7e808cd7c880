//! What an API format (Anthropic Messages, OpenAI Chat Completions) supplies to the shared
//! transport; both the transport and the client build on it.

use std::ops::Deref;

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::config::HttpConfig;
use crate::sse::ByteStream;
use crate::{EventStream, ModelError, ModelRequest};

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
