//! The conversation's items as the screen shows them, folded (one line per tool call) or
//! expanded (the full transcript, Ctrl+O).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::view::{Notice, NoticeLevel, ToolCall};
use crate::wrap::{wrap_line, wrap_text};
use crate::{diff, markdown};

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    User(String),
    Assistant(String),
    Thinking(String),
    Tool(ToolCell),
    /// A `!` command the user ran, with its output.
    Shell {
        command: String,
        output: String,
    },
    Notice(Notice),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCell {
    pub call: ToolCall,
    pub result: Option<ToolResult>,
    /// How deep it is nested: 0 on the main thread, 1 inside a subagent's call, …
    pub depth: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub is_error: bool,
    pub output: String,
}

const DIM: Style = Style::new().fg(Color::DarkGray);
/// Lines of a tool's output the expanded view shows before counting the rest.
const EXPANDED_OUTPUT: usize = 200;

impl Cell {
    /// Whether the cell may go to the scrollback (a running tool stays on the live area).
    pub fn finished(&self) -> bool {
        !matches!(self, Cell::Tool(ToolCell { result: None, .. }))
    }

    /// The cell's lines at `width`, with a blank line above it.
    pub fn lines(&self, width: u16, expanded: bool) -> Vec<Line<'static>> {
        let mut out = vec![Line::default()];
        match self {
            Cell::User(text) => {
                let style = Style::new().fg(Color::Gray);
                for (i, l) in text.split('\n').enumerate() {
                    let marker = if i == 0 { "> " } else { "  " };
                    out.extend(wrap_line(
                        Line::from(vec![
                            Span::styled(marker, DIM),
                            Span::styled(l.to_string(), style),
                        ]),
                        width,
                    ));
                }
            }
            Cell::Assistant(text) => {
                let body = markdown::render(text, width.saturating_sub(2));
                for (i, l) in body.into_iter().enumerate() {
                    let mut spans = vec![Span::raw(if i == 0 { "● " } else { "  " })];
                    spans.extend(l.spans);
                    out.push(Line::from(spans));
                }
            }
            Cell::Thinking(text) => {
                let style = DIM.add_modifier(Modifier::ITALIC);
                if expanded {
                    out.push(Line::styled("✻ Thinking…", style));
                    out.extend(
                        wrap_text(text.trim(), style, width.saturating_sub(2))
                            .into_iter()
                            .map(indent),
                    );
                } else {
                    let first = text.trim().lines().next().unwrap_or("");
                    out.extend(wrap_line(Line::styled(format!("✻ {first}"), style), width));
                }
            }
            Cell::Tool(t) => out.extend(tool_lines(t, width, expanded)),
            Cell::Shell { command, output } => {
                out.push(Line::from(vec![
                    Span::styled("! ", Style::new().fg(Color::Magenta)),
                    Span::raw(command.clone()),
                ]));
                out.extend(
                    wrap_text(output.trim_end(), DIM, width.saturating_sub(4))
                        .into_iter()
                        .map(|l| prefix("  ⎿ ", l)),
                );
            }
            Cell::Notice(n) => {
                let style = match n.level {
                    NoticeLevel::Info => DIM,
                    NoticeLevel::Warning => Style::new().fg(Color::Yellow),
                    NoticeLevel::Error => Style::new().fg(Color::Red),
                };
                out.extend(wrap_text(&n.text, style, width));
            }
        }
        out
    }
}

fn indent(l: Line<'static>) -> Line<'static> {
    prefix("  ", l)
}

fn prefix(p: &'static str, l: Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::styled(p, DIM)];
    spans.extend(l.spans);
    Line::from(spans)
}

fn tool_lines(t: &ToolCell, width: u16, expanded: bool) -> Vec<Line<'static>> {
    let bullet = match &t.result {
        None => Span::styled("○ ", Style::new().fg(Color::Yellow)),
        Some(r) if r.is_error => Span::styled("● ", Style::new().fg(Color::Red)),
        Some(_) => Span::styled("● ", Style::new().fg(Color::Green)),
    };
    let nested = "  ".repeat(t.depth);
    let mut head = vec![
        Span::raw(nested.clone()),
        bullet,
        Span::styled(
            t.call.name.clone(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
    ];
    if !t.call.summary.is_empty() {
        head.push(Span::raw(format!("({})", t.call.summary)));
    }
    let mut out = wrap_line(Line::from(head), width);
    if let Some(change) = &t.call.diff {
        out.extend(
            diff::render(change, width.saturating_sub(2))
                .into_iter()
                .map(indent),
        );
    }
    let Some(result) = &t.result else {
        return out;
    };
    let style = if result.is_error {
        Style::new().fg(Color::Red)
    } else {
        DIM
    };
    let text = result.output.trim_end();
    let count = text.lines().count();
    if expanded {
        let body: Vec<&str> = text.lines().take(EXPANDED_OUTPUT).collect();
        let inner = width.saturating_sub(4 + 2 * t.depth as u16);
        for (i, l) in body.iter().enumerate() {
            let p = format!("{nested}{}", if i == 0 { "  ⎿ " } else { "    " });
            out.extend(
                wrap_line(Line::styled(l.to_string(), style), inner)
                    .into_iter()
                    .map(|l| {
                        let mut spans = vec![Span::styled(p.clone(), DIM)];
                        spans.extend(l.spans);
                        Line::from(spans)
                    }),
            );
        }
        if count > EXPANDED_OUTPUT {
            out.push(Line::styled(
                format!("    … {} more lines", count - EXPANDED_OUTPUT),
                DIM,
            ));
        }
    } else if t.call.diff.is_none() || result.is_error {
        let first = text.lines().next().unwrap_or("(no output)");
        let more = if count > 1 {
            format!(" (+{} lines, ctrl+o to expand)", count - 1)
        } else {
            String::new()
        };
        let line = Line::from(vec![
            Span::styled(format!("  {nested}⎿ "), DIM),
            Span::styled(first.to_string(), style),
            Span::styled(more, DIM),
        ]);
        out.extend(wrap_line(line, width).into_iter().take(2));
    }
    out
}
