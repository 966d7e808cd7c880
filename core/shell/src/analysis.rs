//! A line → the simple commands bash would run, or why it cannot be fully analysed.

use std::ops::Range;

use tree_sitter::{Node, Parser};

use crate::word::{self, Word};

/// Longest line analysed; longer ones are opaque (parsing cost grows with length, and no
/// real command needs more).
const MAX_LINE_BYTES: usize = 64 * 1024;
/// Nesting beyond this is opaque rather than recursed into.
const MAX_DEPTH: usize = 64;

/// Programs that run another command line or program given in their arguments (or are
/// shells/interpreters given inline code): what they run is not visible as a simple
/// command, so a line using one is never fully analysed.
const COMMAND_RUNNERS: &[&str] = &[
    "eval",
    "exec",
    "command",
    "builtin",
    "env",
    "sudo",
    "doas",
    "su",
    "xargs",
    "nohup",
    "nice",
    "ionice",
    "time",
    "timeout",
    "stdbuf",
    "setsid",
    "chroot",
    "unbuffer",
    "watch",
    "flock",
    "strace",
    "ltrace",
    "parallel",
    "source",
    ".",
    "trap",
    "alias",
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "script",
    "expect",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "coproc",
    "caller",
    "enable",
    "fc",
    "hash",
    "run-parts",
    "systemd-run",
    "chrt",
    "taskset",
    "prlimit",
    "unshare",
    "nsenter",
    "firejail",
    "catchsegv",
    "entr",
];

/// Interpreters that are command runners when given inline code.
const INLINE_CODE: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("python2", &["-c"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("deno", &["eval"]),
];

/// A redirection of one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit descriptor (`2>`), if any.
    pub fd: Option<u32>,
    /// The operator as written: `>`, `>>`, `<`, `>&`, `&>`, `&>>`, `<&`, `>|`, `<>`.
    pub op: String,
    pub target: Word,
}

/// One simple command: argv, what comes with it, and where it sits in the line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// argv; `words[0]` is the program. Empty for a bare assignment (`X=1`).
    pub words: Vec<Word>,
    /// `NAME=value` prefixes (their source text).
    pub assignments: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// `<<EOF` / `<<-EOF` (`heredoc_expands`: the delimiter is unquoted, so the body is
    /// subject to expansion and substitution).
    pub heredoc: bool,
    pub heredoc_expands: bool,
    /// `<<< word`.
    pub herestring: bool,
    /// Part of a `|` pipeline (runs in a subshell: a `cd` there does not last).
    pub in_pipeline: bool,
    /// Inside `( … )`.
    pub in_subshell: bool,
    /// Preceded by `!`.
    pub negated: bool,
    /// The command's own text in the line.
    pub source: Range<usize>,
}

impl SimpleCommand {
    /// The program word, if any.
    pub fn program(&self) -> Option<&Word> {
        self.words.first()
    }

    /// argv as strings (only meaningful where every word is plain).
    pub fn argv(&self) -> Vec<&str> {
        self.words.iter().map(|w| w.value.as_str()).collect()
    }

    /// Every word is plain and nothing besides argv changes what runs.
    pub fn is_plain(&self) -> bool {
        self.words.iter().all(Word::is_plain)
            && self.assignments.is_empty()
            && !self.heredoc
            && !self.herestring
    }

    /// Why this command's program cannot be known from the line, if it cannot: a
    /// dynamic or quoted name, a path, or a program that runs other commands.
    pub fn opaque_program(&self) -> Option<String> {
        let p = self.program()?;
        if !p.is_plain() {
            return Some(format!(
                "the program name `{}` is expanded at run time",
                p.value
            ));
        }
        if p.quoted {
            return Some(format!(
                "the program name `{}` is quoted or escaped",
                p.value
            ));
        }
        if p.value.contains('/') {
            return Some(format!("the program is named by a path (`{}`)", p.value));
        }
        let name = p.value.as_str();
        // `env` alone only prints the environment.
        if COMMAND_RUNNERS.contains(&name) && !(name == "env" && self.words.len() == 1) {
            return Some(format!("`{name}` runs a command given in its arguments"));
        }
        if let Some((_, flags)) = INLINE_CODE
            .iter()
            .find(|(prog, _)| *prog == name || name.strip_prefix(prog).is_some_and(is_version))
        {
            let inline = self.words[1..].iter().any(|w| {
                flags
                    .iter()
                    .any(|f| w.value == *f || w.value.starts_with(f))
            });
            if inline {
                return Some(format!("`{name}` is given inline code"));
            }
        }
        if name == "find"
            && self.words[1..]
                .iter()
                .any(|w| matches!(w.value.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
        {
            return Some("`find -exec` runs a command".into());
        }
        if name == "git"
            && self.words[1..].iter().any(|w| {
                w.value == "-c"
                    || w.value.starts_with("--exec-path")
                    || w.value.starts_with("--config-env")
            })
        {
            return Some("`git -c` can run configured commands".into());
        }
        None
    }
}

fn is_version(rest: &str) -> bool {
    rest.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// The analysis of one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    /// The simple commands, in source order (also those inside substitutions, marked by
    /// `substitution`, so deny rules can still see them).
    pub commands: Vec<SimpleCommand>,
    /// Set when the line holds a construct the analysis does not model (or a parse
    /// error): nothing about the line may be trusted then.
    pub unmodelled: Option<String>,
    /// Any `$(…)`, backticks, `<(…)` or `>(…)` anywhere, here-doc bodies included.
    pub substitution: bool,
    /// Any command sent to the background with `&`.
    pub background: bool,
}

impl Analysis {
    /// Why the line cannot be fully analysed (what deny rules treat as "matches"), or
    /// `None` when every command it runs is a simple command with a known program.
    pub fn opaque_reason(&self) -> Option<String> {
        if let Some(r) = &self.unmodelled {
            return Some(r.clone());
        }
        if self.substitution {
            return Some("the line contains a command substitution".into());
        }
        self.commands.iter().find_map(SimpleCommand::opaque_program)
    }

    pub fn is_fully_analysed(&self) -> bool {
        self.opaque_reason().is_none()
    }
}

/// Analyses `line`. Never fails: what cannot be analysed is reported in `unmodelled`.
pub fn analyse(line: &str) -> Analysis {
    let mut out = Analysis::default();
    if line.len() > MAX_LINE_BYTES {
        out.unmodelled = Some("the line is too long to analyse".into());
        return out;
    }
    if line.contains('\0') {
        out.unmodelled = Some("the line contains a NUL byte".into());
        return out;
    }
    // The grammar skips every Unicode space between tokens (its extras are `\s`), while bash
    // splits words only at blanks (space, tab) and newlines: to the grammar
    // `cat x\v# $(rm -rf ~)` is `cat x` and a comment, to bash it is a command substitution.
    // A line holding any other whitespace cannot be read the way bash will run it.
    if let Some(c) = line
        .chars()
        .find(|c| c.is_whitespace() && !matches!(c, ' ' | '\t' | '\n'))
    {
        out.unmodelled = Some(format!(
            "the line holds the whitespace character U+{:04X}, which bash does not treat as a blank",
            u32::from(c)
        ));
        return out;
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        out.unmodelled = Some("the shell grammar could not be loaded".into());
        return out;
    }
    let Some(tree) = parser.parse(line, None) else {
        out.unmodelled = Some("the line could not be parsed".into());
        return out;
    };
    let root = tree.root_node();
    if root.has_error() {
        out.unmodelled = Some("the line does not parse as bash".into());
    }
    out.substitution = word::contains_substitution(root);
    if let Some(why) = unmodelled_continuation(root, line) {
        out.unmodelled = Some(why);
    }
    let mut comments = Vec::new();
    collect_comments(root, &mut comments);
    if comments
        .iter()
        .any(|c| !begins_a_bash_word(line.as_bytes(), c.start))
    {
        out.unmodelled =
            Some("a `#` the grammar reads as a comment but bash reads as part of a word".into());
    }
    let mut walker = Walker {
        src: line,
        comments: &comments,
        out: &mut out,
    };
    walker.statement(root, Place::default(), 0);
    out
}

#[derive(Debug, Clone, Copy, Default)]
struct Place {
    pipeline: bool,
    subshell: bool,
    negated: bool,
}

struct Walker<'a> {
    src: &'a str,
    /// Every comment in the tree: the grammar hangs them on whichever node is near.
    comments: &'a [std::ops::Range<usize>],
    out: &'a mut Analysis,
}

impl Walker<'_> {
    fn unmodelled(&mut self, why: String) {
        if self.out.unmodelled.is_none() {
            self.out.unmodelled = Some(why);
        }
    }

    fn statement(&mut self, node: Node, place: Place, depth: usize) {
        if depth > MAX_DEPTH {
            self.unmodelled("the line nests too deeply".into());
            return;
        }
        if node.is_missing() || node.is_error() {
            self.unmodelled("the line does not parse as bash".into());
            return;
        }
        // The root is checked over the whole line: text before its first token or after
        // its last is the grammar's to skip, not bash's.
        let span = if depth == 0 {
            0..self.src.len()
        } else {
            node.byte_range()
        };
        // A newline separates commands: between a list's or pipeline's parts it is bash's
        // separator too, inside one command it ends the command (`! du\n\\\nus` is `du`
        // and `us` to bash, one command to the grammar).
        let newlines = matches!(node.kind(), "program" | "list" | "pipeline" | "subshell");
        if let Some(at) =
            text_between_children(node, span, self.src.as_bytes(), self.comments, newlines)
        {
            self.unmodelled(format!(
                "the grammar skipped `{}` at byte {at}, which bash does not skip between words",
                self.src[at..]
                    .chars()
                    .next()
                    .map_or(String::new(), |c| c.escape_default().to_string())
            ));
        }
        match node.kind() {
            "program" | "list" => {
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if child.is_named() {
                        self.statement(child, place, depth + 1);
                    } else if child.kind() == "&" {
                        self.out.background = true;
                    } else if !matches!(child.kind(), ";" | "&&" | "||" | "\n") {
                        self.unmodelled(format!("unexpected `{}`", child.kind()));
                    }
                }
            }
            "pipeline" => {
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if child.is_named() {
                        let inner = Place {
                            pipeline: true,
                            ..place
                        };
                        self.statement(child, inner, depth + 1);
                    } else if !matches!(child.kind(), "|" | "|&") {
                        self.unmodelled(format!("unexpected `{}`", child.kind()));
                    }
                }
            }
            "subshell" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let inner = Place {
                        subshell: true,
                        ..place
                    };
                    self.statement(child, inner, depth + 1);
                }
            }
            "negated_command" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let inner = Place {
                        negated: true,
                        ..place
                    };
                    self.statement(child, inner, depth + 1);
                }
            }
            "redirected_statement" => self.redirected(node, place, depth),
            "command" => {
                let cmd = self.command(node, place, depth);
                self.out.commands.push(cmd);
            }
            "variable_assignment" | "variable_assignments" => {
                let cmd = SimpleCommand {
                    assignments: vec![self.src[node.byte_range()].to_string()],
                    in_pipeline: place.pipeline,
                    in_subshell: place.subshell,
                    negated: place.negated,
                    source: node.byte_range(),
                    ..SimpleCommand::default()
                };
                self.out.commands.push(cmd);
            }
            "comment" => {}
            other => self.unmodelled(format!("`{other}` is not modelled")),
        }
    }

    /// A here-document redirection; returns the file redirections that follow it on its
    /// line. The grammar folds the rest of that line into it: `cat <<EOF >out` hangs
    /// `>out` on it, `cat <<EOF | rm x` and `cat <<EOF && rm x` the pipeline or the
    /// `&& rm x`, and an analysis that looked only at the body lost them. Redirections go
    /// back to the command; any other command is walked, so rules see it, and the line is
    /// not modelled (where it sits in the line is the grammar's guess).
    fn heredoc(&mut self, node: Node, place: Place, depth: usize) -> Vec<Redirect> {
        let mut cursor = node.walk();
        let folded: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|c| !matches!(c.kind(), "heredoc_start" | "heredoc_body" | "heredoc_end"))
            .collect();
        let mut redirects = Vec::new();
        for child in folded {
            if child.kind() == "file_redirect" {
                if let Some((r, extra)) = self.file_redirect(child) {
                    redirects.push(r);
                    if !extra.is_empty() {
                        self.unmodelled("words after a here-document's redirection".into());
                    }
                }
                continue;
            }
            self.unmodelled("a command after a here-document's operator".into());
            let inner = Place {
                pipeline: true,
                ..place
            };
            self.statement(child, inner, depth + 1);
        }
        self.heredoc_body(node);
        redirects
    }

    /// An expanding here-doc body with `$` or a backtick: the grammar does not parse
    /// every substitution there (backticks), so such a body is not modelled.
    fn heredoc_body(&mut self, node: Node) {
        if !heredoc_expands(node, self.src) {
            return;
        }
        let mut cursor = node.walk();
        let body = node
            .children(&mut cursor)
            .find(|c| c.kind() == "heredoc_body")
            .map(|b| &self.src[b.byte_range()]);
        if body.is_some_and(|b| b.contains('$') || b.contains('`')) {
            self.out.substitution = true;
            self.unmodelled("an expanding here-document body".into());
        }
    }

    /// `body redirect…`: the redirects apply to every command of the body.
    fn redirected(&mut self, node: Node, place: Place, depth: usize) {
        let first = self.out.commands.len();
        let mut redirects = Vec::new();
        let mut extra_words = Vec::new();
        let mut heredoc = (false, false);
        let mut herestring = false;
        let mut body_seen = false;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "file_redirect" => {
                    if let Some((r, extra)) = self.file_redirect(child) {
                        redirects.push(r);
                        extra_words.extend(extra);
                    }
                }
                "heredoc_redirect" => {
                    heredoc.0 = true;
                    heredoc.1 |= heredoc_expands(child, self.src);
                    let folded = self.heredoc(child, place, depth);
                    redirects.extend(folded);
                }
                "herestring_redirect" => {
                    herestring = true;
                    extra_words.clear();
                }
                _ if !body_seen => {
                    body_seen = true;
                    self.statement(child, place, depth + 1);
                }
                other => self.unmodelled(format!("`{other}` after a redirection is not modelled")),
            }
        }
        let cmds = &mut self.out.commands[first..];
        if cmds.is_empty() {
            if !redirects.is_empty() || heredoc.0 || herestring {
                // A bare redirection (`> f`) still creates the file.
                self.out.commands.push(SimpleCommand {
                    redirects,
                    heredoc: heredoc.0,
                    heredoc_expands: heredoc.1,
                    herestring,
                    source: node.byte_range(),
                    ..SimpleCommand::default()
                });
            }
            return;
        }
        let single = cmds.len() == 1;
        for c in cmds.iter_mut() {
            c.redirects.extend(redirects.iter().cloned());
            c.heredoc |= heredoc.0;
            c.heredoc_expands |= heredoc.1;
            c.herestring |= herestring;
        }
        if !extra_words.is_empty() {
            if single {
                // The grammar hangs `a b` of `ls >/dev/null a b` on the redirect; bash
                // gives them to the command.
                cmds[0].words.extend(extra_words);
            } else {
                self.unmodelled("words after a redirection of a compound command".into());
            }
        }
    }

    /// One word of a command or redirection, marked not modelled where the grammar's
    /// word cannot be bash's: one that starts with a blank or newline (`! du\n\\\x02us`
    /// made `\n\x02us` an argument of `du`; to bash it is the next command), a
    /// concatenation with text between its parts (`$\n#'…'` read as one word across
    /// lines and a comment), or (`own`: an argument, not a redirection's target) one that
    /// does not begin where bash begins a word (`p';'\\\x02` is one word to bash, two
    /// back to back to the grammar).
    fn word(&mut self, node: Node, own: bool) -> Word {
        let bytes = self.src.as_bytes();
        let starts_blank = bytes
            .get(node.start_byte())
            .is_some_and(|b| b.is_ascii_whitespace());
        let glued = own && !begins_a_bash_word(bytes, node.start_byte());
        if starts_blank || glued || !parts_are_adjacent(node) {
            self.unmodelled("a word the grammar joins across what bash splits on".into());
        }
        word::from_node(node, self.src)
    }

    /// The redirect and any words the grammar wrongly attached to it.
    fn file_redirect(&mut self, node: Node) -> Option<(Redirect, Vec<Word>)> {
        if let Some(at) = text_between_children(
            node,
            node.byte_range(),
            self.src.as_bytes(),
            self.comments,
            false,
        ) {
            self.unmodelled(format!(
                "the grammar skipped byte {at} of a redirection, which bash does not skip"
            ));
            return None;
        }
        let mut fd = None;
        let mut op = String::new();
        let mut target = None;
        let mut extra = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "file_descriptor" => {
                    // bash takes digits as the descriptor only when they are a whole word
                    // just before the operator. The grammar also reads one off the end of
                    // an option (`sort -o7</dev/null` is `sort -o7` to bash, `sort` with
                    // `7<` to the grammar), which would hide the option.
                    let text = &self.src[child.byte_range()];
                    if text.is_empty()
                        || !text.bytes().all(|b| b.is_ascii_digit())
                        || !begins_a_bash_word(self.src.as_bytes(), child.start_byte())
                    {
                        self.unmodelled(format!(
                            "`{text}` before a redirection is a word to bash, not a descriptor"
                        ));
                        return None;
                    }
                    fd = text.parse().ok();
                }
                _ if !child.is_named() => op.push_str(child.kind()),
                _ => {
                    // The target follows the operator; any further word is the command's
                    // and must begin where bash begins one.
                    let w = self.word(child, target.is_some());
                    if target.is_none() {
                        target = Some(w);
                    } else {
                        extra.push(w);
                    }
                }
            }
        }
        // The grammar reads `>&-V` as the closing operator `>&-` and the target `V` (to
        // bash, `>&` and the file `-V`), and `2>&- x` as closing with the target `x` (to
        // bash, `x` is an argument).
        if op.ends_with('-') && target.is_some() {
            self.unmodelled(format!("`{op}` followed by a word"));
            return None;
        }
        match target {
            Some(target) => Some((Redirect { fd, op, target }, extra)),
            None => {
                self.unmodelled("a redirection without a target".into());
                None
            }
        }
    }

    fn command(&mut self, node: Node, place: Place, depth: usize) -> SimpleCommand {
        let mut cmd = SimpleCommand {
            in_pipeline: place.pipeline,
            in_subshell: place.subshell,
            negated: place.negated,
            source: node.byte_range(),
            ..SimpleCommand::default()
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => cmd
                    .assignments
                    .push(self.src[child.byte_range()].to_string()),
                "command_name" => {
                    let mut c = child.walk();
                    let named: Vec<Node> = child.named_children(&mut c).collect();
                    match named.as_slice() {
                        [only] => {
                            let w = self.word(*only, true);
                            cmd.words.push(w);
                        }
                        _ => self.unmodelled("an unusual command name".into()),
                    }
                }
                "file_redirect" => {
                    if let Some((r, extra)) = self.file_redirect(child) {
                        cmd.redirects.push(r);
                        cmd.words.extend(extra);
                    }
                }
                "heredoc_redirect" => {
                    cmd.heredoc = true;
                    cmd.heredoc_expands |= heredoc_expands(child, self.src);
                    let folded = self.heredoc(child, place, depth);
                    cmd.redirects.extend(folded);
                }
                "herestring_redirect" => cmd.herestring = true,
                "comment" => {}
                _ if child.is_named() => {
                    let w = self.word(child, true);
                    cmd.words.push(w);
                }
                // `argument` fields only; anything anonymous here is unexpected.
                other => self.unmodelled(format!("unexpected `{other}` in a command")),
            }
        }
        if cmd.words.is_empty() && cmd.assignments.is_empty() && cmd.redirects.is_empty() {
            self.unmodelled("an empty command".into());
        }
        cmd
    }
}

/// bash removes `\<newline>` before it splits words, so `r\<newline>m` is `rm`; the
/// grammar may read two words there. A continuation with a non-blank on both sides,
/// outside single quotes, comments and here-doc bodies, is not modelled.
fn unmodelled_continuation(root: Node, line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices("\\\n") {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 2).copied();
        let blank = |b: Option<u8>| b.is_none_or(|b| b.is_ascii_whitespace());
        // An escaped blank before it is part of the word (`a\ \<newline>b` is `a b`).
        let escaped_before = i.checked_sub(1).is_some_and(|j| is_escaped(bytes, j));
        if (blank(before) && !escaped_before) || blank(after) {
            continue;
        }
        let mut node = root.descendant_for_byte_range(i, i + 2);
        let mut literal = false;
        while let Some(n) = node {
            if matches!(
                n.kind(),
                "raw_string" | "comment" | "heredoc_body" | "string"
            ) {
                literal = true;
                break;
            }
            node = n.parent();
        }
        if !literal {
            return Some("a line continuation inside a word".into());
        }
    }
    None
}

/// Whether every concatenation and `$name` in `node` has its parts back to back, as
/// bash's words do (`$\n#` is not `$#`).
fn parts_are_adjacent(node: Node) -> bool {
    let mut adjacent = true;
    each_node(node, |n| {
        if matches!(n.kind(), "concatenation" | "simple_expansion") {
            let mut end = None;
            for i in 0..n.child_count() {
                let Some(c) = n.child(i) else { continue };
                adjacent &= end.is_none_or(|e| e == c.start_byte());
                end = Some(c.end_byte());
            }
        }
    });
    adjacent
}

/// Calls `f` on `root` and every node under it, in one cursor walk (no allocation per
/// node, no recursion: a long line can nest deeply).
fn each_node<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The first byte in `span`, outside every child of `node`, that bash would not skip
/// between words: anything but an unescaped blank, a `\<newline>` continuation, or (where
/// `newlines` says it separates) a newline. The grammar treats some escapes as space: `ls \ r` is `ls r` to it and
/// `ls ' r'` to bash, and a line of its own `\ ` is a command named ` ` to bash and
/// nothing to the grammar. Whatever it skips that way would never be analysed.
fn text_between_children(
    node: Node,
    span: std::ops::Range<usize>,
    bytes: &[u8],
    comments: &[std::ops::Range<usize>],
    newlines: bool,
) -> Option<usize> {
    let mut cursor = node.walk();
    let mut at = span.start;
    let mut gaps = Vec::new();
    for child in node.children(&mut cursor) {
        gaps.push(at..child.start_byte().max(at));
        at = at.max(child.end_byte());
    }
    gaps.push(at..span.end.max(at));
    gaps.into_iter().find_map(|gap| {
        gap.clone().find(|&i| {
            if comments.iter().any(|c| c.contains(&i)) {
                return false;
            }
            let escaped = is_escaped(bytes, i);
            match bytes[i] {
                b'\n' => !(escaped || newlines),
                b' ' | b'\t' => escaped,
                b'\\' => escaped || bytes.get(i + 1) != Some(&b'\n'),
                _ => true,
            }
        })
    })
}

/// Every comment in the tree, wherever the grammar hung it. bash starts a comment only at
/// a `#` that begins a word (`begins_a_bash_word`); the grammar also reads one after an
/// escaped blank (`ls \ #$(id)`, where bash sees the word ` #` and runs the
/// substitution), and what it hides as a comment is never analysed, so `analyse` checks
/// where each one starts.
fn collect_comments(root: Node, out: &mut Vec<std::ops::Range<usize>>) {
    each_node(root, |n| {
        if n.kind() == "comment" {
            out.push(n.byte_range());
        }
    });
}

/// Whether a word begins at `at` to bash: at the start of the line or after an unquoted,
/// unescaped blank, newline or control operator.
fn begins_a_bash_word(bytes: &[u8], at: usize) -> bool {
    let Some(i) = at.checked_sub(1) else {
        return true;
    };
    let Some(&before) = bytes.get(i) else {
        return false;
    };
    // `<` and `>` are left out on purpose: what follows a redirection operator is its
    // target, and a line the two readings might disagree on is simply not modelled.
    if !matches!(
        before,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')'
    ) {
        return false;
    }
    // `\ #` is a word; `\\ #` is an escaped backslash, a blank and a comment.
    !is_escaped(bytes, i)
}

/// Whether the byte at `i` is escaped: an odd run of backslashes right before it (an even
/// run is escaped backslashes). Quotes are the grammar's to see; callers only ask about
/// bytes it placed outside them.
fn is_escaped(bytes: &[u8], i: usize) -> bool {
    bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// An unquoted here-doc delimiter means the body is expanded (`$x`, `$(…)`).
fn heredoc_expands(node: Node, src: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| c.kind() == "heredoc_start")
        .is_none_or(|s| {
            let t = &src[s.byte_range()];
            !(t.contains('\'') || t.contains('"') || t.contains('\\'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::WordKind;

    #[test]
    fn whitespace_bash_does_not_split_on_makes_the_line_opaque() {
        // bash runs the substitution (the \v, \f or \r is part of the word `x\v#`); the
        // grammar would read a comment after `cat x`.
        for ws in ['\u{b}', '\u{c}', '\r', '\u{a0}', '\u{2003}'] {
            let line = format!("cat x{ws}# $(rm -rf ~)");
            let a = analyse(&line);
            assert!(a.opaque_reason().is_some(), "{line:?}: {a:?}");
            assert!(crate::readonly::classify(&a).is_err(), "{line:?}");
        }
        // The fuzzer's find: `id` and a comment to the grammar, `id` with `$#` to bash.
        assert!(analyse(" id\u{b}######$####m ").opaque_reason().is_some());
        // The twins: blanks and newlines bash does split on keep the line analysable.
        for line in [
            "cat x # a comment",
            "cat x\t# a comment",
            "cat x\n# a comment",
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_none(), "{line:?}: {a:?}");
            assert!(crate::readonly::classify(&a).is_ok(), "{line:?}");
        }
    }

    fn argvs(line: &str) -> Vec<Vec<String>> {
        analyse(line)
            .commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.value.clone()).collect())
            .collect()
    }

    #[test]
    fn lists_and_pipelines_become_simple_commands() {
        assert_eq!(
            argvs("ls -la && git status; cat a | wc -l"),
            vec![
                vec!["ls", "-la"],
                vec!["git", "status"],
                vec!["cat", "a"],
                vec!["wc", "-l"]
            ]
        );
    }

    #[test]
    fn quotes_are_removed_as_bash_does() {
        assert_eq!(
            argvs(r#"echo 'a b' "c\"d" e\ f "\q" x'y'"z""#),
            vec![vec!["echo", "a b", "c\"d", "e f", "\\q", "xyz"]]
        );
    }

    #[test]
    fn words_after_a_redirect_belong_to_the_command() {
        let a = analyse("ls >/dev/null a b 2>&1 c");
        assert_eq!(
            argvs("ls >/dev/null a b 2>&1 c"),
            vec![vec!["ls", "a", "b", "c"]]
        );
        assert_eq!(a.commands[0].redirects.len(), 2);
        assert_eq!(a.commands[0].redirects[1].op, ">&");
        assert_eq!(a.commands[0].redirects[1].fd, Some(2));
    }

    #[test]
    fn a_comment_starts_only_where_bash_starts_one() {
        // The fuzzer's find: after an escaped blank the grammar reads a comment, bash reads
        // the word ` #` and runs what follows it.
        for line in [
            "ls \\ #$(rm -rf ~)",
            "ls \\ #`id`",
            "ls \\ #; rm -rf ~",
            "ls \\\t#$(id)",
            "ls \\\\\\ #$(id)",
            "ls \\\u{1a} pn##*t]#t#####pn  \\ ##`d",
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_some(), "{line:?}: {a:?}");
            assert!(crate::readonly::classify(&a).is_err(), "{line:?}");
        }
        // The twins: an escaped backslash before the blank, a blank inside a word, and
        // comments after operators are what bash reads too.
        for (line, argv) in [
            ("ls \\\\ # $(id)", vec!["ls", "\\"]),
            ("ls a\\ #b", vec!["ls", "a #b"]),
            ("ls x;# $(id)", vec!["ls", "x"]),
            ("ls x&&# $(id)\ntrue", vec!["ls", "x"]),
            ("# $(id)\nls", vec!["ls"]),
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_none(), "{line:?}: {a:?}");
            assert_eq!(argvs(line)[0], argv, "{line:?}");
        }
    }

    #[test]
    fn an_escape_the_grammar_skips_makes_the_line_opaque() {
        // The fuzzer's finds: `\ r` is the word ` r` to bash and `r` to the grammar; a `\ `
        // of its own is a command named ` ` to bash and nothing to the grammar.
        for line in [
            "ls \\ r #;m x",
            "! du\n\\\nus",
            "cat EO<\n\\\t\t\\\nls ",
            "cat x <\nrm",
            "! du\n\\\u{2}us",
            "r\u{1f}t\n#'\n$\n#'\nf\n#\n'f\n#'\nfi.",
            "ls \\gi1!mr\\ \\\nd",
            "find d h p';'\\\u{2}",
            "ls;\\ \nls \\;\nls h",
            "\\ ls",
            "ls x \\ ",
        ] {
            let a = analyse(line);
            assert!(a.unmodelled.is_some(), "{line:?}: {a:?}");
            assert!(crate::readonly::classify(&a).is_err(), "{line:?}");
        }
        // The twins: escapes inside words, continuations between words, blanks around.
        for (line, argv) in [
            ("ls a\\ b", vec!["ls", "a b"]),
            ("ls \\\n -la", vec!["ls", "-la"]),
            ("  ls\t-la  ", vec!["ls", "-la"]),
            ("ls \\\\ x", vec!["ls", "\\", "x"]),
            ("ls |\n wc -l", vec!["ls"]),
            ("ls &&\n\n pwd", vec!["ls"]),
            ("(ls\n pwd)", vec!["ls"]),
            ("cat < \\\nnotes.txt", vec!["cat"]),
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_none(), "{line:?}: {a:?}");
            assert_eq!(argvs(line)[0], argv, "{line:?}");
        }
    }

    #[test]
    fn a_command_after_a_here_document_is_reported() {
        // The grammar hangs what follows `<<EOF` on the line on the redirection; those
        // commands were lost, so `Bash(cat:*)` allowed `cat <<EOF && rm x`.
        for (line, second) in [
            ("cat <<EOF | rm victim\nhi\nEOF", "rm"),
            ("cat <<EOF && rm victim\nhi\nEOF", "rm"),
            ("cat <<'EOF' || rm victim\nhi\nEOF\n", "rm"),
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_some(), "{line:?}: {a:?}");
            let programs: Vec<&str> = a
                .commands
                .iter()
                .filter_map(|c| c.words.first().map(|w| w.value.as_str()))
                .collect();
            assert!(programs.contains(&second), "{line:?}: {programs:?}");
        }
        // The twins: a here-document with nothing after its operator, or only a
        // redirection, stays modelled, and the redirection is the command's.
        for (line, target) in [
            ("cat <<'EOF'\nhi\nEOF\necho after", None),
            ("cat <<-EOF >/dev/null\n\thi\n\tEOF", Some("/dev/null")),
            ("cat <<'EOF' > out.txt\nhi\nEOF", Some("out.txt")),
            ("cat > out.txt <<'EOF'\nhi\nEOF", Some("out.txt")),
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_none(), "{line:?}: {a:?}");
            let got = a.commands[0]
                .redirects
                .first()
                .map(|r| r.target.value.as_str());
            assert_eq!(got, target, "{line:?}: {a:?}");
        }
    }

    #[test]
    fn a_descriptor_is_only_a_whole_word_of_digits() {
        // The fuzzer's finds: the grammar reads `7` off the end of `-o7` as the descriptor of
        // `7<`, and the option vanished from argv; to bash `sort -o7</dev/null` writes `7`.
        for line in [
            "sort -o7</dev/null",
            "rg -ep -rs7<8n",
            "ls -x1>&2",
            "cat a -x7>/dev/null",
            "ls -7>/dev/null",
            "r1>&-V",
            "ls 2>&-../x",
            "ls 2>&- x",
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_some(), "{line:?}: {a:?}");
            assert!(crate::readonly::classify(&a).is_err(), "{line:?}");
        }
        // The twins: a descriptor that is a word of its own, and digits glued to a word
        // that the grammar keeps in the word.
        for (line, argv, fd) in [
            ("ls -la 2>/dev/null", vec!["ls", "-la"], Some(2)),
            ("ls -la;2>/dev/null ls", vec!["ls", "-la"], None),
            ("cat a x2>&1", vec!["cat", "a", "x2"], None),
            ("cat a\"b\"2>/dev/null", vec!["cat", "ab2"], None),
        ] {
            let a = analyse(line);
            assert!(a.opaque_reason().is_none(), "{line:?}: {a:?}");
            assert_eq!(argvs(line)[0], argv, "{line:?}");
            assert_eq!(
                a.commands[0].redirects.first().and_then(|r| r.fd),
                fd,
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_comment_does_not_hide_the_next_line() {
        assert_eq!(argvs("ls # x\nrm y"), vec![vec!["ls"], vec!["rm", "y"]]);
    }

    #[test]
    fn expansions_are_flagged() {
        let a = analyse("cat $HOME/x ~/y ~+/z *.rs $'\\x41' \"$(id)\" {a,b}");
        let kinds: Vec<WordKind> = a.commands[0].words.iter().map(|w| w.kind).collect();
        assert_eq!(
            kinds,
            vec![
                WordKind::Plain,
                WordKind::Dynamic,
                WordKind::Tilde,
                WordKind::Dynamic,
                WordKind::Glob,
                WordKind::Dynamic,
                WordKind::Dynamic,
                WordKind::Dynamic
            ]
        );
        assert!(a.substitution);
    }

    #[test]
    fn a_continuation_inside_a_word_is_not_modelled() {
        assert!(!analyse("r\\\nm victim").is_fully_analysed());
        assert!(!analyse("echo a\\\nb").is_fully_analysed());
        assert!(analyse("ls \\\n -l").is_fully_analysed());
        assert!(analyse("echo 'a\\\nb'").is_fully_analysed());
        let backticks = analyse("cat <<EOF\n`rm x`\nEOF");
        assert!(backticks.opaque_reason().is_some());
        assert!(analyse("cat <<'EOF'\n`rm x`\nEOF").is_fully_analysed());
    }

    #[test]
    fn heredoc_bodies_with_substitutions_are_seen() {
        let a = analyse("cat <<EOF\n$(rm x)\nEOF");
        assert!(a.substitution);
        assert!(a.commands.iter().any(|c| c.heredoc && c.heredoc_expands));
        let quoted = analyse("cat <<'EOF'\n$(rm x)\nEOF");
        assert!(
            quoted
                .commands
                .iter()
                .any(|c| c.heredoc && !c.heredoc_expands)
        );
    }

    #[test]
    fn unmodelled_constructs_make_the_line_opaque() {
        for line in [
            "f() { rm x; }",
            "if true; then rm x; fi",
            "for i in a; do rm $i; done",
            "{ rm x; }",
            "echo $'\\''a' # c",
            "export X=1",
            "[[ -f x ]]",
            "case x in x) rm y;; esac",
            "while true; do :; done",
        ] {
            assert!(!analyse(line).is_fully_analysed(), "{line}");
        }
    }

    #[test]
    fn programs_that_run_other_programs_are_opaque() {
        for line in [
            "eval rm x",
            "bash -c 'rm x'",
            "env rm x",
            "command rm x",
            "exec rm x",
            "\\rm x",
            "'rm' x",
            "/bin/rm x",
            "./rm x",
            "$RM x",
            "xargs rm",
            "sudo rm x",
            "find . -exec rm {} +",
            "python3 -c 'import os'",
            "git -c core.pager=sh log",
        ] {
            assert!(analyse(line).opaque_reason().is_some(), "{line}");
        }
        for line in ["ls", "git status", "rm x", "python3 script.py"] {
            assert!(analyse(line).opaque_reason().is_none(), "{line}");
        }
    }

    #[test]
    fn background_and_subshell_are_flagged() {
        let a = analyse("(cd /; ls) & echo x");
        assert!(a.background);
        assert!(a.commands[0].in_subshell);
        assert!(!a.commands[2].in_subshell);
    }
}
