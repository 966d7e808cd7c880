//! The identity mappings written into a new user namespace: the caller's own uid and
//! gid map to themselves, so files keep their owners and nothing runs as root inside.

pub(crate) fn uid_map() -> Vec<u8> {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    format!("{uid} {uid} 1\n").into_bytes()
}

pub(crate) fn gid_map() -> Vec<u8> {
    // SAFETY: getgid cannot fail.
    let gid = unsafe { libc::getgid() };
    format!("{gid} {gid} 1\n").into_bytes()
}
