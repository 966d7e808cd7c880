//! Why a line is not read-only: the reasons [`crate::readonly::classify`] gives, each worded
//! as the permission prompt shows it (the policy passes the message on unchanged).

/// A reason a line is not read-only. `Display` is the sentence the user sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReadOnly {
    /// The analysis could not model the line (its own wording).
    #[error("{0}")]
    Unanalysed(String),
    #[error("a command runs in the background")]
    Background,
    #[error("nothing to run")]
    NothingToRun,
    #[error("a variable assignment")]
    Assignment,
    #[error("a here-document")]
    HereDocument,
    #[error("a subshell")]
    Subshell,
    #[error("the glob `{0}` is not modelled")]
    UnmodelledGlob(String),
    #[error("`{0}` is expanded at run time")]
    ExpandedAtRunTime(String),
    #[error("a bare redirection")]
    BareRedirection,
    #[error("the redirection `{0}` may write")]
    WritingRedirection(String),
    #[error("`cd` in a pipeline")]
    CdInPipeline,
    #[error("an unusual `cd`")]
    UnusualCd,
    #[error("printenv takes at most one variable name here")]
    PrintenvArguments,
    #[error("`{0}` is not a known read-only program")]
    UnknownProgram(String),
    /// `command` is the program with any subcommand (`git branch`).
    #[error("`{command} {option}` is not a known read-only option")]
    UnknownOption { command: String, option: String },
    #[error("`{command} {option}` needs a value")]
    MissingValue { command: String, option: String },
    #[error("`{command}` with more than {limit} file(s) writes the last")]
    WritesLastOperand { command: String, limit: usize },
    #[error("`{0}` with arguments is not read-only")]
    TakesNoArguments(String),
    #[error("`find {0}` is not a known read-only primary")]
    UnknownFindPrimary(String),
    #[error("`sed` without a script")]
    SedWithoutScript,
    #[error("the sed script `{0}` is not a line print")]
    SedScriptNotPrint(String),
    #[error("`git {0}` is not a known read-only global option")]
    UnknownGitGlobalOption(String),
    #[error("`git` without a subcommand")]
    GitWithoutSubcommand,
    #[error("only `git remote [-v]` and `get-url` are read-only")]
    GitRemoteForm,
    #[error("only `git config --get NAME` and `--list` are read-only")]
    GitConfigForm,
    #[error("`git {0}` is not a known read-only subcommand")]
    UnknownGitSubcommand(String),
    /// `git branch x` / `git tag x` create `x`.
    #[error("`{0} NAME` creates `NAME`")]
    Creates(String),
}
