//! The macOS sandbox: a Seatbelt profile (the language `sandbox-exec -p` reads) written
//! from the same policy the Linux backend enforces with mounts, landlock and seccomp —
//! everything readable but the read-denied paths, writes only inside the writable
//! directories, the [`protected`](crate::protected) names inside them read-only at any
//! depth (and `.git` pinned, so it cannot be moved aside), and the network off or reaching
//! only the proxy's port on the loopback.
//!
//! A pure function of [`Policy`], so the text is unit-tested on every platform; only
//! the macOS backend runs it.
//!
//! Seatbelt applies the *last* rule that matches an operation, so the profile goes from
//! broad to narrow: deny everything, allow what any program needs, then reads, then the
//! writable directories, then the protections inside them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::protected;

/// What a sandboxed command may do, as paths already resolved (Seatbelt matches the real
/// path, so `/tmp/x` must be given as `/private/tmp/x`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Where writes are allowed (the working directory, `--add-dir`s, `allowWrite`, the
    /// sandbox's temp dir).
    pub write_dirs: Vec<PathBuf>,
    /// Paths whose reads (and writes) are refused: `~/.ssh`, `~/.aws`, `denyRead`.
    pub deny_read: Vec<PathBuf>,
    /// The loopback port of the proxy to `network.allowedDomains`; `None`: no network.
    pub proxy_port: Option<u16>,
    /// Unix sockets a command may connect to (`network.allowUnixSockets`).
    pub unix_sockets: Vec<PathBuf>,
}

/// Mach services a command-line program needs (logging, user and group lookup, the
/// per-user temp dir, TLS certificate trust); any other lookup is refused.
const MACH_SERVICES: &[&str] = &[
    "com.apple.logd",
    "com.apple.system.logger",
    "com.apple.system.notification_center",
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.opendirectoryd.membership",
    "com.apple.bsd.dirhelper",
    "com.apple.trustd.agent",
    "com.apple.SecurityServer",
    "com.apple.securityd.xpc",
    "com.apple.lsd.mapdb",
    "com.apple.coreservices.launchservicesd",
    "com.apple.CoreServices.coreservicesd",
];

/// Device files any program writes to (output discarded or sent to its own streams);
/// dyld registers probes through `/dev/dtracehelper`.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/dtracehelper",
];

/// The profile for `policy`.
pub fn profile(policy: &Policy) -> String {
    let mut p = String::new();
    p.push_str("(version 1)\n(deny default)\n\n");

    p.push_str("; processes: their own and their children's\n");
    p.push_str("(allow process-exec process-fork)\n");
    p.push_str("(allow process-info* signal (target same-sandbox))\n");
    p.push_str("(allow sysctl-read)\n");
    p.push_str("(allow ipc-posix-shm ipc-posix-sem)\n");
    p.push_str("(allow user-preference-read)\n");
    p.push_str("(allow mach-lookup");
    for s in MACH_SERVICES {
        let _ = write!(p, "\n  (global-name {})", quote(s));
    }
    p.push_str(")\n\n");

    p.push_str("; reads: everything but the read-denied paths\n");
    p.push_str("(allow file-read* file-map-executable)\n");
    for d in &policy.deny_read {
        let d = quote_path(d);
        let _ = writeln!(p, "(deny file-read* file-write* (subpath {d}))");
    }
    // A read-denied path must not be revealed by renaming a directory above it.
    for a in ancestors_of(&policy.deny_read) {
        let _ = writeln!(p, "(deny file-write-unlink (literal {}))", quote_path(&a));
    }
    p.push('\n');

    p.push_str("; writes: only in the writable directories and to the standard devices\n");
    for w in &policy.write_dirs {
        let _ = writeln!(p, "(allow file-write* (subpath {}))", quote_path(w));
    }
    for d in WRITABLE_DEVICES {
        let _ = writeln!(p, "(allow file-write-data (literal {}))", quote(d));
    }
    p.push_str("(allow file-ioctl)\n");
    // TIOCSTI on a terminal types into the user's shell.
    p.push_str("(deny file-ioctl (regex \"^/dev/tty\"))\n");
    // The writable directories themselves (and those above them) stay where they are.
    for w in &policy.write_dirs {
        let _ = writeln!(p, "(deny file-write-unlink (literal {}))", quote_path(w));
    }
    for a in ancestors_of(&policy.write_dirs) {
        let _ = writeln!(p, "(deny file-write-unlink (literal {}))", quote_path(&a));
    }
    p.push('\n');

    p.push_str("; protected files: read-only wherever they appear in a writable directory\n");
    for w in &policy.write_dirs {
        let root = regex_escape(&w.to_string_lossy());
        let under = format!("^{root}/(.*/)?");
        for name in protected::DIRS.iter().chain(protected::FILES) {
            let rx = format!("{under}{}(/.*)?$", regex_escape(name));
            let _ = writeln!(p, "(deny file-write* (regex {}))", quote(&rx));
        }
        for name in protected::GIT_PATHS {
            let rx = format!("{under}\\.git/{}(/.*)?$", regex_escape(name));
            let _ = writeln!(p, "(deny file-write* (regex {}))", quote(&rx));
        }
        // `.git` itself cannot be renamed, removed or replaced by a file pointing at a
        // repository with planted hooks.
        let rx = format!("{under}\\.git$");
        let _ = writeln!(
            p,
            "(deny file-write-unlink file-write-create file-write-data (regex {}))",
            quote(&rx)
        );
    }
    p.push('\n');

    p.push_str("; network\n");
    match policy.proxy_port {
        Some(port) => {
            let _ = writeln!(
                p,
                "(allow network-outbound (remote ip {}))",
                quote(&format!("localhost:{port}"))
            );
        }
        None => p.push_str("; off: no rule allows it\n"),
    }
    for s in &policy.unix_sockets {
        let _ = writeln!(
            p,
            "(allow network-outbound (remote unix-socket (path-literal {})))",
            quote_path(s)
        );
    }
    p
}

/// The strict ancestors of every path, without `/`, each once, in order.
fn ancestors_of(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        for a in p.ancestors().skip(1) {
            if a.parent().is_none() || out.iter().any(|o| o == a) {
                continue;
            }
            out.push(a.to_path_buf());
        }
    }
    out
}

fn quote_path(p: &Path) -> String {
    quote(&p.to_string_lossy())
}

/// An SBPL string literal: `"` and `\` escaped, control characters as `\xNN`-free
/// octal so a path cannot end the string or the rule.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\{:03o}", c as u32 & 0xff);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` matched literally in a Seatbelt (POSIX extended) regular expression.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy {
            write_dirs: vec![
                PathBuf::from("/Users/me/proj"),
                PathBuf::from("/private/var/folders/xy/T/dcl-sandbox-1/tmp"),
            ],
            deny_read: vec![
                PathBuf::from("/Users/me/.ssh"),
                PathBuf::from("/Users/me/.aws"),
            ],
            proxy_port: None,
            unix_sockets: Vec::new(),
        }
    }

    fn lines(p: &str) -> Vec<&str> {
        p.lines().collect()
    }

    /// The index of the line `l` in `p` (it must be there).
    fn at(p: &str, l: &str) -> usize {
        match lines(p).iter().position(|x| *x == l) {
            Some(i) => i,
            None => panic!("no line {l:?} in profile:\n{p}"),
        }
    }

    #[test]
    fn denies_by_default_and_allows_reads() {
        let p = profile(&policy());
        assert!(p.starts_with("(version 1)\n(deny default)\n"), "{p}");
        at(&p, "(allow file-read* file-map-executable)");
        // No rule reopens writes or the network wholesale.
        assert!(!lines(&p).contains(&"(allow file-write*)"), "{p}");
        assert!(!p.contains("(allow network"), "network must be off: {p}");
        assert!(!p.contains("(allow default)"), "{p}");
    }

    #[test]
    fn writes_only_in_the_writable_dirs() {
        let p = profile(&policy());
        at(&p, "(allow file-write* (subpath \"/Users/me/proj\"))");
        at(
            &p,
            "(allow file-write* (subpath \"/private/var/folders/xy/T/dcl-sandbox-1/tmp\"))",
        );
        let writes: Vec<&str> = lines(&p)
            .into_iter()
            .filter(|l| l.starts_with("(allow file-write*"))
            .collect();
        assert_eq!(writes.len(), 2, "{writes:?}");
        // The project root and what holds it cannot be renamed away.
        at(&p, "(deny file-write-unlink (literal \"/Users/me/proj\"))");
        at(&p, "(deny file-write-unlink (literal \"/Users/me\"))");
        at(&p, "(deny file-write-unlink (literal \"/Users\"))");
        assert!(!p.contains("(literal \"/\")"), "{p}");
    }

    #[test]
    fn read_denied_paths_come_after_the_read_allowance() {
        let p = profile(&policy());
        let allow = at(&p, "(allow file-read* file-map-executable)");
        let ssh = at(
            &p,
            "(deny file-read* file-write* (subpath \"/Users/me/.ssh\"))",
        );
        let aws = at(
            &p,
            "(deny file-read* file-write* (subpath \"/Users/me/.aws\"))",
        );
        assert!(allow < ssh && allow < aws, "a later allow would win:\n{p}");
    }

    #[test]
    fn protected_names_are_denied_after_the_write_allowance_at_any_depth() {
        let p = profile(&policy());
        let allow = at(&p, "(allow file-write* (subpath \"/Users/me/proj\"))");
        for name in [
            "\\\\.dcl",
            "\\\\.claude",
            "\\\\.mcp\\\\.json",
            "\\\\.bashrc",
        ] {
            let rule =
                format!("(deny file-write* (regex \"^/Users/me/proj/(.*/)?{name}(/.*)?$\"))");
            assert!(at(&p, &rule) > allow, "{rule} must follow the allowance");
        }
        for name in ["hooks", "config"] {
            at(
                &p,
                &format!(
                    "(deny file-write* (regex \"^/Users/me/proj/(.*/)?\\\\.git/{name}(/.*)?$\"))"
                ),
            );
        }
        at(
            &p,
            "(deny file-write-unlink file-write-create file-write-data (regex \"^/Users/me/proj/(.*/)?\\\\.git$\"))",
        );
        // Every protected name, for every writable dir.
        let denies = lines(&p)
            .into_iter()
            .filter(|l| l.starts_with("(deny file-write* (regex"))
            .count();
        let per_dir = protected::DIRS.len() + protected::FILES.len() + protected::GIT_PATHS.len();
        assert_eq!(denies, 2 * per_dir);
    }

    #[test]
    fn network_reaches_only_the_proxy_port() {
        let mut pol = policy();
        pol.proxy_port = Some(41234);
        let p = profile(&pol);
        let net: Vec<&str> = lines(&p)
            .into_iter()
            .filter(|l| l.contains("network"))
            .collect();
        assert_eq!(
            net,
            [
                "; network",
                "(allow network-outbound (remote ip \"localhost:41234\"))"
            ]
        );
    }

    #[test]
    fn allowed_unix_sockets_are_named_one_by_one() {
        let mut pol = policy();
        pol.unix_sockets = vec![PathBuf::from("/var/run/docker.sock")];
        let p = profile(&pol);
        at(
            &p,
            "(allow network-outbound (remote unix-socket (path-literal \"/var/run/docker.sock\")))",
        );
    }

    #[test]
    fn paths_cannot_break_out_of_their_string() {
        // Attack: a directory name that closes the string and the rule and opens writes.
        let mut pol = policy();
        pol.write_dirs = vec![PathBuf::from(
            "/Users/me/x\")) (allow file-write* (subpath \"/",
        )];
        let p = profile(&pol);
        assert!(
            !lines(&p).contains(&"(allow file-write* (subpath \"/\"))"),
            "{p}"
        );
        at(
            &p,
            "(allow file-write* (subpath \"/Users/me/x\\\")) (allow file-write* (subpath \\\"/\"))",
        );
        // A newline cannot start a rule of its own either.
        pol.write_dirs = vec![PathBuf::from("/a\n(allow default)")];
        let p = profile(&pol);
        assert!(!lines(&p).contains(&"(allow default)"), "{p}");
        // Twin: an ordinary path with spaces and dots is kept as it is.
        pol.write_dirs = vec![PathBuf::from("/Users/me/My Project.v2")];
        let p = profile(&pol);
        at(
            &p,
            "(allow file-write* (subpath \"/Users/me/My Project.v2\"))",
        );
        at(
            &p,
            "(deny file-write* (regex \"^/Users/me/My Project\\\\.v2/(.*/)?\\\\.dcl(/.*)?$\"))",
        );
    }
}
