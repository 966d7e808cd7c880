//! A tool call as a front end shows it, and a hook run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ContentBlock;

/// What a tool call does, so a front end can pick an icon and a presentation without
/// knowing tool names (ACP's `ToolKind`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    #[default]
    Other,
}

/// Where a tool call is in its life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The model asked for it; it has not run yet (it may wait for a permission).
    #[default]
    Pending,
    InProgress,
    Completed,
    /// It ran and failed, or was denied or cancelled.
    Failed,
}

/// A file a tool call reads or writes, and the line when there is one (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

/// A change a tool call makes to one file. `old_text` is `None` for a new file or when the
/// old text is not known from the call (a `Write` over an existing file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diff {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_text: Option<String>,
    pub new_text: String,
}

/// A tool call item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCall {
    /// The tool's name as the model called it (`Bash`, `mcp__server__tool`, …).
    pub name: String,
    pub kind: ToolKind,
    /// One line for humans: `Read src/main.rs`, `ls -la`.
    pub title: String,
    /// The input exactly as the model gave it.
    pub raw_input: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// For edits and writes: what changes, file by file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diff: Vec<Diff>,
    pub status: ToolStatus,
    /// The result the model got back (set once the call is completed or failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
}

impl ToolCall {
    /// A pending call of `name` with `input`, its kind, title, locations and diff read from
    /// the input of dcl's built-in tools (an unknown tool is `other`, titled by its name).
    pub fn describe(name: impl Into<String>, input: Value) -> ToolCall {
        let name = name.into();
        let s = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
        let path = s("file_path").or_else(|| s("notebook_path"));
        let at = |path: &Option<String>, line: Option<u64>| {
            path.iter()
                .map(|p| Location {
                    path: p.clone(),
                    line,
                })
                .collect::<Vec<_>>()
        };
        let titled = |verb: &str, what: Option<String>| match what {
            Some(w) => format!("{verb} {w}"),
            None => verb.to_string(),
        };
        let (kind, title, locations, diff) = match name.as_str() {
            "Read" => {
                let line = input.get("offset").and_then(Value::as_u64);
                (
                    ToolKind::Read,
                    titled("Read", path.clone()),
                    at(&path, line),
                    vec![],
                )
            }
            "Edit" => {
                let diff = path
                    .iter()
                    .map(|p| Diff {
                        path: p.clone(),
                        old_text: s("old_string"),
                        new_text: s("new_string").unwrap_or_default(),
                    })
                    .collect();
                (
                    ToolKind::Edit,
                    titled("Edit", path.clone()),
                    at(&path, None),
                    diff,
                )
            }
            "MultiEdit" => {
                let edits = input.get("edits").and_then(Value::as_array);
                let diff = path
                    .iter()
                    .flat_map(|p| {
                        edits.into_iter().flatten().map(move |e| Diff {
                            path: p.clone(),
                            old_text: e.get("old_string").and_then(Value::as_str).map(Into::into),
                            new_text: e
                                .get("new_string")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                        })
                    })
                    .collect();
                (
                    ToolKind::Edit,
                    titled("Edit", path.clone()),
                    at(&path, None),
                    diff,
                )
            }
            "Write" => {
                let diff = path
                    .iter()
                    .map(|p| Diff {
                        path: p.clone(),
                        old_text: None,
                        new_text: s("content").unwrap_or_default(),
                    })
                    .collect();
                (
                    ToolKind::Edit,
                    titled("Write", path.clone()),
                    at(&path, None),
                    diff,
                )
            }
            "NotebookEdit" => {
                let diff = path
                    .iter()
                    .map(|p| Diff {
                        path: p.clone(),
                        old_text: None,
                        new_text: s("new_source").unwrap_or_default(),
                    })
                    .collect();
                (
                    ToolKind::Edit,
                    titled("Edit", path.clone()),
                    at(&path, None),
                    diff,
                )
            }
            "Bash" => {
                let title = s("command").unwrap_or_else(|| "Bash".into());
                (ToolKind::Execute, title, vec![], vec![])
            }
            "BashOutput" | "KillShell" => (ToolKind::Execute, name.clone(), vec![], vec![]),
            "Grep" | "Glob" => {
                let under = s("path");
                let title = match (s("pattern"), &under) {
                    (Some(p), Some(d)) => format!("{name} {p} in {d}"),
                    (Some(p), None) => format!("{name} {p}"),
                    _ => name.clone(),
                };
                (ToolKind::Search, title, at(&under, None), vec![])
            }
            "WebFetch" => (ToolKind::Fetch, titled("Fetch", s("url")), vec![], vec![]),
            "WebSearch" => (
                ToolKind::Fetch,
                titled("Search", s("query")),
                vec![],
                vec![],
            ),
            "Agent" | "Task" => {
                let title = s("description").unwrap_or_else(|| name.clone());
                (ToolKind::Think, title, vec![], vec![])
            }
            "TodoWrite" => (ToolKind::Think, "Update the plan".into(), vec![], vec![]),
            "ExitPlanMode" => (ToolKind::Think, "Ready to code".into(), vec![], vec![]),
            _ => (ToolKind::Other, name.clone(), vec![], vec![]),
        };
        ToolCall {
            name,
            kind,
            title,
            raw_input: input,
            locations,
            diff,
            status: ToolStatus::Pending,
            content: Vec::new(),
        }
    }
}

/// How a hook run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookStatus {
    #[default]
    Running,
    Success,
    /// It asked to block or stop what it was called for.
    Blocked,
    Error,
    Cancelled,
}

/// A hook run item: one hook (a command, or a host callback) called for one hook event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookRun {
    /// The hook event (`PreToolUse`, `Stop`, …).
    pub event: String,
    /// The hook's name as configured (its command, or the callback's label).
    pub name: String,
    pub status: HookStatus,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edit_gives_its_file_and_diff() {
        let call = ToolCall::describe(
            "Edit",
            json!({"file_path": "/w/a.rs", "old_string": "a", "new_string": "b"}),
        );
        assert_eq!(
            (call.kind, call.title.as_str()),
            (ToolKind::Edit, "Edit /w/a.rs")
        );
        assert_eq!(
            call.locations,
            [Location {
                path: "/w/a.rs".into(),
                line: None
            }]
        );
        assert_eq!(
            call.diff,
            [Diff {
                path: "/w/a.rs".into(),
                old_text: Some("a".into()),
                new_text: "b".into()
            }]
        );
        assert_eq!(call.status, ToolStatus::Pending);
    }

    #[test]
    fn kinds_and_titles_of_the_built_in_tools() {
        let kind_title = |name: &str, input: Value| {
            let c = ToolCall::describe(name, input);
            (c.kind, c.title)
        };
        assert_eq!(
            kind_title("Bash", json!({"command": "ls -la"})),
            (ToolKind::Execute, "ls -la".into())
        );
        assert_eq!(
            kind_title("Read", json!({"file_path": "/a", "offset": 12})),
            (ToolKind::Read, "Read /a".into())
        );
        assert_eq!(
            ToolCall::describe("Read", json!({"file_path": "/a", "offset": 12})).locations[0].line,
            Some(12)
        );
        assert_eq!(
            kind_title("Grep", json!({"pattern": "fn", "path": "src"})),
            (ToolKind::Search, "Grep fn in src".into())
        );
        assert_eq!(
            kind_title("WebFetch", json!({"url": "http://x"})),
            (ToolKind::Fetch, "Fetch http://x".into())
        );
        assert_eq!(
            kind_title("mcp__s__t", json!({})),
            (ToolKind::Other, "mcp__s__t".into())
        );
        let write = ToolCall::describe("Write", json!({"file_path": "/n", "content": "hi"}));
        assert_eq!(
            write.diff,
            [Diff {
                path: "/n".into(),
                old_text: None,
                new_text: "hi".into()
            }]
        );
    }
}
