//! The landlock ruleset of a sandbox: writes (create, delete, rename, truncate, device
//! ioctls) only beneath the writable directories and on the terminal-like devices every
//! program expects to write. Reads are not handled here: landlock can only allow, and
//! the read-denied paths are hidden by mounts instead (see `child`). Signals and abstract
//! unix sockets are scoped to the domain (ABI 6).

use std::os::fd::OwnedFd;
use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

/// Devices a confined program may still write (and ioctl).
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/random",
    "/dev/urandom",
];

pub(crate) struct Built {
    pub fd: OwnedFd,
    /// TCP connects are refused by the ruleset itself (no network namespace here).
    pub blocks_tcp: bool,
}

/// Builds the ruleset for this kernel's landlock `abi`; `block_tcp` refuses every TCP
/// connect (the fallback for network off) except to `allow_port` (the sandbox's proxy).
/// `None` plus a warning where landlock is missing.
pub(crate) fn build(
    write_dirs: &[PathBuf],
    abi: i32,
    block_tcp: bool,
    allow_port: Option<u16>,
) -> (Option<Built>, Vec<String>) {
    let mut warnings = Vec::new();
    if abi < 1 {
        warnings.push(
            "sandbox: landlock is unavailable, so writes outside the working directory are \
             not refused"
                .to_string(),
        );
        return (None, warnings);
    }
    let block_tcp = block_tcp && abi >= 4;
    match try_build(write_dirs, block_tcp, allow_port) {
        Ok(fd) => (
            fd.map(|fd| Built {
                fd,
                blocks_tcp: block_tcp,
            }),
            warnings,
        ),
        Err(e) => {
            warnings.push(format!(
                "sandbox: the landlock ruleset could not be built ({e}), so writes are not \
                 confined"
            ));
            (None, warnings)
        }
    }
}

fn try_build(
    write_dirs: &[PathBuf],
    block_tcp: bool,
    allow_port: Option<u16>,
) -> Result<Option<OwnedFd>, landlock::RulesetError> {
    // ABI 5's write rights; later ones (unix socket resolution) would break SSH agents,
    // language servers, … without adding to what the sandbox promises.
    let abi = ABI::V5;
    let write = AccessFs::from_write(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)?
        .scope(Scope::from_all(ABI::V6))?;
    if block_tcp {
        ruleset = ruleset.handle_access(AccessNet::ConnectTcp)?;
    }
    let mut created = ruleset.create()?;
    if let Some(port) = allow_port.filter(|_| block_tcp) {
        created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
    }
    for dir in write_dirs {
        if let Ok(fd) = PathFd::new(dir) {
            created = created.add_rule(PathBeneath::new(fd, write))?;
        }
    }
    let device_rights = write & AccessFs::from_file(abi);
    for dev in WRITABLE_DEVICES {
        if let Ok(fd) = PathFd::new(dev) {
            let rights = if std::path::Path::new(dev).is_dir() {
                write
            } else {
                device_rights
            };
            created = created.add_rule(PathBeneath::new(fd, rights))?;
        }
    }
    Ok(created.into())
}
