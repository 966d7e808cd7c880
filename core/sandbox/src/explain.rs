//! Telling the model (and the user) that a failure came from the sandbox, not the program.

/// Substrings of error messages that the sandbox's refusals produce.
const FS_SIGNS: &[&str] = &[
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
];
const NET_SIGNS: &[&str] = &[
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Connection refused",
    "Failed to connect",
    "getaddrinfo",
];

/// A line to append to a failed sandboxed command's result when its output looks like a
/// sandbox refusal; `None` when nothing points at the sandbox.
pub fn sandbox_note(sandbox: &crate::Sandbox, output: &str) -> Option<String> {
    let fs = FS_SIGNS.iter().any(|s| output.contains(s));
    let net = NET_SIGNS.iter().any(|s| output.contains(s));
    if !fs && !net {
        return None;
    }
    let mut parts = Vec::new();
    if fs {
        let dirs: Vec<String> = sandbox
            .write_dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        parts.push(format!(
            "writes are allowed only in {} and reads of credential paths (~/.ssh, ~/.aws, \
             …) are refused",
            dirs.join(", ")
        ));
    }
    if net {
        parts.push("the network is off".to_string());
    }
    Some(format!(
        "[sandbox] This command ran in dcl's sandbox, where {}; the error above is most \
         likely the sandbox blocking it, not a bug in the program.",
        parts.join(" and ")
    ))
}
