//! One test binary for dcl-acp: `dcl acp` driven through the ACP crate's client side and
//! as raw JSON-RPC.

mod auth_status;
mod bad_input;
mod client;
mod client_fs;
mod common;
mod mcp_approval;
