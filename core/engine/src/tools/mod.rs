//! The engine's own tools: the Skill tool, which reads the session's extensions. The
//! built-in tools are `dcl-tools`, on the tool API `dcl-tool-api`.

pub mod skill;
