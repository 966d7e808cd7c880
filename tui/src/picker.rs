//! `dcl --resume` without an id: this directory's saved sessions (first prompt, age,
//! size), narrowed by what is typed (nucleo's fuzzy matcher); Enter opens one.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use dcl_bridge::SavedSession;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::wrap::wrap_line;

const DIM: Style = Style::new().fg(Color::DarkGray);
const ACCENT: Color = Color::Rgb(215, 119, 87);

pub struct Picker {
    pub sessions: Vec<SavedSession>,
    pub query: String,
    /// Index into [`Picker::shown`].
    pub selected: usize,
    /// "Now", ms since the epoch, for the ages shown.
    pub now_ms: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Picked {
    /// Open the session with this id.
    Open(String),
    Cancelled,
}

impl Picker {
    pub fn new(sessions: Vec<SavedSession>, now_ms: i64) -> Picker {
        Picker {
            sessions,
            query: String::new(),
            selected: 0,
            now_ms,
        }
    }

    /// The sessions matching the query, best first (newest first without one).
    pub fn shown(&self) -> Vec<&SavedSession> {
        if self.query.is_empty() {
            return self.sessions.iter().collect();
        }
        let pattern = Pattern::parse(&self.query, CaseMatching::Ignore, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = self
            .sessions
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let text = format!("{} {}", title(s), s.summary);
                pattern
                    .score(Utf32Str::new(&text, &mut buf), &mut matcher)
                    .map(|score| (score, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, i)| &self.sessions[i]).collect()
    }

    pub fn key(&mut self, key: KeyEvent) -> Option<Picked> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return Some(Picked::Cancelled),
            KeyCode::Char('c' | 'd') if ctrl => return Some(Picked::Cancelled),
            KeyCode::Enter => {
                return self
                    .shown()
                    .get(self.selected)
                    .map(|s| Picked::Open(s.session_id.clone()));
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.shown().len().saturating_sub(1))
            }
            KeyCode::Backspace => {
                self.query.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        None
    }
}

/// What a session is recognised by: its first prompt, else its summary.
fn title(s: &SavedSession) -> &str {
    s.first_prompt
        .as_deref()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(&s.summary)
}

/// "5m ago", "3h ago", "2d ago".
pub fn age(then_ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - then_ms).max(0) / 1000;
    match secs {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// "812 B", "4.2 KB", "1.3 MB".
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

pub fn draw(f: &mut Frame, p: &Picker) {
    let area = f.area();
    f.render_widget(Clear, area);
    if area.height == 0 || area.width == 0 {
        return;
    }
    let mut lines = vec![
        Line::styled(
            "Resume a session",
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::from(vec![
            Span::styled("Search: ", DIM),
            Span::raw(p.query.clone()),
            Span::styled("█", DIM),
        ]),
    ];
    let shown = p.shown();
    let rows = usize::from(area.height)
        .saturating_sub(lines.len() + 1)
        .max(1);
    // The selection stays in view.
    let first = p.selected.saturating_sub(rows - 1);
    if shown.is_empty() {
        lines.push(Line::styled("  No session matches", DIM));
    }
    for (i, s) in shown.iter().enumerate().skip(first).take(rows) {
        let selected = i == p.selected;
        let style = if selected {
            Style::new().fg(ACCENT).add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        let marker = if selected { "❯ " } else { "  " };
        let line = Line::from(vec![
            Span::styled(marker, style),
            Span::styled(
                format!(
                    "{:>9}  {:>8}  ",
                    age(s.last_modified_ms, p.now_ms),
                    size(s.file_size)
                ),
                DIM,
            ),
            Span::styled(title(s).lines().next().unwrap_or("").to_string(), style),
        ]);
        lines.extend(wrap_line(line, area.width).into_iter().take(1));
    }
    lines.push(Line::styled(
        "  ↑/↓ choose · type to search · enter to open · esc to cancel",
        DIM,
    ));
    let h = (lines.len() as u16).min(area.height);
    let skip = lines.len().saturating_sub(usize::from(h));
    let lines: Vec<Line> = lines.into_iter().skip(skip).collect();
    f.render_widget(
        Paragraph::new(lines),
        Rect::new(area.x, area.y + area.height - h, area.width, h),
    );
}
