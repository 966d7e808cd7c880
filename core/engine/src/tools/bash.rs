//! (to be written)
#[derive(Default)]
pub struct BashTool;
