//! What `dcl acp` reports to the CLI when it cannot serve.

use dcl_bridge::BridgeError;

#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The flags given to `dcl acp` do not make session options.
    #[error("dcl acp: {0}")]
    Options(#[from] BridgeError),
    #[error("dcl acp: {0}")]
    Usage(String),
    /// The connection to the client failed (not a clean end of input).
    #[error("dcl acp: the ACP connection failed: {0}")]
    Connection(#[from] agent_client_protocol::Error),
}
