//! Payloads of dcl's `success` answers to host control requests (`response.response`).
//!
//! Every struct keeps unknown fields in `extra`, so a reference answer survives a round trip.
//! Build one and send it with [`crate::ControlResponse::success_with`].
//!
//! One file per subject; every type is re-exported here, so `dcl_protocol::responses::X`
//! (and `dcl_protocol::X`) name it as before.

mod answers;
mod context;
mod goal;
mod hooks;
mod initialize;
mod mcp;
mod models;
mod permissions;
mod plugins;
mod rewind;
mod session;
mod settings;

pub use answers::*;
pub use context::*;
pub use goal::*;
pub use hooks::*;
pub use initialize::*;
pub use mcp::*;
pub use models::*;
pub use permissions::*;
pub use plugins::*;
pub use rewind::*;
pub use session::*;
pub use settings::*;
