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

/// What internet sockets a sandboxed command may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inet {
    /// A network namespace confines them already.
    Any,
    /// TCP only (landlock then lets it reach the proxy's port alone): no UDP, raw or
    /// packet sockets, so nothing goes around the proxy.
    StreamOnly,
    /// None at all.
    Off,
}

/// The compiled program, or why it could not be built (unknown architecture…).
pub(crate) fn build(inet: Inet) -> Result<BpfProgram, String> {
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
    let family =
        |f: i32| SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, f as u64);
    // The socket type's low bits; the rest are SOCK_NONBLOCK / SOCK_CLOEXEC flags.
    let kind = |t: i32| {
        SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(0xf),
            t as u64,
        )
    };
    let socket_rules: Vec<Result<SeccompRule, seccompiler::BackendError>> = match inet {
        Inet::Any => Vec::new(),
        Inet::Off => [libc::AF_INET, libc::AF_INET6, libc::AF_PACKET]
            .iter()
            .map(|f| family(*f).and_then(|c| SeccompRule::new(vec![c])))
            .collect(),
        Inet::StreamOnly => {
            let mut r = vec![family(libc::AF_PACKET).and_then(|c| SeccompRule::new(vec![c]))];
            for f in [libc::AF_INET, libc::AF_INET6] {
                for t in [libc::SOCK_DGRAM, libc::SOCK_RAW, libc::SOCK_SEQPACKET] {
                    r.push(
                        family(f).and_then(|a| kind(t).and_then(|b| SeccompRule::new(vec![a, b]))),
                    );
                }
            }
            r
        }
    };
    if !socket_rules.is_empty() {
        let socket_rules = socket_rules
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        rules.insert(libc::SYS_socket, socket_rules);
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
