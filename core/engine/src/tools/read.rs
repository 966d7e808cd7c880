//! (to be written)
pub struct ReadTool;
