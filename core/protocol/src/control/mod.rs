//! Control envelopes and the request payloads of every subtype, both directions.
//!
//! * host -> dcl requests: [`HostRequest`] (decode with [`HostRequest::parse`]);
//! * dcl -> host requests: [`DclRequest`] and its structs ([`CanUseToolRequest`], …);
//! * the host's answers to dcl's requests: [`PermissionDecision`], [`HookOutput`],
//!   [`McpMessageResponse`], [`ElicitationResponse`], …;
//! * dcl's answers to the host live in [`crate::responses`].
//!
//! One file per subject; every type is re-exported here, so `dcl_protocol::control::X`
//! (and `dcl_protocol::X`) name it as before.

mod dcl_request;
mod elicitation;
mod envelope;
mod files;
mod goal;
mod hooks;
mod host_request;
mod host_services;
mod initialize;
mod mcp;
mod model;
mod parse;
mod permissions;
mod session;
mod settings;
mod tags;

pub use dcl_request::*;
pub use elicitation::*;
pub use envelope::*;
pub use files::*;
pub use goal::*;
pub use hooks::*;
pub use host_request::*;
pub use host_services::*;
pub use initialize::*;
pub use mcp::*;
pub use model::*;
pub use parse::RequestParseError;
pub use permissions::*;
pub use session::*;
pub use settings::*;
pub use tags::*;
