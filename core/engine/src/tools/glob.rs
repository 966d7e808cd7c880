//! (to be written)
pub struct GlobTool;
