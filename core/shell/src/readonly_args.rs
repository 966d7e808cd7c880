//! The argument model a read-only program is checked against (its [`Spec`]), and what a
//! read-only line reads ([`ReadOnly`]): shared by the general programs (`readonly`) and
//! git's subcommands (`readonly_git`), so neither of them imports the other's internals.

pub use crate::not_read_only::NotReadOnly;
use crate::word::{Word, WordKind};

/// A path a read-only line reads, or a directory change that later paths resolve from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A file or directory read (a `Plain`, `Tilde` or literal-prefixed `Glob` word).
    Read(Word),
    /// `cd dir` (`None`: `cd` alone, to HOME).
    ChangeDir(Option<Word>),
}

/// A read-only line: the paths it reads, and whether it runs git (whose repository
/// configuration can still make it run programs; the caller checks that).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadOnly {
    pub accesses: Vec<Access>,
    pub runs_git: bool,
}

/// What the operands (non-option arguments) of a program are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Files read.
    Paths,
    /// At most this many files (a further operand is an output file: `uniq in out`).
    AtMostPaths(usize),
    /// Text, never opened (`echo`, `basename`).
    Text,
    /// None at all (`hostname x` would set the name).
    None,
    /// A pattern, then files (`grep`, `rg`) — unless `-e`/`-f` gave the pattern.
    PatternThenPaths,
    /// `tr SET1 [SET2]`: text; `jq FILTER [files]`.
    TextThenPaths,
}

/// An allow-list of options for one program.
pub(crate) struct Spec {
    /// Short options without a value.
    pub short: &'static str,
    /// Short options with a (non-path) value, attached or as the next word.
    pub short_val: &'static str,
    /// Short options whose value is a file read.
    pub short_path: &'static str,
    pub long: &'static [&'static str],
    pub long_val: &'static [&'static str],
    pub long_path: &'static [&'static str],
    /// Long options whose value is optional and only given with `=`.
    pub long_opt_val: &'static [&'static str],
    pub operands: Operands,
    /// `head -5` style counts.
    pub numeric_short: bool,
    /// Options that give the pattern (so the first operand is a file).
    pub pattern_options: &'static [&'static str],
}

pub(crate) const NONE: Spec = Spec {
    short: "",
    short_val: "",
    short_path: "",
    long: &[],
    long_val: &[],
    long_path: &[],
    long_opt_val: &[],
    operands: Operands::None,
    numeric_short: false,
    pattern_options: &[],
};

/// Walks a command's arguments against its spec, collecting the files it reads.
pub(crate) fn options(
    name: &str,
    spec: &Spec,
    args: &[Word],
    out: &mut ReadOnly,
) -> Result<(), NotReadOnly> {
    let mut operands: Vec<&Word> = Vec::new();
    let mut pattern_given = false;
    let mut i = 0;
    let mut only_operands = false;
    let path_value = |w: Word, out: &mut ReadOnly| out.accesses.push(Access::Read(w));
    while i < args.len() {
        let w = &args[i];
        let a = w.value.as_str();
        i += 1;
        if only_operands || a == "-" || !a.starts_with('-') {
            operands.push(w);
            continue;
        }
        if a == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (flag, value) = match long.split_once('=') {
                Some((f, v)) => (format!("--{f}"), Some(v)),
                None => (a.to_string(), None),
            };
            let flag = flag.as_str();
            if spec.pattern_options.contains(&flag) {
                pattern_given = true;
            }
            if spec.long.contains(&flag) && value.is_none() {
                continue;
            }
            if spec.long_opt_val.contains(&flag) {
                continue;
            }
            let is_val = spec.long_val.contains(&flag);
            let is_path = spec.long_path.contains(&flag);
            if is_val || is_path {
                let v = match value {
                    Some(v) => sub_word(w, v),
                    None => {
                        let Some(next) = args.get(i) else {
                            return Err(NotReadOnly::MissingValue {
                                command: name.to_string(),
                                option: flag.to_string(),
                            });
                        };
                        i += 1;
                        next.clone()
                    }
                };
                if is_path {
                    path_value(v, out);
                }
                continue;
            }
            return Err(NotReadOnly::UnknownOption {
                command: name.to_string(),
                option: flag.to_string(),
            });
        }
        // A cluster of short options: `-la`, `-n5`, `-e pattern`.
        let cluster = &a[1..];
        if spec.numeric_short && cluster.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        for (pos, c) in cluster.char_indices() {
            let flag = format!("-{c}");
            if spec.pattern_options.contains(&flag.as_str()) {
                pattern_given = true;
            }
            if spec.short.contains(c) {
                continue;
            }
            let is_val = spec.short_val.contains(c);
            let is_path = spec.short_path.contains(c);
            if !(is_val || is_path) {
                return Err(NotReadOnly::UnknownOption {
                    command: name.to_string(),
                    option: flag,
                });
            }
            let rest = &cluster[pos + c.len_utf8()..];
            let v = if rest.is_empty() {
                let Some(next) = args.get(i) else {
                    return Err(NotReadOnly::MissingValue {
                        command: name.to_string(),
                        option: flag,
                    });
                };
                i += 1;
                next.clone()
            } else {
                sub_word(w, rest)
            };
            if is_path {
                path_value(v, out);
            }
            break;
        }
    }
    let files: Vec<&Word> = match spec.operands {
        Operands::Paths => operands,
        Operands::AtMostPaths(n) => {
            if operands.len() > n {
                return Err(NotReadOnly::WritesLastOperand {
                    command: name.to_string(),
                    limit: n,
                });
            }
            operands
        }
        Operands::Text => Vec::new(),
        Operands::None => {
            if !operands.is_empty() {
                return Err(NotReadOnly::TakesNoArguments(name.to_string()));
            }
            Vec::new()
        }
        Operands::PatternThenPaths if pattern_given => operands,
        Operands::PatternThenPaths | Operands::TextThenPaths => {
            operands.into_iter().skip(1).collect()
        }
    };
    for f in files {
        if f.value != "-" {
            out.accesses.push(Access::Read(f.clone()));
        }
    }
    Ok(())
}

/// The value part of `--flag=value` / `-fvalue` as a word of its own. A tilde there is
/// not expanded by bash, so the value is plain unless the word as a whole was not.
fn sub_word(w: &Word, value: &str) -> Word {
    Word {
        value: value.to_string(),
        kind: match w.kind {
            WordKind::Tilde => WordKind::Plain,
            k => k,
        },
        ..w.clone()
    }
}
