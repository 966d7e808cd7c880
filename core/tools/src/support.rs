//! Helpers shared by the built-in tools: input schemas, lenient number/boolean input,
//! path normalisation, structured patches, output truncation and the
//! ripgrep-like directory walker used by Glob and Grep.

use std::cmp::Reverse;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

use super::{ToolContext, ToolOutput};

/// The JSON Schema dialect the reference CLI declares on every tool.
const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A tool input schema in the reference's exact shape: keys in the same order,
/// `additionalProperties: false`.
pub fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "$schema": SCHEMA_DIALECT,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// `path` made absolute against the session cwd and normalised lexically (`.` and `..`
/// removed), like Node's `path.resolve`. Permission checks compare these paths with
/// allowed directories, so `cwd/../etc` must show up as `/etc`, not as a path under cwd.
pub(crate) fn resolve_path(ctx: &ToolContext, path: &str) -> PathBuf {
    normalize_lexically(&ctx.resolve(path))
}

pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            // `pop` on the root is a no-op, so `/..` stays `/` as on a real filesystem.
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The resolved path held in a string field of raw (not yet validated) tool input,
/// for `Tool::paths`; nothing when the field is missing or not a string.
pub(crate) fn input_path(input: &Value, key: &str, ctx: &ToolContext) -> Option<PathBuf> {
    input
        .get(key)
        .and_then(Value::as_str)
        .map(|p| resolve_path(ctx, p))
}

/// A string field of raw tool input, for `Tool::describe`.
pub(crate) fn input_str<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    input.get(key).and_then(Value::as_str)
}

/// The last component of a path, for short approval-prompt descriptions.
pub(crate) fn file_name_of(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// Deserializes an optional non-negative count. Models send `5`, `5.0` and sometimes
/// `"5"` for the same thing; all are accepted (fractions are rounded down), while
/// negative or non-numeric values are rejected with a clear message.
pub(crate) fn lenient_count<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    let Some(value) = Option::<Value>::deserialize(de)? else {
        return Ok(None);
    };
    let number = match &value {
        Value::Null => return Ok(None),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match number {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n.floor() as usize)),
        _ => Err(serde::de::Error::custom(format!(
            "expected a non-negative number, got {value}"
        ))),
    }
}

/// Deserializes an optional boolean, also accepting the strings `"true"`/`"false"`
/// that models occasionally send.
pub(crate) fn lenient_bool<'de, D: Deserializer<'de>>(de: D) -> Result<Option<bool>, D::Error> {
    let Some(value) = Option::<Value>::deserialize(de)? else {
        return Ok(None);
    };
    match &value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::String(s) if s == "true" => Ok(Some(true)),
        Value::String(s) if s == "false" => Ok(Some(false)),
        _ => Err(serde::de::Error::custom(format!(
            "expected a boolean, got {value}"
        ))),
    }
}

/// Runs blocking filesystem work off the async runtime. A panic in `work` becomes an
/// error result rather than taking the session down.
pub(crate) async fn run_blocking<F>(work: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(output) => output,
        Err(e) => ToolOutput::error(format!("internal error: tool task failed: {e}")),
    }
}

/// What a path is when it is neither a regular file nor a directory: opening a FIFO
/// blocks until a writer comes, reading a device can go on forever, and a socket cannot
/// be read at all, so the file tools name the kind instead of opening it. `None` for
/// regular files, directories and paths that do not exist (the caller reports those).
/// Follows symlinks, as opening the path would.
#[cfg(unix)]
pub(crate) fn special_file_kind(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = fs::metadata(path).ok()?.file_type();
    if file_type.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// Windows has no FIFOs or device nodes among ordinary paths; anything neither a file
/// nor a directory is named as special all the same.
#[cfg(not(unix))]
pub(crate) fn special_file_kind(path: &Path) -> Option<&'static str> {
    let file_type = fs::metadata(path).ok()?.file_type();
    (!file_type.is_file() && !file_type.is_dir()).then_some("a special file")
}

/// Why a writing tool would not touch a path; the text is the tool's error result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileToolError {
    #[error("{} is {kind}, not a regular file; {tool} only changes regular files.", path.display())]
    SpecialFile {
        path: PathBuf,
        kind: &'static str,
        tool: &'static str,
    },
}

/// The error a writing tool gives for a special file, before it opens anything.
pub(crate) fn refuse_special_file(tool: &'static str, path: &Path) -> Result<(), FileToolError> {
    match special_file_kind(path) {
        Some(kind) => Err(FileToolError::SpecialFile {
            path: path.to_path_buf(),
            kind,
            tool,
        }),
        None => Ok(()),
    }
}

/// Hunks of a line diff between two texts, in the shape of jsdiff's `structuredPatch`
/// (what the reference puts in `tool_use_result.structuredPatch`): 1-based starts,
/// 3 lines of context, lines prefixed with `-`, `+` or a space.
pub(crate) fn structured_patch(old: &str, new: &str) -> Value {
    let diff = similar::TextDiff::from_lines(old, new);
    let hunks: Vec<Value> = diff
        .grouped_ops(3)
        .iter()
        .filter_map(|group| {
            let first = group.first()?;
            let last = group.last()?;
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let lines: Vec<String> = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| {
                    let sign = match change.tag() {
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                        similar::ChangeTag::Equal => ' ',
                    };
                    let text = change.value();
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    let text = text.strip_suffix('\r').unwrap_or(text);
                    format!("{sign}{text}")
                })
                .collect();
            Some(json!({
                "oldStart": hunk_start(&old_range),
                "oldLines": old_range.len(),
                "newStart": hunk_start(&new_range),
                "newLines": new_range.len(),
                "lines": lines,
            }))
        })
        .collect();
    Value::Array(hunks)
}

/// Unified-diff convention: a non-empty range starts at its first line (1-based); an
/// empty one names the line *after which* the change happens.
fn hunk_start(range: &std::ops::Range<usize>) -> usize {
    if range.is_empty() {
        range.start
    } else {
        range.start + 1
    }
}

/// Keeps the head and tail of a long text, replacing the middle with a marker, so the
/// model sees both how a command started and how it ended.
pub(crate) fn truncate_middle(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let half = max_chars / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(total - half).collect();
    format!(
        "{head}\n\n... [{} characters truncated] ...\n\n{tail}",
        total - 2 * half
    )
}

/// Cuts a line to `max_chars` characters, marking the cut.
pub(crate) fn truncate_line(line: &str, max_chars: usize) -> String {
    match line.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}... [line truncated]", &line[..cut]),
        None => line.to_string(),
    }
}

/// A directory walker that skips what ripgrep skips by default: hidden files,
/// `.gitignore`d files (inside git repositories), `.ignore` and `.rgignore` entries.
/// Entries are sorted by name so results do not depend on directory order.
pub(crate) fn search_walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .add_custom_ignore_filename(".rgignore")
        .sort_by_file_name(|a, b| a.cmp(b));
    builder
}

/// Whether a walker entry is a regular file (symlinks are not followed, as in rg).
pub(crate) fn is_file_entry(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

/// Sorts paths newest-modified first (ties by path), the order the reference uses for
/// file lists: recently touched files are usually the relevant ones.
pub(crate) fn sort_newest_first(paths: &mut [(PathBuf, SystemTime)]) {
    paths.sort_by(|(pa, ta), (pb, tb)| Reverse(ta).cmp(&Reverse(tb)).then_with(|| pa.cmp(pb)));
}

/// A file's modification time, or the epoch when it cannot be read.
pub(crate) fn modified_time(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The path as text for tool output.
pub(crate) fn display_path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(out: &ToolOutput) -> String {
        match &out.content {
            dcl_protocol::ToolResultContent::Text(t) => t.clone(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn special_files_are_named_and_regular_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let regular = dir.path().join("plain.txt");
        fs::write(&regular, "x").unwrap();
        assert_eq!(special_file_kind(&fifo), Some("a FIFO (named pipe)"));
        assert_eq!(special_file_kind(&socket), Some("a socket"));
        // Only detected, never opened.
        assert_eq!(
            special_file_kind(Path::new("/dev/null")),
            Some("a character device")
        );
        assert_eq!(special_file_kind(&regular), None);
        assert_eq!(special_file_kind(dir.path()), None);
        assert_eq!(special_file_kind(&dir.path().join("missing")), None);
        let e = refuse_special_file("Write", &fifo).unwrap_err().to_string();
        assert!(e.contains("FIFO") && e.contains("Write"), "{e}");
        assert!(refuse_special_file("Write", &regular).is_ok());
    }

    /// Each file tool on a FIFO answers at once (a hang fails the test after 30 s);
    /// the writers refuse it, Read says what it is, and the FIFO is still a FIFO.
    #[tokio::test]
    async fn file_tools_refuse_a_fifo_without_blocking() {
        use super::super::Tool;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.ipynb");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let path = fifo.display().to_string();
        let ctx = ToolContext::new(dir.path().to_path_buf());
        let calls: Vec<(Box<dyn Tool>, Value)> = vec![
            (
                Box::new(super::super::write::WriteTool),
                json!({"file_path": path, "content": "x"}),
            ),
            (
                Box::new(super::super::edit::EditTool),
                json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            ),
            (
                Box::new(super::super::notebook_edit::NotebookEditTool),
                json!({"notebook_path": path, "cell_id": "0", "new_source": "x"}),
            ),
            (
                Box::new(super::super::read::ReadTool),
                json!({"file_path": path}),
            ),
        ];
        for (tool, input) in calls {
            let out =
                tokio::time::timeout(std::time::Duration::from_secs(30), tool.call(input, &ctx))
                    .await
                    .unwrap_or_else(|_| panic!("{} blocked on a FIFO", tool.name()));
            let text = text_of(&out);
            assert!(out.is_error, "{}: {text}", tool.name());
            assert!(
                text.contains("is a FIFO (named pipe), not a regular file"),
                "{}: {text}",
                tool.name()
            );
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[tokio::test]
    async fn a_socket_is_refused_by_write_and_named_by_read() {
        use super::super::Tool;
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let path = socket.display().to_string();
        let ctx = ToolContext::new(dir.path().to_path_buf());
        let out = super::super::write::WriteTool
            .call(json!({"file_path": path, "content": "x"}), &ctx)
            .await;
        assert!(
            out.is_error && text_of(&out).contains("is a socket"),
            "{out:?}"
        );
        let out = super::super::read::ReadTool
            .call(json!({"file_path": path}), &ctx)
            .await;
        assert!(
            out.is_error && text_of(&out).contains("is a socket"),
            "{out:?}"
        );
    }

    /// The positive twin: a regular file next to the FIFO is still written.
    #[tokio::test]
    async fn a_regular_file_is_still_written() {
        use super::super::Tool;
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path().to_path_buf());
        let target = dir.path().join("ok.txt");
        let out = super::super::write::WriteTool
            .call(
                json!({"file_path": target.display().to_string(), "content": "x"}),
                &ctx,
            )
            .await;
        assert!(!out.is_error, "{out:?}");
        assert_eq!(fs::read_to_string(&target).unwrap(), "x");
    }

    #[test]
    fn resolve_path_normalises_dots_against_session_cwd() {
        let ctx = ToolContext::new(PathBuf::from("/work/proj"));
        assert_eq!(
            resolve_path(&ctx, "a/./b/../c"),
            PathBuf::from("/work/proj/a/c")
        );
        assert_eq!(
            resolve_path(&ctx, "../../etc/passwd"),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(resolve_path(&ctx, "/x/../../y"), PathBuf::from("/y"));
    }

    #[test]
    fn structured_patch_matches_jsdiff_shape() {
        let patch = structured_patch("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(
            patch,
            json!([{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                    "lines": [" a", "-b", "+B", " c"]}])
        );
        assert_eq!(structured_patch("same\n", "same\n"), json!([]));
    }

    #[test]
    fn structured_patch_splits_distant_changes_into_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                19 => "nineteen\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        let patch = structured_patch(&old, &new);
        let hunks = patch.as_array().map(Vec::len);
        assert_eq!(hunks, Some(2));
        assert_eq!(patch[1]["oldStart"], 16);
    }

    #[test]
    fn truncate_middle_keeps_head_and_tail() {
        let text = format!("{}{}", "h".repeat(100), "t".repeat(100));
        let out = truncate_middle(&text, 20);
        assert!(out.starts_with("hhhhhhhhhh\n"));
        assert!(out.ends_with("\ntttttttttt"));
        assert!(out.contains("... [180 characters truncated] ..."));
        assert_eq!(truncate_middle("short", 20), "short");
    }

    #[test]
    fn truncate_line_respects_char_boundaries() {
        assert_eq!(truncate_line("ééé", 2), "éé... [line truncated]");
        assert_eq!(truncate_line("ab", 2), "ab");
    }

    #[derive(Deserialize)]
    struct Lenient {
        #[serde(default, deserialize_with = "lenient_count")]
        n: Option<usize>,
        #[serde(default, deserialize_with = "lenient_bool")]
        b: Option<bool>,
    }

    #[test]
    fn lenient_inputs_accept_model_variants() {
        let v: Lenient = serde_json::from_value(json!({"n": "5", "b": "true"})).unwrap();
        assert_eq!((v.n, v.b), (Some(5), Some(true)));
        let v: Lenient = serde_json::from_value(json!({"n": 3.0})).unwrap();
        assert_eq!((v.n, v.b), (Some(3), None));
        assert!(serde_json::from_value::<Lenient>(json!({"n": -1})).is_err());
        assert!(serde_json::from_value::<Lenient>(json!({"b": 2})).is_err());
    }
}
