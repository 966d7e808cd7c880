//! What a session asks its front end, and the plan it shows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool_call::ToolCall;

/// A question the session waits on; answered by the [`crate::SessionCommand`] named on
/// each variant, with the same `request_id`. A request the front end leaves unanswered
/// times out (or is withdrawn by [`crate::AgentEvent::RequestWithdrawn`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HostRequest {
    /// May this tool call run? Answer: `answer_permission`.
    Permission(PermissionRequest),
    /// The model asks the user questions (`AskUserQuestion`). Answer: `answer_question`.
    Question {
        request_id: String,
        tool_call_id: String,
        /// The questions as the model asked them (`question`, `header`, `options`,
        /// `multiSelect`).
        questions: Value,
    },
    /// A hook the front end registered is called. Answer: `answer_hook` with the hook's
    /// output (`decision`, `reason`, `hookSpecificOutput`…).
    HookCallback {
        request_id: String,
        callback_id: String,
        /// The hook event's input (`hook_event_name`, `tool_name`, …).
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
    },
    /// An MCP server asks the user for input. Answer: `answer_elicitation`.
    Elicitation {
        request_id: String,
        server: String,
        message: String,
        /// The JSON Schema of the wanted content (form mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schema: Option<Value>,
        /// The page to open (URL mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Any other request (an in-process MCP server's JSON-RPC, a model policy…), as its
    /// subtype and fields. Answer: `answer`.
    Other {
        request_id: String,
        subtype: String,
        request: Value,
    },
}

impl HostRequest {
    pub fn request_id(&self) -> &str {
        match self {
            HostRequest::Permission(p) => &p.request_id,
            HostRequest::Question { request_id, .. }
            | HostRequest::HookCallback { request_id, .. }
            | HostRequest::Elicitation { request_id, .. }
            | HostRequest::Other { request_id, .. } => request_id,
        }
    }
}

/// A tool call waiting for the front end's permission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRequest {
    pub request_id: String,
    pub tool_call_id: String,
    /// The call as it would run (kind, title, input, locations, diff).
    pub tool_call: ToolCall,
    /// Why the policy asks (a rule, the mode, a path outside the workspace…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Rules the front end may offer to remember (`addRules`, `setMode`…), as the policy
    /// suggests them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Value>,
    /// The path outside the allowed directories that made the call ask, if that is why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
}

/// One entry of the agent's plan (its todo list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanEntry {
    pub content: String,
    pub status: PlanEntryStatus,
    /// The entry phrased while it runs ("Running the tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanEntryStatus {
    Pending,
    InProgress,
    Completed,
}

impl PlanEntry {
    /// The entries of a `TodoWrite` input (`todos: [{content, status, activeForm}]`);
    /// entries it cannot read are left out.
    pub fn from_todos(input: &Value) -> Vec<PlanEntry> {
        input
            .get("todos")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let status = match t.get("status")?.as_str()? {
                    "pending" => PlanEntryStatus::Pending,
                    "in_progress" => PlanEntryStatus::InProgress,
                    "completed" => PlanEntryStatus::Completed,
                    _ => return None,
                };
                Some(PlanEntry {
                    content: t.get("content")?.as_str()?.to_string(),
                    status,
                    active_form: t
                        .get("activeForm")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                })
            })
            .collect()
    }
}
