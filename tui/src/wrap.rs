//! Wrapping styled lines to a width ourselves: history goes above the inline viewport with
//! a known height, so the line count must be known before drawing.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` cut into lines at most `width` columns wide, breaking after spaces where it can.
pub fn wrap_line(line: Line<'static>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let total: usize = line.spans.iter().map(|s| s.width()).sum();
    if total <= width {
        return vec![line];
    }
    // Characters with their styles, then cut.
    let cells: Vec<(char, ratatui::style::Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        let mut cols = 0;
        let mut end = start;
        let mut last_space = None;
        while end < cells.len() {
            let w = cells[end].0.width().unwrap_or(0);
            if cols + w > width {
                break;
            }
            if cells[end].0 == ' ' {
                last_space = Some(end);
            }
            cols += w;
            end += 1;
        }
        if end == start {
            // A character wider than the whole line: give it a line of its own.
            end = start + 1;
        } else if end < cells.len()
            && let Some(sp) = last_space.filter(|sp| *sp > start)
        {
            end = sp + 1;
        }
        out.push(spans_of(&cells[start..end]).style(line.style));
        start = end;
    }
    out
}

fn spans_of(cells: &[(char, ratatui::style::Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for (c, s) in cells {
        if style.is_some_and(|st| st != *s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(*s);
        text.push(*c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    Line::from(spans)
}

/// Plain `text` split on new lines and wrapped.
pub fn wrap_text(text: &str, style: ratatui::style::Style, width: u16) -> Vec<Line<'static>> {
    text.split('\n')
        .flat_map(|l| wrap_line(Line::styled(l.to_string(), style), width))
        .collect()
}
