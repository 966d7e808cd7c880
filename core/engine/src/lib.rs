//! dcl's agent core: the session (actor, conversation, turn, control, emission). The model
//! clients (`dcl-model`), the tool API (`dcl-tool-api`), the built-in tools (`dcl-tools`)
//! and the policy (`dcl-policy`) are crates of their own, used under their own names. It
//! owns no tokio runtime: callers spawn it on theirs.

pub mod delivery;
/// Tool definitions derived from a catalog (skills, agents): a leaf, so the catalogs and
/// the tools that offer them can both use it without importing each other.
pub mod options;
pub mod prompt;
pub mod session;
pub mod structured;
pub mod tools;

// Skills, commands, plugins, agent definitions and memory files live in dcl-extensions;
// these paths keep the names the engine's callers already use.
pub use dcl_extensions as extensions;
pub use dcl_extensions::{agents, derived_spec, memory};
pub use dcl_tool_api::{BoxFuture, ClientFiles, ClientFilesError, ClientTerminal, TerminalRun};
pub use options::{OptionsError, SessionOptions};
pub use session::{
    Output, SavedSession, SendError, Session, SessionClosed, Streams, saved_sessions,
};
