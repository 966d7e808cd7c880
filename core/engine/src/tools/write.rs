//! (to be written)
pub struct WriteTool;
