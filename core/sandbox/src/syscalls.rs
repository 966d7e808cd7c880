//! The seccomp filter of a sandbox: no reaching into other processes (`ptrace`,
//! `process_vm_readv/writev`), and — where no network namespace turns the network off —
//! no internet or packet sockets at all (landlock only covers TCP; this also stops UDP,
//! DNS and raw sockets). Everything else is allowed: the filter narrows, the namespaces
//! and landlock confine.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The compiled program, or why it could not be built (unknown architecture…).
pub(crate) fn build(block_inet: bool) -> Result<BpfProgram, String> {
    let arch: TargetArch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("{e:?}"))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for sys in [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
    ] {
        rules.insert(sys, Vec::new());
    }
    if block_inet {
        let families = [libc::AF_INET, libc::AF_INET6, libc::AF_PACKET];
        let per_family = families
            .iter()
            .map(|f| {
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, *f as u64)
                    .and_then(|c| SeccompRule::new(vec![c]))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        rules.insert(libc::SYS_socket, per_family);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    BpfProgram::try_from(filter).map_err(|e| e.to_string())
}
