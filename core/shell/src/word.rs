//! One shell word: its value after quote removal, and whether bash would change it
//! further (tilde, globbing, any expansion).

use std::ops::Range;

use tree_sitter::Node;

/// How much of a word's meaning its text shows, from fully to not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordKind {
    /// Bash passes exactly `value`.
    Plain,
    /// `~` or `~/…` unquoted at the start: `value` keeps the `~`; HOME replaces it.
    Tilde,
    /// Unquoted `*`, `?` or `[`: bash may replace it by the names it matches.
    Glob,
    /// A parameter, arithmetic or command expansion, `$'…'`, `$"…"`, brace expansion,
    /// or a tilde form other than `~`/`~/`: the value is only known at run time.
    Dynamic,
}

/// A word of a simple command (argv entry, assignment value or redirect target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text bash would pass when `kind` is `Plain`; otherwise the source text with
    /// the quotes that could be removed removed (for messages and prefix comparisons).
    pub value: String,
    pub kind: WordKind,
    /// Any quote or backslash in the source: a quoted program name skips aliases.
    pub quoted: bool,
    /// Contains a command or process substitution (runs a command by itself).
    pub substitution: bool,
    /// Byte range of the word in the line.
    pub source: Range<usize>,
}

impl Word {
    pub fn is_plain(&self) -> bool {
        self.kind == WordKind::Plain
    }
}

/// The word a node stands for.
pub(crate) fn from_node(node: Node, src: &str) -> Word {
    let text = &src[node.byte_range()];
    let mut w = Word {
        value: String::new(),
        kind: WordKind::Plain,
        quoted: false,
        substitution: false,
        source: node.byte_range(),
    };
    match node.kind() {
        "word" => unquoted(text, true, &mut w),
        "number" => {
            // The grammar reads `0x1f`, `1` or `$((…))`-free digits as numbers; anything
            // else in it is not a plain word.
            if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                w.value.push_str(text);
            } else {
                w.value.push_str(text);
                w.kind = WordKind::Dynamic;
            }
        }
        "raw_string" => {
            w.quoted = true;
            w.value.push_str(
                text.strip_prefix('\'')
                    .unwrap_or(text)
                    .strip_suffix('\'')
                    .unwrap_or(""),
            );
        }
        "string" => {
            w.quoted = true;
            let mut cursor = node.walk();
            let dynamic = node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content");
            if dynamic {
                w.kind = WordKind::Dynamic;
                w.substitution = contains_substitution(node);
                w.value.push_str(text);
            } else {
                let inner = text
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .unwrap_or(text);
                double_quoted(inner, &mut w.value);
            }
        }
        "concatenation" => {
            let mut cursor = node.walk();
            for (i, child) in node.children(&mut cursor).enumerate() {
                let part = from_node(child, src);
                w.quoted |= part.quoted;
                w.substitution |= part.substitution;
                let kind = match part.kind {
                    // Only a leading `~` is a tilde expansion.
                    WordKind::Tilde if i > 0 => WordKind::Plain,
                    k => k,
                };
                w.kind = w.kind.max(kind);
                w.value.push_str(&part.value);
            }
            // Brace expansion shows as separate `{`, `a,b`, `}` words in the grammar.
            if w.kind < WordKind::Dynamic && has_unquoted_brace(node, src) {
                w.kind = WordKind::Dynamic;
            }
        }
        "command_substitution" | "process_substitution" => {
            w.kind = WordKind::Dynamic;
            w.substitution = true;
            w.value.push_str(text);
        }
        // `$x`, `${x}`, `$((…))`, `$'…'`, `$"…"`, `{1..3}`, extglob and anything newer.
        _ => {
            w.kind = WordKind::Dynamic;
            w.quoted = true;
            w.substitution = contains_substitution(node);
            w.value.push_str(text);
        }
    }
    w
}

/// Quote removal for an unquoted word, noting globs, tilde and brace expansion.
fn unquoted(text: &str, at_start: bool, w: &mut Word) {
    let mut chars = text.chars().peekable();
    let mut first = at_start;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                w.quoted = true;
                match chars.next() {
                    // A line continuation disappears.
                    Some('\n') => {}
                    Some(n) => w.value.push(n),
                    None => {}
                }
            }
            '*' | '?' | '[' => {
                w.kind = w.kind.max(WordKind::Glob);
                w.value.push(c);
            }
            '{' | '}' => {
                // `{a,b}` inside one grammar word (`x{a,b}`) still expands.
                w.kind = WordKind::Dynamic;
                w.value.push(c);
            }
            '$' | '`' => {
                w.kind = WordKind::Dynamic;
                w.value.push(c);
            }
            '~' if first => {
                match chars.peek() {
                    None | Some('/') => w.kind = w.kind.max(WordKind::Tilde),
                    // `~+`, `~-`, `~user`: not something dcl resolves.
                    Some(_) => w.kind = WordKind::Dynamic,
                }
                w.value.push(c);
            }
            // bash expands `x=~/a` (and `a:~/b`) in assignment-like arguments too.
            '~' if matches!(w.value.chars().last(), Some('=' | ':')) => {
                w.kind = WordKind::Dynamic;
                w.value.push(c);
            }
            _ => w.value.push(c),
        }
        first = false;
    }
    // `~/.ssh/*`: a glob under HOME is not something dcl resolves.
    if w.kind == WordKind::Glob && text.starts_with('~') {
        w.kind = WordKind::Dynamic;
    }
}

/// Backslash removal inside double quotes: only `$`, `` ` ``, `"`, `\` and a newline
/// are escapable there; any other backslash stays.
fn double_quoted(inner: &str, out: &mut String) {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
}

fn has_unquoted_brace(node: Node, src: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| {
        c.kind() == "word" && {
            let t = &src[c.byte_range()];
            t.contains('{') || t.contains('}')
        }
    })
}

/// Whether any descendant runs a command (`$(…)`, backticks, `<(…)`, `>(…)`).
pub(crate) fn contains_substitution(node: Node) -> bool {
    if matches!(node.kind(), "command_substitution" | "process_substitution") {
        return true;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).any(contains_substitution)
}
