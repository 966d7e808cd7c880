//! The default system prompt and the environment facts appended to it.

use std::path::Path;

const DEFAULT_PROMPT: &str = "You are dcl, a coding agent working in the user's project. \
Use the tools to read, search, edit and run code; prefer small, verified steps. \
Read files before changing them, keep edits minimal and in the project's style, \
and run the project's checks when you change behaviour. \
Never expose secrets, and ask before doing anything destructive. \
Answer concisely; say what you changed and what you could not do.";

/// The system prompt of a request: the effective prompt plus the memory files.
pub fn with_memory(prompt: Option<String>, memory: &[crate::memory::MemoryFile]) -> Option<String> {
    match (prompt, crate::memory::section(memory)) {
        (Some(p), Some(m)) => Some(format!("{p}\n\n{m}")),
        (p, None) => p,
        (None, m) => m,
    }
}

/// The effective system prompt.
///
/// `custom`: `None` → the default prompt; `Some("")` → no prompt at all when
/// `empty_means_none` (the Claude dialect), the default otherwise (Qoder).
pub fn system_prompt(
    custom: Option<&str>,
    append: Option<&str>,
    empty_means_none: bool,
    cwd: &Path,
) -> Option<String> {
    let base = match custom {
        Some("") if empty_means_none => None,
        Some("") | None => Some(format!("{DEFAULT_PROMPT}\n\n{}", environment(cwd))),
        Some(text) => Some(text.to_string()),
    };
    match (base, append.filter(|a| !a.is_empty())) {
        (Some(b), Some(a)) => Some(format!("{b}\n\n{a}")),
        (None, Some(a)) => Some(a.to_string()),
        (b, None) => b,
    }
}

fn environment(cwd: &Path) -> String {
    format!(
        "<env>\nWorking directory: {}\nPlatform: {}\nToday's date: {}\n</env>",
        cwd.display(),
        std::env::consts::OS,
        chrono::Utc::now().format("%Y-%m-%d"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_prompt_means_none_only_for_claude() {
        let cwd = Path::new("/tmp");
        assert_eq!(system_prompt(Some(""), None, true, cwd), None);
        assert!(system_prompt(Some(""), None, false, cwd).is_some_and(|p| p.contains("dcl")));
        assert_eq!(
            system_prompt(Some(""), Some("extra"), true, cwd).as_deref(),
            Some("extra")
        );
        assert_eq!(
            system_prompt(Some("mine"), Some("extra"), true, cwd).as_deref(),
            Some("mine\n\nextra")
        );
    }
}
