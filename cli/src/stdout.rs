//! Protocol lines on stdout: whole lines in one `write` each batch (stdout's line buffering
//! would split every newline off into a write of its own).

use std::io::Write;

use dcl_protocol::Message;

/// `message` as one line, newline included, appended to `out`.
pub fn push_line(out: &mut String, message: &Message) {
    out.push_str(&dcl_protocol::to_line(message));
    out.push('\n');
}

/// One message as one line; `false` when stdout is gone.
pub fn write_line(message: &Message) -> bool {
    let mut line = String::new();
    push_line(&mut line, message);
    write_text(&line)
}

/// Whole lines in one write; `false` when stdout is gone.
pub fn write_text(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_ok()
}
