//! Which lines only read: every simple command is plain words and passes its program's
//! argument model — an allow-list of flags per program (codex-rs's safe-command list is
//! the anchor), never a list of bad flags. What a model does not know is not read-only.
//!
//! A read-only line still names paths: they come back as [`Access`]es, which the caller
//! resolves against the shell's directory (following `cd`s) and checks.

use crate::analysis::{Analysis, SimpleCommand};
pub use crate::not_read_only::NotReadOnly;
pub use crate::readonly_args::{Access, ReadOnly};
use crate::readonly_args::{NONE, Operands, Spec, options};
use crate::word::{Word, WordKind};

/// Classifies an analysed line; `Err` says why it is not read-only.
pub fn classify(analysis: &Analysis) -> Result<ReadOnly, NotReadOnly> {
    if let Some(why) = analysis.opaque_reason() {
        return Err(NotReadOnly::Unanalysed(why));
    }
    if analysis.background {
        return Err(NotReadOnly::Background);
    }
    if analysis.commands.is_empty() {
        return Err(NotReadOnly::NothingToRun);
    }
    let mut out = ReadOnly::default();
    for cmd in &analysis.commands {
        command(cmd, &mut out)?;
    }
    Ok(out)
}

/// Shorthand: analyse and classify.
pub fn is_read_only(line: &str) -> bool {
    classify(&crate::analyse(line)).is_ok()
}

fn command(cmd: &SimpleCommand, out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    if !cmd.assignments.is_empty() {
        return Err(NotReadOnly::Assignment);
    }
    if cmd.heredoc || cmd.herestring {
        return Err(NotReadOnly::HereDocument);
    }
    if cmd.in_subshell {
        return Err(NotReadOnly::Subshell);
    }
    for w in &cmd.words {
        match w.kind {
            WordKind::Plain | WordKind::Tilde => {}
            WordKind::Glob => {
                // `*` could expand to a file named `-o`: only globs that cannot produce an
                // option (a literal first character other than `-`) are modelled.
                let first = w.value.chars().next();
                if first.is_none_or(|c| matches!(c, '*' | '?' | '[' | '-'))
                    || w.value
                        .split('/')
                        .any(|part| part == ".." || (part.starts_with('.') && has_glob(part)))
                {
                    return Err(NotReadOnly::UnmodelledGlob(w.value.clone()));
                }
            }
            WordKind::Dynamic => return Err(NotReadOnly::ExpandedAtRunTime(w.value.clone())),
        }
    }
    for r in &cmd.redirects {
        redirect(r, out)?;
    }
    let Some(program) = cmd.words.first() else {
        return Err(NotReadOnly::BareRedirection);
    };
    let args = &cmd.words[1..];
    let name = program.value.as_str();
    match name {
        "cd" => cd(args, cmd, out),
        "git" => {
            out.runs_git = true;
            crate::readonly_git::git(args, out)
        }
        "find" => find(args, out),
        "sed" => sed(args, out),
        "printenv" => match args {
            [] => Ok(()),
            [one] if !one.value.starts_with('-') => Ok(()),
            _ => Err(NotReadOnly::PrintenvArguments),
        },
        "env" if args.is_empty() => Ok(()),
        _ => match spec(name) {
            Some(spec) => options(name, &spec, args, out),
            None => Err(NotReadOnly::UnknownProgram(name.to_string())),
        },
    }
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn redirect(r: &crate::Redirect, out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    let target = r.target.value.as_str();
    let to_std = r.target.is_plain() && matches!(target, "1" | "2" | "-");
    match r.op.as_str() {
        ">&" | "<&" if to_std && r.fd.is_none_or(|fd| fd <= 2) => Ok(()),
        ">" | ">>" | "&>" | "&>>" | ">|" if r.target.is_plain() && target == "/dev/null" => Ok(()),
        "<" if r.fd.is_none_or(|fd| fd == 0)
            && matches!(r.target.kind, WordKind::Plain | WordKind::Tilde) =>
        {
            out.accesses.push(Access::Read(r.target.clone()));
            Ok(())
        }
        op => Err(NotReadOnly::WritingRedirection(format!("{op}{target}"))),
    }
}

fn cd(args: &[Word], cmd: &SimpleCommand, out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    if cmd.in_pipeline {
        return Err(NotReadOnly::CdInPipeline);
    }
    match args {
        [] => out.accesses.push(Access::ChangeDir(None)),
        [dir] if dir.value != "-" && !dir.value.starts_with('-') => {
            out.accesses.push(Access::ChangeDir(Some(dir.clone())));
        }
        _ => return Err(NotReadOnly::UnusualCd),
    }
    Ok(())
}

fn spec(name: &str) -> Option<Spec> {
    use Operands::{AtMostPaths, Paths, PatternThenPaths, Text, TextThenPaths};
    let s = match name {
        "ls" => Spec {
            short: "1aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ",
            short_val: "wTI",
            long: &[
                "--all",
                "--almost-all",
                "--human-readable",
                "--classify",
                "--directory",
                "--recursive",
                "--reverse",
                "--size",
                "--inode",
                "--numeric-uid-gid",
                "--no-group",
                "--full-time",
                "--group-directories-first",
                "--author",
                "--escape",
                "--literal",
                "--quote-name",
                "--si",
                "--dereference-command-line",
            ],
            long_val: &[
                "--width",
                "--tabsize",
                "--ignore",
                "--hide",
                "--sort",
                "--time",
                "--time-style",
                "--format",
                "--block-size",
                "--quoting-style",
                "--indicator-style",
            ],
            long_opt_val: &["--color", "--hyperlink"],
            operands: Paths,
            ..NONE
        },
        "cat" => Spec {
            short: "AbeEnstTuv",
            long: &[
                "--show-all",
                "--number-nonblank",
                "--show-ends",
                "--number",
                "--squeeze-blank",
                "--show-tabs",
                "--show-nonprinting",
            ],
            operands: Paths,
            ..NONE
        },
        "head" | "tail" => Spec {
            short: if name == "tail" { "qvzfF" } else { "qvz" },
            short_val: "nc",
            long: &[
                "--quiet",
                "--silent",
                "--verbose",
                "--zero-terminated",
                "--follow",
                "--retry",
            ],
            long_val: &["--lines", "--bytes"],
            operands: Paths,
            numeric_short: true,
            ..NONE
        },
        "wc" => Spec {
            short: "clmwL",
            long: &[
                "--bytes",
                "--chars",
                "--lines",
                "--words",
                "--max-line-length",
            ],
            long_path: &["--files0-from"],
            operands: Paths,
            ..NONE
        },
        "grep" | "egrep" | "fgrep" => Spec {
            // No -R / --dereference-recursive: it follows symlinks out of the tree.
            short: "ivnrlLcohHwxEFGPqsaIzUZTbu",
            short_val: "eABCmd",
            short_path: "f",
            long: &[
                "--ignore-case",
                "--invert-match",
                "--line-number",
                "--recursive",
                "--files-with-matches",
                "--files-without-match",
                "--count",
                "--only-matching",
                "--no-filename",
                "--with-filename",
                "--word-regexp",
                "--line-regexp",
                "--extended-regexp",
                "--fixed-strings",
                "--basic-regexp",
                "--perl-regexp",
                "--quiet",
                "--silent",
                "--no-messages",
                "--text",
                "--null",
                "--null-data",
                "--byte-offset",
                "--initial-tab",
                "--no-ignore-case",
                "--line-buffered",
            ],
            long_val: &[
                "--regexp",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--include",
                "--exclude",
                "--exclude-dir",
                "--label",
                "--binary-files",
                "--directories",
                "--devices",
            ],
            long_path: &["--file", "--exclude-from"],
            long_opt_val: &["--color", "--colour"],
            operands: PatternThenPaths,
            pattern_options: &["-e", "-f", "--regexp", "--file"],
            ..NONE
        },
        "rg" => Spec {
            // No --pre / -z (run programs), -L / --follow (leave the tree by symlinks),
            // no --hostname-bin.
            short: "iSsnNlcwxFvuoqUIHa0bpj",
            short_val: "gtTeABCmMrEd",
            short_path: "f",
            long: &[
                "--ignore-case",
                "--smart-case",
                "--case-sensitive",
                "--line-number",
                "--no-line-number",
                "--files-with-matches",
                "--files-without-match",
                "--count",
                "--count-matches",
                "--word-regexp",
                "--line-regexp",
                "--fixed-strings",
                "--invert-match",
                "--hidden",
                "--no-ignore",
                "--no-ignore-vcs",
                "--files",
                "--json",
                "--only-matching",
                "--quiet",
                "--multiline",
                "--no-heading",
                "--heading",
                "--with-filename",
                "--no-filename",
                "--vimgrep",
                "--stats",
                "--type-list",
                "--no-messages",
                "--text",
                "--null",
                "--trim",
                "--pretty",
                "--column",
                "--byte-offset",
                "--sort-files",
                "--no-config",
                "--unrestricted",
                "--passthru",
                "--max-columns-preview",
                "--crlf",
                "--debug",
                "--no-ignore-dot",
                "--no-ignore-parent",
                "--no-ignore-global",
                "--no-ignore-files",
                "--glob-case-insensitive",
                "--line-buffered",
                "--block-buffered",
            ],
            long_val: &[
                "--glob",
                "--iglob",
                "--type",
                "--type-not",
                "--regexp",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--max-depth",
                "--max-filesize",
                "--replace",
                "--sort",
                "--sortr",
                "--max-columns",
                "--encoding",
                "--engine",
                "--threads",
                "--type-add",
                "--context-separator",
                "--field-match-separator",
                "--colors",
                "--color",
                "--path-separator",
                "--dfa-size-limit",
                "--regex-size-limit",
            ],
            long_path: &["--file", "--ignore-file"],
            operands: PatternThenPaths,
            pattern_options: &["-e", "-f", "--regexp", "--file", "--files", "--type-list"],
            ..NONE
        },
        "sort" => Spec {
            // No -o/--output, -T (temp dir), --compress-program, --files0-from.
            short: "bdfgiMhnRrVucCmsz",
            short_val: "ktS",
            long: &[
                "--ignore-leading-blanks",
                "--dictionary-order",
                "--ignore-case",
                "--general-numeric-sort",
                "--ignore-nonprinting",
                "--month-sort",
                "--human-numeric-sort",
                "--numeric-sort",
                "--random-sort",
                "--reverse",
                "--version-sort",
                "--unique",
                "--check",
                "--merge",
                "--stable",
                "--zero-terminated",
            ],
            long_val: &[
                "--key",
                "--field-separator",
                "--buffer-size",
                "--sort",
                "--parallel",
            ],
            operands: Paths,
            ..NONE
        },
        "uniq" => Spec {
            short: "cdDiuz",
            short_val: "fsw",
            long: &[
                "--count",
                "--repeated",
                "--ignore-case",
                "--unique",
                "--zero-terminated",
            ],
            long_val: &["--skip-fields", "--skip-chars", "--check-chars"],
            long_opt_val: &["--all-repeated", "--group"],
            operands: AtMostPaths(1),
            ..NONE
        },
        "xxd" => Spec {
            // No -r (writes the reverted file).
            short: "apuiEbC",
            short_val: "cglso",
            operands: AtMostPaths(1),
            ..NONE
        },
        "nl" => Spec {
            short: "p",
            short_val: "bdfhilnsvw",
            operands: Paths,
            ..NONE
        },
        "cut" => Spec {
            short: "snz",
            short_val: "bcdf",
            long: &["--complement", "--only-delimited", "--zero-terminated"],
            long_val: &[
                "--bytes",
                "--characters",
                "--delimiter",
                "--fields",
                "--output-delimiter",
            ],
            operands: Paths,
            ..NONE
        },
        "tr" => Spec {
            short: "cCdst",
            operands: Text,
            ..NONE
        },
        "echo" => Spec {
            short: "neE",
            operands: Text,
            ..NONE
        },
        // No -v (assigns a variable).
        "printf" => Spec {
            operands: Text,
            ..NONE
        },
        "pwd" => Spec {
            short: "LP",
            ..NONE
        },
        "true" | "false" | "whoami" | "hostname" | "tty" | "nproc" | "arch" => NONE,
        "uname" => Spec {
            short: "asnrvmpio",
            long: &[
                "--all",
                "--kernel-name",
                "--nodename",
                "--kernel-release",
                "--kernel-version",
                "--machine",
                "--processor",
                "--hardware-platform",
                "--operating-system",
            ],
            ..NONE
        },
        "id" => Spec {
            short: "ugGnrz",
            operands: Text,
            ..NONE
        },
        // No -s/--set (sets the clock), no -f (reads a file of dates).
        "date" => Spec {
            short: "uRI",
            short_val: "d",
            long: &["--utc", "--rfc-email", "--universal"],
            long_val: &["--date"],
            long_opt_val: &["--iso-8601", "--rfc-3339"],
            operands: Text,
            ..NONE
        },
        "which" => Spec {
            short: "a",
            operands: Text,
            ..NONE
        },
        "type" => Spec {
            short: "aftpP",
            operands: Text,
            ..NONE
        },
        "basename" | "dirname" => Spec {
            short: "asz",
            short_val: "",
            long: &["--multiple", "--zero"],
            long_val: &["--suffix"],
            operands: Text,
            ..NONE
        },
        "realpath" | "readlink" => Spec {
            short: "efmnqsvzLP",
            long: &[
                "--canonicalize",
                "--canonicalize-existing",
                "--canonicalize-missing",
                "--no-newline",
                "--quiet",
                "--silent",
                "--verbose",
                "--zero",
                "--strip",
                "--no-symlinks",
                "--logical",
                "--physical",
            ],
            operands: Paths,
            ..NONE
        },
        "stat" => Spec {
            short: "LftZ",
            short_val: "c",
            long: &["--dereference", "--file-system", "--terse"],
            long_val: &["--format", "--printf"],
            operands: Paths,
            ..NONE
        },
        // No -C (compiles a magic file), no -m (reads one from anywhere).
        "file" => Spec {
            short: "bihLNkrsz",
            long: &[
                "--brief",
                "--mime",
                "--mime-type",
                "--mime-encoding",
                "--dereference",
                "--no-pad",
                "--keep-going",
                "--raw",
                "--special-files",
                "--uncompress",
            ],
            operands: Paths,
            ..NONE
        },
        // No -L (follows symlinks out of the tree).
        "du" => Spec {
            short: "achksmxbSl0",
            short_val: "dBt",
            long: &[
                "--all",
                "--apparent-size",
                "--total",
                "--human-readable",
                "--summarize",
                "--si",
                "--one-file-system",
                "--bytes",
                "--separate-dirs",
                "--count-links",
                "--null",
            ],
            long_val: &[
                "--max-depth",
                "--block-size",
                "--threshold",
                "--exclude",
                "--time-style",
            ],
            long_opt_val: &["--time"],
            operands: Paths,
            ..NONE
        },
        "df" => Spec {
            short: "ahHiklPTx",
            short_val: "Bt",
            long: &[
                "--all",
                "--human-readable",
                "--si",
                "--inodes",
                "--local",
                "--portability",
                "--print-type",
                "--total",
            ],
            long_val: &["--block-size", "--type", "--exclude-type", "--output"],
            operands: Paths,
            ..NONE
        },
        // No -o (writes a file), no -l (follows symlinks), no -R.
        "tree" => Spec {
            short: "adfisughDFpqNACJnx",
            short_val: "LIP",
            long: &[
                "--noreport",
                "--dirsfirst",
                "--du",
                "--prune",
                "--gitignore",
            ],
            long_val: &["--charset", "--filelimit", "--sort"],
            operands: Paths,
            ..NONE
        },
        "seq" => Spec {
            short: "w",
            short_val: "fs",
            operands: Text,
            numeric_short: true,
            ..NONE
        },
        "diff" => Spec {
            short: "abBcdeEiNnpqrsTtuwyZ",
            short_val: "UCWxXSLFI",
            long: &[
                "--brief",
                "--report-identical-files",
                "--recursive",
                "--new-file",
                "--unidirectional-new-file",
                "--ignore-case",
                "--ignore-all-space",
                "--ignore-space-change",
                "--ignore-blank-lines",
                "--ignore-tab-expansion",
                "--ignore-trailing-space",
                "--text",
                "--expand-tabs",
                "--side-by-side",
                "--suppress-common-lines",
                "--minimal",
                "--no-dereference",
                "--strip-trailing-cr",
                "--show-c-function",
                "--initial-tab",
                "--suppress-blank-empty",
            ],
            long_val: &[
                "--unified",
                "--context",
                "--width",
                "--label",
                "--exclude",
                "--ignore-matching-lines",
                "--show-function-line",
                "--starting-file",
                "--normal",
                "--line-format",
                "--tabsize",
            ],
            long_path: &["--exclude-from"],
            long_opt_val: &["--color"],
            operands: Paths,
            ..NONE
        },
        "cmp" => Spec {
            short: "blsz",
            short_val: "in",
            long: &["--print-bytes", "--verbose", "--quiet", "--silent"],
            long_val: &["--ignore-initial", "--bytes"],
            operands: Paths,
            ..NONE
        },
        // No -c (checks the files a list names, unseen here).
        "md5sum" | "sha1sum" | "sha256sum" | "sha512sum" | "sha224sum" | "sha384sum" | "b2sum"
        | "cksum" | "sum" => Spec {
            short: "btz",
            long: &["--binary", "--text", "--tag", "--zero"],
            operands: Paths,
            ..NONE
        },
        "strings" => Spec {
            short: "afw",
            short_val: "ntTe",
            long: &["--all", "--print-file-name"],
            long_val: &["--bytes", "--radix", "--encoding", "--target"],
            operands: Paths,
            numeric_short: true,
            ..NONE
        },
        "od" | "hexdump" => Spec {
            short: "bcCdDfFhHiIlLoOsvxX",
            short_val: "ANjStwe",
            long: &["--output-duplicates", "--traditional"],
            long_val: &[
                "--address-radix",
                "--read-bytes",
                "--skip-bytes",
                "--format",
                "--width",
                "--endian",
            ],
            operands: Paths,
            ..NONE
        },
        "column" => Spec {
            short: "tenxJ",
            short_val: "csoNORHWdl",
            operands: Paths,
            ..NONE
        },
        // No -f/--from-file, --rawfile, --slurpfile: they read files named in options
        // (the file after them is not an operand to check by position).
        "jq" => Spec {
            short: "rcnjseSCMaC",
            long: &[
                "--raw-output",
                "--compact-output",
                "--null-input",
                "--join-output",
                "--slurp",
                "--exit-status",
                "--sort-keys",
                "--color-output",
                "--monochrome-output",
                "--ascii-output",
                "--tab",
                "--raw-input",
                "--seq",
            ],
            long_val: &["--indent", "--arg", "--argjson"],
            operands: TextThenPaths,
            ..NONE
        },
        // `test`/`[` and everything else: not modelled.
        _ => return None,
    };
    Some(s)
}

/// `find`: starting points are paths; only read-only primaries are known.
fn find(args: &[Word], out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    const NO_VALUE: &[&str] = &[
        "-print",
        "-print0",
        "-prune",
        "-not",
        "!",
        "-a",
        "-o",
        "-and",
        "-or",
        "(",
        ")",
        "-depth",
        "-ls",
        "-true",
        "-false",
        "-readable",
        "-writable",
        "-executable",
        "-empty",
        "-nouser",
        "-nogroup",
        "-xdev",
        "-mount",
        "-noleaf",
        "-quit",
        "-H",
        "-P",
        "-daystart",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
    ];
    const VALUE: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-maxdepth",
        "-mindepth",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-printf",
        "-regextype",
        "-lname",
        "-ilname",
        "-used",
        "-fstype",
    ];
    const PATH_VALUE: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];
    let mut i = 0;
    let mut in_expression = false;
    while i < args.len() {
        let w = &args[i];
        let a = w.value.as_str();
        i += 1;
        let starts_expression = a.starts_with('-') || matches!(a, "(" | ")" | "!" | ",");
        if !in_expression && !starts_expression {
            out.accesses.push(Access::Read(w.clone()));
            continue;
        }
        in_expression = true;
        if NO_VALUE.contains(&a) {
            continue;
        }
        if VALUE.contains(&a) || PATH_VALUE.contains(&a) || a.starts_with("-newer") {
            let Some(v) = args.get(i) else {
                return Err(NotReadOnly::MissingValue {
                    command: "find".into(),
                    option: a.to_string(),
                });
            };
            i += 1;
            if PATH_VALUE.contains(&a) || a.starts_with("-newer") && a.len() == 6 {
                out.accesses.push(Access::Read(v.clone()));
            }
            continue;
        }
        // -exec, -delete, -fprint*, -fls, -L/-follow and anything unknown.
        return Err(NotReadOnly::UnknownFindPrimary(a.to_string()));
    }
    if !args
        .iter()
        .any(|w| !w.value.starts_with('-') && !matches!(w.value.as_str(), "(" | ")" | "!"))
    {
        // `find` alone lists the current directory.
        out.accesses.push(Access::Read(Word {
            value: ".".into(),
            kind: WordKind::Plain,
            quoted: false,
            substitution: false,
            source: 0..0,
        }));
    }
    Ok(())
}

/// `sed`: only `-n` with a line-printing script (`5p`, `1,20p`, `$p`), then files. Any
/// other script can write (`w`), read (`r`) or execute (`e`).
fn sed(args: &[Word], out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    let mut quiet = false;
    let mut script: Option<&str> = None;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].value.as_str();
        match a {
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-e" | "--expression" if script.is_none() => {
                i += 1;
                script = args.get(i).map(|w| w.value.as_str());
            }
            "--" => {
                files.extend(args[i + 1..].iter());
                break;
            }
            _ if a.starts_with('-') && a != "-" => {
                return Err(NotReadOnly::UnknownOption {
                    command: "sed".into(),
                    option: a.to_string(),
                });
            }
            _ if script.is_none() => script = Some(a),
            _ => files.push(&args[i]),
        }
        i += 1;
    }
    let Some(script) = script else {
        return Err(NotReadOnly::SedWithoutScript);
    };
    if !quiet || !is_print_script(script) {
        return Err(NotReadOnly::SedScriptNotPrint(script.to_string()));
    }
    for f in files {
        out.accesses.push(Access::Read(f.clone()));
    }
    Ok(())
}

fn is_print_script(script: &str) -> bool {
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    let addr = |a: &str| a == "$" || (!a.is_empty() && a.chars().all(|c| c.is_ascii_digit()));
    match range.split_once(',') {
        Some((a, b)) => addr(a) && addr(b),
        None => addr(range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_reads_are_read_only() {
        for c in [
            "ls",
            "ls -la",
            "echo hi",
            "cat notes.txt",
            "cat a.txt | wc -l",
            "git status",
            "git log --oneline -5",
            "pwd && ls",
            "grep -rn x src",
            "sed -n 1,5p f",
            "sed -n '$p' f",
            "find . -name '*.rs'",
            "head -n 5 f",
            "tail -20 f",
            "ls missing 2>&1",
            "ls missing 2>/dev/null",
            "rg -n foo src",
            "sort -u f",
            "uniq f",
            "xxd f",
            "echo 'a && rm x'",
            "cd src && ls",
            "env",
            "printenv",
            "ls ./*.rs",
            "wc -l < f",
        ] {
            let r = classify(&crate::analyse(c));
            assert!(r.is_ok(), "{c}: {r:?}");
        }
    }

    #[test]
    fn writes_and_executions_are_not() {
        for c in [
            "touch made.txt && echo made",
            "echo hi; rm -rf /tmp/x",
            "ls || rm x",
            "cat a | tee b",
            "echo hi > file",
            "echo hi >> f",
            "echo $(rm -rf x)",
            "echo `rm x`",
            "git status && git commit -m x",
            "find . -delete",
            "find . -exec rm {} +",
            "find . -fprint0 out",
            "find . -fls out",
            "find -L . -name x",
            "sed -i s/a/b/ f",
            "sed -Ei s/a/b/ f",
            "sed 'e rm x' f",
            "sed -n 'w out' f",
            "sed -n '1r /etc/passwd' f",
            "sed -n 1,5p\\;w\\ x f",
            "sort -o out f",
            "sort --output=out f",
            "sort --compress-program=sh f",
            "uniq in out",
            "xxd a b",
            "xxd -r a",
            "rg --pre sh x",
            "rg -z x",
            "rg --search-zip x",
            "grep -R x .",
            "FOO=1 ls",
            "ls & rm x",
            "ls &",
            "(rm x)",
            "(ls)",
            "cat <(rm x)",
            "cat $HOME/.ssh/id_rsa",
            "cat $PWD/../x",
            "cat ~+/x",
            "echo $'\\x41'",
            "cat <<EOF\nhi\nEOF",
            "cat <<<hi",
            "./cat x",
            "/bin/ls",
            "\\ls",
            "ls *",
            "ls .*",
            "head ~/.ssh/*",
            "cat */../x",
            "hostname evil",
            "date -s now",
            "printf -v x hi",
            "tree -o out",
            "env rm x",
            "printenv -0",
            "echo {a,b}",
            "ls >&out",
            "ls 3>out",
            "cat u<UOF/icm?$vr tt y<E",
            "cat < *.txt",
        ] {
            assert!(!is_read_only(c), "{c}");
        }
    }

    #[test]
    fn paths_come_back_with_flag_values() {
        let r = classify(&crate::analyse(
            "wc --files0-from=/abs/list && grep -f ../pats x src && cd sub && cat ~/y",
        ))
        .unwrap();
        let values: Vec<String> = r
            .accesses
            .iter()
            .map(|a| match a {
                Access::Read(w) => format!("R {}", w.value),
                Access::ChangeDir(w) => format!("CD {:?}", w.as_ref().map(|w| &w.value)),
            })
            .collect();
        assert_eq!(
            values,
            vec![
                "R /abs/list",
                "R ../pats",
                "R x",
                "R src",
                "CD Some(\"sub\")",
                "R ~/y"
            ]
        );
    }
}
