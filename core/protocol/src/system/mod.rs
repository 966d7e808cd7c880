//! Typed `system` subtypes.
//!
//! [`SystemMessage`] stays the generic wire struct (`subtype` + fields); each struct here is
//! one subtype's shape, convertible both ways:
//!
//! ```
//! use dcl_protocol::{SystemInit, SystemMessage, system::SystemEvent};
//! let init = SystemInit::new("sess", "uuid-1", "/repo", "mock-model");
//! let msg: SystemMessage = init.clone().into();
//! assert_eq!(msg.subtype, "init");
//! assert_eq!(SystemInit::try_from(&msg).unwrap(), init);
//! assert!(matches!(SystemEvent::from(&msg), SystemEvent::Init(_)));
//! ```
//!
//! Every struct carries `session_id` and `uuid` (every outbound line has both) and keeps
//! unknown fields in `extra`.
//!
//! The constructors for dcl's emission sites (`unstamped`, `with_*`) leave `session_id` and
//! `uuid` empty: send the frame with `emitter.emit(frame.into_message())`, and the emitter
//! stamps both.
//!
//! One file per subject; every type is re-exported here, so `dcl_protocol::system::X` names
//! it as before.

mod compact;
mod event;
mod hooks;
mod init;
mod session;
mod subtype;
mod tasks;

pub use compact::*;
pub use event::*;
pub use hooks::*;
pub use init::*;
pub use session::*;
pub use subtype::*;
pub use tasks::*;
