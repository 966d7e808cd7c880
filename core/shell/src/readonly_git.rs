//! The read-only forms of git: listing and inspecting subcommands with an allow-list of
//! options each. None of `--output`, `-O`/`--open-files-in-pager`, `--ext-diff`,
//! `--textconv`, `-c`, `-C`, `--git-dir` or `--exec-path` is on any list. Whether the
//! repository's own configuration makes these run programs (fsmonitor, diff drivers,
//! pagers, hooks) is for the caller, which can read `.git/config`.

use crate::readonly_args::{Access, NotReadOnly, Operands, ReadOnly, Spec, options};
use crate::word::Word;

const LOG_LONG: &[&str] = &[
    "--oneline",
    "--graph",
    "--all",
    "--stat",
    "--shortstat",
    "--numstat",
    "--name-only",
    "--name-status",
    "--patch",
    "--no-patch",
    "--reverse",
    "--no-merges",
    "--merges",
    "--abbrev-commit",
    "--first-parent",
    "--follow",
    "--no-color",
    "--decorate",
    "--no-decorate",
    "--summary",
    "--raw",
    "--topo-order",
    "--date-order",
    "--branches",
    "--tags",
    "--remotes",
    "--full-history",
    "--left-right",
    "--cherry-pick",
    "--boundary",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-all-space",
    "--ignore-space-change",
    "--cached",
    "--staged",
    "--minimal",
    "--histogram",
    "--patience",
    "--no-renames",
    "--check",
    "--full-index",
    "--binary",
    "--compact-summary",
    "--exit-code",
    "--quiet",
    "--word-diff",
    "--show-signature",
    "--source",
    "--relative",
    "--ignore-blank-lines",
    "--mailmap",
    "--no-mailmap",
    "--no-abbrev-commit",
    "--parents",
    "--children",
];
const LOG_VAL: &[&str] = &[
    "--max-count",
    "--skip",
    "--since",
    "--after",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep",
    "--format",
    "--pretty",
    "--date",
    "--diff-filter",
    "--unified",
    "--abbrev",
    "--stat-width",
    "--word-diff-regex",
    "--encoding",
    "--diff-algorithm",
    "--find-renames",
    "--find-copies",
    "--color-moved",
    "--anchored",
    "--inter-hunk-context",
    "--ignore-submodules",
    "--submodule",
    "--src-prefix",
    "--dst-prefix",
    "--line-prefix",
];
const LOG_OPT_VAL: &[&str] = &[
    "--color",
    "--decorate",
    "--word-diff",
    "--relative",
    "--stat",
    "--dirstat",
];

fn log_like() -> Spec {
    Spec {
        short: "pwbRsMCqz",
        short_val: "nSGLU",
        short_path: "",
        long: LOG_LONG,
        long_val: LOG_VAL,
        long_path: &[],
        long_opt_val: LOG_OPT_VAL,
        operands: Operands::Paths,
        numeric_short: true,
        pattern_options: &[],
    }
}

pub(crate) fn git(args: &[Word], out: &mut ReadOnly) -> Result<(), NotReadOnly> {
    let mut rest = args;
    // Global options: only `--no-pager` is read-only for sure.
    while let Some(first) = rest.first() {
        match first.value.as_str() {
            "--no-pager" | "-P" | "--no-optional-locks" => rest = &rest[1..],
            a if a.starts_with('-') => {
                return Err(NotReadOnly::UnknownGitGlobalOption(a.to_string()));
            }
            _ => break,
        }
    }
    let Some((sub, args)) = rest.split_first() else {
        return Err(NotReadOnly::GitWithoutSubcommand);
    };
    let sub = sub.value.as_str();
    let mut local = ReadOnly::default();
    let result = match sub {
        "status" => options(
            "git status",
            &Spec {
                short: "sbvz",
                short_val: "",
                short_path: "",
                long: &[
                    "--short",
                    "--branch",
                    "--long",
                    "--verbose",
                    "--show-stash",
                    "--no-renames",
                    "--ahead-behind",
                    "--no-ahead-behind",
                    "--renames",
                ],
                long_val: &["--find-renames", "--column"],
                long_path: &[],
                long_opt_val: &[
                    "--porcelain",
                    "--untracked-files",
                    "--ignored",
                    "--ignore-submodules",
                ],
                operands: Operands::Paths,
                numeric_short: false,
                pattern_options: &[],
            },
            &short_u(args),
            &mut local,
        ),
        "log" | "show" | "diff" | "whatchanged" => {
            options(&format!("git {sub}"), &log_like(), args, &mut local)
        }
        "blame" => options(
            "git blame",
            &Spec {
                short: "wsleftbpcnM",
                short_val: "L",
                long: &[
                    "--porcelain",
                    "--line-porcelain",
                    "--show-email",
                    "--show-name",
                    "--show-number",
                    "--root",
                    "--incremental",
                    "--minimal",
                    "--no-progress",
                ],
                long_val: &["--date", "--abbrev"],
                ..log_like()
            },
            args,
            &mut local,
        ),
        "branch" => branch(args),
        "tag" => listing(
            "git tag",
            args,
            &["-l", "--list", "-n"],
            &[
                "--contains",
                "--sort",
                "--format",
                "--points-at",
                "--merged",
                "--no-merged",
            ],
        ),
        "remote" => match args
            .iter()
            .map(|w| w.value.as_str())
            .collect::<Vec<_>>()
            .as_slice()
        {
            [] | ["-v"] | ["--verbose"] => Ok(()),
            ["get-url", name] if !name.starts_with('-') => Ok(()),
            _ => Err(NotReadOnly::GitRemoteForm),
        },
        "rev-parse" => options(
            "git rev-parse",
            &Spec {
                short: "q",
                long: &[
                    "--show-toplevel",
                    "--abbrev-ref",
                    "--git-dir",
                    "--is-inside-work-tree",
                    "--verify",
                    "--show-prefix",
                    "--show-cdup",
                    "--symbolic-full-name",
                    "--git-common-dir",
                    "--is-bare-repository",
                    "--quiet",
                    "--absolute-git-dir",
                ],
                long_opt_val: &["--short"],
                operands: Operands::Text,
                ..log_like()
            },
            args,
            &mut local,
        ),
        "ls-files" => options(
            "git ls-files",
            &Spec {
                short: "cdmoisukvtz",
                short_val: "x",
                long: &[
                    "--cached",
                    "--deleted",
                    "--modified",
                    "--others",
                    "--ignored",
                    "--stage",
                    "--unmerged",
                    "--killed",
                    "--exclude-standard",
                    "--directory",
                    "--no-empty-directory",
                    "--full-name",
                    "--error-unmatch",
                    "--eol",
                    "--recurse-submodules",
                ],
                long_val: &["--exclude", "--abbrev", "--format"],
                long_opt_val: &[],
                operands: Operands::Paths,
                ..log_like()
            },
            args,
            &mut local,
        ),
        "describe" => options(
            "git describe",
            &Spec {
                short: "",
                short_val: "",
                long: &[
                    "--tags",
                    "--all",
                    "--long",
                    "--always",
                    "--exact-match",
                    "--first-parent",
                    "--contains",
                ],
                long_val: &["--abbrev", "--match", "--exclude", "--candidates"],
                long_opt_val: &["--dirty", "--broken"],
                operands: Operands::Text,
                ..log_like()
            },
            args,
            &mut local,
        ),
        // No -O/--open-files-in-pager (runs a program), no --textconv, no -f (file).
        "grep" => options(
            "git grep",
            &Spec {
                short: "nilLcwvEFPhHIaoqz",
                short_val: "eABCm",
                short_path: "",
                long: &[
                    "--cached",
                    "--untracked",
                    "--no-index",
                    "--line-number",
                    "--ignore-case",
                    "--files-with-matches",
                    "--files-without-match",
                    "--count",
                    "--word-regexp",
                    "--invert-match",
                    "--extended-regexp",
                    "--fixed-strings",
                    "--perl-regexp",
                    "--full-name",
                    "--only-matching",
                    "--quiet",
                    "--break",
                    "--heading",
                    "--show-function",
                    "--function-context",
                    "--no-textconv",
                    "--all-match",
                    "--and",
                    "--or",
                    "--not",
                    "--recurse-submodules",
                    "--null",
                    "--column",
                ],
                long_val: &[
                    "--max-depth",
                    "--after-context",
                    "--before-context",
                    "--context",
                    "--max-count",
                    "--threads",
                ],
                long_path: &[],
                long_opt_val: &["--color"],
                operands: Operands::PatternThenPaths,
                numeric_short: false,
                pattern_options: &["-e"],
            },
            args,
            &mut local,
        ),
        "config" => match args
            .iter()
            .map(|w| w.value.as_str())
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["--get" | "--get-all", name] if !name.starts_with('-') => Ok(()),
            ["--list" | "-l"] => Ok(()),
            _ => Err(NotReadOnly::GitConfigForm),
        },
        other => Err(NotReadOnly::UnknownGitSubcommand(other.to_string())),
    };
    result?;
    // Revisions and pathspecs share the operand position: a relative word is checked as a
    // path only if it climbs (`..`) or is absolute; git itself refuses paths outside the
    // repository, and `main..topic` is a range, not a path.
    for a in local.accesses {
        if let Access::Read(w) = &a {
            let v = w.value.split_once(':').map_or(w.value.as_str(), |(_, p)| p);
            let climbs =
                v.starts_with('/') || v.starts_with('~') || v.split('/').any(|p| p == "..");
            if !climbs {
                continue;
            }
        }
        out.accesses.push(a);
    }
    Ok(())
}

/// `git status -uno` is written attached; the generic walker takes `-u` as valueless.
fn short_u(args: &[Word]) -> Vec<Word> {
    args.iter()
        .filter(|w| !(w.value.starts_with("-u") && w.value.len() > 2 && !w.value.starts_with("--")))
        .cloned()
        .map(|w| {
            if w.value == "-u" {
                Word {
                    value: "--untracked-files".into(),
                    ..w
                }
            } else {
                w
            }
        })
        .collect()
}

fn branch(args: &[Word]) -> Result<(), NotReadOnly> {
    listing(
        "git branch",
        args,
        &[
            "-a",
            "-r",
            "-l",
            "--list",
            "-v",
            "-vv",
            "--all",
            "--remotes",
            "--show-current",
            "--verbose",
            "--no-color",
        ],
        &[
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--sort",
            "--format",
            "--points-at",
        ],
    )
}

/// Listing forms only: operands are allowed only after a list flag (they are patterns
/// then); without one, `git branch x` / `git tag x` would create `x`.
fn listing(
    name: &str,
    args: &[Word],
    flags: &[&str],
    value_flags: &[&str],
) -> Result<(), NotReadOnly> {
    let mut listing = false;
    let mut i = 0;
    let mut patterns = 0;
    while i < args.len() {
        let a = args[i].value.as_str();
        i += 1;
        let flag = a.split_once('=').map_or(a, |(f, _)| f);
        if flags.contains(&a) {
            listing |= matches!(a, "-l" | "--list");
        } else if value_flags.contains(&flag) {
            if !a.contains('=') {
                i += 1;
            }
        } else if a.starts_with('-') {
            return Err(NotReadOnly::UnknownOption {
                command: name.to_string(),
                option: a.to_string(),
            });
        } else {
            patterns += 1;
        }
    }
    if patterns > 0 && !listing {
        return Err(NotReadOnly::Creates(name.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::readonly::is_read_only;

    #[test]
    fn listing_forms_are_read_only() {
        for c in [
            "git status",
            "git status -s",
            "git status --porcelain=v1",
            "git log --oneline -5",
            "git log -n 3 --format=%H",
            "git diff",
            "git diff --stat HEAD~1",
            "git diff main..topic",
            "git show HEAD:src/a.rs",
            "git branch",
            "git branch -a",
            "git branch --list 'fe*'",
            "git tag -l",
            "git remote -v",
            "git rev-parse --show-toplevel",
            "git ls-files -m",
            "git grep -n foo",
            "git --no-pager log",
            "git config --get user.name",
            "git blame -L 1,5 src/a.rs",
        ] {
            assert!(is_read_only(c), "{c}");
        }
    }

    #[test]
    fn climbing_and_absolute_operands_are_reported() {
        let r = crate::readonly::classify(&crate::analyse(
            "git diff -- /etc/passwd && git log ../o src",
        ))
        .unwrap();
        let paths: Vec<&str> = r
            .accesses
            .iter()
            .filter_map(|a| match a {
                crate::readonly::Access::Read(w) => Some(w.value.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(paths, vec!["/etc/passwd", "../o"]);
        assert!(r.runs_git);
    }

    #[test]
    fn forms_that_write_or_run_are_not() {
        for c in [
            "git branch x",
            "git branch -D main",
            "git branch -m a b",
            "git tag v1",
            "git diff --output=f",
            "git log --output=f",
            "git grep -Ocat x",
            "git grep -O x",
            "git grep --open-files-in-pager=sh x",
            "git diff --ext-diff",
            "git diff --textconv",
            "git -c core.pager=sh log",
            "git -C /etc log",
            "git --git-dir=/x log",
            "git config user.name x",
            "git remote add a b",
            "git commit -m x",
            "git push",
        ] {
            assert!(!is_read_only(c), "{c}");
        }
    }
}
