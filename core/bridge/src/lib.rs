//! The one API every dcl front end uses — the CLI's stdio loop and the Python, Node and
//! Java bindings alike:
//!
//! ```text
//! open(options_json) -> Bridge
//! bridge.send(line)            user message | control_request | control_response
//! bridge.recv() -> Option<line>  every outbound line, including requests to the host
//! bridge.interrupt(); bridge.end_input(); bridge.close()
//! ```
//!
//! The bridge owns the one tokio runtime; the engine owns none. Callbacks never cross the
//! boundary: approvals, hooks and host MCP calls leave as control requests from `recv`
//! and come back through `send`.

use std::sync::OnceLock;

use dcl_engine::{Session, SessionOptions};
use dcl_protocol::{LineError, Message};
use tokio::runtime::Runtime;

/// Errors a front end maps to its own exception or error type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BridgeError {
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// A line that could not be used; the session goes on.
    #[error("bad input: {0}")]
    BadInput(String),
    #[error("the session is closed")]
    Closed,
    #[error("internal error: {0}")]
    Internal(String),
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The shared multi-thread runtime, built on first use. `DCL_WORKER_THREADS` sets its size.
pub fn runtime() -> Result<&'static Runtime, BridgeError> {
    let rt = RUNTIME.get_or_init(|| {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.enable_all().thread_name("dcl-rt");
        if let Some(n) = std::env::var("DCL_WORKER_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
        {
            b.worker_threads(n);
        }
        b.build().map_err(|e| e.to_string())
    });
    rt.as_ref()
        .map_err(|e| BridgeError::Internal(format!("cannot start the runtime: {e}")))
}

/// One open session.
pub struct Bridge {
    session: Session,
}

/// Opens a session from options JSON (the CLI flags' vocabulary, see `SessionOptions`).
pub fn open(options_json: &str) -> Result<Bridge, BridgeError> {
    let options = SessionOptions::from_json(options_json).map_err(BridgeError::InvalidOptions)?;
    open_with(options)
}

/// Opens a session from already-typed options.
pub fn open_with(options: SessionOptions) -> Result<Bridge, BridgeError> {
    let rt = runtime()?;
    let session = Session::spawn(rt.handle(), options).map_err(BridgeError::InvalidOptions)?;
    Ok(Bridge { session })
}

impl Bridge {
    pub fn session_id(&self) -> &str {
        self.session.session_id()
    }

    /// Hands one line to the session. A bad line is an error to the caller (and, when a
    /// `request_id` could be read, an `error` control response on the stream); the session
    /// keeps serving either way.
    pub fn send(&self, line: &str) -> Result<(), BridgeError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        match dcl_protocol::parse_line(line) {
            Ok(message) => self.send_message(message),
            Err(e) => {
                if let LineError::BadShape {
                    request_id: Some(id),
                    ..
                } = &e
                {
                    self.session
                        .reject(id.clone(), e.to_string())
                        .map_err(|_| BridgeError::Closed)?;
                }
                Err(BridgeError::BadInput(e.to_string()))
            }
        }
    }

    pub fn send_message(&self, message: Message) -> Result<(), BridgeError> {
        self.session.send(message).map_err(|_| BridgeError::Closed)
    }

    /// The next outbound line; `None` once the session has ended.
    pub async fn recv(&self) -> Option<String> {
        self.session.recv().await.map(|m| dcl_protocol::to_line(&m))
    }

    /// Every outbound line that is ready (at least one, at most `max`); empty once the
    /// session has ended. Hosts where each wake-up is costly (asyncio) read this way.
    pub async fn recv_batch(&self, max: usize) -> Vec<String> {
        self.session
            .recv_batch(max)
            .await
            .iter()
            .map(dcl_protocol::to_line)
            .collect()
    }

    /// The next outbound message, typed.
    pub async fn recv_message(&self) -> Option<Message> {
        self.session.recv().await
    }

    /// Blocking `recv` for hosts without an async runtime (Java). Must not be called
    /// from inside the runtime.
    pub fn recv_blocking(&self) -> Result<Option<String>, BridgeError> {
        let rt = runtime()?;
        Ok(rt.block_on(self.recv()))
    }

    pub fn interrupt(&self) {
        self.session.interrupt();
    }

    /// No more input: queued work finishes, then `recv` returns `None`.
    pub fn end_input(&self) {
        self.session.end_input();
    }

    /// Stops now: the running turn is cancelled and its tools killed.
    pub fn close(&self) {
        self.session.close();
    }
}
