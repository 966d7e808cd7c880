//! Read: a text file rendered `cat -n` style (`<line>\t<text>`), a window of lines at
//! a time, or a PNG/JPEG/GIF/WebP image as an image block. PDFs and other binary files
//! are refused rather than dumped into the model's context.
//!
//! Text is streamed: lines before the window are skipped by scanning for newlines
//! without decoding, only the window is decoded, and only a bounded stretch after it is
//! scanned to count the file's lines, so paging through a huge file is cheap.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use dcl_protocol::{ContentBlock, Extra, ImageBlock, KnownBlock, ToolResultContent};
use serde::Deserialize;
use serde_json::{Value, json};

use super::fs;
use super::support::{
    display_path, file_name_of, input_path, input_str, lenient_count, resolve_path, run_blocking,
    special_file_kind, truncate_line,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

/// Lines returned when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut: one minified line can otherwise fill the context window.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes of one line kept for decoding (enough for `MAX_LINE_CHARS` characters of any
/// width); the rest of a longer line is read past, never held in memory.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;
/// Rough cap on a result (~25k tokens); past it the model must page with offset/limit.
const MAX_OUTPUT_CHARS: usize = 100_000;
/// Bytes inspected for a NUL byte, the same heuristic git and ripgrep use.
const BINARY_SNIFF_BYTES: u64 = 8192;
/// Bytes after the window scanned to count the file's remaining lines; a larger rest is
/// left unread and the total is reported as unknown.
const COUNT_SCAN_BYTES: u64 = 64 * 1024 * 1024;
/// Largest image sent: the API takes images up to 5 MiB once base64-encoded.
const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024 / 4 * 3;

/// Images the model can see.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp"];
/// Images it cannot (the API takes none of these formats).
const OTHER_IMAGE_EXTENSIONS: &[&str] = &["bmp", "ico", "tiff", "tif", "heic", "avif", "svgz"];

const DESCRIPTION: &str = "Reads a file from the local filesystem. Text files are returned \
with line numbers, formatted like `cat -n`: each line is `<number>\\t<text>`, numbered from \
1. `file_path` should be absolute; a relative path is resolved against the session's working \
directory. By default up to 2000 lines are returned from the start of the file; use `offset` \
(the 1-based line to start at) and `limit` (how many lines) to page through longer files, \
which is cheap even for very large files. Lines longer than 2000 characters are truncated. \
PNG, JPEG, GIF and WebP images (up to 3.75 MiB) are returned as images you can see. Other \
binary files are refused, and PDFs are not supported yet. Reading a directory fails: use \
Glob or Bash `ls` to list one.";

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

/// The definition, built once per process.
static READ_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        ReadTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/read.json")),
    )
});

impl Tool for ReadTool {
    fn name(&self) -> &'static str {
        "Read"
    }

    fn spec(&self) -> ToolSpec {
        READ_SPEC.get()
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
            if let Some(files) = ctx.shell.client_files().filter(|f| f.reads())
                && matches!(file_kind(&path, input.pages.as_deref()), FileKind::Text)
            {
                return read_through_client(files.as_ref(), &path, &input).await;
            }
            let checked = ctx.checked.clone();
            run_blocking(move || read_file(&checked, &path, &input)).await
        })
    }
}

/// Read through the front end (the editor's buffer, saved or not); the text is shown
/// exactly as a file on disk would be. Images and other files are read from disk.
async fn read_through_client(
    files: &dyn dcl_tool_api::ClientFiles,
    path: &Path,
    input: &ReadInput,
) -> ToolOutput {
    if let Some(kind) = special_file_kind(path) {
        return ToolOutput::error(format!(
            "{} is {kind}, not a regular file; Read does not open it.",
            path.display()
        ));
    }
    let text = match files.read_text_file(path).await {
        Ok(text) => text,
        Err(dcl_tool_api::ClientFilesError::NotFound) => {
            return ToolOutput::error("File does not exist.");
        }
        Err(e) => return ToolOutput::error(format!("Cannot read {}: {e}", path.display())),
    };
    let start_line = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if text.is_empty() {
        return empty_file_output(path, start_line);
    }
    let size = text.len() as u64;
    match read_window(
        Cursor::new(text.into_bytes()),
        start_line - 1,
        limit,
        MAX_OUTPUT_CHARS,
    ) {
        Ok(window) => render_window(path, start_line, input.limit.is_some(), size, &window),
        Err(WindowError::Binary) => ToolOutput::error(format!(
            "{} appears to be a binary file; Read only shows text files.",
            path.display()
        )),
        Err(WindowError::Io(e)) => {
            ToolOutput::error(format!("Cannot read {}: {e}", path.display()))
        }
    }
}

/// Reads the file the permission phase checked (`path` as given; the resolution recorded
/// in `checked` is what is opened, by descriptor).
fn read_file(checked: &CheckedPaths, path: &Path, input: &ReadInput) -> ToolOutput {
    let cannot = |e: fs::FsError| {
        ToolOutput::error(format!("Cannot read {}: {}", path.display(), e.reason()))
    };
    // Named before anything is opened: opening a FIFO or a device can block or act.
    if let Some(kind) = special_file_kind(path) {
        return ToolOutput::error(format!(
            "{} is {kind}, not a regular file; Read does not open it (reading it could block \
             or never end).",
            path.display()
        ));
    }
    let file = match fs::target(checked, path, false).and_then(|t| t.open_existing()) {
        Ok(Some(file)) => file,
        Ok(None) => return ToolOutput::error("File does not exist."),
        Err(e) if e.is_not_found() => return ToolOutput::error("File does not exist."),
        Err(e) => return cannot(e),
    };
    let metadata = match file.metadata() {
        Ok(m) => m,
        Err(e) => return cannot(fs::FsError::io(path, e)),
    };
    if metadata.is_dir() {
        return ToolOutput::error(format!(
            "{} is a directory, not a file. Use Glob or Bash `ls` to list a directory.",
            path.display()
        ));
    }
    match file_kind(path, input.pages.as_deref()) {
        FileKind::Image => return read_image(path, file, metadata.len()),
        FileKind::Unsupported(message) => return ToolOutput::error(message),
        FileKind::Text => {}
    }

    // The reference treats offset 0 and 1 alike: both start at the first line.
    let start_line = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if metadata.len() == 0 {
        return empty_file_output(path, start_line);
    }

    let window = match read_window(file, start_line - 1, limit, MAX_OUTPUT_CHARS) {
        Ok(w) => w,
        Err(WindowError::Binary) => {
            return ToolOutput::error(format!(
                "{} appears to be a binary file (it contains NUL bytes or invalid UTF-8); \
                 Read only shows text files and PNG, JPEG, GIF and WebP images.",
                path.display()
            ));
        }
        Err(WindowError::Io(e)) => {
            return ToolOutput::error(format!("Cannot read {}: {e}", path.display()));
        }
    };
    render_window(
        path,
        start_line,
        input.limit.is_some(),
        metadata.len(),
        &window,
    )
}

enum FileKind {
    Text,
    Image,
    Unsupported(String),
}

/// What Read does with a file, judged by its extension.
fn file_kind(path: &Path, pages: Option<&str>) -> FileKind {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if IMAGE_EXTENSIONS.contains(&extension.as_str()) {
        return FileKind::Image;
    }
    if OTHER_IMAGE_EXTENSIONS.contains(&extension.as_str()) {
        return FileKind::Unsupported(format!(
            "{} is a {extension} image; only PNG, JPEG, GIF and WebP images can be read. \
             Convert it first (e.g. `convert in.{extension} out.png` with Bash).",
            path.display()
        ));
    }
    if extension == "pdf" {
        return FileKind::Unsupported(format!(
            "{} is a PDF; reading PDF files is not supported yet.",
            path.display()
        ));
    }
    if pages.is_some_and(|p| !p.trim().is_empty()) {
        return FileKind::Unsupported(
            "The `pages` parameter only applies to PDF files.".to_string(),
        );
    }
    FileKind::Text
}

/// The image's MIME type, from its first bytes (the extension can lie, and the API
/// rejects an image whose declared type does not match its data).
fn image_media_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn read_image(path: &Path, mut file: File, size: u64) -> ToolOutput {
    if size == 0 {
        return ToolOutput::error(format!("{} is empty, not an image.", path.display()));
    }
    if size > MAX_IMAGE_BYTES {
        return ToolOutput::error(format!(
            "{} is too large to read as an image ({:.1} MiB; at most {:.2} MiB, which is 5 MiB \
             once base64-encoded, the API's limit). Make a smaller copy first (e.g. \
             `convert in.png -resize 50% out.png` with Bash) and read that.",
            path.display(),
            size as f64 / (1024.0 * 1024.0),
            MAX_IMAGE_BYTES as f64 / (1024.0 * 1024.0)
        ));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    let bytes = match file.read_to_end(&mut bytes) {
        Ok(_) => bytes,
        Err(e) => return ToolOutput::error(format!("Cannot read {}: {e}", path.display())),
    };
    let Some(media_type) = image_media_type(&bytes) else {
        return ToolOutput::error(format!(
            "{} is not a valid PNG, JPEG, GIF or WebP image (its content does not match any \
             of these formats).",
            path.display()
        ));
    };
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let block = ContentBlock::Known(KnownBlock::Image(ImageBlock {
        source: json!({"type": "base64", "media_type": media_type, "data": data}),
        extra: Extra::new(),
    }));
    ToolOutput {
        content: ToolResultContent::Blocks(vec![block]),
        is_error: false,
        structured: Some(json!({
            "type": "image",
            "file": {
                "base64": data,
                "type": media_type,
                "originalSize": bytes.len(),
            }
        })),
    }
}

fn empty_file_output(path: &Path, start_line: usize) -> ToolOutput {
    ToolOutput::ok(
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
    )
    .with_structured(text_structured(path, "", 0, start_line, 0))
}

fn render_window(
    path: &Path,
    start_line: usize,
    explicit_limit: bool,
    file_size: u64,
    window: &Window,
) -> ToolOutput {
    let known_lines = window
        .total_lines
        .unwrap_or(start_line + window.lines.len());
    if window.lines.is_empty() && !window.cut_by_cap {
        let text = format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset \
             ({start_line}). The file has {known_lines} lines.</system-reminder>"
        );
        return ToolOutput::ok(text).with_structured(text_structured(
            path,
            "",
            0,
            start_line,
            known_lines,
        ));
    }
    if window.cut_by_cap && explicit_limit {
        return ToolOutput::error(format!(
            "File content from line {start_line} with this limit exceeds the maximum allowed \
             ({MAX_OUTPUT_CHARS} characters). Use a smaller limit to read specific portions of \
             the file, or use Grep to search for specific content."
        ));
    }
    let numbered: Vec<String> = window
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", start_line + i))
        .collect();
    let mut text = numbered.join("\n");
    let end_line = start_line + window.lines.len().saturating_sub(1);
    if !explicit_limit && window.more {
        let of = match window.total_lines {
            Some(total) => format!("of {total}"),
            None => "(the total was not counted)".to_string(),
        };
        text.push_str(&format!(
            "\n\n<system-reminder>Showing lines {start_line}-{end_line} {of} of a {} file{}. To \
             read on, call Read again with offset={} (and a limit of at most {DEFAULT_LIMIT} \
             lines), or use Grep to find what you need.</system-reminder>",
            human_size(file_size),
            if window.cut_by_cap {
                ", cut to stay under the output limit"
            } else {
                ""
            },
            end_line + 1,
        ));
    }
    let content = window.lines.join("\n");
    ToolOutput::ok(text).with_structured(text_structured(
        path,
        &content,
        window.lines.len(),
        start_line,
        known_lines,
    ))
}

fn human_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB * KIB {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    } else if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} B")
    }
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

/// The selected lines of a file, and what is known about the rest.
#[derive(Debug)]
struct Window {
    lines: Vec<String>,
    /// Lines in the file (the pieces between `\n`s), when they were counted.
    total_lines: Option<usize>,
    /// Whether the file goes on after the last returned line.
    more: bool,
    /// Whether the window stopped early because the output would exceed the cap.
    cut_by_cap: bool,
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

/// Reads lines `[skip, skip + limit)` of the file, stopping early once the rendered
/// output would pass `max_chars`. Lines are the pieces between `\n`s, so `a\nb\n` has
/// three lines, the last one empty, as the reference counts them. Memory is bounded by
/// the window (each line by `MAX_LINE_BYTES`), and the time by the bytes up to the end
/// of the window plus at most `COUNT_SCAN_BYTES` for counting the rest.
fn read_window(
    mut file: impl Read,
    skip: usize,
    limit: usize,
    max_chars: usize,
) -> Result<Window, WindowError> {
    let mut head = Vec::new();
    (&mut file)
        .take(BINARY_SNIFF_BYTES)
        .read_to_end(&mut head)?;
    if head.contains(&0) {
        return Err(WindowError::Binary);
    }
    let mut reader = BufReader::with_capacity(256 * 1024, Cursor::new(head).chain(file));

    // Newlines consumed so far: the file's line count is this plus one at EOF.
    let mut newlines = skip_lines(&mut reader, skip)?;
    if newlines < skip {
        return Ok(Window {
            lines: Vec::new(),
            total_lines: Some(newlines + 1),
            more: false,
            cut_by_cap: false,
        });
    }

    let mut lines = Vec::new();
    let mut chars = 0usize;
    let mut raw = Vec::new();
    let mut cut_by_cap = false;
    let mut at_eof = false;
    while lines.len() < limit {
        raw.clear();
        let line = read_line_capped(&mut reader, &mut raw)?;
        let text = decode_line(&raw, line.capped)?;
        let shown = if line.capped && text.chars().count() <= MAX_LINE_CHARS {
            format!("{text}... [line truncated]")
        } else {
            truncate_line(text, MAX_LINE_CHARS)
        };
        if line.ended_with_newline {
            newlines += 1;
        } else {
            at_eof = true;
        }
        // The number, a tab, the text, and the newline joining it to the next line.
        let cost = (skip + lines.len() + 1).to_string().len() + shown.chars().count() + 2;
        if chars + cost > max_chars {
            cut_by_cap = true;
            break;
        }
        chars += cost;
        lines.push(shown);
        if at_eof {
            break;
        }
    }

    if at_eof {
        return Ok(Window {
            lines,
            total_lines: Some(newlines + 1),
            // A line consumed but cut by the cap is still to be read.
            more: cut_by_cap,
            cut_by_cap,
        });
    }
    let more = cut_by_cap || !reader.fill_buf()?.is_empty();
    let total_lines = count_rest(&mut reader, COUNT_SCAN_BYTES)?.map(|n| newlines + n + 1);
    Ok(Window {
        lines,
        total_lines,
        more,
        cut_by_cap,
    })
}

/// Consumes up to `count` lines without decoding them; returns how many it consumed
/// (fewer at EOF).
fn skip_lines(reader: &mut impl BufRead, count: usize) -> io::Result<usize> {
    let mut skipped = 0;
    while skipped < count {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut consumed = buf.len();
        for pos in memchr::memchr_iter(b'\n', buf) {
            skipped += 1;
            if skipped == count {
                consumed = pos + 1;
                break;
            }
        }
        reader.consume(consumed);
    }
    Ok(skipped)
}

/// The newlines in the rest of the reader, or `None` if more than `max_bytes` remain.
fn count_rest(reader: &mut impl BufRead, max_bytes: u64) -> io::Result<Option<usize>> {
    let mut newlines = 0;
    let mut scanned = 0u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Some(newlines));
        }
        if scanned >= max_bytes {
            return Ok(None);
        }
        newlines += memchr::memchr_iter(b'\n', buf).count();
        let n = buf.len();
        scanned += n as u64;
        reader.consume(n);
    }
}

struct LineRead {
    ended_with_newline: bool,
    /// The line was longer than `MAX_LINE_BYTES`; only its start is in the buffer.
    capped: bool,
}

/// Appends the next line (without its `\n`) to `out`, keeping at most
/// `MAX_LINE_BYTES` of it and reading past the rest.
fn read_line_capped(reader: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<LineRead> {
    let mut capped = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(LineRead {
                ended_with_newline: false,
                capped,
            });
        }
        let (piece, consumed, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(out.len());
        if piece.len() > room {
            capped = true;
        }
        out.extend_from_slice(&piece[..piece.len().min(room)]);
        reader.consume(consumed);
        if done {
            return Ok(LineRead {
                ended_with_newline: true,
                capped,
            });
        }
    }
}

/// A line as text. A capped line may end in the middle of a character, which is
/// dropped; any other invalid UTF-8 means the file is binary.
fn decode_line(raw: &[u8], capped: bool) -> Result<&str, WindowError> {
    let raw = if capped {
        raw
    } else {
        raw.strip_suffix(b"\r").unwrap_or(raw)
    };
    match std::str::from_utf8(raw) {
        Ok(text) => Ok(text),
        Err(e) if capped && e.error_len().is_none() => {
            std::str::from_utf8(&raw[..e.valid_up_to()]).map_err(|_| WindowError::Binary)
        }
        Err(_) => Err(WindowError::Binary),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

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

    /// An editor's buffers, as a front end lends them (see `ClientFiles`).
    struct Buffers(std::collections::HashMap<PathBuf, String>);

    impl dcl_tool_api::ClientFiles for Buffers {
        fn reads(&self) -> bool {
            true
        }
        fn writes(&self) -> bool {
            false
        }
        fn read_text_file<'a>(
            &'a self,
            path: &'a Path,
        ) -> dcl_tool_api::BoxFuture<'a, Result<String, dcl_tool_api::ClientFilesError>> {
            let found = self.0.get(path).cloned();
            Box::pin(async move { found.ok_or(dcl_tool_api::ClientFilesError::NotFound) })
        }
        fn write_text_file<'a>(
            &'a self,
            _path: &'a Path,
            _content: &'a str,
        ) -> dcl_tool_api::BoxFuture<'a, Result<(), dcl_tool_api::ClientFilesError>> {
            Box::pin(async { Err(dcl_tool_api::ClientFilesError::Refused("read-only".into())) })
        }
    }

    /// Through a front end's files, Read shows the buffer (not the disk) exactly as it
    /// shows a file: numbered lines, the window asked for; a path the editor lacks is
    /// "does not exist".
    #[tokio::test]
    async fn reads_the_front_ends_buffer_when_lent_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        fs::write(&path, "on disk\n").unwrap();
        let ctx = ctx_in(dir.path());
        let buffers = [(path.clone(), "one\ntwo\nthree\n".to_string())].into();
        ctx.shell
            .set_client_files(Some(std::sync::Arc::new(Buffers(buffers))));
        let out = read(&ctx, json!({"file_path": path, "offset": 2, "limit": 1})).await;
        assert!(!out.is_error, "{}", text(&out));
        assert_eq!(text(&out), "2\ttwo");
        let missing = read(&ctx, json!({"file_path": dir.path().join("gone.txt")})).await;
        assert!(missing.is_error);
        ctx.shell.set_client_files(None);
        let out = read(&ctx, json!({"file_path": path})).await;
        assert!(text(&out).contains("on disk"));
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
    async fn default_limit_is_2000_lines_with_a_note_on_paging() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=2500).map(|i| format!("{i}\n")).collect();
        fs::write(dir.path().join("big"), body).unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": "big"})).await;
        let t = text(&out);
        let (page, note) = t.split_once("\n\n<system-reminder>").unwrap();
        assert_eq!(page.lines().count(), 2000);
        assert!(page.ends_with("2000\t2000"));
        assert!(
            note.starts_with("Showing lines 1-2000 of 2501 of a"),
            "{note}"
        );
        assert!(note.contains("offset=2001"), "{note}");
        let s = out.structured.unwrap();
        assert_eq!(s["file"]["totalLines"], 2501);
        assert_eq!(s["file"]["numLines"], 2000);
        // No note when the page reaches the end, or when the model chose the window.
        let out = read(
            &ctx_in(dir.path()),
            json!({"file_path": "big", "offset": 2001}),
        )
        .await;
        assert!(!text(&out).contains("system-reminder"));
        let out = read(&ctx_in(dir.path()), json!({"file_path": "big", "limit": 5})).await;
        assert_eq!(text(&out), "1\t1\n2\t2\n3\t3\n4\t4\n5\t5");
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
    async fn invalid_utf8_in_the_window_means_binary() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = "ok\n".repeat(5000).into_bytes();
        body.extend_from_slice(&[0xff, 0xfe, b'\n']);
        fs::write(dir.path().join("late.dat"), body).unwrap();
        let ctx = ctx_in(dir.path());
        let out = read(&ctx, json!({"file_path": "late.dat", "offset": 4990})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("binary"));
        // Lines outside the window are not decoded, so the start still reads.
        let out = read(&ctx, json!({"file_path": "late.dat", "limit": 1})).await;
        assert_eq!(text(&out), "1\tok");
        assert_eq!(out.structured.unwrap()["file"]["totalLines"], 5002);
    }

    fn image_bytes(kind: &str) -> Vec<u8> {
        let mut bytes = match kind {
            "png" => b"\x89PNG\r\n\x1a\n".to_vec(),
            "jpeg" => vec![0xFF, 0xD8, 0xFF, 0xE0],
            "gif" => b"GIF89a".to_vec(),
            "webp" => b"RIFF\x10\0\0\0WEBPVP8 ".to_vec(),
            _ => unreachable!(),
        };
        bytes.extend_from_slice(&[1, 2, 3, 0, 255]);
        bytes
    }

    #[tokio::test]
    async fn images_become_image_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        for (name, kind, media_type) in [
            ("a.png", "png", "image/png"),
            ("b.JPG", "jpeg", "image/jpeg"),
            ("c.jpeg", "jpeg", "image/jpeg"),
            ("d.gif", "gif", "image/gif"),
            ("e.webp", "webp", "image/webp"),
            // The content decides the type, not the extension.
            ("f.png", "jpeg", "image/jpeg"),
        ] {
            let bytes = image_bytes(kind);
            fs::write(dir.path().join(name), &bytes).unwrap();
            let out = read(&ctx, json!({"file_path": name})).await;
            assert!(!out.is_error, "{name}: {out:?}");
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let expected = ContentBlock::Known(KnownBlock::Image(ImageBlock {
                source: json!({"type": "base64", "media_type": media_type, "data": data}),
                extra: Extra::new(),
            }));
            assert_eq!(
                out.content,
                ToolResultContent::Blocks(vec![expected]),
                "{name}"
            );
            let block = serde_json::to_value(match &out.content {
                ToolResultContent::Blocks(b) => &b[0],
                ToolResultContent::Text(_) => unreachable!(),
            })
            .unwrap();
            assert_eq!(block["type"], "image");
            assert_eq!(block["source"]["media_type"], media_type);
            let s = out.structured.unwrap();
            assert_eq!(s["type"], "image");
            assert_eq!(s["file"]["type"], media_type);
            assert_eq!(s["file"]["originalSize"], bytes.len());
        }
    }

    #[tokio::test]
    async fn bad_and_oversized_images_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx_in(dir.path());
        fs::write(dir.path().join("fake.png"), b"not an image").unwrap();
        let out = read(&ctx, json!({"file_path": "fake.png"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("not a valid PNG, JPEG, GIF or WebP image"));

        fs::write(dir.path().join("empty.gif"), b"").unwrap();
        let out = read(&ctx, json!({"file_path": "empty.gif"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("is empty"));

        let big = dir.path().join("big.png");
        fs::write(&big, image_bytes("png")).unwrap();
        File::options()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(MAX_IMAGE_BYTES + 1)
            .unwrap();
        let out = read(&ctx, json!({"file_path": "big.png"})).await;
        assert!(out.is_error);
        assert!(
            text(&out).contains("too large to read as an image"),
            "{}",
            text(&out)
        );
        assert!(text(&out).contains("5 MiB"));
        // Exactly at the limit is fine.
        File::options()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(MAX_IMAGE_BYTES)
            .unwrap();
        let out = read(&ctx, json!({"file_path": "big.png"})).await;
        assert!(!out.is_error);
    }

    #[tokio::test]
    async fn pdfs_and_other_image_formats_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pic.bmp"), b"BM").unwrap();
        fs::write(dir.path().join("doc.pdf"), b"%PDF-1.4").unwrap();
        let ctx = ctx_in(dir.path());
        let out = read(&ctx, json!({"file_path": "pic.bmp"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("only PNG, JPEG, GIF and WebP"));
        let out = read(&ctx, json!({"file_path": "doc.pdf", "pages": "1-2"})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("not supported yet"));
    }

    /// A ~50 MB file of numbered 100-byte lines.
    fn huge_file(dir: &Path) -> (PathBuf, usize) {
        let lines = 500_000;
        let path = dir.join("huge.log");
        let mut body = Vec::with_capacity(lines * 100);
        let filler = "x".repeat(90);
        for i in 1..=lines {
            body.extend_from_slice(format!("{i:08} {filler}\n").as_bytes());
        }
        fs::write(&path, body).unwrap();
        (path, lines)
    }

    #[tokio::test]
    async fn huge_files_page_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let (path, lines) = huge_file(dir.path());
        let ctx = ctx_in(dir.path());
        let filler = "x".repeat(90);

        let started = std::time::Instant::now();
        let out = read(
            &ctx,
            json!({"file_path": path, "offset": 250_000, "limit": 3}),
        )
        .await;
        let elapsed = started.elapsed();
        assert_eq!(
            text(&out),
            format!(
                "250000\t00250000 {filler}\n250001\t00250001 {filler}\n250002\t00250002 {filler}"
            )
        );
        let s = out.structured.unwrap();
        assert_eq!(s["file"]["totalLines"], lines + 1);
        assert_eq!(s["file"]["startLine"], 250_000);
        assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");

        let out = read(
            &ctx,
            json!({"file_path": path, "offset": lines, "limit": 10}),
        )
        .await;
        assert_eq!(
            text(&out),
            format!("{lines}\t00{lines} {filler}\n{}\t", lines + 1)
        );

        // Without a limit: the first page that fits the output cap, and how to go on.
        let out = read(&ctx, json!({"file_path": path})).await;
        assert!(!out.is_error);
        let t = text(&out);
        assert!(t.chars().count() <= MAX_OUTPUT_CHARS + 500);
        let (page, note) = t.split_once("\n\n<system-reminder>").unwrap();
        let shown = page.lines().count();
        assert!(shown > 100 && shown < 2000, "{shown}");
        assert!(
            note.contains(&format!("Showing lines 1-{shown} of {}", lines + 1)),
            "{note}"
        );
        assert!(note.contains("47.7 MiB"), "{note}");
        assert!(note.contains(&format!("offset={}", shown + 1)), "{note}");
        assert!(
            note.contains("cut to stay under the output limit"),
            "{note}"
        );

        // The model asked for too much at once: an error saying what to do.
        let out = read(&ctx, json!({"file_path": path, "limit": 5000})).await;
        assert!(out.is_error);
        assert!(text(&out).contains("exceeds the maximum allowed"));
    }

    #[tokio::test]
    async fn a_huge_single_line_is_cut_without_reading_it_into_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("one-line.json");
        let mut body = "é".repeat(3 * 1024 * 1024).into_bytes();
        body.extend_from_slice(b"\nsecond");
        fs::write(&path, body).unwrap();
        let out = read(&ctx_in(dir.path()), json!({"file_path": path})).await;
        assert!(!out.is_error, "{out:?}");
        let t = text(&out);
        let expected = format!("1\t{}... [line truncated]\n2\tsecond", "é".repeat(2000));
        assert_eq!(t, expected);
        assert_eq!(out.structured.unwrap()["file"]["totalLines"], 2);
    }

    #[test]
    fn line_scanning_helpers() {
        let mut r = BufReader::with_capacity(4, Cursor::new(b"a\nbb\nccc\n\nd".to_vec()));
        assert_eq!(skip_lines(&mut r, 2).unwrap(), 2);
        let mut raw = Vec::new();
        let line = read_line_capped(&mut r, &mut raw).unwrap();
        assert_eq!(raw, b"ccc");
        assert!(line.ended_with_newline && !line.capped);
        assert_eq!(count_rest(&mut r, 100).unwrap(), Some(1));
        let mut r = BufReader::with_capacity(4, Cursor::new(b"1\n2\n3\n4\n5\n6\n".to_vec()));
        assert_eq!(count_rest(&mut r, 4).unwrap(), None);
        let mut r = Cursor::new(b"x\ny".to_vec());
        assert_eq!(skip_lines(&mut r, 5).unwrap(), 1);
        // A cut in the middle of a character is dropped; other bad bytes are binary.
        assert_eq!(decode_line(&"aé".as_bytes()[..2], true).unwrap(), "a");
        assert!(decode_line(&[b'a', 0xff, b'b'], true).is_err());
        assert_eq!(decode_line(b"x\r", false).unwrap(), "x");
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
        let schema = ReadTool.spec().input_schema().clone();
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
