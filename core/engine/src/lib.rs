//! dcl's agent core: the session actor, the agent loop, model clients, built-in tools
//! and permissions. It owns no tokio runtime: callers spawn it on theirs.

pub mod agents;
pub mod delivery;
pub mod extensions;
pub mod memory;
/// The model clients live in their own crate (they know only the protocol); the engine
/// re-exports them under their old path.
pub use dcl_model as model;
pub mod options;
pub mod permissions;
pub mod prompt;
pub mod session;
pub mod settings;
pub mod structured;
pub mod tools;

pub use options::{OptionsError, SessionOptions};
pub use session::{SendError, Session, SessionClosed};
