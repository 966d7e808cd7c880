//! The input box: tui-textarea's editor, with large pastes held aside and shown as one
//! placeholder (a paste of megabytes must not become megabytes of editor lines).

use crossterm::event::KeyEvent;
use ratatui::style::{Color, Style};
use tui_textarea::{CursorMove, TextArea};

/// A paste longer than this (characters or lines) is shown collapsed.
const COLLAPSE_CHARS: usize = 800;
const COLLAPSE_LINES: usize = 8;

pub struct Prompt {
    area: TextArea<'static>,
    pastes: Vec<String>,
}

impl Default for Prompt {
    fn default() -> Self {
        Prompt {
            area: new_area(),
            pastes: Vec::new(),
        }
    }
}

fn new_area() -> TextArea<'static> {
    let mut a = TextArea::default();
    a.set_cursor_line_style(Style::default());
    a.set_placeholder_text("Try \"explain this codebase\"  ·  / for commands  ·  @ for files");
    a.set_placeholder_style(Style::new().fg(Color::DarkGray));
    a
}

impl Prompt {
    /// The text as typed, placeholders and all.
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// The text to send: each paste placeholder replaced by what was pasted.
    pub fn expanded(&self) -> String {
        let mut text = self.text();
        for (i, paste) in self.pastes.iter().enumerate() {
            text = text.replacen(&placeholder(i, paste), paste, 1);
        }
        text
    }

    pub fn is_empty(&self) -> bool {
        self.area.is_empty()
    }

    pub fn clear(&mut self) {
        self.area = new_area();
        self.pastes.clear();
    }

    pub fn set_text(&mut self, text: &str) {
        self.clear();
        self.area.insert_str(text);
    }

    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        if text.chars().count() > COLLAPSE_CHARS || text.lines().count() > COLLAPSE_LINES {
            let p = placeholder(self.pastes.len(), &text);
            self.pastes.push(text);
            self.area.insert_str(p);
        } else {
            self.area.insert_str(text);
        }
    }

    pub fn input(&mut self, key: KeyEvent) {
        self.area.input(key);
    }

    pub fn newline(&mut self) {
        self.area.insert_newline();
    }

    /// Removes a `\` just before the cursor; whether there was one (`\`+Enter: new line).
    pub fn take_backslash(&mut self) -> bool {
        let (row, col) = self.area.cursor();
        let line = &self.area.lines()[row];
        let before: Vec<char> = line.chars().take(col).collect();
        if before.last() == Some(&'\\') {
            self.area.delete_char();
            true
        } else {
            false
        }
    }

    pub fn on_first_line(&self) -> bool {
        self.area.cursor().0 == 0
    }

    pub fn on_last_line(&self) -> bool {
        self.area.cursor().0 + 1 >= self.area.lines().len()
    }

    /// The whitespace-free word the cursor ends.
    pub fn current_word(&self) -> String {
        let (row, col) = self.area.cursor();
        let before: String = self.area.lines()[row].chars().take(col).collect();
        before
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("")
            .to_string()
    }

    /// Replaces the word the cursor ends with `with`.
    pub fn replace_current_word(&mut self, with: &str) {
        for _ in 0..self.current_word().chars().count() {
            self.area.delete_char();
        }
        self.area.insert_str(with);
    }

    pub fn move_to_end(&mut self) {
        self.area.move_cursor(CursorMove::Bottom);
        self.area.move_cursor(CursorMove::End);
    }

    pub fn line_count(&self) -> usize {
        self.area.lines().len()
    }

    pub fn widget(&self) -> &TextArea<'static> {
        &self.area
    }
}

fn placeholder(index: usize, text: &str) -> String {
    format!(
        "[Pasted text #{} +{} lines]",
        index + 1,
        text.lines().count()
    )
}
