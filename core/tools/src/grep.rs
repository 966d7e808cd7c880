//! Grep: regex search over file contents, built on ripgrep's own crates so it skips
//! exactly what `rg` skips (.gitignore'd, hidden and binary files) and understands the
//! same regex syntax, globs and file types.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
    sinks,
};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::fs;
use super::support::{
    display_path, input_path, input_str, is_file_entry, lenient_bool, lenient_count, modified_time,
    resolve_path, run_blocking, search_walker, sort_newest_first, truncate_line,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

/// Entries (lines, files or counts) returned when the model gives no `head_limit`.
const DEFAULT_HEAD_LIMIT: usize = 250;
/// Matched lines are cut here: minified files otherwise flood the context.
const MAX_LINE_CHARS: usize = 500;
/// Upper bound on collected content lines when the model asks for no limit.
const MAX_CONTENT_LINES: usize = 20_000;
/// Cap on the whole text result; the head is kept since results are ordered.
const MAX_OUTPUT_CHARS: usize = 30_000;

const DESCRIPTION: &str = "Searches file contents with a regular expression (ripgrep syntax, \
e.g. `log.*Error` or `fn\\s+\\w+`; escape literal braces as `\\{`). Searches `path` (a file or \
directory, default: the session's working directory), skipping .gitignore'd, hidden and binary \
files. Narrow the files with `glob` (e.g. `*.rs`, `*.{ts,tsx}`) or `type` (e.g. `rust`, `py`, \
`js`). `output_mode` is `files_with_matches` (default: matching file paths, newest first), \
`content` (matching lines as `path:line:text`, with `-A`/`-B`/`-C` context lines and `-n` line \
numbers, on by default) or `count` (matches per file). `-i` ignores case; `multiline` lets \
patterns span lines and `.` match newlines. `head_limit` (default 250, 0 for no limit) and \
`offset` page through long results. Use this instead of running grep or rg through Bash.";

pub struct GrepTool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

#[derive(Debug, Deserialize)]
struct GrepInput {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default, rename = "type")]
    file_type: Option<String>,
    #[serde(default)]
    output_mode: Option<OutputMode>,
    #[serde(default, rename = "-i", deserialize_with = "lenient_bool")]
    ignore_case: Option<bool>,
    #[serde(default, rename = "-n", deserialize_with = "lenient_bool")]
    line_numbers: Option<bool>,
    #[serde(default, rename = "-A", deserialize_with = "lenient_count")]
    after: Option<usize>,
    #[serde(default, rename = "-B", deserialize_with = "lenient_count")]
    before: Option<usize>,
    #[serde(default, rename = "-C", deserialize_with = "lenient_count")]
    around: Option<usize>,
    #[serde(default, deserialize_with = "lenient_count")]
    context: Option<usize>,
    #[serde(default, deserialize_with = "lenient_count")]
    head_limit: Option<usize>,
    #[serde(default, deserialize_with = "lenient_count")]
    offset: Option<usize>,
    #[serde(default, deserialize_with = "lenient_bool")]
    multiline: Option<bool>,
}

/// The definition, built once per process.
static GREP_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        GrepTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/grep.json")),
    )
});

impl Tool for GrepTool {
    fn name(&self) -> &'static str {
        "Grep"
    }

    fn spec(&self) -> ToolSpec {
        GREP_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    /// The file or directory searched, for read-permission checks.
    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        vec![input_path(input, "path", ctx).unwrap_or_else(|| ctx.cwd.clone())]
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "pattern").map(str::to_string)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: GrepInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let root = match input.path.as_deref().filter(|p| !p.is_empty()) {
                Some(path) => resolve_path(ctx, path),
                None => ctx.cwd.clone(),
            };
            let cancel = ctx.cancel.clone();
            let checked = ctx.checked.clone();
            run_blocking(move || match Search::new(&input, &checked, root, cancel) {
                Ok(search) => search.run(),
                Err(message) => ToolOutput::error(message.to_string()),
            })
            .await
        })
    }
}

/// The checked search root opened by descriptor: a directory to open files below, or
/// the one file searched.
fn open_root(checked: &CheckedPaths, root: &Path) -> Result<Opener, GrepError> {
    let error = |source| GrepError::Open {
        path: root.to_path_buf(),
        source,
    };
    match fs::open_dir(&checked.resolve(root)) {
        Ok(dir) => Ok(Opener::Dir(dir)),
        Err(e @ fs::FsError::Changed { .. }) => Err(error(e)),
        Err(_) => fs::target(checked, root, false)
            .map(Opener::File)
            .map_err(error),
    }
}

/// A validated search: what to look for, where, and how to report it.
struct Search {
    mode: OutputMode,
    matcher: RegexMatcher,
    walker: ignore::WalkBuilder,
    line_numbers: bool,
    before: usize,
    after: usize,
    multiline: bool,
    offset: usize,
    /// `None` means no limit.
    limit: Option<usize>,
    cancel: CancellationToken,
    /// The searched path as given: the walker reports paths under it.
    root: PathBuf,
    /// What the permission phase checked, opened by descriptor: each file is read through
    /// it, so a symlink swapped in during the walk is never read through.
    opener: Opener,
}

/// How a searched file is opened.
enum Opener {
    /// Below the checked directory, refusing symlinks and `..`.
    Dir(fs::Dir),
    /// The checked file itself.
    File(fs::Target),
}

/// Why a Grep search could not start; the text is its error result.
#[derive(Debug, thiserror::Error)]
enum GrepError {
    #[error("Path does not exist: {}", .0.display())]
    NoSuchPath(PathBuf),
    #[error("Invalid regex pattern {pattern:?}: {source}")]
    Pattern {
        pattern: String,
        source: grep_regex::Error,
    },
    /// `glob` is the one glob that was refused, or the whole parameter when building failed.
    #[error("Invalid glob {glob:?}: {source}")]
    Glob { glob: String, source: ignore::Error },
    #[error("Unknown file type {name:?}: {source}")]
    FileType { name: String, source: ignore::Error },
    #[error("Cannot search {}: {}", path.display(), source.reason())]
    Open { path: PathBuf, source: fs::FsError },
}

impl Search {
    fn new(
        input: &GrepInput,
        checked: &CheckedPaths,
        root: PathBuf,
        cancel: CancellationToken,
    ) -> Result<Search, GrepError> {
        if !root.exists() {
            return Err(GrepError::NoSuchPath(root));
        }
        let opener = open_root(checked, &root)?;
        let multiline = input.multiline.unwrap_or(false);
        let matcher = build_matcher(
            &input.pattern,
            input.ignore_case.unwrap_or(false),
            multiline,
        )?;
        let mut walker = search_walker(&root);
        if let Some(globs) = input.glob.as_deref().filter(|g| !g.trim().is_empty()) {
            walker.overrides(build_overrides(&root, globs)?);
        }
        if let Some(name) = input.file_type.as_deref().filter(|t| !t.trim().is_empty()) {
            walker.types(build_types(name)?);
        }
        let mode = input.output_mode.unwrap_or_default();
        // Context only makes sense for content; -C/context set both sides, -A/-B refine.
        let around = input.context.or(input.around).unwrap_or(0);
        let (before, after) = if mode == OutputMode::Content {
            (
                input.before.unwrap_or(around),
                input.after.unwrap_or(around),
            )
        } else {
            (0, 0)
        };
        Ok(Search {
            mode,
            matcher,
            walker,
            line_numbers: input.line_numbers.unwrap_or(true),
            before,
            after,
            multiline,
            offset: input.offset.unwrap_or(0),
            limit: match input.head_limit {
                Some(0) => None,
                Some(n) => Some(n),
                None => Some(DEFAULT_HEAD_LIMIT),
            },
            cancel,
            root,
            opener,
        })
    }

    /// Searches one walked file, opened through what was checked; a file that cannot be
    /// opened that way (gone, or a symlink now) is skipped, as rg skips unreadable files.
    fn search<S: grep_searcher::Sink>(
        &self,
        searcher: &mut Searcher,
        path: &Path,
        sink: S,
    ) -> bool {
        let file = match &self.opener {
            Opener::File(target) => target.open_existing().ok().flatten(),
            Opener::Dir(dir) => path
                .strip_prefix(&self.root)
                .ok()
                .and_then(|relative| dir.open_read_beneath(relative).ok()),
        };
        file.is_some_and(|file| searcher.search_file(&self.matcher, &file, sink).is_ok())
    }

    fn searcher(&self) -> Searcher {
        SearcherBuilder::new()
            // Stop at the first NUL byte, as rg does for files found by walking.
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(true)
            .multi_line(self.multiline)
            .before_context(self.before)
            .after_context(self.after)
            .build()
    }

    fn run(self) -> ToolOutput {
        match self.mode {
            OutputMode::FilesWithMatches => self.files_with_matches(),
            OutputMode::Content => self.content(),
            OutputMode::Count => self.count(),
        }
    }

    /// Calls `visit` with every searchable file under the root, in path order.
    fn for_each_file(&self, mut visit: impl FnMut(&Path) -> bool) -> Result<(), ToolOutput> {
        for entry in self.walker.build().flatten() {
            if self.cancel.is_cancelled() {
                return Err(ToolOutput::error("Interrupted before the search finished."));
            }
            if is_file_entry(&entry) && !visit(entry.path()) {
                break;
            }
        }
        Ok(())
    }

    fn files_with_matches(&self) -> ToolOutput {
        let mut searcher = self.searcher();
        let mut found: Vec<(PathBuf, SystemTime)> = Vec::new();
        let walked = self.for_each_file(|path| {
            let mut matched = false;
            let sink = sinks::Bytes(|_, _| {
                matched = true;
                Ok(false) // One match is enough to list the file.
            });
            if self.search(&mut searcher, path, sink) && matched {
                found.push((path.to_path_buf(), modified_time(path)));
            }
            true
        });
        if let Err(e) = walked {
            return e;
        }
        sort_newest_first(&mut found);
        let paths: Vec<String> = found.iter().map(|(p, _)| display_path(p)).collect();
        let total = paths.len();
        let (page, truncated) = self.page(paths);
        if page.is_empty() {
            return self.no_matches(total);
        }
        let noun = if page.len() == 1 { "file" } else { "files" };
        let text = format!("Found {} {noun}\n{}", page.len(), page.join("\n"));
        let text = self.with_pagination_note(text, truncated);
        ToolOutput::ok(text).with_structured(json!({
            "mode": "files_with_matches",
            "numFiles": page.len(),
            "filenames": page,
            "appliedLimit": self.applied_limit(truncated),
            "appliedOffset": self.applied_offset(),
        }))
    }

    fn content(&self) -> ToolOutput {
        let mut searcher = self.searcher();
        let mut lines: Vec<String> = Vec::new();
        let mut files: Vec<String> = Vec::new();
        // Stop walking once we know whether more lines exist than the page shows.
        let wanted = self.limit.map_or(MAX_CONTENT_LINES, |l| {
            (self.offset + l + 1).min(MAX_CONTENT_LINES)
        });
        let walked = self.for_each_file(|path| {
            let shown = display_path(path);
            let mut sink = ContentSink {
                path: &shown,
                line_numbers: self.line_numbers,
                lines: Vec::new(),
            };
            if self.search(&mut searcher, path, &mut sink) && !sink.lines.is_empty() {
                // rg separates context groups of different files with `--` too.
                if self.before + self.after > 0 && !lines.is_empty() {
                    lines.push("--".to_string());
                }
                lines.append(&mut sink.lines);
                files.push(shown);
            }
            lines.len() < wanted
        });
        if let Err(e) = walked {
            return e;
        }
        let total = lines.len();
        let (page, truncated) = self.page(lines);
        if page.is_empty() {
            return self.no_matches(total);
        }
        let text = truncate_head(&page.join("\n"), MAX_OUTPUT_CHARS);
        let text = self.with_pagination_note(text, truncated);
        ToolOutput::ok(text).with_structured(json!({
            "mode": "content",
            "numFiles": files.len(),
            "filenames": files,
            "content": page.join("\n"),
            "numLines": page.len(),
            "appliedLimit": self.applied_limit(truncated),
            "appliedOffset": self.applied_offset(),
        }))
    }

    fn count(&self) -> ToolOutput {
        let mut searcher = self.searcher();
        let mut counts: Vec<(String, u64)> = Vec::new();
        let walked = self.for_each_file(|path| {
            let mut n = 0u64;
            let sink = sinks::Bytes(|_, _| {
                n += 1;
                Ok(true)
            });
            if self.search(&mut searcher, path, sink) && n > 0 {
                counts.push((display_path(path), n));
            }
            true
        });
        if let Err(e) = walked {
            return e;
        }
        let total = counts.len();
        let (page, truncated) = self.page(counts);
        if page.is_empty() {
            return self.no_matches(total);
        }
        let matches: u64 = page.iter().map(|(_, n)| n).sum();
        let body: Vec<String> = page.iter().map(|(p, n)| format!("{p}:{n}")).collect();
        let occurrences = if matches == 1 {
            "occurrence"
        } else {
            "occurrences"
        };
        let files_noun = if page.len() == 1 { "file" } else { "files" };
        let text = format!(
            "{}\n\nFound {matches} total {occurrences} across {} {files_noun}.",
            body.join("\n"),
            page.len()
        );
        let text = self.with_pagination_note(text, truncated);
        ToolOutput::ok(text).with_structured(json!({
            "mode": "count",
            "numFiles": page.len(),
            "filenames": page.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "content": body.join("\n"),
            "numMatches": matches,
            "appliedLimit": self.applied_limit(truncated),
            "appliedOffset": self.applied_offset(),
        }))
    }

    /// Applies `offset` then `head_limit`; true when entries were left off at the end.
    fn page<T>(&self, entries: Vec<T>) -> (Vec<T>, bool) {
        let mut rest: Vec<T> = entries.into_iter().skip(self.offset).collect();
        let truncated = self.limit.is_some_and(|l| rest.len() > l);
        if let Some(limit) = self.limit {
            rest.truncate(limit);
        }
        (rest, truncated)
    }

    fn no_matches(&self, total_before_offset: usize) -> ToolOutput {
        let text = if total_before_offset > 0 {
            format!("No matches found past offset {}", self.offset)
        } else {
            "No matches found".to_string()
        };
        ToolOutput::ok(text).with_structured(json!({
            "mode": mode_name(self.mode),
            "numFiles": 0,
            "filenames": [],
        }))
    }

    fn with_pagination_note(&self, mut text: String, truncated: bool) -> String {
        if truncated || self.offset > 0 {
            let limit = self.limit.map_or("none".to_string(), |l| l.to_string());
            text.push_str(&format!(
                "\n\n[Showing results with pagination = limit: {limit}, offset: {}]",
                self.offset
            ));
        }
        text
    }

    fn applied_limit(&self, truncated: bool) -> Value {
        match self.limit {
            Some(limit) if truncated => json!(limit),
            _ => Value::Null,
        }
    }

    fn applied_offset(&self) -> Value {
        if self.offset > 0 {
            json!(self.offset)
        } else {
            Value::Null
        }
    }
}

fn mode_name(mode: OutputMode) -> &'static str {
    match mode {
        OutputMode::Content => "content",
        OutputMode::FilesWithMatches => "files_with_matches",
        OutputMode::Count => "count",
    }
}

/// The regex matcher with rg's defaults: `^`/`$` match at line boundaries, and unless
/// searching multiline, a match never spans a line terminator (which lets the searcher
/// work line by line).
fn build_matcher(
    pattern: &str,
    ignore_case: bool,
    multiline: bool,
) -> Result<RegexMatcher, GrepError> {
    let mut builder = RegexMatcherBuilder::new();
    builder.case_insensitive(ignore_case).multi_line(true);
    if multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(pattern).map_err(|source| GrepError::Pattern {
        pattern: pattern.to_string(),
        source,
    })
}

/// The `glob` parameter as rg `--glob` overrides. Several globs may be given separated
/// by spaces or commas; commas inside braces (`*.{ts,tsx}`) belong to the glob.
fn build_overrides(root: &Path, globs: &str) -> Result<ignore::overrides::Override, GrepError> {
    let mut builder = OverrideBuilder::new(root);
    for glob in split_globs(globs) {
        if let Err(source) = builder.add(&glob) {
            return Err(GrepError::Glob { glob, source });
        }
    }
    builder.build().map_err(|source| GrepError::Glob {
        glob: globs.to_string(),
        source,
    })
}

fn split_globs(globs: &str) -> Vec<String> {
    globs
        .split_whitespace()
        .flat_map(|part| {
            if part.contains('{') {
                vec![part.to_string()]
            } else {
                part.split(',')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            }
        })
        .collect()
}

/// rg's built-in file types (`rust`, `py`, `js`, …) narrowed to the one asked for.
fn build_types(name: &str) -> Result<ignore::types::Types, GrepError> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    builder.select(name.trim());
    builder.build().map_err(|source| GrepError::FileType {
        name: name.to_string(),
        source,
    })
}

/// Keeps the first `max_chars` characters of results that are already ordered.
fn truncate_head(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!(
            "{}\n\n... [output truncated at {max_chars} characters; narrow the search or page with offset] ...",
            &text[..cut]
        ),
        None => text.to_string(),
    }
}

/// Collects matching and context lines in rg's format: `path:N:text` for matches,
/// `path-N-text` for context, `--` between non-adjacent groups.
struct ContentSink<'p> {
    path: &'p str,
    line_numbers: bool,
    lines: Vec<String>,
}

impl ContentSink<'_> {
    fn push(&mut self, separator: char, line_number: Option<u64>, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let text = truncate_line(text, MAX_LINE_CHARS);
        let line = match (self.line_numbers, line_number) {
            (true, Some(n)) => format!("{}{separator}{n}{separator}{text}", self.path),
            _ => format!("{}{separator}{text}", self.path),
        };
        self.lines.push(line);
    }
}

impl Sink for ContentSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        // A multiline match spans several lines; each is shown with its own number.
        let first = found.line_number();
        for (i, line) in found.lines().enumerate() {
            self.push(':', first.map(|n| n + i as u64), line);
        }
        Ok(self.lines.len() < MAX_CONTENT_LINES)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if matches!(
            context.kind(),
            SinkContextKind::Before | SinkContextKind::After
        ) {
            self.push('-', context.line_number(), context.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        self.lines.push("--".to_string());
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::fs;

    /// A tree with what rg must skip: a .gitignore'd dir and file, a binary file, a
    /// hidden dir; and nested directories it must enter.
    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, body: &[u8]| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, body).unwrap();
        };
        // An (empty) .git marks a repository, so .gitignore applies as in rg.
        fs::create_dir(root.join(".git")).unwrap();
        write(".gitignore", b"ignored/\n*.log\n");
        write("a.txt", b"needle one\nother\nneedle two\n");
        write("src/lib.rs", b"fn main() {}\nfn needle() {}\n");
        write("src/deep/nested/x.md", b"# Title\nNEEDLE upper\n");
        write("src/deep/nested/y.py", b"def needle():\n    pass\n");
        write("ignored/skip.txt", b"needle\n");
        write("debug.log", b"needle\n");
        write(".hidden/h.txt", b"needle\n");
        write("bin.dat", b"\x00\x01\x02needle\n");
        write("plain.txt", b"nothing here\n");
        dir
    }

    async fn grep(root: &Path, input: Value) -> ToolOutput {
        GrepTool
            .call(input, &ToolContext::new(root.to_path_buf()))
            .await
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    /// Paths listed in a files_with_matches result, relative to `root`.
    fn listed_files(out: &ToolOutput, root: &Path) -> BTreeSet<String> {
        text(out)
            .lines()
            .skip(1)
            .map(|l| {
                Path::new(l)
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    fn rg_files(root: &Path, args: &[&str]) -> Option<BTreeSet<String>> {
        let output = std::process::Command::new("rg")
            .args(args)
            .current_dir(root)
            .output()
            .ok()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        Some(
            stdout
                .lines()
                .map(|l| l.trim_start_matches("./").to_string())
                .collect(),
        )
    }

    #[tokio::test]
    async fn file_list_matches_ripgrep() {
        let dir = fixture();
        let root = dir.path();
        let cases: [(&[&str], Value); 3] = [
            (&["-l", "needle"], json!({"pattern": "needle"})),
            (
                &["-l", "-i", "needle"],
                json!({"pattern": "needle", "-i": true}),
            ),
            (
                &["-l", "--type", "rust", "needle"],
                json!({"pattern": "needle", "type": "rust"}),
            ),
        ];
        for (rg_args, input) in cases {
            let out = grep(root, input.clone()).await;
            assert!(!out.is_error, "{out:?}");
            let ours = listed_files(&out, root);
            match rg_files(root, rg_args) {
                Some(theirs) => assert_eq!(ours, theirs, "differs from rg {rg_args:?}"),
                None => eprintln!("note: rg is not on PATH; skipped the comparison for {input}"),
            }
        }
        // Independently of rg: what must and must not be found.
        let out = grep(root, json!({"pattern": "needle"})).await;
        let expected: BTreeSet<String> = ["a.txt", "src/lib.rs", "src/deep/nested/y.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(listed_files(&out, root), expected);
        assert!(text(&out).starts_with("Found 3 files\n"));
    }

    #[tokio::test]
    async fn files_are_listed_newest_first() {
        let dir = fixture();
        let root = dir.path();
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        for rel in ["a.txt", "src/deep/nested/y.py"] {
            fs::File::options()
                .write(true)
                .open(root.join(rel))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let out = grep(root, json!({"pattern": "needle"})).await;
        let first = text(&out).lines().nth(1).unwrap().to_string();
        assert_eq!(first, display_path(&root.join("src/lib.rs")));
    }

    #[tokio::test]
    async fn content_mode_with_line_numbers_and_context() {
        let dir = fixture();
        let root = dir.path();
        let a = display_path(&root.join("a.txt"));
        let out = grep(
            root,
            json!({"pattern": "needle", "path": "a.txt", "output_mode": "content"}),
        )
        .await;
        assert_eq!(text(&out), format!("{a}:1:needle one\n{a}:3:needle two"));
        let out = grep(
            root,
            json!({"pattern": "two", "path": "a.txt", "output_mode": "content", "-B": 1, "-n": false}),
        )
        .await;
        assert_eq!(text(&out), format!("{a}-other\n{a}:needle two"));
        let out = grep(
            root,
            json!({"pattern": "one", "path": "a.txt", "output_mode": "content", "-C": 1}),
        )
        .await;
        assert_eq!(text(&out), format!("{a}:1:needle one\n{a}-2-other"));
    }

    #[tokio::test]
    async fn context_groups_are_separated() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=20)
            .map(|i| {
                if i == 2 || i == 15 {
                    "hit\n".to_string()
                } else {
                    format!("l{i}\n")
                }
            })
            .collect();
        fs::write(dir.path().join("f.txt"), body).unwrap();
        let out = grep(
            dir.path(),
            json!({"pattern": "hit", "output_mode": "content", "context": 1}),
        )
        .await;
        let f = display_path(&dir.path().join("f.txt"));
        assert_eq!(
            text(&out),
            format!("{f}-1-l1\n{f}:2:hit\n{f}-3-l3\n--\n{f}-14-l14\n{f}:15:hit\n{f}-16-l16")
        );
    }

    #[tokio::test]
    async fn count_mode() {
        let dir = fixture();
        let root = dir.path();
        let out = grep(
            root,
            json!({"pattern": "needle", "output_mode": "count", "glob": "*.txt"}),
        )
        .await;
        let a = display_path(&root.join("a.txt"));
        assert_eq!(
            text(&out),
            format!("{a}:2\n\nFound 2 total occurrences across 1 file.")
        );
        assert_eq!(out.structured.unwrap()["numMatches"], 2);
    }

    #[tokio::test]
    async fn glob_filter_uses_rg_semantics() {
        let dir = fixture();
        let root = dir.path();
        // `*.py` matches at any depth, like rg --glob; brace lists work.
        let out = grep(root, json!({"pattern": "needle", "glob": "*.{py,rs}"})).await;
        let expected: BTreeSet<String> = ["src/lib.rs", "src/deep/nested/y.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(listed_files(&out, root), expected);
        let out = grep(root, json!({"pattern": "needle", "glob": "*.py, *.txt"})).await;
        assert_eq!(listed_files(&out, root).len(), 2);
    }

    #[tokio::test]
    async fn case_insensitive_and_multiline() {
        let dir = fixture();
        let root = dir.path();
        let out = grep(root, json!({"pattern": "NEEDLE upper"})).await;
        assert_eq!(listed_files(&out, root).len(), 1);
        let out = grep(root, json!({"pattern": "needle upper", "-i": true})).await;
        assert_eq!(listed_files(&out, root).len(), 1);
        let out = grep(root, json!({"pattern": "needle\\(\\):\\n\\s+pass"})).await;
        assert!(out.is_error, "a newline needs multiline: {}", text(&out));
        let out = grep(
            root,
            json!({"pattern": "def needle.*pass", "multiline": true, "output_mode": "content"}),
        )
        .await;
        let y = display_path(&root.join("src/deep/nested/y.py"));
        assert_eq!(text(&out), format!("{y}:1:def needle():\n{y}:2:    pass"));
    }

    #[tokio::test]
    async fn head_limit_and_offset_page_results() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=10).map(|i| format!("m{i}\n")).collect();
        fs::write(dir.path().join("f.txt"), body).unwrap();
        let f = display_path(&dir.path().join("f.txt"));
        let out = grep(
            dir.path(),
            json!({"pattern": "m", "output_mode": "content", "head_limit": 2, "offset": 3}),
        )
        .await;
        assert_eq!(
            text(&out),
            format!(
                "{f}:4:m4\n{f}:5:m5\n\n[Showing results with pagination = limit: 2, offset: 3]"
            )
        );
        let out = grep(
            dir.path(),
            json!({"pattern": "m", "output_mode": "content", "head_limit": 0}),
        )
        .await;
        assert_eq!(text(&out).lines().count(), 10);
    }

    #[tokio::test]
    async fn default_head_limit_is_250() {
        let dir = tempfile::tempdir().unwrap();
        let body = "x\n".repeat(300);
        fs::write(dir.path().join("f.txt"), body).unwrap();
        let out = grep(
            dir.path(),
            json!({"pattern": "x", "output_mode": "content"}),
        )
        .await;
        let t = text(&out);
        assert_eq!(t.lines().filter(|l| l.ends_with(":x")).count(), 250);
        assert!(t.contains("limit: 250"));
    }

    #[tokio::test]
    async fn no_matches_and_errors() {
        let dir = fixture();
        let root = dir.path();
        let out = grep(root, json!({"pattern": "zzz_absent"})).await;
        assert!(!out.is_error);
        assert_eq!(text(&out), "No matches found");
        let out = grep(root, json!({"pattern": "("})).await;
        assert!(out.is_error);
        let out = grep(root, json!({"pattern": "x", "type": "no-such-type"})).await;
        assert!(out.is_error);
        let out = grep(root, json!({"pattern": "x", "path": "missing"})).await;
        assert!(out.is_error);
        let out = grep(root, json!({"pattern": "x", "output_mode": "lines"})).await;
        assert!(out.is_error);
    }

    #[test]
    fn split_globs_keeps_brace_commas() {
        assert_eq!(
            split_globs("*.{ts,tsx} *.js,*.jsx"),
            ["*.{ts,tsx}", "*.js", "*.jsx"]
        );
    }

    #[test]
    fn metadata() {
        assert_eq!(GrepTool.kind(), ToolKind::Read);
        let schema = GrepTool.spec().input_schema().clone();
        assert_eq!(schema["required"], json!(["pattern"]));
        assert_eq!(schema["additionalProperties"], false);
        let mut keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "-A",
                "-B",
                "-C",
                "-i",
                "-n",
                "context",
                "glob",
                "head_limit",
                "multiline",
                "offset",
                "output_mode",
                "path",
                "pattern",
                "type"
            ]
        );
        assert_eq!(
            schema["properties"]["output_mode"]["enum"],
            json!(["content", "files_with_matches", "count"])
        );
    }
}
