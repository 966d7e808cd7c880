//! The HTTP transport both API clients share: [`HttpConfig`] (base URL, timeouts, proxy
//! from the session's env map, extra headers; a `Debug` that redacts secrets) and the
//! transport that builds one reqwest client from it and streams a request's body;
//! [`HttpClient`] is the model client over them. An API format ([`ApiFormat`]) adds only
//! its endpoint, its credentials' headers, its request body and its stream mapping.

mod client;
mod config;
mod format;
mod transport;

pub(crate) use client::deref_to_http_config;
pub use client::{ApiFormat, HttpClient};
pub(crate) use config::Redacted;
pub use config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, HttpConfig, env_value,
    proxy_for, redact_url,
};
pub(crate) use transport::secret_header;
