//! Markdown to styled lines (pulldown-cmark events); fenced code blocks of the common
//! languages are syntax-coloured (`highlight`).

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::{self, Highlighter};
use crate::wrap::wrap_line;

/// `text` as lines at most `width` columns wide.
pub fn render(text: &str, width: u16) -> Vec<Line<'static>> {
    let mut r = Renderer::default();
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES) {
        r.event(event);
    }
    r.flush();
    // A trailing blank line from the last block says nothing.
    while r.lines.last().is_some_and(|l| l.spans.is_empty()) {
        r.lines.pop();
    }
    r.lines
        .into_iter()
        .flat_map(|l| wrap_line(l, width))
        .collect()
}

#[derive(Default)]
struct Renderer {
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// `None` for a bullet list, `Some(next number)` for an ordered one.
    lists: Vec<Option<u64>>,
    /// The prefix the current item's first line gets.
    pending_marker: Option<String>,
    quote: usize,
    code: bool,
    /// The open code block's colours, when its language is known.
    highlighter: Option<Highlighter>,
}

const CODE: Style = Style::new().fg(Color::Cyan);

impl Renderer {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |acc, s| acc.patch(*s))
    }

    fn indent(&self) -> String {
        let mut s = "│ ".repeat(self.quote);
        s.push_str(&"  ".repeat(self.lists.len().saturating_sub(1)));
        s
    }

    fn push_text(&mut self, text: &str) {
        if self.current.is_empty() {
            let mut prefix = self.indent();
            match self.pending_marker.take() {
                Some(m) => prefix.push_str(&m),
                None if !self.lists.is_empty() => prefix.push_str("  "),
                None => {}
            }
            if !prefix.is_empty() {
                self.current
                    .push(Span::styled(prefix, Style::new().fg(Color::DarkGray)));
            }
        }
        let style = self.style();
        self.current.push(Span::styled(text.to_string(), style));
    }

    fn flush(&mut self) {
        if !self.current.is_empty() {
            self.lines
                .push(Line::from(std::mem::take(&mut self.current)));
        }
    }

    fn blank(&mut self) {
        self.flush();
        if self.lines.last().is_some_and(|l| !l.spans.is_empty()) {
            self.lines.push(Line::default());
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) if self.code => {
                for (i, line) in t.split('\n').enumerate() {
                    if i > 0 {
                        self.flush();
                    }
                    if !line.is_empty() {
                        let prefix = format!("{}  ", self.indent());
                        if self.current.is_empty() {
                            self.current.push(Span::raw(prefix));
                        }
                        match &mut self.highlighter {
                            Some(h) => self.current.extend(h.line(line)),
                            None => self.current.push(Span::styled(line.to_string(), CODE)),
                        }
                    }
                }
            }
            Event::Text(t) => self.push_text(&t),
            Event::Code(t) => {
                self.styles.push(CODE);
                self.push_text(&t);
                self.styles.pop();
            }
            Event::SoftBreak => self.push_text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.blank();
                self.lines.push(Line::styled(
                    "─".repeat(40),
                    Style::new().fg(Color::DarkGray),
                ));
                self.lines.push(Line::default());
            }
            Event::TaskListMarker(done) => self.push_text(if done { "[x] " } else { "[ ] " }),
            Event::Html(t) | Event::InlineHtml(t) => self.push_text(&t),
            Event::FootnoteReference(t) => self.push_text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.push_text(&t),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.blank();
                let mut s = Style::new().add_modifier(Modifier::BOLD);
                if level == HeadingLevel::H1 {
                    s = s.add_modifier(Modifier::UNDERLINED);
                }
                self.styles.push(s);
            }
            Tag::Paragraph => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.flush();
                }
            }
            Tag::CodeBlock(kind) => {
                self.blank();
                self.highlighter = None;
                if let CodeBlockKind::Fenced(lang) = kind
                    && !lang.is_empty()
                {
                    self.lines.push(Line::styled(
                        format!("{}  {lang}", self.indent()),
                        Style::new().fg(Color::DarkGray),
                    ));
                    self.highlighter = highlight::lang(&lang).map(Highlighter::new);
                }
                self.code = true;
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.flush();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "• ".to_string(),
                };
                self.pending_marker = Some(marker);
            }
            Tag::BlockQuote(_) => {
                self.blank();
                self.quote += 1;
                self.styles
                    .push(Style::new().add_modifier(Modifier::ITALIC));
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.styles.push(
                Style::new()
                    .fg(Color::Blue)
                    .add_modifier(Modifier::UNDERLINED),
            ),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
            }
            TagEnd::Paragraph => self.flush(),
            TagEnd::CodeBlock => {
                self.code = false;
                self.flush();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::Item => self.flush(),
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.styles.pop();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.styles.pop();
            }
            TagEnd::TableRow | TagEnd::TableHead => self.flush(),
            TagEnd::TableCell => self.push_text("  "),
            _ => {}
        }
    }
}
