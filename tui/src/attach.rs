//! `@path` in a prompt attaches that file's text to what the model reads. Binary and very
//! large files are not attached, and the user is told.

use std::path::Path;

use crate::view::Notice;

const MAX_BYTES: u64 = 256 * 1024;

/// Appends each mentioned file to `full`; the notices say what was left out and why.
pub fn attach(cwd: &Path, text: &str, full: &mut String) -> Vec<Notice> {
    let mut notes = Vec::new();
    let mut seen = Vec::new();
    for word in text.split_whitespace() {
        let Some(rel) = word.strip_prefix('@').filter(|r| !r.is_empty()) else {
            continue;
        };
        if seen.contains(&rel) {
            continue;
        }
        seen.push(rel);
        let path = cwd.join(rel);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        if meta.len() > MAX_BYTES {
            notes.push(Notice::warning(format!(
                "@{rel} is {} KB: not attached (the model can read it with its tools)",
                meta.len() / 1024
            )));
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                notes.push(Notice::warning(format!("@{rel}: {e}")));
                continue;
            }
        };
        let Ok(body) = String::from_utf8(bytes) else {
            notes.push(Notice::warning(format!(
                "@{rel} is a binary file: not attached"
            )));
            continue;
        };
        if body.contains('\0') {
            notes.push(Notice::warning(format!(
                "@{rel} is a binary file: not attached"
            )));
            continue;
        }
        full.push_str(&format!("\n\n<file path=\"{rel}\">\n{body}\n</file>"));
        notes.push(Notice::info(format!("Attached @{rel}")));
    }
    notes
}
