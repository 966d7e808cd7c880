//! Windows has no Unix permission bits: files and directories take the ACL of the user's
//! profile folder they are made in, which only the user (and administrators) can read.

pub(crate) trait ModeExt {
    fn mode(&mut self, mode: u32) -> &mut Self;
}
impl ModeExt for std::fs::OpenOptions {
    fn mode(&mut self, _mode: u32) -> &mut Self {
        self
    }
}
impl ModeExt for std::fs::DirBuilder {
    fn mode(&mut self, _mode: u32) -> &mut Self {
        self
    }
}
