//! TodoWrite: replaces the session's todo list, which lets the model plan multi-step
//! work and show its progress. It only changes session state, so it never asks for
//! permission (`always_allowed`).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;

const DESCRIPTION: &str = "Creates or updates the task list for the current session, so you \
can plan multi-step work and the user can follow your progress. Each call replaces the whole \
list: send every item, each with `content` (what to do, imperative: \"Run the tests\"), \
`activeForm` (the same in present continuous, shown while it runs: \"Running the tests\") and \
`status` (`pending`, `in_progress` or `completed`). Use it for tasks with three or more \
steps or when the user gives several tasks; skip it for trivial single-step requests. Keep \
exactly one item `in_progress` while you work, and mark each item `completed` as soon as it \
is done (not in batches), only when it is fully done: if tests fail or work is partial, keep \
it `in_progress` and add an item for what blocks it.";

/// The model-facing answer to a successful update.
const SUCCESS: &str = "Todos have been modified successfully. Ensure that you continue to use \
the todo list to track your progress. Please proceed with the current tasks if applicable";

pub struct TodoWriteTool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    InProgress,
    Completed,
}

/// One item. Unknown fields (older clients sent `id` and `priority`) are ignored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Todo {
    content: String,
    status: Status,
    #[serde(rename = "activeForm")]
    active_form: String,
}

#[derive(Debug, Deserialize)]
struct TodoWriteInput {
    todos: Vec<Todo>,
}

/// The definition, built once per process.
static TODO_WRITE_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        TodoWriteTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/todo_write.json")),
    )
});

impl Tool for TodoWriteTool {
    fn name(&self) -> &'static str {
        "TodoWrite"
    }

    fn spec(&self) -> ToolSpec {
        TODO_WRITE_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn always_allowed(&self) -> bool {
        true
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: TodoWriteInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            if let Some(message) = validate(&input.todos) {
                return ToolOutput::error(format!(
                    "<tool_use_error>InputValidationError: TodoWrite failed due to the \
                     following issue: {message}</tool_use_error>"
                ));
            }
            let new_todos: Vec<Value> = input
                .todos
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect();
            // A list whose items are all done is finished: the session starts the next
            // piece of work with an empty list (the reference does the same).
            let all_done = input.todos.iter().all(|t| t.status == Status::Completed);
            let stored = if all_done {
                Vec::new()
            } else {
                new_todos.clone()
            };
            let old_todos = {
                let mut todos = match ctx.todos.lock() {
                    Ok(g) => g,
                    Err(poisoned) => poisoned.into_inner(),
                };
                std::mem::replace(&mut *todos, stored)
            };
            ToolOutput::ok(SUCCESS).with_structured(json!({
                "oldTodos": old_todos,
                "newTodos": new_todos,
            }))
        })
    }
}

/// What is wrong with the list beyond its shape (which serde checks).
fn validate(todos: &[Todo]) -> Option<String> {
    for (i, todo) in todos.iter().enumerate() {
        if todo.content.trim().is_empty() {
            return Some(format!("todos[{i}].content must not be empty"));
        }
        if todo.active_form.trim().is_empty() {
            return Some(format!("todos[{i}].activeForm must not be empty"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::path::PathBuf;

    fn ctx() -> ToolContext {
        ToolContext::new(PathBuf::from("/tmp"))
    }

    fn item(content: &str, status: &str) -> Value {
        json!({"content": content, "status": status, "activeForm": format!("Doing {content}")})
    }

    #[tokio::test]
    async fn replaces_the_list_and_reports_old_and_new() {
        let ctx = ctx();
        let first = json!([item("a", "in_progress"), item("b", "pending")]);
        let out = TodoWriteTool.call(json!({"todos": first}), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        assert!(
            out.content
                .to_text()
                .starts_with("Todos have been modified successfully.")
        );
        assert_eq!(
            out.structured,
            Some(json!({"oldTodos": [], "newTodos": first}))
        );
        assert_eq!(
            *ctx.todos.lock().unwrap(),
            first.as_array().unwrap().clone()
        );

        let second = json!([item("a", "completed"), item("b", "in_progress")]);
        let out = TodoWriteTool.call(json!({"todos": second}), &ctx).await;
        assert_eq!(
            out.structured,
            Some(json!({"oldTodos": first, "newTodos": second}))
        );
    }

    #[tokio::test]
    async fn state_is_shared_by_contexts_of_one_session() {
        let ctx = ctx();
        let mut clone = ctx.clone();
        clone.cancel = tokio_util::sync::CancellationToken::new();
        TodoWriteTool
            .call(json!({"todos": [item("x", "pending")]}), &clone)
            .await;
        assert_eq!(ctx.todos.lock().unwrap().len(), 1);
        assert_eq!(ctx.shell.todos.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn an_all_completed_list_clears_the_stored_list() {
        let ctx = ctx();
        TodoWriteTool
            .call(json!({"todos": [item("a", "in_progress")]}), &ctx)
            .await;
        let done = json!([item("a", "completed")]);
        let out = TodoWriteTool.call(json!({"todos": done}), &ctx).await;
        assert_eq!(out.structured.unwrap()["newTodos"], done);
        assert!(ctx.todos.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn invalid_lists_are_rejected_and_change_nothing() {
        let ctx = ctx();
        let bad = [
            json!({"todos": [{"content": "a", "status": "doing", "activeForm": "A"}]}),
            json!({"todos": [{"content": "a", "status": "pending"}]}),
            json!({"todos": [{"content": "", "status": "pending", "activeForm": "A"}]}),
            json!({"todos": [{"content": "a", "status": "pending", "activeForm": " "}]}),
            json!({"todos": "a"}),
            json!({}),
        ];
        for input in bad {
            let out = TodoWriteTool.call(input.clone(), &ctx).await;
            assert!(out.is_error, "{input} accepted");
            assert!(out.content.to_text().contains("InputValidationError"));
        }
        assert!(ctx.todos.lock().unwrap().is_empty());
    }

    #[test]
    fn metadata() {
        assert!(TodoWriteTool.always_allowed());
        assert_eq!(TodoWriteTool.kind(), ToolKind::Other);
        let schema = TodoWriteTool.spec().input_schema().clone();
        assert_eq!(schema["required"], json!(["todos"]));
        assert_eq!(
            schema["properties"]["todos"]["items"]["properties"]["status"]["enum"],
            json!(["pending", "in_progress", "completed"])
        );
    }
}
