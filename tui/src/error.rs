//! Why the interactive mode could not start or had to stop.

use dcl_bridge::BridgeError;

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("{0}")]
    Bridge(#[from] BridgeError),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}
