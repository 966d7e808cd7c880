//! Requests dcl sends to its host (approvals, hooks, host MCP calls) and the matching of
//! their answers. A pending request is a oneshot keyed by `request_id`, raced against the
//! turn's cancellation and a timeout, so a host that never answers cannot hang a turn.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dcl_protocol::ControlResponse;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::emit::Emitter;

/// Why a host request produced no usable answer.
#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// The host answered with an `error` response.
    Refused(String),
    /// No answer within the timeout.
    Timeout(Duration),
    /// The turn was interrupted while waiting.
    Cancelled,
    /// Input is closed: no answer can come any more.
    InputClosed,
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Refused(e) => write!(f, "{e}"),
            HostError::Timeout(d) => write!(f, "the host did not answer within {}s", d.as_secs()),
            HostError::Cancelled => write!(f, "the request was cancelled"),
            HostError::InputClosed => write!(f, "the host's input is closed; nobody can answer"),
        }
    }
}

impl std::error::Error for HostError {}

/// Why an MCP server's elicitation got no answer (dcl-mcp then cancels it).
#[derive(Debug, thiserror::Error)]
pub enum ElicitError {
    #[error("{0}")]
    Host(HostError),
    #[error("malformed elicitation answer: {0}")]
    MalformedAnswer(serde_json::Error),
    #[error("hook elicitation answer: {0}")]
    HookAnswer(serde_json::Error),
    #[error("{0}")]
    Serialize(serde_json::Error),
}

/// What answers an MCP server's elicitation before the host is asked: the session's
/// Elicitation hooks. The session registers them once it is built, so the channel needs
/// none of the session's types.
pub(crate) trait ElicitationHooks: Send + Sync {
    fn elicit<'a>(
        &'a self,
        server: &'a str,
        request: &'a serde_json::Value,
        ask_host: futures::future::BoxFuture<'a, Result<serde_json::Value, ElicitError>>,
    ) -> futures::future::BoxFuture<'a, Result<serde_json::Value, ElicitError>>;
}

pub struct HostChannel {
    /// The session's Elicitation hooks, for requests made outside a turn (an MCP server's
    /// elicitation) that run its hooks first. They hold the session weakly: the session
    /// owns the channel.
    elicitation_hooks: std::sync::OnceLock<std::sync::Arc<dyn ElicitationHooks>>,
    pending: Mutex<HashMap<String, oneshot::Sender<ControlResponse>>>,
    input_closed: AtomicBool,
    closed_signal: CancellationToken,
    timeout: Duration,
}

impl HostChannel {
    pub fn new(timeout: Duration) -> Self {
        HostChannel {
            elicitation_hooks: std::sync::OnceLock::new(),
            pending: Mutex::new(HashMap::new()),
            input_closed: AtomicBool::new(false),
            closed_signal: CancellationToken::new(),
            timeout,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<ControlResponse>>> {
        match self.pending.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Ties the channel to its session's hooks (once, when the session is built).
    pub(crate) fn attach_elicitation_hooks(&self, hooks: std::sync::Arc<dyn ElicitationHooks>) {
        let _ = self.elicitation_hooks.set(hooks);
    }

    /// The session's Elicitation hooks, once attached.
    pub(crate) fn elicitation_hooks(&self) -> Option<std::sync::Arc<dyn ElicitationHooks>> {
        self.elicitation_hooks.get().cloned()
    }

    pub fn input_closed(&self) -> bool {
        self.input_closed.load(Ordering::SeqCst)
    }

    /// Called on stdin EOF: every waiting request fails at once, and so will new ones.
    pub fn close_input(&self) {
        self.input_closed.store(true, Ordering::SeqCst);
        self.closed_signal.cancel();
        self.lock().clear();
    }

    /// Routes a host's `control_response`; false when no request with that id is pending.
    pub fn resolve(&self, response: ControlResponse) -> bool {
        let sender = self.lock().remove(response.request_id());
        match sender {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    /// Sends `request` to the host and waits for the answer's payload.
    ///
    /// The request belongs to the future that made it: when that future is dropped (its
    /// turn was aborted or closed), times out or is cancelled, the pending entry goes away
    /// and the host is told with `control_cancel_request`, so no answer is awaited that
    /// nobody wants and the pending map cannot grow.
    pub async fn request(
        &self,
        emitter: &Emitter,
        request: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, HostError> {
        if self.input_closed() {
            return Err(HostError::InputClosed);
        }
        let request_id = uuid::Uuid::new_v4().to_string();
        let (tx, rx) = oneshot::channel();
        self.lock().insert(request_id.clone(), tx);
        let guard = Pending {
            channel: self,
            emitter,
            request_id: request_id.clone(),
        };
        emitter.host_request(&request_id, request);
        let outcome = tokio::select! {
            answer = rx => match answer {
                Ok(ControlResponse::Success { response, .. }) => Ok(response.unwrap_or(Value::Object(Default::default()))),
                Ok(ControlResponse::Error { error, .. }) => Err(HostError::Refused(error)),
                Err(_) => Err(HostError::InputClosed),
            },
            _ = cancel.cancelled() => Err(HostError::Cancelled),
            _ = self.closed_signal.cancelled() => Err(HostError::InputClosed),
            _ = tokio::time::sleep(self.timeout) => Err(HostError::Timeout(self.timeout)),
        };
        drop(guard);
        outcome
    }

    /// Requests still waiting for the host's answer.
    pub fn pending(&self) -> usize {
        self.lock().len()
    }
}

/// Removes an unanswered request when its waiter goes away, telling the host.
struct Pending<'a> {
    channel: &'a HostChannel,
    emitter: &'a Emitter,
    request_id: String,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.emitter.take_question(&self.request_id);
        if self.channel.lock().remove(&self.request_id).is_some() {
            // Nobody answered: the host may drop the request.
            self.emitter
                .host_request_withdrawn(std::mem::take(&mut self.request_id));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::session::emit::{Outbound, Outbox};
    use dcl_protocol::Message;

    fn subtypes(outbox: &Outbox) -> Vec<&'static str> {
        let mut out = Vec::new();
        while let Some(Outbound::Line(m)) = outbox.try_pop() {
            out.push(match *m {
                Message::ControlRequest(_) => "request",
                Message::ControlCancelRequest(_) => "cancel",
                _ => "other",
            });
        }
        out
    }

    #[tokio::test]
    async fn a_dropped_request_is_removed_and_cancelled_at_the_host() {
        let outbox = Outbox::new(16);
        let emitter = Emitter::new(outbox.clone(), "s".into());
        let host = HostChannel::new(Duration::from_secs(60));
        let cancel = CancellationToken::new();
        {
            let fut = host.request(&emitter, serde_json::json!({"subtype": "x"}), &cancel);
            // Poll it far enough to register, then drop it unanswered.
            let _ = tokio::time::timeout(Duration::from_millis(20), fut).await;
        }
        assert_eq!(host.pending(), 0);
        assert_eq!(subtypes(&outbox), vec!["request", "cancel"]);
    }

    #[tokio::test]
    async fn an_answered_request_sends_no_cancel() {
        let outbox = Outbox::new(16);
        let emitter = Emitter::new(outbox.clone(), "s".into());
        let host = std::sync::Arc::new(HostChannel::new(Duration::from_secs(60)));
        let cancel = CancellationToken::new();
        let answering = {
            let host = host.clone();
            let outbox = outbox.clone();
            tokio::spawn(async move {
                if let Outbound::Line(m) = outbox.pop().await
                    && let Message::ControlRequest(r) = *m
                {
                    host.resolve(ControlResponse::success(r.request_id, None));
                }
            })
        };
        let answer = host
            .request(&emitter, serde_json::json!({"subtype": "x"}), &cancel)
            .await;
        answering.await.unwrap();
        assert!(answer.is_ok());
        assert_eq!(host.pending(), 0);
        assert!(subtypes(&outbox).is_empty());
    }
}
