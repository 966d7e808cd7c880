//! An edit or write as a coloured diff: removed lines red, added green, three lines of
//! context around each change, with the new file's line numbers.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::view::FileChange;
use crate::wrap::wrap_line;

/// At most this many lines are shown; the rest is counted.
const MAX_LINES: usize = 40;

pub fn render(change: &FileChange, width: u16) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(&change.before, &change.after);
    let mut lines = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for (i, group) in diff.grouped_ops(3).iter().enumerate() {
        if i > 0 {
            lines.push(Line::styled("    ⋮", Style::new().fg(Color::DarkGray)));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => {
                        removed += 1;
                        ("-", Style::new().fg(Color::Red))
                    }
                    ChangeTag::Insert => {
                        added += 1;
                        ("+", Style::new().fg(Color::Green))
                    }
                    ChangeTag::Equal => (" ", Style::new().fg(Color::DarkGray)),
                };
                let number = change
                    .new_index()
                    .or(change.old_index())
                    .map_or(String::new(), |n| format!("{:>4}", n + 1));
                let text = change.value().trim_end_matches(['\n', '\r']).to_string();
                lines.push(Line::from(vec![
                    Span::styled(number, Style::new().fg(Color::DarkGray)),
                    Span::styled(format!(" {sign} "), style),
                    Span::styled(text, style),
                ]));
            }
        }
    }
    let shown = lines.len();
    lines.truncate(MAX_LINES);
    let mut out = vec![Line::from(vec![
        Span::styled(format!("  {} ", change.path), Style::new().fg(Color::White)),
        Span::styled(format!("+{added}"), Style::new().fg(Color::Green)),
        Span::raw(" "),
        Span::styled(format!("-{removed}"), Style::new().fg(Color::Red)),
    ])];
    out.extend(lines.into_iter().flat_map(|l| wrap_line(l, width)));
    if shown > MAX_LINES {
        out.push(Line::styled(
            format!("    … {} more lines", shown - MAX_LINES),
            Style::new().fg(Color::DarkGray),
        ));
    }
    out
}
