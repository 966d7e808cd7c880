//! Glob: files whose path matches a glob pattern, newest first. Walks like ripgrep:
//! `.gitignore`d and hidden files are skipped.

use std::path::{Component, Path, PathBuf};
use std::time::{Instant, SystemTime};

use globset::GlobBuilder;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::fs;
use super::support::{
    display_path, input_path, input_str, is_file_entry, normalize_lexically, resolve_path,
    run_blocking, search_walker, sort_newest_first,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

/// Paths returned at most; past this the model should narrow the pattern.
const MAX_RESULTS: usize = 100;

const DESCRIPTION: &str = "Fast file pattern matching that works on any codebase size. Takes \
a glob pattern such as `**/*.rs` or `src/**/*.{ts,tsx}` (`*` stays within one directory, `**` \
crosses directories) and returns the absolute paths of matching files, most recently modified \
first. The pattern is matched against paths relative to `path` (default: the session's \
working directory). Files ignored by .gitignore and hidden files are skipped, unless the \
pattern names a hidden file or directory. At most 100 paths are returned. Use Grep to search \
file contents.";

pub struct GlobTool;

#[derive(Debug, Deserialize)]
struct GlobInput {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

/// The definition, built once per process.
static GLOB_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        GlobTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/glob.json")),
    )
});

impl Tool for GlobTool {
    fn name(&self) -> &'static str {
        "Glob"
    }

    fn spec(&self) -> ToolSpec {
        GLOB_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    /// The directory searched, for read-permission checks.
    /// Where the walk really starts: an absolute or `../` pattern moves it out of `path`,
    /// so permission checks must see that directory, not the nominal root.
    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        let root = input_path(input, "path", ctx).unwrap_or_else(|| ctx.cwd.clone());
        match input_str(input, "pattern") {
            Some(pattern) => vec![split_literal_prefix(&root, pattern).0],
            None => vec![root],
        }
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "pattern").map(str::to_string)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: GlobInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let root = match input.path.as_deref().filter(|p| !p.is_empty()) {
                Some(path) => resolve_path(ctx, path),
                None => ctx.cwd.clone(),
            };
            let cancel = ctx.cancel.clone();
            let checked = ctx.checked.clone();
            run_blocking(move || glob(&checked, &root, &input.pattern, &cancel)).await
        })
    }
}

fn glob(
    checked: &CheckedPaths,
    root: &Path,
    pattern: &str,
    cancel: &CancellationToken,
) -> ToolOutput {
    let started = Instant::now();
    if !root.is_dir() {
        return ToolOutput::error(if root.exists() {
            format!("Path is not a directory: {}", root.display())
        } else {
            format!("Directory does not exist: {}", root.display())
        });
    }
    let (base, relative_pattern) = split_literal_prefix(root, pattern);
    let matcher = match GlobBuilder::new(&relative_pattern)
        .literal_separator(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher(),
        Err(e) => return ToolOutput::error(format!("Invalid glob pattern {pattern:?}: {e}")),
    };

    let mut found: Vec<(PathBuf, SystemTime)> = Vec::new();
    let mut changed = 0usize;
    if base.is_dir() {
        // The walker does not follow links, but a directory swapped for one during the
        // walk is entered by path: every match is confirmed below what was checked, by
        // descriptor, refusing symlinks, before it is listed.
        let checked_dir = match fs::open_dir(&checked.resolve(&base)) {
            Ok(dir) => dir,
            Err(e) => {
                return ToolOutput::error(format!(
                    "Cannot search {}: {}",
                    base.display(),
                    e.reason()
                ));
            }
        };
        let mut walker = search_walker(&base);
        // Without this a pattern like `**/.env` could never match anything.
        walker.hidden(!names_hidden_entry(&relative_pattern));
        for entry in walker.build().flatten() {
            if cancel.is_cancelled() {
                return ToolOutput::error("Interrupted before the search finished.");
            }
            if !is_file_entry(&entry) {
                continue;
            }
            let path = entry.path();
            let relative = path.strip_prefix(&base).unwrap_or(path);
            if matcher.is_match(relative) {
                match checked_dir.open_read_beneath(relative) {
                    Ok(file) => {
                        let modified = file
                            .metadata()
                            .and_then(|m| m.modified())
                            .unwrap_or(SystemTime::UNIX_EPOCH);
                        found.push((path.to_path_buf(), modified));
                    }
                    Err(fs::FsError::Changed { .. }) => changed += 1,
                    // Gone since it was listed.
                    Err(_) => {}
                }
            }
        }
    }
    sort_newest_first(&mut found);
    render(found, started, changed)
}

/// `changed`: matches left out because a symlink appeared in their path mid-walk.
fn render(mut found: Vec<(PathBuf, SystemTime)>, started: Instant, changed: usize) -> ToolOutput {
    let truncated = found.len() > MAX_RESULTS;
    found.truncate(MAX_RESULTS);
    let filenames: Vec<String> = found.iter().map(|(p, _)| display_path(p)).collect();
    let mut text = if filenames.is_empty() {
        "No files found".to_string()
    } else {
        filenames.join("\n")
    };
    if truncated {
        text.push_str("\n(Results are truncated. Consider using a more specific path or pattern.)");
    }
    if changed > 0 {
        text.push_str(&format!(
            "\n({changed} match(es) left out: a symlink appeared in their path during the search.)"
        ));
    }
    ToolOutput::ok(text).with_structured(json!({
        "filenames": filenames,
        "durationMs": started.elapsed().as_millis() as u64,
        "numFiles": found.len(),
        "truncated": truncated,
    }))
}

/// Moves the pattern's leading glob-free directories into the directory walked:
/// `src/**/*.rs` under `/p` walks `/p/src` for `**/*.rs`, and an absolute pattern walks
/// from its own literal prefix. This avoids walking unrelated trees, and lets a literal
/// hidden directory (`.github/workflows/*.yml`) be searched, since the walk's root is
/// never filtered out.
fn split_literal_prefix(root: &Path, pattern: &str) -> (PathBuf, String) {
    let joined = root.join(pattern.strip_prefix("./").unwrap_or(pattern));
    let components: Vec<Component> = joined.components().collect();
    let first_glob = components
        .iter()
        .position(|c| has_glob_meta(&c.as_os_str().to_string_lossy()))
        // A pattern without metacharacters names one file: match its last component.
        .unwrap_or(components.len().saturating_sub(1));
    let base: PathBuf = components[..first_glob].iter().collect();
    let rest: Vec<String> = components[first_glob..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (normalize_lexically(&base), rest.join("/"))
}

fn has_glob_meta(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// Whether some component of the pattern starts with a dot, i.e. asks for hidden files.
fn names_hidden_entry(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|part| part.starts_with('.') && part != "." && part != "..")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    async fn glob_in(dir: &Path, input: Value) -> ToolOutput {
        GlobTool
            .call(input, &ToolContext::new(dir.to_path_buf()))
            .await
    }

    fn lines(out: &ToolOutput) -> Vec<String> {
        out.content.to_text().lines().map(str::to_string).collect()
    }

    fn touch(path: &Path, age_secs: u64) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, "x").unwrap();
        let mtime = SystemTime::now() - Duration::from_secs(age_secs);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    #[tokio::test]
    async fn newest_first_absolute_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(&root.join("old.rs"), 300);
        touch(&root.join("src/new.rs"), 10);
        touch(&root.join("src/deep/mid.rs"), 100);
        touch(&root.join("notes.txt"), 1);
        let out = glob_in(root, json!({"pattern": "**/*.rs"})).await;
        assert!(!out.is_error);
        let expected: Vec<String> = ["src/new.rs", "src/deep/mid.rs", "old.rs"]
            .iter()
            .map(|p| display_path(&root.join(p)))
            .collect();
        assert_eq!(lines(&out), expected);
        let s = out.structured.unwrap();
        assert_eq!(s["numFiles"], 3);
        assert_eq!(s["truncated"], false);
    }

    #[tokio::test]
    async fn single_star_does_not_cross_directories() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("top.md"), 0);
        touch(&dir.path().join("docs/inner.md"), 0);
        let out = glob_in(dir.path(), json!({"pattern": "*.md"})).await;
        assert_eq!(lines(&out), vec![display_path(&dir.path().join("top.md"))]);
        let out = glob_in(dir.path(), json!({"pattern": "docs/*.md"})).await;
        assert_eq!(
            lines(&out),
            vec![display_path(&dir.path().join("docs/inner.md"))]
        );
    }

    #[tokio::test]
    async fn respects_gitignore_and_skips_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join(".git")).unwrap();
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        touch(&root.join("keep.txt"), 0);
        touch(&root.join("debug.log"), 0);
        touch(&root.join("target/out.txt"), 0);
        touch(&root.join(".hidden/secret.txt"), 0);
        let out = glob_in(root, json!({"pattern": "**/*"})).await;
        assert_eq!(lines(&out), vec![display_path(&root.join("keep.txt"))]);
    }

    #[tokio::test]
    async fn patterns_naming_hidden_entries_find_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(&root.join(".github/workflows/ci.yml"), 0);
        touch(&root.join("app/.env"), 0);
        let out = glob_in(root, json!({"pattern": ".github/workflows/*.yml"})).await;
        assert_eq!(
            lines(&out),
            vec![display_path(&root.join(".github/workflows/ci.yml"))]
        );
        let out = glob_in(root, json!({"pattern": "**/.env"})).await;
        assert_eq!(lines(&out), vec![display_path(&root.join("app/.env"))]);
    }

    #[tokio::test]
    async fn path_and_absolute_patterns() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(&root.join("sub/a.rs"), 0);
        touch(&root.join("b.rs"), 0);
        let out = glob_in(root, json!({"pattern": "*.rs", "path": "sub"})).await;
        assert_eq!(lines(&out), vec![display_path(&root.join("sub/a.rs"))]);
        let absolute = format!("{}/sub/*.rs", root.display());
        let out = glob_in(Path::new("/"), json!({"pattern": absolute})).await;
        assert_eq!(lines(&out), vec![display_path(&root.join("sub/a.rs"))]);
    }

    #[tokio::test]
    async fn caps_results_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..105 {
            touch(&dir.path().join(format!("f{i}.txt")), i);
        }
        let out = glob_in(dir.path(), json!({"pattern": "*.txt"})).await;
        let l = lines(&out);
        assert_eq!(l.len(), 101);
        assert_eq!(l[0], display_path(&dir.path().join("f0.txt")));
        assert!(l[100].contains("Results are truncated"));
        assert_eq!(out.structured.unwrap()["truncated"], true);
    }

    #[tokio::test]
    async fn no_files_found_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let out = glob_in(dir.path(), json!({"pattern": "*.zig"})).await;
        assert!(!out.is_error);
        assert_eq!(out.content.to_text(), "No files found");
        let out = glob_in(dir.path(), json!({"pattern": "*", "path": "missing"})).await;
        assert!(out.is_error);
        assert!(out.content.to_text().contains("does not exist"));
        let out = glob_in(dir.path(), json!({"pattern": "a[", "path": "."})).await;
        assert!(out.is_error);
    }

    #[test]
    fn permission_paths_follow_absolute_and_parent_patterns() {
        let ctx = ToolContext::new(PathBuf::from("/proj"));
        assert_eq!(
            GlobTool.paths(&json!({"pattern": "**/*.rs"}), &ctx),
            vec![PathBuf::from("/proj")]
        );
        assert_eq!(
            GlobTool.paths(&json!({"pattern": "/etc/*"}), &ctx),
            vec![PathBuf::from("/etc")]
        );
        assert_eq!(
            GlobTool.paths(&json!({"pattern": "../other/**"}), &ctx),
            vec![PathBuf::from("/other")]
        );
    }

    #[test]
    fn split_literal_prefix_moves_plain_dirs_into_base() {
        let root = Path::new("/p");
        assert_eq!(
            split_literal_prefix(root, "src/**/*.rs"),
            (PathBuf::from("/p/src"), "**/*.rs".to_string())
        );
        assert_eq!(
            split_literal_prefix(root, "./README.md"),
            (PathBuf::from("/p"), "README.md".to_string())
        );
        assert_eq!(
            split_literal_prefix(root, "/abs/../x/*.txt"),
            (PathBuf::from("/x"), "*.txt".to_string())
        );
    }

    #[test]
    fn metadata() {
        assert_eq!(GlobTool.kind(), ToolKind::Read);
        let schema = GlobTool.spec().input_schema().clone();
        assert_eq!(schema["required"], json!(["pattern"]));
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["pattern", "path"]);
        let ctx = ToolContext::new(PathBuf::from("/p"));
        assert_eq!(
            GlobTool.paths(&json!({"pattern": "*"}), &ctx),
            vec![PathBuf::from("/p")]
        );
    }
}
