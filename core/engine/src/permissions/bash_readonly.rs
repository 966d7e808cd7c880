//! Which shell command lines only read. Anything not provably read-only asks.
//!
//! A line is split into simple commands on `;`, `&&`, `||`, `|`, `&` and newlines; every
//! one must be a known read-only command. Substitutions, redirections to files, variable
//! assignments and subshells make the line not read-only.

/// Commands that never write, whatever their arguments (except the flags checked below).
const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "echo",
    "pwd",
    "head",
    "tail",
    "wc",
    "grep",
    "rg",
    "egrep",
    "fgrep",
    "which",
    "whoami",
    "date",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "printf",
    "true",
    "false",
    "uname",
    "id",
    "env",
    "printenv",
    "sort",
    "uniq",
    "cut",
    "tr",
    "diff",
    "cmp",
    "md5sum",
    "sha256sum",
    "sha1sum",
    "type",
    "test",
    "[",
    "nl",
    "less",
    "more",
    "hostname",
    "seq",
    "jq",
    "column",
    "od",
    "hexdump",
    "xxd",
    "strings",
];

/// Read-only git subcommands.
const GIT_READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "branch",
    "rev-parse",
    "ls-files",
    "blame",
    "describe",
    "remote",
    "tag",
    "shortlog",
    "grep",
    "config",
];

/// True when every simple command of `line` only reads.
pub fn is_read_only(line: &str) -> bool {
    let cleaned = without_harmless_redirections(line);
    if has_unsafe_syntax(&cleaned) {
        return false;
    }
    let commands = split_simple_commands(&cleaned);
    !commands.is_empty() && commands.iter().all(|c| simple_command_reads(c))
}

/// The fd duplications `2>&1` / `>&2` and `/dev/null` sinks cannot write a file; they
/// are removed only as whole words (`>/dev/nullx` is a real file and stays).
fn without_harmless_redirections(line: &str) -> String {
    const HARMLESS: &[&str] = &[
        "2>&1",
        "1>&2",
        ">&2",
        "&>/dev/null",
        "2>/dev/null",
        ">/dev/null",
    ];
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    'scan: while !rest.is_empty() {
        for pat in HARMLESS {
            if let Some(after) = rest.strip_prefix(pat) {
                let ends_word = after
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_whitespace() || matches!(c, ';' | '|' | '&'));
                if ends_word {
                    out.push(' ');
                    rest = after;
                    continue 'scan;
                }
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// Substitutions, redirections, subshells and expansions that could hide a write.
fn has_unsafe_syntax(cleaned: &str) -> bool {
    cleaned.contains('`')
        || cleaned.contains("$(")
        || cleaned.contains("<(")
        || cleaned.contains(">(")
        || cleaned.contains('>')
        || cleaned.contains('(')
        || cleaned.contains('{')
}

/// Splits on command separators outside quotes.
pub fn split_simple_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                } else if c == '\\'
                    && q == '"'
                    && let Some(n) = chars.next()
                {
                    cur.push(n);
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '\\' => {
                    cur.push(c);
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                }
                ';' | '\n' | '|' | '&' => {
                    // `&&`, `||` collapse into one separator.
                    if matches!(chars.peek(), Some(&n) if n == c) {
                        chars.next();
                    }
                    push_trimmed(&mut out, &mut cur);
                }
                _ => cur.push(c),
            },
        }
    }
    push_trimmed(&mut out, &mut cur);
    out
}

fn push_trimmed(out: &mut Vec<String>, cur: &mut String) {
    let t = cur.trim();
    if !t.is_empty() {
        out.push(t.to_string());
    }
    cur.clear();
}

/// Paths a read-only line names outright (absolute, `~`, or climbing with `..`), made
/// absolute against the shell's directory: reading them must stay inside the allowed
/// directories like a Read call would.
pub fn referenced_paths(
    line: &str,
    shell_cwd: &std::path::Path,
    home: Option<&std::path::Path>,
) -> Vec<std::path::PathBuf> {
    let cleaned = without_harmless_redirections(line);
    let mut out = Vec::new();
    for cmd in split_simple_commands(&cleaned) {
        let Ok(words) = shell_words::split(&cmd) else {
            continue;
        };
        for w in words.iter().skip(1).filter(|w| !w.starts_with('-')) {
            // `--flag=/path` style values name paths too.
            let w = w.rsplit_once('=').map_or(w.as_str(), |(_, v)| v);
            let path = if let Some(rest) = w.strip_prefix("~/") {
                match home {
                    Some(h) => h.join(rest),
                    None => continue,
                }
            } else if w == "~" {
                match home {
                    Some(h) => h.to_path_buf(),
                    None => continue,
                }
            } else if w.starts_with('/') {
                std::path::PathBuf::from(w)
            } else if w.split('/').any(|part| part == "..") {
                shell_cwd.join(w)
            } else {
                continue;
            };
            out.push(path);
        }
    }
    out
}

fn simple_command_reads(cmd: &str) -> bool {
    let Ok(words) = shell_words::split(cmd) else {
        return false;
    };
    let Some(first) = words.first() else {
        return false;
    };
    // `FOO=bar cmd` changes the environment of what runs; treat as not read-only.
    if first.contains('=') {
        return false;
    }
    let name = first.rsplit('/').next().unwrap_or(first);
    match name {
        "git" => git_reads(&words[1..]),
        "find" => !words.iter().any(|w| {
            matches!(
                w.as_str(),
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fprint"
                    | "-fprintf"
                    | "-fls"
            )
        }),
        "sed" => !words
            .iter()
            .any(|w| w.starts_with("-i") || w == "--in-place"),
        "sort" => !words
            .iter()
            .any(|w| w.starts_with("-o") || w.starts_with("--output")),
        "env" | "printenv" => words.len() == 1,
        _ => READ_ONLY.contains(&name),
    }
}

fn git_reads(args: &[String]) -> bool {
    let Some(sub) = args.iter().find(|a| !a.starts_with('-')) else {
        return false;
    };
    if !GIT_READ_ONLY.contains(&sub.as_str()) {
        return false;
    }
    let rest: Vec<&str> = args.iter().map(String::as_str).collect();
    match sub.as_str() {
        // Listing only; creating/deleting branches, tags, remotes or config writes.
        "branch" | "tag" => rest.iter().all(|a| {
            *a == sub.as_str()
                || matches!(*a, "-a" | "-r" | "-l" | "--list" | "-v" | "-vv" | "--all")
        }),
        "remote" => rest
            .iter()
            .all(|a| *a == "remote" || matches!(*a, "-v" | "show" | "get-url")),
        "config" => rest
            .iter()
            .any(|a| matches!(*a, "--get" | "--list" | "-l" | "--get-all")),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_reads_are_read_only() {
        for c in [
            "echo hi",
            "ls -la",
            "cat a.txt | wc -l",
            "git status",
            "git log --oneline -5",
            "pwd && ls",
        ] {
            assert!(is_read_only(c), "{c}");
        }
    }

    #[test]
    fn compound_commands_with_a_write_are_not() {
        for c in [
            "touch made.txt && echo made",
            "echo hi; rm -rf /tmp/x",
            "ls || rm x",
            "cat a | tee b",
            "echo hi > file",
            "echo $(rm -rf x)",
            "echo `rm x`",
            "git status && git commit -m x",
            "find . -delete",
            "find . -exec rm {} +",
            "sed -i s/a/b/ f",
            "FOO=1 ls",
            "git branch -D main",
            "git config user.name x",
            "ls & rm x",
            "(rm x)",
            "echo hi >> f",
            "cat <(rm x)",
        ] {
            assert!(!is_read_only(c), "{c}");
        }
    }

    #[test]
    fn named_paths_are_found() {
        let cwd = std::path::Path::new("/proj");
        let home = std::path::Path::new("/home/u");
        let paths = referenced_paths(
            "cat /etc/passwd && ls ../x -la src && head ~/.ssh/id",
            cwd,
            Some(home),
        );
        assert_eq!(
            paths,
            vec![
                std::path::PathBuf::from("/etc/passwd"),
                std::path::PathBuf::from("/proj/../x"),
                std::path::PathBuf::from("/home/u/.ssh/id"),
            ]
        );
        assert!(referenced_paths("echo hi", cwd, None).is_empty());
    }

    #[test]
    fn separators_inside_quotes_do_not_split() {
        assert_eq!(
            split_simple_commands("echo 'a; rm x'"),
            vec!["echo 'a; rm x'"]
        );
        assert!(is_read_only("echo 'a && rm x'"));
    }

    #[test]
    fn stderr_redirection_to_stdout_is_fine() {
        assert!(is_read_only("ls missing 2>&1"));
        assert!(is_read_only("ls missing 2>/dev/null"));
        assert!(!is_read_only("echo x >/dev/nullfile"));
        assert!(!is_read_only("echo x 2>&1file"));
    }
}
