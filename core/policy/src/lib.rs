//! dcl's policy: what may run and with which settings. Permission rules and modes, the
//! host's recorded decisions, protected paths and trust, the settings layers and the
//! command hooks they declare. It decides on what a tool says about itself (the tool API)
//! and knows no tool implementation and no session.

pub mod permissions;
pub mod settings;
