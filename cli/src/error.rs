//! Why `dcl` stops with an error (`main` prints `Error: {it}` and exits 1), and why a
//! `claim_session` request is refused (its `error` answer). The texts are the ones the
//! CLI has always printed.

use dcl_bridge::BridgeError;
use dcl_bridge::argv::ArgvError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Argv(#[from] ArgvError),
    /// The session options were refused; the message names the flag.
    #[error("{}", options_message(.0))]
    Options(BridgeError),
    #[error("{0}")]
    Bridge(#[from] BridgeError),
    #[error(
        "no prompt: use `dcl -p \"<prompt>\"` or `--input-format stream-json` (the interactive mode needs a terminal on both stdin and stdout)"
    )]
    NoPrompt,
    #[error(
        "--resume needs a session id here: the picker of saved sessions is the interactive mode's (a terminal on stdin and stdout, no -p)"
    )]
    ResumeWithoutId,
    #[error("{0}")]
    Tui(dcl_tui::TuiError),
    #[error("cannot read the prompt from stdin: {0}")]
    ReadPrompt(std::io::Error),
    #[error("the prompt is empty")]
    EmptyPrompt,
    #[error("the session ended without a result")]
    NoResult,
}

/// An options error as the CLI has always printed it: the message alone, which names the
/// flag.
fn options_message(e: &BridgeError) -> String {
    match e {
        BridgeError::InvalidOptions { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// Why a `claim_session` request cannot be honoured (the spare stays in service).
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("malformed claim_session request: {0}")]
    Malformed(serde_json::Error),
    #[error("claim_session.cwd must be absolute: {0:?}")]
    RelativeCwd(String),
    /// The `--settings` value the trust record joins could not be read (the policy's
    /// settings error).
    #[error("{0}")]
    Settings(Box<dyn std::error::Error + Send + Sync>),
    /// The claimed session could not be sent its `initialize`.
    #[error("{0}")]
    EncodeInitialize(serde_json::Error),
    #[error("{0}")]
    SendInitialize(BridgeError),
    #[error("the claimed session ended")]
    Ended,
}
