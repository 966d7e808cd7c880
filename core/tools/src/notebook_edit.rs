//! NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook (nbformat 4
//! JSON). The notebook is rewritten in the layout it was read in (indentation, key
//! order, trailing newline), so cells and metadata that were not edited keep their bytes
//! whenever the file came from Jupyter, and the write is atomic.

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::fs::{self, Existing};
use super::support::{
    display_path, file_name_of, input_path, input_str, refuse_special_file, resolve_path,
    run_blocking,
};
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;
use dcl_tool_api::CheckedPaths;

const DESCRIPTION: &str = "Edits one cell of a Jupyter notebook (.ipynb). `notebook_path` \
should be absolute; a relative path is resolved against the session's working directory. \
`edit_mode` is `replace` (the default: the cell's source becomes `new_source`), `insert` (a \
new cell with `new_source` goes after the cell `cell_id`, or first when `cell_id` is absent; \
`cell_type` is required) or `delete` (the cell `cell_id` is removed). Cells are named by \
their `id`, or by position as `cell-N` (0-based). `cell_type` (`code` or `markdown`) on a \
replace changes the cell's type. A replaced code cell loses its outputs and execution count. \
The rest of the notebook is left as it was.";

pub struct NotebookEditTool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

impl EditMode {
    fn as_str(self) -> &'static str {
        match self {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        }
    }
}

#[derive(Debug, Deserialize)]
struct NotebookEditInput {
    notebook_path: String,
    #[serde(default)]
    cell_id: Option<String>,
    new_source: String,
    #[serde(default)]
    cell_type: Option<CellType>,
    #[serde(default)]
    edit_mode: Option<EditMode>,
}

/// The definition, built once per process.
static NOTEBOOK_EDIT_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        NotebookEditTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/notebook_edit.json")),
    )
});

impl Tool for NotebookEditTool {
    fn name(&self) -> &'static str {
        "NotebookEdit"
    }

    fn spec(&self) -> ToolSpec {
        NOTEBOOK_EDIT_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn paths(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        input_path(input, "notebook_path", ctx)
            .into_iter()
            .collect()
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "notebook_path").map(file_name_of)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: NotebookEditInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let path = resolve_path(ctx, &input.notebook_path);
            let checked = ctx.checked.clone();
            run_blocking(move || match edit_notebook(&checked, &path, &input) {
                Ok(output) => output,
                Err(message) => ToolOutput::error(message.to_string()),
            })
            .await
        })
    }
}

/// Why NotebookEdit changed nothing; the text is its error result.
#[derive(Debug, thiserror::Error)]
enum NotebookError {
    #[error(
        "File must be a Jupyter notebook (.ipynb file). For editing other file types, use \
         the Edit tool."
    )]
    NotANotebook,
    #[error(transparent)]
    File(#[from] super::support::FileToolError),
    #[error("Notebook file does not exist.")]
    Missing,
    #[error("Cannot read {}: {}", path.display(), source.reason())]
    Read { path: PathBuf, source: fs::FsError },
    #[error("Notebook is not valid JSON: {0}")]
    Json(serde_json::Error),
    #[error("Notebook format {0} is not supported; only nbformat 4 notebooks can be edited.")]
    Format(u64),
    #[error("Notebook has no \"cells\" list.")]
    NoCells,
    #[error("Cell with ID \"{0}\" not found in notebook.")]
    NoSuchCell(String),
    #[error("Cell {id} not found: the notebook has {count} cells.")]
    CellOutOfRange { id: String, count: usize },
    #[error("Cell type is required when using edit_mode=insert.")]
    CellTypeRequired,
    #[error("Cell ID must be specified when not inserting a new cell.")]
    CellIdRequired,
    #[error("Cell {0} of the notebook is not an object.")]
    CellNotAnObject(usize),
    /// The edited notebook could not be serialized in its layout.
    #[error("{0}")]
    Render(String),
    #[error("Cannot write {}: {}", path.display(), source.reason())]
    Write { path: PathBuf, source: fs::FsError },
}

/// Edits the notebook the permission phase checked (`path` as given; the resolution
/// recorded in `checked` is what is opened and replaced).
fn edit_notebook(
    checked: &CheckedPaths,
    path: &Path,
    input: &NotebookEditInput,
) -> Result<ToolOutput, NotebookError> {
    let is_ipynb = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
    if !is_ipynb {
        return Err(NotebookError::NotANotebook);
    }
    refuse_special_file("NotebookEdit", path)?;
    let read_error = |source| NotebookError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = match fs::target(checked, path, false) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Err(NotebookError::Missing),
        Err(e) => return Err(read_error(e)),
    };
    let (original, file_mode) = match file.read_existing().map_err(read_error)? {
        Existing::Missing => return Err(NotebookError::Missing),
        Existing::Directory => {
            return Err(read_error(fs::FsError::io(
                path,
                io::Error::new(io::ErrorKind::IsADirectory, "Is a directory"),
            )));
        }
        Existing::File { bytes, mode } => match String::from_utf8(bytes) {
            Ok(text) => (text, mode),
            Err(_) => {
                return Err(read_error(fs::FsError::io(
                    path,
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        "stream did not contain valid UTF-8",
                    ),
                )));
            }
        },
    };

    let mut notebook: Value = serde_json::from_str(&original).map_err(NotebookError::Json)?;
    let layout = Layout::detect(&original);
    let language = notebook_language(&notebook);
    let (major, minor) = nbformat_version(&notebook);
    if major < 4 {
        return Err(NotebookError::Format(major));
    }
    let with_ids = major > 4 || minor >= 5;
    let cells = notebook
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or(NotebookError::NoCells)?;

    let mut mode = input.edit_mode.unwrap_or_default();
    let target = match input.cell_id.as_deref().filter(|id| !id.is_empty()) {
        None => None,
        Some(id) => Some(find_cell(cells, id)?),
    };
    // Replacing the cell one past the end (`cell-N` with N = number of cells) is how
    // models append; treat it as inserting there.
    let mut insert_at_end = false;
    if mode == EditMode::Replace && target == Some(cells.len()) {
        mode = EditMode::Insert;
        insert_at_end = true;
    }
    if mode != EditMode::Insert && target.is_some_and(|i| i >= cells.len()) {
        return Err(NotebookError::CellOutOfRange {
            id: input.cell_id.clone().unwrap_or_default(),
            count: cells.len(),
        });
    }

    let edit = match mode {
        EditMode::Insert => {
            let cell_type = match (input.cell_type, insert_at_end) {
                (Some(t), _) => t,
                (None, true) => CellType::Code,
                (None, false) => {
                    return Err(NotebookError::CellTypeRequired);
                }
            };
            let index = match target {
                _ if insert_at_end => cells.len(),
                Some(i) => (i + 1).min(cells.len()),
                None => 0,
            };
            let id = with_ids.then(|| new_cell_id(cells));
            let as_lines = cells
                .iter()
                .find_map(|c| c.get("source"))
                .is_none_or(Value::is_array);
            let cell = new_cell(cell_type, id.as_deref(), &input.new_source, as_lines);
            cells.insert(index, cell);
            Edit {
                cell_id: id.unwrap_or_else(|| format!("cell-{index}")),
                cell_type: cell_type.as_str().to_string(),
                old_source: None,
            }
        }
        EditMode::Replace => {
            let index = target.ok_or(NotebookError::CellIdRequired)?;
            let cell = cells[index]
                .as_object_mut()
                .ok_or(NotebookError::CellNotAnObject(index))?;
            let old_source = source_text(cell.get("source"));
            let as_lines = cell.get("source").is_none_or(Value::is_array);
            cell.insert(
                "source".to_string(),
                source_value(&input.new_source, as_lines),
            );
            if let Some(new_type) = input.cell_type {
                set_cell_type(cell, new_type);
            }
            if cell.get("cell_type").and_then(Value::as_str) == Some("code") {
                cell.insert("execution_count".to_string(), Value::Null);
                cell.insert("outputs".to_string(), json!([]));
            }
            Edit {
                cell_id: display_id(cell, index),
                cell_type: cell_type_of(cell),
                old_source: Some(old_source),
            }
        }
        EditMode::Delete => {
            let index = target.ok_or(NotebookError::CellIdRequired)?;
            let removed = cells.remove(index);
            let cell = removed.as_object().cloned().unwrap_or_default();
            Edit {
                cell_id: display_id(&cell, index),
                cell_type: cell_type_of(&cell),
                old_source: Some(source_text(cell.get("source"))),
            }
        }
    };

    let updated = layout.render(&notebook)?;
    file.write_atomic(updated.as_bytes(), file_mode)
        .map_err(|source| NotebookError::Write {
            path: path.to_path_buf(),
            source,
        })?;

    let text = match mode {
        EditMode::Replace => format!("Updated cell {} with {}", edit.cell_id, input.new_source),
        EditMode::Insert => format!("Inserted cell {} with {}", edit.cell_id, input.new_source),
        EditMode::Delete => format!("Deleted cell {}", edit.cell_id),
    };
    let mut structured = json!({
        "new_source": input.new_source,
        "cell_id": edit.cell_id,
        "cell_type": edit.cell_type,
        "language": language,
        "edit_mode": mode.as_str(),
        "notebook_path": display_path(path),
        "original_file": original,
        "updated_file": updated,
    });
    if let Some(old) = edit.old_source {
        structured["old_source"] = json!(old);
    }
    Ok(ToolOutput::ok(text).with_structured(structured))
}

struct Edit {
    cell_id: String,
    cell_type: String,
    old_source: Option<String>,
}

/// The index of the cell named `id`: its `id` field, or `cell-N` for position N (which
/// may be one past the end; callers decide whether that is allowed).
fn find_cell(cells: &[Value], id: &str) -> Result<usize, NotebookError> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Ok(i);
    }
    if let Some(n) = id
        .strip_prefix("cell-")
        .and_then(|n| n.parse::<usize>().ok())
        && n <= cells.len()
    {
        return Ok(n);
    }
    Err(NotebookError::NoSuchCell(id.to_string()))
}

/// How the model should refer to a cell: its id, or `cell-N` when it has none.
fn display_id(cell: &Map<String, Value>, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| format!("cell-{index}"))
}

fn cell_type_of(cell: &Map<String, Value>) -> String {
    cell.get("cell_type")
        .and_then(Value::as_str)
        .unwrap_or("code")
        .to_string()
}

/// A cell's source as one string (nbformat allows a string or a list of lines).
fn source_text(source: Option<&Value>) -> String {
    match source {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// `text` as nbformat stores it: a list of lines each keeping its `\n` (what Jupyter
/// writes), or a single string.
fn source_value(text: &str, as_lines: bool) -> Value {
    if as_lines {
        Value::Array(
            text.split_inclusive('\n')
                .map(|l| Value::String(l.to_string()))
                .collect(),
        )
    } else {
        Value::String(text.to_string())
    }
}

/// Changes a cell's type, adding and dropping the fields nbformat requires or forbids
/// for it. Keys are kept sorted when they were (Jupyter sorts them).
fn set_cell_type(cell: &mut Map<String, Value>, new_type: CellType) {
    if cell.get("cell_type").and_then(Value::as_str) == Some(new_type.as_str()) {
        return;
    }
    let was_sorted = cell.keys().zip(cell.keys().skip(1)).all(|(a, b)| a <= b);
    cell.insert("cell_type".to_string(), json!(new_type.as_str()));
    match new_type {
        CellType::Code => {
            cell.shift_remove("attachments");
            cell.insert("execution_count".to_string(), Value::Null);
            cell.insert("outputs".to_string(), json!([]));
        }
        CellType::Markdown => {
            cell.shift_remove("execution_count");
            cell.shift_remove("outputs");
        }
    }
    if was_sorted {
        cell.sort_keys();
    }
}

/// A new cell with nbformat's fields, keys in Jupyter's (sorted) order.
fn new_cell(cell_type: CellType, id: Option<&str>, source: &str, as_lines: bool) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".to_string(), json!(cell_type.as_str()));
    if cell_type == CellType::Code {
        cell.insert("execution_count".to_string(), Value::Null);
    }
    if let Some(id) = id {
        cell.insert("id".to_string(), json!(id));
    }
    cell.insert("metadata".to_string(), json!({}));
    if cell_type == CellType::Code {
        cell.insert("outputs".to_string(), json!([]));
    }
    cell.insert("source".to_string(), source_value(source, as_lines));
    Value::Object(cell)
}

/// A fresh cell id (8 hex digits, like nbformat's) no other cell has.
fn new_cell_id(cells: &[Value]) -> String {
    loop {
        let id: String = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        if !cells
            .iter()
            .any(|c| c.get("id").and_then(Value::as_str) == Some(id.as_str()))
        {
            return id;
        }
    }
}

fn nbformat_version(notebook: &Value) -> (u64, u64) {
    let major = notebook
        .get("nbformat")
        .and_then(Value::as_u64)
        .unwrap_or(4);
    let minor = notebook
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    (major, minor)
}

fn notebook_language(notebook: &Value) -> String {
    let metadata = notebook.get("metadata");
    metadata
        .and_then(|m| m.pointer("/language_info/name"))
        .or_else(|| metadata.and_then(|m| m.pointer("/kernelspec/language")))
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_string()
}

/// How the notebook file was laid out, so it can be written back the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    /// The indentation unit, or `None` for single-line JSON.
    indent: Option<String>,
    trailing_newline: bool,
}

impl Layout {
    fn detect(text: &str) -> Layout {
        let body = text.trim_start();
        let indent = body.strip_prefix('{').and_then(|rest| {
            let rest = rest
                .strip_prefix("\r\n")
                .or_else(|| rest.strip_prefix('\n'))?;
            let unit: String = rest
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            Some(if unit.is_empty() {
                " ".to_string()
            } else {
                unit
            })
        });
        Layout {
            indent,
            trailing_newline: text.ends_with('\n'),
        }
    }

    fn render(&self, notebook: &Value) -> Result<String, NotebookError> {
        let render = |e: &dyn std::fmt::Display| NotebookError::Render(e.to_string());
        let mut out = match &self.indent {
            None => serde_json::to_string(notebook).map_err(|e| render(&e))?,
            Some(unit) => {
                let mut buf = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
                serde::Serialize::serialize(notebook, &mut ser).map_err(|e| render(&e))?;
                String::from_utf8(buf).map_err(|e| render(&e))?
            }
        };
        if self.trailing_newline {
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::fs;

    /// A notebook exactly as Jupyter writes it (`json.dumps(indent=1, sort_keys=True,
    /// ensure_ascii=False)` plus a newline), with ids (nbformat 4.5).
    const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title — ünïcode\n",
    "Some text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "calc",
   "metadata": {
    "tags": [
     "keep"
    ]
   },
   "outputs": [
    {
     "data": {
      "text/plain": [
       "2"
      ]
     },
     "execution_count": 3,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "1 + 1"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "last",
   "metadata": {},
   "outputs": [],
   "source": []
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.11.4"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    fn setup(contents: &str) -> (tempfile::TempDir, PathBuf, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nb.ipynb");
        fs::write(&path, contents).unwrap();
        let ctx = ToolContext::new(dir.path().to_path_buf());
        (dir, path, ctx)
    }

    async fn edit(ctx: &ToolContext, input: Value) -> ToolOutput {
        NotebookEditTool.call(input, ctx).await
    }

    fn read_nb(path: &Path) -> Value {
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn unedited_notebook_round_trips_byte_for_byte() {
        let layout = Layout::detect(NOTEBOOK);
        let value: Value = serde_json::from_str(NOTEBOOK).unwrap();
        assert_eq!(layout.render(&value).unwrap(), NOTEBOOK);
        let compact = r#"{"cells":[],"nbformat":4,"nbformat_minor":2}"#;
        let value: Value = serde_json::from_str(compact).unwrap();
        assert_eq!(Layout::detect(compact).render(&value).unwrap(), compact);
        let two = "{\n  \"a\": [\n    1\n  ]\n}";
        let value: Value = serde_json::from_str(two).unwrap();
        assert_eq!(Layout::detect(two).render(&value).unwrap(), two);
    }

    #[tokio::test]
    async fn replace_code_cell_clears_outputs_and_keeps_the_rest_byte_stable() {
        let (_dir, path, ctx) = setup(NOTEBOOK);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "calc", "new_source": "x = 2\nx * 3"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        assert_eq!(out.content.to_text(), "Updated cell calc with x = 2\nx * 3");
        let updated = fs::read_to_string(&path).unwrap();
        let expected_cell = r#"  {
   "cell_type": "code",
   "execution_count": null,
   "id": "calc",
   "metadata": {
    "tags": [
     "keep"
    ]
   },
   "outputs": [],
   "source": [
    "x = 2\n",
    "x * 3"
   ]
  },"#;
        let start = NOTEBOOK
            .find("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3")
            .unwrap();
        let end = NOTEBOOK
            .find("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null")
            .unwrap();
        let expected = format!(
            "{}{}\n{}",
            &NOTEBOOK[..start],
            expected_cell,
            &NOTEBOOK[end..]
        );
        assert_eq!(updated, expected);

        let s = out.structured.unwrap();
        assert_eq!(s["old_source"], "1 + 1");
        assert_eq!(s["cell_type"], "code");
        assert_eq!(s["language"], "python");
        assert_eq!(s["edit_mode"], "replace");
        assert_eq!(s["original_file"], NOTEBOOK);
        assert_eq!(s["updated_file"], updated);
    }

    #[tokio::test]
    async fn replace_by_index_and_change_type() {
        let (_dir, path, ctx) = setup(NOTEBOOK);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "cell-1", "new_source": "Now prose",
                   "cell_type": "markdown"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        let nb = read_nb(&path);
        let cell = &nb["cells"][1];
        assert_eq!(
            cell,
            &json!({"cell_type": "markdown", "id": "calc", "metadata": {"tags": ["keep"]},
                    "source": ["Now prose"]})
        );
        let keys: Vec<&String> = cell.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["cell_type", "id", "metadata", "source"]);

        // And back: a markdown cell turned into code gets empty outputs, sorted in.
        edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "intro", "new_source": "print(1)",
                   "cell_type": "code"}),
        )
        .await;
        let nb = read_nb(&path);
        let keys: Vec<&String> = nb["cells"][0].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "cell_type",
                "execution_count",
                "id",
                "metadata",
                "outputs",
                "source"
            ]
        );
        assert_eq!(nb["cells"][0]["outputs"], json!([]));
    }

    #[tokio::test]
    async fn insert_after_a_cell_or_at_the_top() {
        let (_dir, path, ctx) = setup(NOTEBOOK);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "intro", "new_source": "a\nb\n",
                   "cell_type": "code", "edit_mode": "insert"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        let nb = read_nb(&path);
        let new = &nb["cells"][1];
        let id = new["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 8);
        assert_eq!(
            out.content.to_text(),
            format!("Inserted cell {id} with a\nb\n")
        );
        assert_eq!(
            new,
            &json!({"cell_type": "code", "execution_count": null, "id": id, "metadata": {},
                    "outputs": [], "source": ["a\n", "b\n"]})
        );
        assert_eq!(nb["cells"][2]["id"], "calc");

        let out = edit(
            &ctx,
            json!({"notebook_path": path, "new_source": "top", "cell_type": "markdown",
                   "edit_mode": "insert"}),
        )
        .await;
        assert!(!out.is_error);
        let nb = read_nb(&path);
        assert_eq!(nb["cells"][0]["source"], json!(["top"]));
        assert_eq!(nb["cells"].as_array().unwrap().len(), 5);
        assert!(nb["cells"][0].get("outputs").is_none());
    }

    #[tokio::test]
    async fn insert_needs_a_cell_type_and_replace_past_the_end_appends() {
        let (_dir, path, ctx) = setup(NOTEBOOK);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "new_source": "x", "edit_mode": "insert"}),
        )
        .await;
        assert!(out.is_error);
        assert!(out.content.to_text().contains("Cell type is required"));
        assert_eq!(fs::read_to_string(&path).unwrap(), NOTEBOOK);

        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "cell-3", "new_source": "end"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        let nb = read_nb(&path);
        assert_eq!(nb["cells"][3]["source"], json!(["end"]));
        assert_eq!(out.structured.unwrap()["edit_mode"], "insert");
    }

    #[tokio::test]
    async fn delete_removes_the_cell() {
        let (_dir, path, ctx) = setup(NOTEBOOK);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "calc", "new_source": "",
                   "edit_mode": "delete"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        assert_eq!(out.content.to_text(), "Deleted cell calc");
        let nb = read_nb(&path);
        let ids: Vec<&str> = nb["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["intro", "last"]);
        assert_eq!(out.structured.unwrap()["old_source"], "1 + 1");
    }

    #[tokio::test]
    async fn old_notebooks_without_ids_use_positions_and_string_sources() {
        let old = r#"{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "hi"}], "source": "print('hi')"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"#;
        let (_dir, path, ctx) = setup(old);
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "print('bye')"}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        let nb = read_nb(&path);
        assert_eq!(nb["cells"][0]["source"], "print('bye')");
        assert_eq!(nb["cells"][0]["outputs"], json!([]));
        assert_eq!(nb["cells"][0]["execution_count"], Value::Null);
        // Inserted cells get no id before nbformat 4.5.
        let out = edit(
            &ctx,
            json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "m",
                   "cell_type": "markdown", "edit_mode": "insert"}),
        )
        .await;
        assert_eq!(out.content.to_text(), "Inserted cell cell-1 with m");
        let nb = read_nb(&path);
        assert!(nb["cells"][1].get("id").is_none());
        assert!(!fs::read_to_string(&path).unwrap().contains('\n'));
    }

    #[tokio::test]
    async fn errors_leave_the_file_alone() {
        let (dir, path, ctx) = setup(NOTEBOOK);
        let cases = [
            (
                json!({"notebook_path": path, "cell_id": "nope", "new_source": "x"}),
                "Cell with ID \"nope\" not found",
            ),
            (
                json!({"notebook_path": path, "new_source": "x"}),
                "Cell ID must be specified",
            ),
            (
                json!({"notebook_path": path, "cell_id": "cell-9", "new_source": "x"}),
                "not found",
            ),
            (
                json!({"notebook_path": path, "cell_id": "calc", "new_source": "x",
                       "edit_mode": "move"}),
                "InputValidationError",
            ),
            (
                json!({"notebook_path": "missing.ipynb", "new_source": "x"}),
                "does not exist",
            ),
            (
                json!({"notebook_path": "notes.txt", "new_source": "x"}),
                "must be a Jupyter notebook",
            ),
        ];
        for (input, expected) in cases {
            let out = edit(&ctx, input.clone()).await;
            assert!(out.is_error, "{input}");
            assert!(
                out.content.to_text().contains(expected),
                "{input}: {}",
                out.content.to_text()
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), NOTEBOOK);

        fs::write(dir.path().join("bad.ipynb"), "{not json").unwrap();
        let out = edit(
            &ctx,
            json!({"notebook_path": "bad.ipynb", "cell_id": "a", "new_source": "x"}),
        )
        .await;
        assert!(out.content.to_text().contains("not valid JSON"));
        let entries = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(entries, 2, "temp files left behind");
    }

    #[test]
    fn metadata() {
        let ctx = ToolContext::new(PathBuf::from("/proj"));
        assert_eq!(NotebookEditTool.kind(), ToolKind::Edit);
        assert_eq!(
            NotebookEditTool.paths(&json!({"notebook_path": "a/../n.ipynb"}), &ctx),
            vec![PathBuf::from("/proj/n.ipynb")]
        );
        let schema = NotebookEditTool.spec().input_schema().clone();
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "notebook_path",
                "cell_id",
                "new_source",
                "cell_type",
                "edit_mode"
            ]
        );
        assert_eq!(schema["required"], json!(["notebook_path", "new_source"]));
    }
}
