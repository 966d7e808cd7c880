//! (to be written)
pub struct GrepTool;
