//! Read: a text file rendered `cat -n` style (`<line>\t<text>`), a window of lines at
//! a time. Images and PDFs are not supported yet (issue 4); other binary files are
//! refused rather than dumped into the model's context.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read as _};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::support::{
    display_path, file_name_of, input_path, input_str, lenient_count, object_schema, resolve_path,
    run_blocking, truncate_line,
};
use super::{Tool, ToolContext, ToolKind, ToolOutput, parse_input};
use crate::model::BoxFuture;

/// Lines returned when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut: one minified line can otherwise fill the context window.
const MAX_LINE_CHARS: usize = 2000;
/// Rough cap on a result (~25k tokens); past it the model must page with offset/limit.
const MAX_OUTPUT_CHARS: usize = 100_000;
/// Bytes inspected for a NUL byte, the same heuristic git and ripgrep use.
const BINARY_SNIFF_BYTES: u64 = 8192;

const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tiff"];

const DESCRIPTION: &str = "Reads a text file from the local filesystem and returns it with line \
numbers, formatted like `cat -n`: each line is `<number>\\t<text>`, numbered from 1. \
`file_path` should be absolute; a relative path is resolved against the session's working \
directory. By default up to 2000 lines are returned from the start of the file; use `offset` \
(the 1-based line to start at) and `limit` (how many lines) to page through longer files. \
Lines longer than 2000 characters are truncated. Binary files are refused, and images and \
PDFs are not supported yet. Reading a directory fails: use Glob or Bash `ls` to list one.";

pub struct ReadTool;

#[derive(Debug, Deserialize)]
struct ReadInput {
    file_path: String,
    #[serde(default, deserialize_with = "lenient_count")]
    offset: Option<usize>,
    #[serde(default, deserialize_with = "lenient_count")]
    limit: Option<usize>,
    #[serde(default)]
    pages: Option<String>,
}

impl Tool for ReadTool {
    fn name(&self) -> &'static str {
        "Read"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "file_path": {
                    "description": "The absolute path to the file to read",
                    "type": "string"
                },
                "offset": {
                    "description": "The 1-based line number to start reading from. Only give it when the file is too large to read at once",
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 9_007_199_254_740_991_u64
                },
                "limit": {
                    "description": "The number of lines to read. Only give it when the file is too large to read at once",
                    "type": "integer",
                    "exclusiveMinimum": 0,
                    "maximum": 9_007_199_254_740_991_u64
                },
                "pages": {
                    "description": "Page range for PDF files (e.g. \"1-5\", \"3\", \"10-20\"). Only applies to PDFs, which are not supported yet",
                    "type": "string"
                }
            }),
            &["file_path"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        input_path(input, "file_path", ctx).into_iter().collect()
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "file_path").map(file_name_of)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: ReadInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let path = resolve_path(ctx, &input.file_path);
            run_blocking(move || read_file(&path, &input)).await
        })
    }
}

fn read_file(path: &Path, input: &ReadInput) -> ToolOutput {
    let metadata = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return ToolOutput::error("File does not exist.");
        }
        Err(e) => return ToolOutput::error(format!("Cannot read {}: {e}", path.display())),
    };
    if metadata.is_dir() {
        return ToolOutput::error(format!(
            "{} is a directory, not a file. Use Glob or Bash `ls` to list a directory.",
            path.display()
        ));
    }
    if let Some(message) = unsupported_kind(path, input.pages.as_deref()) {
        return ToolOutput::error(message);
    }

    // The reference treats offset 0 and 1 alike: both start at the first line.
    let start_line = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if metadata.len() == 0 {
        return empty_file_output(path, start_line);
    }

    let window = match read_window(path, start_line - 1, limit) {
        Ok(w) => w,
        Err(WindowError::Binary) => {
            return ToolOutput::error(format!(
                "{} appears to be a binary file (it contains NUL bytes or invalid UTF-8); \
                 Read only shows text files.",
                path.display()
            ));
        }
        Err(WindowError::Io(e)) => {
            return ToolOutput::error(format!("Cannot read {}: {e}", path.display()));
        }
    };
    render_window(path, start_line, &window)
}

/// A refusal message for files Read cannot show yet.
fn unsupported_kind(path: &Path, pages: Option<&str>) -> Option<String> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if IMAGE_EXTENSIONS.contains(&extension.as_str()) {
        return Some(format!(
            "{} is an image; reading images is not supported yet.",
            path.display()
        ));
    }
    if extension == "pdf" {
        return Some(format!(
            "{} is a PDF; reading PDF files is not supported yet.",
            path.display()
        ));
    }
    if pages.is_some_and(|p| !p.trim().is_empty()) {
        return Some("The `pages` parameter only applies to PDF files.".to_string());
    }
    None
}

fn empty_file_output(path: &Path, start_line: usize) -> ToolOutput {
    ToolOutput::ok(
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
    )
    .with_structured(text_structured(path, "", 0, start_line, 0))
}

fn render_window(path: &Path, start_line: usize, window: &Window) -> ToolOutput {
    if window.lines.is_empty() {
        let text = format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset \
             ({start_line}). The file has {} lines.</system-reminder>",
            window.total_lines
        );
        return ToolOutput::ok(text).with_structured(text_structured(
            path,
            "",
            0,
            start_line,
            window.total_lines,
        ));
    }
    let numbered: Vec<String> = window
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", start_line + i))
        .collect();
    let text = numbered.join("\n");
    let text_chars = text.chars().count();
    if text_chars > MAX_OUTPUT_CHARS {
        return ToolOutput::error(format!(
            "File content ({text_chars} characters) exceeds the maximum allowed \
             ({MAX_OUTPUT_CHARS}). Use offset and limit to read specific portions of the \
             file, or use Grep to search for specific content."
        ));
    }
    let content = window.lines.join("\n");
    ToolOutput::ok(text).with_structured(text_structured(
        path,
        &content,
        window.lines.len(),
        start_line,
        window.total_lines,
    ))
}

fn text_structured(
    path: &Path,
    content: &str,
    num_lines: usize,
    start_line: usize,
    total_lines: usize,
) -> Value {
    json!({
        "type": "text",
        "file": {
            "filePath": display_path(path),
            "content": content,
            "numLines": num_lines,
            "startLine": start_line,
            "totalLines": total_lines,
        }
    })
}

/// The selected lines of a file plus how many lines it has in all.
#[derive(Debug)]
struct Window {
    lines: Vec<String>,
    total_lines: usize,
}

#[derive(Debug)]
enum WindowError {
    Binary,
    Io(io::Error),
}

impl From<io::Error> for WindowError {
    fn from(e: io::Error) -> Self {
        WindowError::Io(e)
    }
}

/// Streams the file line by line, keeping only lines `[skip, skip + limit)`, so huge
/// files cost memory proportional to the window, not the file. Lines are the pieces
/// between `\n`s, so `a\nb\n` has three lines, the last one empty, as the reference
/// counts them. Every line is checked for valid UTF-8 so binary data is never shown.
fn read_window(path: &Path, skip: usize, limit: usize) -> Result<Window, WindowError> {
    let mut file = File::open(path)?;
    let mut head = Vec::new();
    (&mut file)
        .take(BINARY_SNIFF_BYTES)
        .read_to_end(&mut head)?;
    if head.contains(&0) {
        return Err(WindowError::Binary);
    }
    let mut reader = BufReader::new(Cursor::new(head).chain(file));

    let mut lines = Vec::new();
    let mut index = 0usize;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader.read_until(b'\n', &mut buf)?;
        let line = decode_line(&buf)?;
        if index >= skip && index - skip < limit {
            lines.push(truncate_line(line, MAX_LINE_CHARS));
        }
        index += 1;
        // EOF, or a last line without a newline: nothing follows. After a trailing
        // newline the loop runs once more and records the empty final line.
        if read == 0 || buf.last() != Some(&b'\n') {
            break;
        }
    }
    Ok(Window {
        lines,
        total_lines: index,
    })
}

fn decode_line(raw: &[u8]) -> Result<&str, WindowError> {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    std::str::from_utf8(raw).map_err(|_| WindowError::Binary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn ctx_in(dir: &Path) -> ToolContext {
        ToolContext::new(dir.to_path_buf())
    }

    async fn read(ctx: &ToolContext, input: Value) -> ToolOutput {
        ReadTool.call(input, ctx).await
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    #[tokio::test]
    async fn renders_like_reference_with_final_empty_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        fs::write(&path, "line1\nline2\n").unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": path})).await;
        assert!(!out.is_error);
        assert_eq!(text(&out), "1\tline1\n2\tline2\n3\t");
        assert_eq!(
            out.structured,
            Some(json!({"type": "text", "file": {
                "filePath": display_path(&path),
                "content": "line1\nline2\n",
                "numLines": 3, "startLine": 1, "totalLines": 3}}))
        );
    }

    #[tokio::test]
    async fn file_without_trailing_newline_has_no_extra_line() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "x\r\ny").unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "a.txt"})).await;
        assert_eq!(text(&out), "1\tx\n2\ty");
        assert_eq!(out.structured.unwrap()["file"]["totalLines"], 2);
    }

    #[tokio::test]
    async fn relative_path_resolves_against_session_cwd() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/f.txt"), "hi").unwrap();
        let out = read(
            &ctx_in(dir.path()),
            json!({"file_path": "sub/../sub/f.txt"}),
        )
        .await;
        assert_eq!(text(&out), "1\thi");
        let expected = display_path(&dir.path().join("sub/f.txt"));
        assert_eq!(out.structured.unwrap()["file"]["filePath"], expected);
    }

    #[tokio::test]
    async fn offset_is_one_based_and_limit_caps_lines() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        fs::write(dir.path().join("f"), body).unwrap();
        let ctx = ctx_in(dir.path());
        let out = read(&ctx, json!({"file_path": "f", "offset": 3, "limit": 2})).await;
        assert_eq!(text(&out), "3\tl3\n4\tl4");
        let s = out.structured.unwrap();
        assert_eq!(s["file"]["startLine"], 3);
        assert_eq!(s["file"]["numLines"], 2);
        assert_eq!(s["file"]["totalLines"], 11);
        // offset 0 means the start, like offset 1.
        let out = read(&ctx, json!({"file_path": "f", "offset": 0, "limit": 1})).await;
        assert_eq!(text(&out), "1\tl1");
    }

    #[tokio::test]
    async fn default_limit_is_2000_lines() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=2500).map(|i| format!("{i}\n")).collect();
        fs::write(dir.path().join("big"), body).unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "big"})).await;
        let t = text(&out);
        assert_eq!(t.lines().count(), 2000);
        assert!(t.ends_with("2000\t2000"));
        assert_eq!(out.structured.unwrap()["file"]["totalLines"], 2501);
    }

    #[tokio::test]
    async fn long_lines_are_truncated() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("min.js"), "x".repeat(5000)).unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "min.js"})).await;
        let t = text(&out);
        assert!(t.starts_with(&format!("1\t{}", "x".repeat(2000))));
        assert!(t.ends_with("[line truncated]"));
        assert!(t.len() < 2100);
    }

    #[tokio::test]
    async fn offset_past_end_warns() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), "a\nb").unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "f", "offset": 10})).await;
        assert!(!out.is_error);
        assert!(text(&out).contains("shorter than the provided offset (10)"));
        assert!(text(&out).contains("The file has 2 lines"));
    }

    #[tokio::test]
    async fn missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "nope.txt"})).await;
        assert!(out.is_error);
        assert_eq!(text(&out), "File does not exist.");
        assert_eq!(out.structured, Some(json!("Error: File does not exist.")));
    }

    #[tokio::test]
    async fn directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "."})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("is a directory"));
    }

    #[tokio::test]
    async fn empty_file_gets_a_reminder() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("empty"), "").unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "empty"})).await;
        assert!(!out.is_error);
        assert!(text(&out).starts_with("<system-reminder>"));
        assert!(text(&out).contains("contents are empty"));
    }

    #[tokio::test]
    async fn nul_bytes_mean_binary() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.bin"), b"abc\0def").unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "a.bin"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("binary"));
    }

    #[tokio::test]
    async fn invalid_utf8_after_sniff_window_means_binary() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = "ok\n".repeat(5000).into_bytes();
        body.extend_from_slice(&[0xff, 0xfe, b'\n']);
        fs::write(dir.path().join("late.dat"), body).unwrap();
        let out = read(
            &ctx_in(dir.path()),
            json!({"file_path": "late.dat", "limit": 1}),
        )
        .await;
        assert!(out.is_error);
        assert!(text(&out).contains("binary"));
    }

    #[tokio::test]
    async fn images_and_pdfs_are_not_supported_yet() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pic.PNG"), b"\x89PNG").unwrap();
        fs::write(dir.path().join("doc.pdf"), b"%PDF-1.4").unwrap();
        let ctx = ctx_in(dir.path());
        let out = read(&ctx, json!({"file_path": "pic.PNG"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("images is not supported yet"));
        let out = read(&ctx, json!({"file_path": "doc.pdf", "pages": "1-2"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("not supported yet"));
    }

    #[tokio::test]
    async fn invalid_input_is_an_error_result() {
        let dir = tempfile::tempdir().unwrap();
        let out = read(&ctx_in(dir.path()), json!({"path": "x"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("InputValidationError"));
        let out = read(&ctx_in(dir.path()), json!({"file_path": "x", "offset": -3})).await;
        assert!(out.is_error);
    }

    #[test]
    fn schema_matches_reference_shape() {
        let schema = ReadTool.input_schema();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["file_path"]));
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["file_path", "offset", "limit", "pages"]);
        assert_eq!(schema["properties"]["offset"]["type"], "integer");
        assert_eq!(schema["properties"]["limit"]["exclusiveMinimum"], 0);
    }

    #[test]
    fn paths_are_resolved_against_cwd() {
        let ctx = ToolContext::new(PathBuf::from("/proj"));
        let paths = ReadTool.paths(&json!({"file_path": "../etc/x"}), &ctx);
        assert_eq!(paths, vec![PathBuf::from("/etc/x")]);
        assert!(ReadTool.paths(&json!({}), &ctx).is_empty());
    }
}
