//! Why a model call failed: [`ModelError`], and its typed [`ErrorKind`], which retry
//! policy and callers branch on instead of searching the message text.

/// What kind of failure a [`ModelError`] is. Decided where the error is made (from the
/// HTTP status, the API's own error type, or which timeout fired), never by reading the
/// message afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// HTTP 529, or an `overloaded_error` in the stream.
    Overloaded,
    /// HTTP 429.
    RateLimit,
    /// HTTP 5xx other than 529.
    ServerError,
    /// HTTP 409 (a lock or concurrency conflict on the server; worth another try).
    Conflict,
    /// Could not connect, or the connection broke (including a body that ended early).
    Connection,
    /// No response headers within the request timeout, no body bytes within the idle
    /// timeout, or HTTP 408.
    Timeout,
    /// The stream carried malformed data or a (non-overloaded) `error` event.
    Stream,
    /// HTTP 401 or 403.
    Auth,
    /// HTTP 404 (often: no such model at that endpoint).
    NotFound,
    /// Any other HTTP 4xx: the request itself was refused.
    InvalidRequest,
    /// An HTTP status no other kind covers (1xx–3xx as an answer).
    UnexpectedStatus,
    /// No key or base URL, or a malformed one.
    Config,
    /// The turn was cancelled while the call ran.
    Cancelled,
}

impl ErrorKind {
    /// The kind of an HTTP error status.
    pub fn from_status(status: u16) -> Self {
        match status {
            401 | 403 => ErrorKind::Auth,
            404 => ErrorKind::NotFound,
            408 => ErrorKind::Timeout,
            409 => ErrorKind::Conflict,
            429 => ErrorKind::RateLimit,
            529 => ErrorKind::Overloaded,
            500..=599 => ErrorKind::ServerError,
            400..=499 => ErrorKind::InvalidRequest,
            _ => ErrorKind::UnexpectedStatus,
        }
    }

    /// The kind of an error the API reported inside a stream, from its `type` (or OpenAI's
    /// `code`) field. Only overload is told apart: like every other in-stream error it
    /// arrives after a 200, and only an overloaded one has ever been worth a retry.
    pub fn from_api_error_type(error_type: &str) -> Self {
        match error_type.trim().to_ascii_lowercase().as_str() {
            // Anthropic's type; OpenAI-compatible servers' types and codes.
            "overloaded_error" | "overloaded" | "server_overloaded" | "engine_overloaded"
            | "529" => ErrorKind::Overloaded,
            _ => ErrorKind::Stream,
        }
    }

    /// Whether another attempt may succeed: overload, rate limits, server errors,
    /// conflicts, broken connections and timeouts.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ErrorKind::Overloaded
                | ErrorKind::RateLimit
                | ErrorKind::ServerError
                | ErrorKind::Conflict
                | ErrorKind::Connection
                | ErrorKind::Timeout
        )
    }

    /// The kind's name, snake_case (`rate_limit`, `invalid_request`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::ServerError => "server_error",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Connection => "connection",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Stream => "stream",
            ErrorKind::Auth => "auth",
            ErrorKind::NotFound => "not_found",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::UnexpectedStatus => "unexpected_status",
            ErrorKind::Config => "config",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The message of a `Connection` or `Stream` error, with the finer kind the client knew
/// when it made the error (a timeout is a `Connection` error of kind
/// [`ErrorKind::Timeout`]). Reads as the message text: it derefs to `str` and displays
/// as the text alone.
#[derive(Clone, PartialEq, Eq)]
pub struct ErrorText {
    /// `None`: the variant's own kind (`Connection` or `Stream`).
    kind: Option<ErrorKind>,
    text: String,
}

impl ErrorText {
    /// A message of the given kind. `Connection` and `Stream` are the variants' own
    /// kinds and are not stored, so `ModelError::connection(t)` equals
    /// `ModelError::Connection(t.into())`.
    pub fn new(kind: ErrorKind, text: impl Into<String>) -> Self {
        ErrorText {
            kind: Some(kind).filter(|k| !matches!(k, ErrorKind::Connection | ErrorKind::Stream)),
            text: text.into(),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The finer kind, when one was given.
    pub fn kind(&self) -> Option<ErrorKind> {
        self.kind
    }
}

impl std::ops::Deref for ErrorText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl From<String> for ErrorText {
    fn from(text: String) -> Self {
        ErrorText { kind: None, text }
    }
}

impl From<&str> for ErrorText {
    fn from(text: &str) -> Self {
        ErrorText::from(text.to_string())
    }
}

impl std::fmt::Display for ErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::fmt::Debug for ErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            None => write!(f, "{:?}", self.text),
            Some(k) => write!(f, "{:?} ({k})", self.text),
        }
    }
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The server answered with an HTTP error status.
    #[error("API Error: {status} {message}")]
    Http {
        status: u16,
        message: String,
        /// Seconds from a `retry-after` header.
        retry_after: Option<f64>,
    },
    /// Could not connect, the connection broke, or a timeout fired.
    #[error("API connection error: {0}")]
    Connection(ErrorText),
    /// The stream carried an `error` event or malformed data.
    #[error("API stream error: {0}")]
    Stream(ErrorText),
    /// No key or base URL to reach the model.
    #[error("{0}")]
    Config(String),
    /// The turn was cancelled while the call ran.
    #[error("cancelled")]
    Cancelled,
}

impl ModelError {
    /// A broken or refused connection.
    pub fn connection(text: impl Into<String>) -> Self {
        ModelError::Connection(ErrorText::new(ErrorKind::Connection, text))
    }

    /// A timeout (request or idle): a `Connection` error of kind [`ErrorKind::Timeout`].
    pub fn timeout(text: impl Into<String>) -> Self {
        ModelError::Connection(ErrorText::new(ErrorKind::Timeout, text))
    }

    /// Malformed stream data.
    pub fn stream(text: impl Into<String>) -> Self {
        ModelError::Stream(ErrorText::new(ErrorKind::Stream, text))
    }

    /// An error the API sent inside the stream: `"<type>: <message>"`, of the kind its
    /// type says ([`ErrorKind::from_api_error_type`]).
    pub fn api_stream_error(error_type: &str, message: &str) -> Self {
        ModelError::Stream(ErrorText::new(
            ErrorKind::from_api_error_type(error_type),
            format!("{error_type}: {message}"),
        ))
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ModelError::Http { status, .. } => ErrorKind::from_status(*status),
            ModelError::Connection(t) => t.kind.unwrap_or(ErrorKind::Connection),
            ModelError::Stream(t) => t.kind.unwrap_or(ErrorKind::Stream),
            ModelError::Config(_) => ErrorKind::Config,
            ModelError::Cancelled => ErrorKind::Cancelled,
        }
    }

    /// Whether a retry may help (429, 408, 409, 5xx including 529, broken connections,
    /// timeouts, an overloaded stream).
    pub fn is_retryable(&self) -> bool {
        self.kind().is_retryable()
    }

    /// The HTTP status, when there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The `error` field of a `system/api_retry` frame: `overloaded`, `rate_limit`,
    /// `server_error` (any other HTTP status), `connection_error` (timeouts included),
    /// `stream_error`, `config_error` or `cancelled`.
    pub fn as_str(&self) -> &'static str {
        match (self, self.kind()) {
            (_, ErrorKind::Overloaded) => "overloaded",
            (ModelError::Http { .. }, ErrorKind::RateLimit) => "rate_limit",
            (ModelError::Http { .. }, _) => "server_error",
            (ModelError::Connection(_), _) => "connection_error",
            (ModelError::Stream(_), _) => "stream_error",
            (ModelError::Config(_), _) => "config_error",
            (ModelError::Cancelled, _) => "cancelled",
        }
    }

    /// The `error` field of the synthetic assistant message that reports a failed call
    /// (the SDKs' `SDKAssistantMessageError`): `authentication_failed` (401/403),
    /// `rate_limit` (429), `invalid_request` (400), `server_error` (any other HTTP
    /// status), `unknown` (no HTTP status).
    pub fn assistant_error(&self) -> &'static str {
        match (self, self.kind()) {
            (ModelError::Http { .. }, ErrorKind::Auth) => "authentication_failed",
            (ModelError::Http { .. }, ErrorKind::RateLimit) => "rate_limit",
            (ModelError::Http { status: 400, .. }, _) => "invalid_request",
            (ModelError::Http { .. }, _) => "server_error",
            _ => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> ModelError {
        ModelError::Http {
            status,
            message: "x".into(),
            retry_after: None,
        }
    }

    /// What `session::turn::error_kind` computed by hand before the kinds existed.
    fn legacy_retry_label(e: &ModelError) -> &'static str {
        match e {
            ModelError::Http { status: 529, .. } => "overloaded",
            ModelError::Http { status: 429, .. } => "rate_limit",
            ModelError::Http { .. } => "server_error",
            ModelError::Stream(m) if m.contains("overloaded") => "overloaded",
            ModelError::Connection(_) => "connection_error",
            ModelError::Stream(_) => "stream_error",
            ModelError::Config(_) => "config_error",
            ModelError::Cancelled => "cancelled",
        }
    }

    /// The `error` field of the synthetic assistant line dcl writes for a failed model call
    /// (the engine's `session/emit` `Event::ApiError`).
    fn legacy_assistant_error(e: &ModelError) -> &'static str {
        match e {
            ModelError::Http {
                status: 401 | 403, ..
            } => "authentication_failed",
            ModelError::Http { status: 429, .. } => "rate_limit",
            ModelError::Http { status: 400, .. } => "invalid_request",
            ModelError::Http { .. } => "server_error",
            _ => "unknown",
        }
    }

    fn samples() -> Vec<ModelError> {
        let mut v: Vec<ModelError> = [
            100, 200, 302, 400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504,
            529, 599,
        ]
        .into_iter()
        .map(http)
        .collect();
        v.extend([
            ModelError::connection("cannot connect to 127.0.0.1:9"),
            ModelError::timeout("no data from the API for 1 s"),
            ModelError::Connection("stream ended before message_stop".into()),
            ModelError::stream("malformed JSON in the data of SSE event `x`"),
            ModelError::api_stream_error("overloaded_error", "Overloaded"),
            ModelError::api_stream_error("api_error", "Internal server error"),
            ModelError::Config("no key".into()),
            ModelError::Cancelled,
        ]);
        v
    }

    #[test]
    fn labels_match_what_the_session_computed_by_hand() {
        for e in samples() {
            assert_eq!(e.as_str(), legacy_retry_label(&e), "{e:?}");
            assert_eq!(e.assistant_error(), legacy_assistant_error(&e), "{e:?}");
        }
    }

    #[test]
    fn kinds_come_from_status_type_and_constructor() {
        assert_eq!(http(529).kind(), ErrorKind::Overloaded);
        assert_eq!(http(429).kind(), ErrorKind::RateLimit);
        assert_eq!(http(503).kind(), ErrorKind::ServerError);
        assert_eq!(http(401).kind(), ErrorKind::Auth);
        assert_eq!(http(403).kind(), ErrorKind::Auth);
        assert_eq!(http(404).kind(), ErrorKind::NotFound);
        assert_eq!(http(408).kind(), ErrorKind::Timeout);
        assert_eq!(http(409).kind(), ErrorKind::Conflict);
        assert_eq!(http(400).kind(), ErrorKind::InvalidRequest);
        assert_eq!(http(413).kind(), ErrorKind::InvalidRequest);
        assert_eq!(http(302).kind(), ErrorKind::UnexpectedStatus);
        assert_eq!(ModelError::timeout("t").kind(), ErrorKind::Timeout);
        assert_eq!(ModelError::connection("c").kind(), ErrorKind::Connection);
        assert_eq!(
            ModelError::Connection("plain".into()).kind(),
            ErrorKind::Connection
        );
        assert_eq!(
            ModelError::api_stream_error("overloaded_error", "Overloaded").kind(),
            ErrorKind::Overloaded
        );
        assert_eq!(
            ModelError::api_stream_error("api_error", "boom").kind(),
            ErrorKind::Stream
        );
        assert_eq!(ModelError::Config("k".into()).kind(), ErrorKind::Config);
        assert_eq!(ModelError::Cancelled.kind(), ErrorKind::Cancelled);
        for t in ["overloaded_error", "Overloaded", "server_overloaded", "529"] {
            assert_eq!(
                ErrorKind::from_api_error_type(t),
                ErrorKind::Overloaded,
                "{t}"
            );
        }
        for t in ["api_error", "rate_limit_error", "not_overloaded_really", ""] {
            assert_eq!(ErrorKind::from_api_error_type(t), ErrorKind::Stream, "{t}");
        }
    }

    #[test]
    fn the_message_text_does_not_decide_the_kind() {
        // The word "overloaded" in a message of another kind does not make it retryable…
        let e = ModelError::stream("malformed JSON; data: {\"overloaded\": 1}");
        assert_eq!(e.kind(), ErrorKind::Stream);
        assert!(!e.is_retryable());
        // …and an overloaded error is retryable whatever its message says.
        let e = ModelError::api_stream_error("overloaded_error", "try later");
        assert!(e.is_retryable());
        assert_eq!(e.as_str(), "overloaded");
    }

    #[test]
    fn retryable_kinds() {
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(http(s).is_retryable(), "{s}");
        }
        for s in [302, 400, 401, 403, 404, 413, 422] {
            assert!(!http(s).is_retryable(), "{s}");
        }
        assert!(ModelError::connection("reset").is_retryable());
        assert!(ModelError::timeout("idle").is_retryable());
        assert!(!ModelError::stream("bad").is_retryable());
        assert!(!ModelError::Config("k".into()).is_retryable());
        assert!(!ModelError::Cancelled.is_retryable());
    }

    #[test]
    fn error_text_reads_as_its_message() {
        let e = ModelError::timeout("no data from the API for 2 s");
        assert_eq!(
            e.to_string(),
            "API connection error: no data from the API for 2 s"
        );
        let ModelError::Connection(t) = &e else {
            panic!("{e:?}")
        };
        assert!(t.contains("no data"));
        assert_eq!(t.as_str(), "no data from the API for 2 s");
        assert_eq!(t.kind(), Some(ErrorKind::Timeout));
        assert!(format!("{e:?}").contains("timeout"), "{e:?}");
        // Equality includes the kind: a timeout is not a plain connection error.
        assert_ne!(e, ModelError::connection("no data from the API for 2 s"));
        assert_eq!(
            ModelError::connection("reset"),
            ModelError::Connection("reset".into())
        );
        assert_eq!(ModelError::stream("bad"), ModelError::Stream("bad".into()));
        assert_eq!(ErrorKind::InvalidRequest.to_string(), "invalid_request");
    }
}
