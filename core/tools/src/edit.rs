//! Edit: exact string replacement in a file, written back atomically.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::fs::{self, Existing};
use super::support::{
    display_path, file_name_of, input_path, input_str, lenient_bool, refuse_special_file,
    resolve_path, run_blocking, structured_patch,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

const DESCRIPTION: &str = "Performs an exact string replacement in a file. `old_string` must \
appear in the file exactly as given (whitespace and indentation included; do not include the \
line-number prefix Read shows). If it appears more than once the edit fails, so either add \
surrounding lines to make it unique or set `replace_all` to replace every occurrence (useful \
for renaming). An empty `old_string` creates a new file containing `new_string`. Read a file \
before editing it so `old_string` matches its current content.";

pub struct EditTool;

#[derive(Debug, Deserialize)]
struct EditInput {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default, deserialize_with = "lenient_bool")]
    replace_all: Option<bool>,
}

/// The definition, built once per process.
static EDIT_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        EditTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/edit.json")),
    )
});

impl Tool for EditTool {
    fn name(&self) -> &'static str {
        "Edit"
    }

    fn spec(&self) -> ToolSpec {
        EDIT_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        input_path(input, "file_path", ctx).into_iter().collect()
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "file_path").map(file_name_of)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: EditInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let path = resolve_path(ctx, &input.file_path);
            if let Some(files) = ctx.shell.client_files().filter(|f| f.reads() && f.writes()) {
                return edit_through_client(files.as_ref(), &path, &input).await;
            }
            let checked = ctx.checked.clone();
            run_blocking(move || edit_file(&checked, &path, &input)).await
        })
    }
}

/// Edits the file the permission phase checked (`path` as given; the resolution recorded
/// in `checked` is what is opened and replaced).
fn edit_file(checked: &CheckedPaths, path: &Path, input: &EditInput) -> ToolOutput {
    if input.old_string == input.new_string {
        return ToolOutput::error(
            "No changes to make: old_string and new_string are exactly the same.",
        );
    }
    if let Err(message) = refuse_special_file("Edit", path) {
        return ToolOutput::error(message.to_string());
    }
    let cannot = |e: fs::FsError| {
        ToolOutput::error(format!("Cannot write {}: {}", path.display(), e.reason()))
    };
    // A missing directory means a missing file, which only an empty old_string creates.
    let target = match fs::target(checked, path, false) {
        Ok(t) => Some(t),
        Err(e) if e.is_not_found() => None,
        Err(e) => return cannot(e),
    };
    let (original, mode) = match target.as_ref().map(|t| read_text(t, path)) {
        None => (None, None),
        Some(Ok(found)) => found,
        Some(Err(message)) => return ToolOutput::error(message.to_string()),
    };
    let updated = match edited_text(original.as_deref(), input) {
        Ok(updated) => updated,
        Err(refused) => return refused,
    };

    let target = match target {
        Some(t) => t,
        // Creating: the directories it lacks are made now.
        None => match fs::target(checked, path, true) {
            Ok(t) => t,
            Err(e) => return cannot(e),
        },
    };
    if let Err(e) = target.write_atomic(updated.as_bytes(), mode) {
        return cannot(e);
    }
    edited(path, original, updated, input)
}

/// The text after the edit of `original` (`None`: no such file), or the refusal.
fn edited_text(original: Option<&str>, input: &EditInput) -> Result<String, ToolOutput> {
    let replace_all = input.replace_all.unwrap_or(false);
    match (original, input.old_string.is_empty()) {
        (None, true) => Ok(input.new_string.clone()),
        (None, false) => Err(ToolOutput::error("File does not exist.")),
        // An empty file may be "created" again; a non-empty one would be clobbered.
        (Some(""), true) => Ok(input.new_string.clone()),
        (Some(_), true) => Err(ToolOutput::error(
            "Cannot create new file - file already exists. Give a non-empty old_string to edit it.",
        )),
        (Some(text), false) => replace(text, &input.old_string, &input.new_string, replace_all)
            .map_err(|message| ToolOutput::error(message.to_string())),
    }
}

/// Edit through the front end: the editor's text (an unsaved buffer included) is edited
/// and written back by the editor, which records the change.
async fn edit_through_client(
    files: &dyn dcl_tool_api::ClientFiles,
    path: &Path,
    input: &EditInput,
) -> ToolOutput {
    if input.old_string == input.new_string {
        return ToolOutput::error(
            "No changes to make: old_string and new_string are exactly the same.",
        );
    }
    if let Err(message) = refuse_special_file("Edit", path) {
        return ToolOutput::error(message.to_string());
    }
    let original = match files.read_text_file(path).await {
        Ok(text) => Some(text),
        Err(dcl_tool_api::ClientFilesError::NotFound) => None,
        Err(e) => return ToolOutput::error(format!("Cannot read {}: {e}", path.display())),
    };
    let updated = match edited_text(original.as_deref(), input) {
        Ok(updated) => updated,
        Err(refused) => return refused,
    };
    if let Err(e) = files.write_text_file(path, &updated).await {
        return ToolOutput::error(format!("Cannot write {}: {e}", path.display()));
    }
    edited(path, original, updated, input)
}

/// The result of an edit that turned `original` into `updated`.
fn edited(path: &Path, original: Option<String>, updated: String, input: &EditInput) -> ToolOutput {
    let replace_all = input.replace_all.unwrap_or(false);
    let shown = display_path(path);
    let patch = structured_patch(original.as_deref().unwrap_or(""), &updated);
    ToolOutput::ok(format!("The file {shown} has been updated successfully.")).with_structured(
        json!({
            "type": if original.is_some() { "update" } else { "create" },
            "filePath": shown,
            "content": updated,
            "structuredPatch": patch,
            "originalFile": original,
            "oldString": input.old_string,
            "newString": input.new_string,
            "replaceAll": replace_all,
            "userModified": false,
        }),
    )
}

/// Why Edit changed nothing; the text is its error result.
#[derive(Debug, thiserror::Error)]
enum EditError {
    #[error("{} is not valid UTF-8 text; Edit only changes text files.", .0.display())]
    NotUtf8(PathBuf),
    #[error("{} is a directory; Edit needs a file path.", .0.display())]
    IsADirectory(PathBuf),
    #[error("Cannot read {}: {}", path.display(), source.reason())]
    Read { path: PathBuf, source: fs::FsError },
    #[error("String to replace not found in file.\nString: {0}")]
    NotFound(String),
    #[error(
        "Found {count} matches of the string to replace, but replace_all is false. To \
         replace all occurrences, set replace_all to true. To replace only one occurrence, \
         please provide more context to uniquely identify the instance.\nString: {old}"
    )]
    Ambiguous { count: usize, old: String },
}

/// The file's text and mode, `None` if it does not exist; an error otherwise.
fn read_text(target: &fs::Target, path: &Path) -> Result<(Option<String>, Option<u32>), EditError> {
    match target.read_existing() {
        Ok(Existing::Missing) => Ok((None, None)),
        Ok(Existing::Directory) => Err(EditError::IsADirectory(path.to_path_buf())),
        Ok(Existing::File { bytes, mode }) => String::from_utf8(bytes)
            .map(|text| (Some(text), mode))
            .map_err(|_| EditError::NotUtf8(path.to_path_buf())),
        Err(source) => Err(EditError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Replaces `old` by `new` in `text`: exactly one occurrence unless `replace_all`.
/// Models write `\n` line endings even for CRLF files (Read hides the `\r`), so when the
/// literal text is absent, the CRLF form of both strings is tried.
fn replace(text: &str, old: &str, new: &str, replace_all: bool) -> Result<String, EditError> {
    let (old, new) = match text.matches(old).count() {
        0 if text.contains("\r\n") && old.contains('\n') && !old.contains('\r') => {
            (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"))
        }
        _ => (old.to_string(), new.to_string()),
    };
    match text.matches(old.as_str()).count() {
        0 => Err(EditError::NotFound(old)),
        1 => Ok(text.replacen(old.as_str(), &new, 1)),
        _ if replace_all => Ok(text.replace(old.as_str(), &new)),
        count => Err(EditError::Ambiguous { count, old }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    async fn edit(dir: &Path, input: Value) -> ToolOutput {
        let ctx = ToolContext::new(dir.to_path_buf());
        EditTool.call(input, &ctx).await
    }

    fn fixture(body: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.rs");
        fs::write(&path, body).unwrap();
        (dir, path)
    }

    #[tokio::test]
    async fn replaces_single_occurrence() {
        let (dir, path) = fixture("fn a() {}\nfn b() {}\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "fn b", "new_string": "fn c"}),
        )
        .await;
        assert!(!out.is_error, "{:?}", out);
        assert_eq!(
            out.content.to_text(),
            format!(
                "The file {} has been updated successfully.",
                display_path(&path)
            )
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "fn a() {}\nfn c() {}\n");
        let s = out.structured.unwrap();
        assert_eq!(s["type"], "update");
        assert_eq!(s["oldString"], "fn b");
        assert_eq!(s["newString"], "fn c");
        assert_eq!(s["replaceAll"], false);
        assert_eq!(s["originalFile"], "fn a() {}\nfn b() {}\n");
        assert_eq!(
            s["structuredPatch"][0]["lines"],
            json!([" fn a() {}", "-fn b() {}", "+fn c() {}"])
        );
    }

    #[tokio::test]
    async fn ambiguous_match_names_count_and_changes_nothing() {
        let (dir, path) = fixture("x = 1\nx = 1\nx = 1\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "x = 1", "new_string": "x = 2"}),
        )
        .await;
        assert!(out.is_error);
        let msg = out.content.to_text();
        assert!(msg.contains("Found 3 matches"), "{msg}");
        assert!(msg.contains("replace_all"));
        assert!(msg.contains("more context"));
        assert_eq!(fs::read_to_string(&path).unwrap(), "x = 1\nx = 1\nx = 1\n");
    }

    #[tokio::test]
    async fn replace_all_replaces_every_occurrence() {
        let (dir, path) = fixture("x = 1\nx = 1\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "x", "new_string": "y", "replace_all": true}),
        )
        .await;
        assert!(!out.is_error);
        assert_eq!(fs::read_to_string(&path).unwrap(), "y = 1\ny = 1\n");
        assert_eq!(out.structured.unwrap()["replaceAll"], true);
    }

    #[tokio::test]
    async fn missing_string_is_an_error() {
        let (dir, _) = fixture("abc\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "zzz", "new_string": "y"}),
        )
        .await;
        assert!(out.is_error);
        assert!(
            out.content
                .to_text()
                .contains("String to replace not found")
        );
    }

    #[tokio::test]
    async fn identical_strings_are_rejected() {
        let (dir, _) = fixture("abc\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "abc", "new_string": "abc"}),
        )
        .await;
        assert!(out.is_error);
        assert!(out.content.to_text().contains("No changes to make"));
    }

    #[tokio::test]
    async fn empty_old_string_creates_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = edit(
            dir.path(),
            json!({"file_path": "new/n.txt", "old_string": "", "new_string": "hi\n"}),
        )
        .await;
        assert!(!out.is_error, "{:?}", out);
        assert_eq!(
            fs::read_to_string(dir.path().join("new/n.txt")).unwrap(),
            "hi\n"
        );
        let s = out.structured.unwrap();
        assert_eq!(s["type"], "create");
        assert_eq!(s["originalFile"], Value::Null);
    }

    #[tokio::test]
    async fn empty_old_string_refuses_to_clobber_existing_file() {
        let (dir, path) = fixture("keep\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "", "new_string": "x"}),
        )
        .await;
        assert!(out.is_error);
        assert_eq!(fs::read_to_string(&path).unwrap(), "keep\n");
    }

    #[tokio::test]
    async fn missing_file_with_old_string_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = edit(
            dir.path(),
            json!({"file_path": "no.txt", "old_string": "a", "new_string": "b"}),
        )
        .await;
        assert!(out.is_error);
        assert_eq!(out.content.to_text(), "File does not exist.");
    }

    #[tokio::test]
    async fn crlf_files_match_lf_old_string_and_keep_crlf() {
        let (dir, path) = fixture("one\r\ntwo\r\nthree\r\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "one\ntwo", "new_string": "uno\ndos"}),
        )
        .await;
        assert!(!out.is_error, "{:?}", out);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "uno\r\ndos\r\nthree\r\n"
        );
    }

    #[tokio::test]
    async fn replacement_text_is_literal_not_a_pattern() {
        let (dir, path) = fixture("price: 5\n");
        let out = edit(
            dir.path(),
            json!({"file_path": "f.rs", "old_string": "5", "new_string": "$1.00"}),
        )
        .await;
        assert!(!out.is_error);
        assert_eq!(fs::read_to_string(&path).unwrap(), "price: $1.00\n");
    }

    #[test]
    fn schema_matches_reference_shape() {
        let schema = EditTool.spec().input_schema().clone();
        assert_eq!(
            schema["required"],
            json!(["file_path", "old_string", "new_string"])
        );
        assert_eq!(schema["properties"]["replace_all"]["default"], false);
        assert_eq!(schema["properties"]["replace_all"]["type"], "boolean");
        assert_eq!(schema["additionalProperties"], false);
    }
}
