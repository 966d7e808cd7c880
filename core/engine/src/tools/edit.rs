//! (to be written)
pub struct EditTool;
