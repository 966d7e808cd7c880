//! The seccomp filter of a sandbox. It refuses what the namespaces and landlock cannot
//! express:
//! - reaching into other processes (`ptrace`, `process_vm_readv/writev`);
//! - changing the mount tree (the old and the new mount API, `pivot_root`): with no
//!   capabilities these fail anyway, this makes it so where capabilities are missing
//!   from the picture (no user namespace) too;
//! - `io_uring` (its operations bypass this filter: a socket made through it is not a
//!   `socket` call), `bpf`, `perf_event_open`, `userfaultfd`, the kernel keyrings;
//! - typing into a terminal (`ioctl` `TIOCSTI`, `TIOCLINUX`);
//! - unix sockets (`socket(AF_UNIX)`; `socketpair` stays) unless
//!   `network.allowUnixSockets` names some: path sockets live in the filesystem, not
//!   the network namespace;
//! - where no network namespace turns the network off: internet and packet sockets.
//!
//! Everything else is allowed: the filter narrows, the namespaces and landlock confine.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What internet sockets a sandboxed command may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inet {
    /// A network namespace confines them already.
    Any,
    /// None at all.
    Off,
}

/// `ioctl` requests that act on a terminal on someone else's behalf.
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

/// System calls refused whatever their arguments.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
];

/// Why the filter could not be built; the message goes into the sandbox's warning.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FilterError {
    /// seccompiler has no backend for this CPU architecture.
    #[error("{0:?}")]
    Architecture(seccompiler::BackendError),
    #[error("{0}")]
    Backend(#[from] seccompiler::BackendError),
}

/// The compiled program, or why it could not be built (unknown architecture…).
/// `unix`: unix sockets may be created (`network.allowUnixSockets` is set).
pub(crate) fn build(inet: Inet, unix: bool) -> Result<BpfProgram, FilterError> {
    let arch: TargetArch = std::env::consts::ARCH
        .try_into()
        .map_err(FilterError::Architecture)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for sys in REFUSED {
        rules.insert(*sys, Vec::new());
    }
    // The request is an `unsigned int` to the kernel: compare the low 32 bits only, so
    // high bits set in the register cannot slip past.
    let request = |r: u64| SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, r);
    let ioctl_rules = [TIOCSTI, TIOCLINUX]
        .iter()
        .map(|r| request(*r).and_then(|c| SeccompRule::new(vec![c])))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctl_rules);
    let family =
        |f: i32| SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, f as u64);
    let mut families: Vec<i32> = Vec::new();
    if !unix {
        families.push(libc::AF_UNIX);
    }
    if inet == Inet::Off {
        families.extend([libc::AF_INET, libc::AF_INET6, libc::AF_PACKET]);
    }
    let socket_rules: Vec<Result<SeccompRule, seccompiler::BackendError>> = families
        .iter()
        .map(|f| family(*f).and_then(|c| SeccompRule::new(vec![c])))
        .collect();
    if !socket_rules.is_empty() {
        let socket_rules = socket_rules.into_iter().collect::<Result<Vec<_>, _>>()?;
        rules.insert(libc::SYS_socket, socket_rules);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    Ok(BpfProgram::try_from(filter)?)
}
