//! The built-in tools (Bash, the file tools, search, the web tools, TodoWrite), on the tool
//! API. Each tool resolves paths against its session's working directory (never the
//! process's), so sessions with different cwds can share one process. The crate knows no
//! engine: permissions, hooks and the turn are the caller's.

pub mod background;
pub mod bash;
pub mod edit;
pub mod environment;
pub(crate) mod fs;
pub mod glob;
pub mod grep;
mod net;
pub mod notebook_edit;
pub mod read;
mod support;
pub mod todo_write;
pub mod web_fetch;
pub mod web_search;
pub mod write;

pub use background::{BackgroundShellInfo, BackgroundShells, ShellStatus};
/// The schema shape every tool input uses; the engine's own tools build theirs with it too.
pub use support::object_schema;

use std::sync::{Arc, LazyLock};

pub use dcl_tool_api::{
    Approval, BoxFuture, ProcessSpec, ShellState, Tool, ToolContext, ToolKind, ToolOutput,
    ToolSpec, parse_input,
};

/// The built-in tools, in the order they are offered to the model. One set per process:
/// the tools hold no state of their own, so every session shares them (and their
/// definitions, each built once).
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    static BUILTIN: LazyLock<Vec<Arc<dyn Tool>>> = LazyLock::new(|| {
        vec![
            Arc::new(bash::BashTool),
            Arc::new(background::BashOutputTool),
            Arc::new(edit::EditTool),
            Arc::new(glob::GlobTool),
            Arc::new(grep::GrepTool),
            Arc::new(background::KillShellTool),
            Arc::new(notebook_edit::NotebookEditTool),
            Arc::new(read::ReadTool),
            Arc::new(todo_write::TodoWriteTool),
            Arc::new(web_fetch::WebFetchTool),
            Arc::new(web_search::WebSearchTool),
            Arc::new(write::WriteTool),
        ]
    });
    BUILTIN.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_definition_is_built_once_and_shared() {
        let (a, b) = (builtin_tools(), builtin_tools());
        assert_eq!(a.len(), 12);
        for (x, y) in a.iter().zip(&b) {
            assert!(Arc::ptr_eq(x, y), "{}", x.name());
            let spec = x.spec();
            assert!(ToolSpec::ptr_eq(&spec, &y.spec()), "{}", x.name());
            assert_eq!(spec.name(), x.name());
        }
    }

    /// A built-in schema is kept as text and offered as it is: the text must be the compact
    /// form `serde_json` writes for its value, or the counted sizes and the wire disagree.
    #[test]
    fn every_built_in_schema_is_the_compact_json_of_its_value() {
        for tool in builtin_tools() {
            let spec = tool.spec();
            let name = spec.name();
            let text = spec
                .schema_text()
                .unwrap_or_else(|| panic!("{name}: no schema text"));
            let written = serde_json::to_string(spec.input_schema()).expect("a value serializes");
            assert_eq!(text, written, "{name}");
            assert_eq!(spec.input_schema()["type"], "object", "{name}");
            assert_eq!(spec.input_schema()["additionalProperties"], false, "{name}");
        }
    }
}
