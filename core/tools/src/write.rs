//! Write: creates or overwrites a file atomically, creating parent directories.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::fs::{self, Existing};
use super::support::{
    display_path, file_name_of, input_path, input_str, refuse_special_file, resolve_path,
    run_blocking, structured_patch,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

const DESCRIPTION: &str = "Writes a file to the local filesystem, creating it (and any missing \
parent directories) or overwriting it completely. `file_path` should be absolute; a relative \
path is resolved against the session's working directory. The write is atomic, and an \
overwritten file keeps its permissions. Prefer Edit for changing part of an existing file: it \
sends only the difference. Do not create documentation or README files unless asked to.";

pub struct WriteTool;

#[derive(Debug, Deserialize)]
struct WriteInput {
    file_path: String,
    content: String,
}

/// The definition, built once per process.
static WRITE_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        WriteTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/write.json")),
    )
});

impl Tool for WriteTool {
    fn name(&self) -> &'static str {
        "Write"
    }

    fn spec(&self) -> ToolSpec {
        WRITE_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        input_path(input, "file_path", ctx).into_iter().collect()
    }

    /// The reference describes a Write by the file's basename.
    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "file_path").map(file_name_of)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: WriteInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let path = resolve_path(ctx, &input.file_path);
            if let Some(files) = ctx.shell.client_files().filter(|f| f.writes()) {
                return write_through_client(files.as_ref(), &path, input.content).await;
            }
            let checked = ctx.checked.clone();
            run_blocking(move || write_file(&checked, &path, input.content)).await
        })
    }
}

/// Writes the file the permission phase checked (`path` is the path as given; the
/// resolution recorded in `checked` is what is opened).
fn write_file(checked: &CheckedPaths, path: &Path, content: String) -> ToolOutput {
    if let Err(message) = refuse_special_file("Write", path) {
        return ToolOutput::error(message.to_string());
    }
    let cannot = |e: fs::FsError| {
        ToolOutput::error(format!("Cannot write {}: {}", path.display(), e.reason()))
    };
    let target = match fs::target(checked, path, true) {
        Ok(t) => t,
        Err(e) => return cannot(e),
    };
    let (original, mode) = match target.read_existing() {
        Ok(Existing::Missing) => (None, None),
        Ok(Existing::File { bytes, mode }) => {
            (Some(String::from_utf8_lossy(&bytes).into_owned()), mode)
        }
        Ok(Existing::Directory) => {
            return ToolOutput::error(WriteError::IsADirectory(path.to_path_buf()).to_string());
        }
        Err(source @ fs::FsError::Changed { .. }) => return cannot(source),
        Err(source) => {
            return ToolOutput::error(
                WriteError::Read {
                    path: path.to_path_buf(),
                    source,
                }
                .to_string(),
            );
        }
    };
    if let Err(e) = target.write_atomic(content.as_bytes(), mode) {
        return cannot(e);
    }
    written(path, original, content)
}

/// Write through the front end: the editor writes the file (and records the edit); the
/// old text, for the patch, is the editor's too.
async fn write_through_client(
    files: &dyn dcl_tool_api::ClientFiles,
    path: &Path,
    content: String,
) -> ToolOutput {
    if let Err(message) = refuse_special_file("Write", path) {
        return ToolOutput::error(message.to_string());
    }
    let original = if files.reads() {
        files.read_text_file(path).await.ok()
    } else {
        std::fs::read(path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    if let Err(e) = files.write_text_file(path, &content).await {
        return ToolOutput::error(format!("Cannot write {}: {e}", path.display()));
    }
    written(path, original, content)
}

/// The result of a write of `content` over `original` (`None`: a new file).
fn written(path: &Path, original: Option<String>, content: String) -> ToolOutput {
    let shown = display_path(path);
    let (text, kind, patch) = match &original {
        None => (
            format!(
                "File created successfully at: {shown} (file state is current in your context \u{2014} no need to Read it back)"
            ),
            "create",
            json!([]),
        ),
        Some(old) => (
            format!("The file {shown} has been updated successfully."),
            "update",
            structured_patch(old, &content),
        ),
    };
    ToolOutput::ok(text).with_structured(json!({
        "type": kind,
        "filePath": shown,
        "content": content,
        "structuredPatch": patch,
        "originalFile": original,
        "userModified": false,
    }))
}

/// Why Write would not write a path; the text is its error result.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error("{} is a directory; Write needs a file path.", .0.display())]
    IsADirectory(PathBuf),
    #[error("Cannot read {}: {}", path.display(), source.reason())]
    Read { path: PathBuf, source: fs::FsError },
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    async fn write(dir: &Path, input: Value) -> ToolOutput {
        let ctx = ToolContext::new(dir.to_path_buf());
        WriteTool.call(input, &ctx).await
    }

    #[tokio::test]
    async fn creates_file_and_parents_with_reference_text() {
        let dir = tempfile::tempdir().unwrap();
        let out = write(
            dir.path(),
            json!({"file_path": "a/b/hello.txt", "content": "hello\n"}),
        )
        .await;
        let path = dir.path().join("a/b/hello.txt");
        assert!(!out.is_error);
        assert_eq!(fs::read_to_string(&path).unwrap(), "hello\n");
        let shown = display_path(&path);
        assert_eq!(
            out.content.to_text(),
            format!(
                "File created successfully at: {shown} (file state is current in your context — no need to Read it back)"
            )
        );
        assert_eq!(
            out.structured,
            Some(
                json!({"type": "create", "filePath": shown, "content": "hello\n",
                        "structuredPatch": [], "originalFile": null, "userModified": false})
            )
        );
    }

    #[tokio::test]
    async fn overwrite_reports_update_with_patch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "a\nb\nc\n").unwrap();
        let out = write(
            dir.path(),
            json!({"file_path": path, "content": "a\nX\nc\n"}),
        )
        .await;
        assert_eq!(
            out.content.to_text(),
            format!(
                "The file {} has been updated successfully.",
                display_path(&path)
            )
        );
        let s = out.structured.unwrap();
        assert_eq!(s["type"], "update");
        assert_eq!(s["originalFile"], "a\nb\nc\n");
        assert_eq!(
            s["structuredPatch"][0]["lines"],
            json!([" a", "-b", "+X", " c"])
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nX\nc\n");
    }

    #[tokio::test]
    async fn overwrite_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        let out = write(
            dir.path(),
            json!({"file_path": "run.sh", "content": "#!/bin/sh\necho\n"}),
        )
        .await;
        assert!(!out.is_error);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }

    #[tokio::test]
    async fn writing_to_a_directory_fails() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        let out = write(dir.path(), json!({"file_path": "d", "content": "x"})).await;
        assert!(out.is_error);
        assert!(out.content.to_text().contains("is a directory"));
    }

    #[tokio::test]
    async fn missing_content_is_an_input_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = write(dir.path(), json!({"file_path": "x"})).await;
        assert!(out.is_error);
        assert!(out.content.to_text().contains("InputValidationError"));
        assert!(!dir.path().join("x").exists());
    }

    #[test]
    fn schema_and_metadata() {
        let schema = WriteTool.spec().input_schema().clone();
        assert_eq!(schema["required"], json!(["file_path", "content"]));
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(WriteTool.kind(), ToolKind::Edit);
        assert_eq!(
            WriteTool.describe(&json!({"file_path": "/x/y/hello.txt"})),
            Some("hello.txt".to_string())
        );
    }
}
