//! The landlock ruleset of a sandbox: writes (create, delete, rename, truncate, device
//! ioctls) only beneath the writable directories and on the terminal-like devices every
//! program expects to write. Reads are not handled here: landlock can only allow, and
//! the read-denied paths are hidden by mounts instead (see `child`). Signals and abstract
//! unix sockets are scoped to the domain (ABI 6). Where landlock can name path sockets
//! (ABI 9), only `network.allowUnixSockets` and the writable dirs' sockets resolve.

use std::os::fd::OwnedFd;
use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope,
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
/// connect (the fallback for network off where there is no network namespace).
/// `unix_paths` (`network.allowUnixSockets`) are the path sockets that may be reached;
/// `None` plus a warning where landlock is missing.
pub(crate) fn build(
    write_dirs: &[PathBuf],
    private_shm: Option<&std::path::Path>,
    abi: i32,
    block_tcp: bool,
    unix_paths: &[PathBuf],
) -> (Option<Built>, Vec<String>) {
    let mut warnings = Vec::new();
    if abi < 1 {
        warnings.push(
            "sandbox: landlock is unavailable, so writes outside the working directory are \
             refused only by the read-only mounts (where those work)"
                .to_string(),
        );
        return (None, warnings);
    }
    let block_tcp = block_tcp && abi >= 4;
    let limit_unix = !unix_paths.is_empty() && abi >= 9;
    if !unix_paths.is_empty() && !limit_unix {
        warnings.push(format!(
            "sandbox: network.allowUnixSockets is set but landlock ABI {abi} (< 9) cannot \
             tell one path socket from another, so every unix socket path is reachable"
        ));
    }
    let mut writable: Vec<PathBuf> = write_dirs.to_vec();
    // The sandbox's own /dev/shm (bound there in the namespace: landlock sees the
    // source directory, not the mount point).
    writable.extend(private_shm.map(std::path::Path::to_path_buf));
    match try_build(&writable, block_tcp, limit_unix.then_some(unix_paths)) {
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
                 confined by landlock"
            ));
            (None, warnings)
        }
    }
}

fn try_build(
    write_dirs: &[PathBuf],
    block_tcp: bool,
    unix_paths: Option<&[PathBuf]>,
) -> Result<Option<OwnedFd>, landlock::RulesetError> {
    // ABI 5's write rights; connecting to path sockets (ABI 9) is handled only when
    // `allowUnixSockets` names some: without it, seccomp refuses unix sockets outright.
    let abi = ABI::V5;
    let write = AccessFs::from_write(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)?
        .scope(Scope::from_all(ABI::V6))?;
    if unix_paths.is_some() {
        ruleset = ruleset.handle_access(AccessFs::ResolveUnix)?;
    }
    if block_tcp {
        ruleset = ruleset.handle_access(AccessNet::ConnectTcp)?;
    }
    let mut created = ruleset.create()?;
    let dir_rights = if unix_paths.is_some() {
        write | AccessFs::ResolveUnix
    } else {
        write
    };
    for path in unix_paths.unwrap_or_default() {
        if let Ok(fd) = PathFd::new(path) {
            created = created.add_rule(PathBeneath::new(fd, AccessFs::ResolveUnix))?;
        }
    }
    for dir in write_dirs {
        if let Ok(fd) = PathFd::new(dir) {
            created = created.add_rule(PathBeneath::new(fd, dir_rights))?;
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
