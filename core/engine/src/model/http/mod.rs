//! The HTTP transport both API clients share: [`HttpConfig`] (base URL, timeouts, proxy
//! from the session's env map, extra headers; a `Debug` that redacts secrets) and the
//! transport that builds one reqwest client from it and streams a request's body. An API
//! format adds only its request body and its stream mapping (`WireFormat`).

mod config;
mod transport;

pub(crate) use config::Redacted;
pub use config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, HttpConfig, proxy_for,
    redact_url,
};
pub(crate) use transport::{Transport, WireFormat, secret_header};
