//! The outbound side of a session: the outbox every line waits in, and the session's
//! [`Dialect`], which turns what happened ([`Event`]) into the lines its host reads.
//!
//! No engine code outside this module builds a stream-json line (`tests/wire_in_emit.py`
//! fails if it does): the rest of the session says what happened, as an [`Event`] or
//! through the emitter's methods (`status`: the session's `system` lines; `control`: the
//! control envelopes; `store`: the stores' frames; `hook_run`: a hook's run), and reads
//! the host's lines itself. `command` is the one inbound part: a front end's typed
//! commands become the host lines that ask the same.
//!
//! Turn and control code emit events and never test the dialect (`tests/layering.py`
//! fails if they do); what is not a line shape they ask the dialect by name. One module
//! per dialect, and why each differs (docs/protocol.md):
//! - `claude`: the reference CLI's lines, read by the Claude Agent SDKs; the base.
//! - `qoder`: Claude's lines for the Qoder Agent SDK, which adds `total_credits` to
//!   `result`, `capabilities` (and its protocol versions) to `system/init` and the
//!   `initialize` answer, reads `system/init` before that answer too, names the default
//!   model `auto` and reads each model's limits in the catalogue, does not know
//!   `tool_progress`, and reads `systemPrompt: ""` as unset.
//! - `legacy`: not a dialect of its own: the `text`, `tool_start`, `tool_result` and
//!   `usage` lines dcl's first scripts read, each just before the base line of the same
//!   moment, in stream-json when the host announces no SDK (strict SDKs stop at a `type`
//!   they do not know).

pub(crate) mod agent;
mod claude;
pub(crate) mod command;
mod control;
mod dialect;
mod event;
mod hook_run;
mod legacy;
mod outbox;
mod qoder;
mod result;
mod status;
mod store;

pub(crate) use dialect::Dialect;
pub(crate) use event::Event;
pub(crate) use hook_run::HookRunReport;
pub use outbox::{
    DEFAULT_OUTBOX_LINES, Emitter, Outbound, Outbox, Streams, TurnEmitter, new_uuid, now_iso,
};
pub(crate) use result::{Ending, TurnSummary, full_usage};
pub(crate) use status::mode_name;
pub(crate) use store::StoreFrames;
