//! Drawing the live area (the inline viewport under the scrollback): what is still
//! running, the progress line, the prompt or a dialog, and the popup or status line.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::{App, Dialog, PopupKind};
use crate::cells::Cell;
use crate::view::AskKind;
use crate::wrap::{wrap_line, wrap_text};
use crate::{diff, markdown};

const DIM: Style = Style::new().fg(Color::DarkGray);
const ACCENT: Color = Color::Rgb(215, 119, 87);
const SPINNER: [&str; 6] = ["·", "✢", "✳", "✶", "✻", "✽"];

/// The prompt box shows at most this many lines of input.
const MAX_PROMPT_LINES: usize = 6;

pub fn draw(f: &mut Frame, app: &App, now: Instant) {
    let area = f.area();
    f.render_widget(Clear, area);
    if area.height == 0 || area.width == 0 {
        return;
    }
    let mut bottom = area.y + area.height;
    // The line under the prompt: the popup, or the status line.
    let below: Vec<Line> = match &app.popup {
        Some(_) if app.dialog.is_none() => popup_lines(app, area.width),
        _ => vec![status_line(app)],
    };
    let below_h = (below.len() as u16).min(area.height.saturating_sub(3).max(1));
    bottom -= below_h;
    f.render_widget(
        Paragraph::new(below),
        Rect::new(area.x, bottom, area.width, below_h),
    );
    if bottom == area.y {
        return;
    }
    // The prompt, or the dialog in its place.
    let room = bottom - area.y;
    if let Some(d) = &app.dialog {
        let lines = dialog_lines(d, area.width.saturating_sub(2));
        let h = (lines.len() as u16 + 2).min(room);
        bottom -= h;
        let block = Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(Color::Yellow))
            .title(Span::styled(
                dialog_title(d),
                Style::new().add_modifier(Modifier::BOLD),
            ));
        // A dialog taller than the room shows its end: the choices.
        let skip = (lines.len() as u16 + 2).saturating_sub(h);
        f.render_widget(
            Paragraph::new(lines).block(block).scroll((skip, 0)),
            Rect::new(area.x, bottom, area.width, h),
        );
    } else {
        let shown = app.prompt.line_count().clamp(1, MAX_PROMPT_LINES) as u16;
        let h = (shown + 2).min(room);
        bottom -= h;
        let rect = Rect::new(area.x, bottom, area.width, h);
        let block = Block::new()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(DIM);
        let inner = block.inner(rect);
        f.render_widget(block, rect);
        if let Some(q) = &app.search {
            let found = app.search_match().unwrap_or("");
            f.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::styled(format!("(reverse-i-search)`{q}`: "), DIM),
                    Span::raw(found.to_string()),
                ])),
                inner,
            );
        } else if inner.width > 2 {
            f.render_widget(
                Paragraph::new(Span::styled("> ", Style::new().fg(Color::Gray))),
                Rect::new(inner.x, inner.y, 2, inner.height.min(1)),
            );
            let text = Rect::new(inner.x + 2, inner.y, inner.width - 2, inner.height);
            f.render_widget(app.prompt.widget(), text);
        }
    }
    // The progress line.
    if let Some(since) = app.busy_since
        && bottom > area.y
    {
        bottom -= 1;
        f.render_widget(
            Paragraph::new(progress_line(
                app,
                now.saturating_duration_since(since).as_secs(),
            )),
            Rect::new(area.x, bottom, area.width, 1),
        );
    }
    // What is still running, its newest lines nearest the prompt.
    let room = bottom - area.y;
    if room == 0 {
        return;
    }
    let lines = live_lines(app, area.width);
    let skip = lines.len().saturating_sub(usize::from(room));
    let lines: Vec<Line> = lines.into_iter().skip(skip).collect();
    let h = lines.len() as u16;
    f.render_widget(
        Paragraph::new(lines),
        Rect::new(area.x, bottom - h, area.width, h),
    );
}

/// The running tool calls and the text being streamed.
pub fn live_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = app.cells[app.flushed..]
        .iter()
        .flat_map(|c| c.lines(width, app.expanded))
        .collect();
    if let Some(s) = &app.stream {
        lines.push(Line::default());
        if s.thinking {
            let style = DIM.add_modifier(Modifier::ITALIC);
            lines.push(Line::styled("✻ Thinking…", style));
            lines.extend(wrap_text(s.text.trim(), style, width));
        } else {
            for (i, l) in markdown::render(&s.text, width.saturating_sub(2))
                .into_iter()
                .enumerate()
            {
                let mut spans = vec![Span::raw(if i == 0 { "● " } else { "  " })];
                spans.extend(l.spans);
                lines.push(Line::from(spans));
            }
        }
    }
    lines
}

pub fn status_line(app: &App) -> Line<'static> {
    if let Some(h) = &app.hint {
        return Line::styled(format!("  {h}"), DIM);
    }
    let mode = app.info.permission_mode.as_str();
    let mode_span = match mode {
        "acceptEdits" => Span::styled("⏵⏵ accept edits on", Style::new().fg(Color::Magenta)),
        "plan" => Span::styled("⏸ plan mode on", Style::new().fg(Color::Cyan)),
        "bypassPermissions" => {
            Span::styled("⏵⏵ bypass permissions on", Style::new().fg(Color::Red))
        }
        "" | "default" => Span::styled("default mode", DIM),
        other => Span::styled(format!("{other} mode"), DIM),
    };
    let model = if app.info.model.is_empty() {
        "…".to_string()
    } else {
        app.info.model.clone()
    };
    Line::from(vec![
        Span::raw("  "),
        mode_span,
        Span::styled(" (shift+tab to cycle)", DIM),
        Span::styled(
            format!(" · {model}{} · ${:.4}", context(app), app.cost_usd),
            DIM,
        ),
    ])
}

/// " · context 5% of 200k", once a turn has said how full the context is.
fn context(app: &App) -> String {
    match app.context {
        Some((used, window)) if window > 0 => format!(
            " · context {}% of {}",
            (used * 100).div_ceil(window).min(100),
            short(window)
        ),
        _ => String::new(),
    }
}

/// 812, 9.2k, 200k, 1.0M.
fn short(n: u64) -> String {
    match n {
        n if n < 1000 => n.to_string(),
        n if n < 10_000 => format!("{:.1}k", n as f64 / 1000.0),
        n if n < 1_000_000 => format!("{}k", n / 1000),
        n => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

fn progress_line(app: &App, secs: u64) -> Line<'static> {
    let frame = SPINNER[(secs as usize) % SPINNER.len()];
    let what = if app.dialog.is_some() {
        "Waiting for your answer…"
    } else {
        "Working…"
    };
    Line::from(vec![
        Span::styled(format!("{frame} {what} "), Style::new().fg(ACCENT)),
        Span::styled(
            format!(
                "({secs}s · ↓ ~{} tokens · esc to interrupt)",
                app.streamed_chars.div_ceil(4)
            ),
            DIM,
        ),
    ])
}

pub fn popup_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let Some(p) = &app.popup else {
        return Vec::new();
    };
    let name_w = match p.kind {
        PopupKind::Rewind => 0,
        _ => {
            p.items
                .iter()
                .map(|(n, _)| n.chars().count())
                .max()
                .unwrap_or(0)
                + 3
        }
    };
    p.items
        .iter()
        .enumerate()
        .map(|(i, (name, desc))| {
            let (shown, desc) = match p.kind {
                PopupKind::Commands => (format!("/{name}"), desc.clone()),
                PopupKind::Files => (name.clone(), desc.clone()),
                // The prompt (in `desc`) is what the user recognises, not its uuid.
                PopupKind::Rewind => (format!("↶ {desc}"), String::new()),
            };
            let style = if i == p.selected {
                Style::new().fg(ACCENT).add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let line = Line::from(vec![
                Span::styled(format!("  {shown:<name_w$}"), style),
                Span::styled(desc, DIM),
            ]);
            wrap_line(line, width)
                .into_iter()
                .next()
                .unwrap_or_default()
        })
        .collect()
}

/// The dialog's title.
pub fn dialog_title(d: &Dialog) -> &'static str {
    match d.ask.kind {
        AskKind::Tool => " Permission ",
        AskKind::Plan(_) => " Ready to code? ",
        AskKind::Questions(_) => " Question ",
        AskKind::McpServer { .. } => " MCP server ",
    }
}

pub fn dialog_lines(d: &Dialog, width: u16) -> Vec<Line<'static>> {
    match &d.ask.kind {
        AskKind::Tool => tool_dialog(d, width),
        AskKind::McpServer { server, command } => {
            let mut lines = vec![Line::from(vec![
                Span::raw("New MCP server found in .mcp.json: "),
                Span::styled(server.clone(), Style::new().add_modifier(Modifier::BOLD)),
            ])];
            if !command.is_empty() {
                lines.extend(wrap_text(command, DIM, width));
            }
            lines.push(Line::default());
            lines.extend(wrap_text(
                "MCP servers may run code and reach files and the network on this machine. Use it only if you trust this project.",
                DIM,
                width,
            ));
            lines.push(Line::default());
            lines.extend(choice_lines(
                &[
                    "Use this MCP server".to_string(),
                    "Use this and all future MCP servers in this project".to_string(),
                    "Continue without using this MCP server".to_string(),
                ],
                d,
                width,
            ));
            lines
        }
        AskKind::Plan(plan) => {
            let mut lines = vec![Line::raw("Here is dcl's plan:"), Line::default()];
            lines.extend(markdown::render(plan, width));
            lines.push(Line::default());
            lines.push(Line::raw("Would you like to proceed?"));
            lines.extend(choice_lines(
                &["Yes".to_string(), "No, keep planning".to_string()],
                d,
                width,
            ));
            lines.extend(feedback_line(d));
            lines
        }
        AskKind::Questions(qs) => {
            let Some(q) = qs.get(d.answers.len()) else {
                return Vec::new();
            };
            let mut lines = vec![Line::from(vec![
                Span::styled(
                    format!("{} ", q.header),
                    Style::new().fg(Color::Black).bg(Color::Cyan),
                ),
                Span::styled(format!("  {}/{}", d.answers.len() + 1, qs.len()), DIM),
            ])];
            lines.extend(wrap_text(
                &q.question,
                Style::new().add_modifier(Modifier::BOLD),
                width,
            ));
            let labels: Vec<String> = q
                .options
                .iter()
                .map(|(l, desc)| {
                    if desc.is_empty() {
                        l.clone()
                    } else {
                        format!("{l} — {desc}")
                    }
                })
                .collect();
            lines.extend(choice_lines(&labels, d, width));
            lines
        }
    }
}

fn choice_lines(options: &[String], d: &Dialog, width: u16) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (i, o) in options.iter().enumerate() {
        let selected = i == d.selected;
        let marker = if selected { "❯ " } else { "  " };
        let style = if selected {
            Style::new().fg(Color::Yellow)
        } else {
            Style::default()
        };
        lines.extend(wrap_line(
            Line::styled(format!("{marker}{}. {o}", i + 1), style),
            width,
        ));
    }
    lines
}

fn feedback_line(d: &Dialog) -> Vec<Line<'static>> {
    match &d.feedback {
        Some(f) => vec![
            Line::default(),
            Line::from(vec![
                Span::styled("Tell dcl what to do instead: ", DIM),
                Span::raw(f.clone()),
                Span::styled("█", DIM),
            ]),
        ],
        None => Vec::new(),
    }
}

fn tool_dialog(d: &Dialog, width: u16) -> Vec<Line<'static>> {
    let ask = &d.ask;
    let mut lines = vec![Line::from(vec![
        Span::styled(ask.tool.clone(), Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(if ask.summary.is_empty() {
            String::new()
        } else {
            format!("({})", ask.summary)
        }),
    ])];
    if let Some(change) = &ask.diff {
        lines.extend(diff::render(change, width));
    }
    lines.push(Line::default());
    lines.push(Line::raw("Do you want to proceed?"));
    let always = match &ask.rule {
        Some(rule) => format!("Yes, and don't ask again for {rule} in this project"),
        None => "Yes, and don't ask again in this project".to_string(),
    };
    let options = [
        "Yes".to_string(),
        always,
        "No, and tell dcl what to do differently (esc)".to_string(),
    ];
    lines.extend(choice_lines(&options, d, width));
    lines.extend(feedback_line(d));
    lines
}

/// Every cell, for the transcript view and the scrollback.
pub fn transcript_lines(cells: &[Cell], width: u16, expanded: bool) -> Vec<Line<'static>> {
    cells
        .iter()
        .flat_map(|c| c.lines(width, expanded))
        .collect()
}

/// The trust question, before the session opens.
pub fn draw_trust(f: &mut Frame, cwd: &std::path::Path, selected: usize) {
    let area = f.area();
    f.render_widget(Clear, area);
    let mut lines = vec![
        Line::styled(
            "Do you trust the files in this folder?",
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::default(),
        Line::raw(cwd.display().to_string()),
        Line::default(),
    ];
    lines.extend(wrap_text(
        "dcl may read, change and run files here. A project's settings can run commands \
         (hooks) and MCP servers: trust only folders whose contents you know.",
        DIM,
        area.width.saturating_sub(2),
    ));
    lines.push(Line::default());
    for (i, o) in ["Yes, proceed", "No, exit"].iter().enumerate() {
        let style = if i == selected {
            Style::new().fg(Color::Yellow)
        } else {
            Style::default()
        };
        let marker = if i == selected { "❯ " } else { "  " };
        lines.push(Line::styled(format!("{marker}{}. {o}", i + 1), style));
    }
    let h = (lines.len() as u16 + 2).min(area.height);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Yellow));
    let skip = (lines.len() as u16 + 2).saturating_sub(h);
    f.render_widget(
        Paragraph::new(lines).block(block).scroll((skip, 0)),
        Rect::new(area.x, area.y + area.height - h, area.width, h),
    );
}
