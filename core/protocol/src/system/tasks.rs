//! Task lines: a background task started, progressed, ended or changed, and the list of
//! background tasks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Extra;
use crate::vocab::TaskEndStatus;

/// Usage of a background task (`task_progress`, `task_notification`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskUsage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Absent when not counted (dcl's `task_notification`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_uses: Option<u64>,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/task_started`: a subagent or background task began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemTaskStarted {
    pub task_id: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// `local_agent`, `local_workflow`, `local_bash`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/task_progress`. Claude requires `usage`; Qoder makes it optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemTaskProgress {
    pub task_id: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TaskUsage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/task_notification`: a task ended (`completed`, `failed` or `stopped`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemTaskNotification {
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[schemars(with = "TaskEndStatus")]
    pub status: String,
    pub output_file: String,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TaskUsage>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/task_updated`: `patch{status?, description?, end_time?, error?, …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemTaskUpdated {
    pub task_id: String,
    pub patch: Map<String, Value>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One running background task in `background_tasks_changed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundTaskInfo {
    pub task_id: String,
    pub task_type: String,
    pub description: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/background_tasks_changed`: the full list (replace semantics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemBackgroundTasksChanged {
    pub tasks: Vec<BackgroundTaskInfo>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SystemTaskStarted {
    /// A task of `task_type` (`local_agent`, …) started by the tool call `tool_use_id`.
    pub fn new(
        task_id: impl Into<String>,
        description: impl Into<String>,
        tool_use_id: impl Into<String>,
        task_type: impl Into<String>,
    ) -> Self {
        SystemTaskStarted {
            task_id: task_id.into(),
            description: description.into(),
            tool_use_id: Some(tool_use_id.into()),
            task_type: Some(task_type.into()),
            subagent_type: None,
            workflow_name: None,
            prompt: None,
            tools: None,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemTaskProgress {
    /// Progress so far: tool calls made, time taken, the last tool used.
    pub fn new(
        task_id: impl Into<String>,
        description: impl Into<String>,
        tool_use_id: impl Into<String>,
        tool_uses: u64,
        duration_ms: u64,
        last_tool_name: Option<String>,
    ) -> Self {
        SystemTaskProgress {
            task_id: task_id.into(),
            description: description.into(),
            tool_use_id: Some(tool_use_id.into()),
            usage: Some(TaskUsage {
                tool_uses: Some(tool_uses),
                duration_ms,
                ..TaskUsage::default()
            }),
            last_tool_name,
            subagent_type: None,
            summary: None,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemTaskNotification {
    /// The task ended with `status`; `summary` is its final text or error.
    pub fn new(
        task_id: impl Into<String>,
        tool_use_id: impl Into<String>,
        status: TaskEndStatus,
        summary: impl Into<String>,
        duration_ms: u64,
    ) -> Self {
        SystemTaskNotification {
            task_id: task_id.into(),
            tool_use_id: Some(tool_use_id.into()),
            status: status.into(),
            output_file: String::new(),
            summary: summary.into(),
            usage: Some(TaskUsage {
                duration_ms,
                ..TaskUsage::default()
            }),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}
