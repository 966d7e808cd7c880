//! Syntax colours for code blocks: keywords, strings, comments, numbers and type names of
//! the common languages, from a small table per language. Written here rather than taken
//! from syntect or tree-sitter: their grammars and themes would add megabytes to the static
//! `dcl` (the UI's budget is 4 MB, most of it used), and an answer's snippet needs its
//! words told apart, not a parse.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

/// How one language is coloured.
pub struct Lang {
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    quotes: &'static [char],
    keywords: &'static [&'static str],
    /// Capitalised words are type names (Rust, Go, Java, TypeScript…).
    capitalised_types: bool,
}

const KEYWORD: Style = Style::new().fg(Color::Magenta);
const STRING: Style = Style::new().fg(Color::Green);
const COMMENT: Style = Style::new()
    .fg(Color::DarkGray)
    .add_modifier(Modifier::ITALIC);
const NUMBER: Style = Style::new().fg(Color::Yellow);
const TYPE: Style = Style::new().fg(Color::Blue);
const PLAIN: Style = Style::new();

const RUST: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"'],
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ],
    capitalised_types: true,
};

const PYTHON: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
        "try", "while", "with", "yield", "self",
    ],
    capitalised_types: false,
};

const JS: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\'', '`'],
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "of",
        "return",
        "static",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    capitalised_types: true,
};

const GO: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '`'],
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "false",
        "for",
        "func",
        "go",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    capitalised_types: true,
};

const C_LIKE: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"'],
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "false",
        "final",
        "float",
        "for",
        "if",
        "implements",
        "import",
        "include",
        "int",
        "long",
        "namespace",
        "new",
        "null",
        "nullptr",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "throws",
        "true",
        "try",
        "typedef",
        "union",
        "unsigned",
        "using",
        "var",
        "virtual",
        "void",
        "volatile",
        "while",
    ],
    capitalised_types: true,
};

const SHELL: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
    keywords: &[
        "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if",
        "in", "local", "return", "then", "until", "while",
    ],
    capitalised_types: false,
};

const DATA: Lang = Lang {
    line_comments: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
    keywords: &["true", "false", "null", "yes", "no"],
    capitalised_types: false,
};

const JSON: Lang = Lang {
    line_comments: &[],
    block_comment: None,
    quotes: &['"'],
    keywords: &["true", "false", "null"],
    capitalised_types: false,
};

/// The colours of the fenced block's language, when it is one of those known.
pub fn lang(name: &str) -> Option<&'static Lang> {
    let name = name
        .split([',', ' '])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    Some(match name.as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" | "python3" => &PYTHON,
        "javascript" | "js" | "jsx" | "typescript" | "ts" | "tsx" | "mjs" | "cjs" => &JS,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "java" | "kotlin" | "kt" | "cs" | "csharp"
        | "swift" => &C_LIKE,
        "sh" | "bash" | "shell" | "zsh" | "console" => &SHELL,
        "toml" | "yaml" | "yml" | "ini" => &DATA,
        "json" | "jsonc" => &JSON,
        _ => return None,
    })
}

/// Colours one block line by line; a block comment may span lines.
pub struct Highlighter {
    lang: &'static Lang,
    in_block_comment: bool,
}

impl Highlighter {
    pub fn new(lang: &'static Lang) -> Highlighter {
        Highlighter {
            lang,
            in_block_comment: false,
        }
    }

    /// `line`'s spans (no newline in it).
    pub fn line(&mut self, line: &str) -> Vec<Span<'static>> {
        let mut out = Spans::default();
        let mut rest = line;
        while !rest.is_empty() {
            if self.in_block_comment {
                let (_, end) = self.lang.block_comment.unwrap_or(("", ""));
                match rest.find(end).filter(|_| !end.is_empty()) {
                    Some(i) => {
                        out.push(&rest[..i + end.len()], COMMENT);
                        rest = &rest[i + end.len()..];
                        self.in_block_comment = false;
                    }
                    None => {
                        out.push(rest, COMMENT);
                        rest = "";
                    }
                }
                continue;
            }
            if self.lang.line_comments.iter().any(|c| rest.starts_with(c)) {
                out.push(rest, COMMENT);
                break;
            }
            if let Some((start, _)) = self.lang.block_comment
                && rest.starts_with(start)
            {
                self.in_block_comment = true;
                out.push(start, COMMENT);
                rest = &rest[start.len()..];
                continue;
            }
            let Some(c) = rest.chars().next() else { break };
            let len = if self.lang.quotes.contains(&c) {
                let n = string_len(rest, c);
                out.push(&rest[..n], STRING);
                n
            } else if c.is_ascii_digit() {
                let n = word_len(rest, |ch| {
                    ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'
                });
                out.push(&rest[..n], NUMBER);
                n
            } else if c.is_alphabetic() || c == '_' {
                let n = word_len(rest, |ch| ch.is_alphanumeric() || ch == '_');
                let word = &rest[..n];
                let style = if self.lang.keywords.contains(&word) {
                    KEYWORD
                } else if self.lang.capitalised_types && word.starts_with(char::is_uppercase) {
                    TYPE
                } else {
                    PLAIN
                };
                out.push(word, style);
                n
            } else {
                out.push(&rest[..c.len_utf8()], PLAIN);
                c.len_utf8()
            };
            rest = &rest[len..];
        }
        out.0
    }
}

/// Spans with neighbours of one style joined.
#[derive(Default)]
struct Spans(Vec<Span<'static>>);

impl Spans {
    fn push(&mut self, text: &str, style: Style) {
        match self.0.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.0.push(Span::styled(text.to_string(), style)),
        }
    }
}

/// Bytes of the string starting at `s` (its quote `q` included), up to the closing quote
/// or the end of the line; a backslash escapes the next character.
fn string_len(s: &str, q: char) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == q {
            return i + c.len_utf8();
        }
    }
    s.len()
}

fn word_len(s: &str, part: impl Fn(char) -> bool) -> usize {
    s.char_indices()
        .find(|(_, c)| !part(*c))
        .map_or(s.len(), |(i, _)| i)
}
