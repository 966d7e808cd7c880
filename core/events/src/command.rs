//! [`SessionCommand`]: everything a front end asks of a session.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ContentBlock;

/// One command to a session. Prompts queue (one turn runs at a time); everything else is
/// served at once, also while a turn runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionCommand {
    /// Start a turn (or queue one) with this prompt.
    Prompt {
        content: Vec<ContentBlock>,
        /// The front end's id for the prompt (the turn's user message uuid).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// Stop the running turn.
    Interrupt,
    /// The permission mode: `default`, `acceptEdits`, `plan`, `bypassPermissions`,
    /// `dontAsk`.
    SetMode {
        mode: String,
    },
    /// The model for the next model calls (`None`: the session's default).
    SetModel {
        #[serde(default)]
        model: Option<String>,
    },
    ChangeSettings(SettingsChange),
    /// Answers a permission request.
    AnswerPermission {
        request_id: String,
        decision: PermissionDecision,
    },
    /// Answers a question request: each question's text → the chosen label(s).
    AnswerQuestion {
        request_id: String,
        answers: BTreeMap<String, String>,
    },
    /// Answers a hook callback with the hook's output.
    AnswerHook {
        request_id: String,
        output: Value,
    },
    /// Answers an MCP server's elicitation.
    AnswerElicitation {
        request_id: String,
        action: ElicitationAction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Value>,
    },
    /// Answers any other request: its result, or `error` to refuse it.
    Answer {
        request_id: String,
        #[serde(default)]
        result: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Restores the files (and, unless `files_only`, the conversation) to how they were
    /// before the prompt `user_message_id`.
    Rewind {
        user_message_id: String,
        #[serde(default)]
        files_only: bool,
        #[serde(default)]
        dry_run: bool,
    },
    Mcp(McpCommand),
    /// No more commands will come: queued turns finish, then the session ends.
    EndInput,
}

/// A front end's answer to a permission request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionDecision {
    Allow {
        /// The input to run the call with instead of the model's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        /// Rules to remember (the request's `suggestions`, or the front end's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Value>,
    },
    Deny {
        message: String,
        /// Also stop the turn.
        #[serde(default)]
        interrupt: bool,
        /// Rules to remember ("reject always": a deny rule where "always allow" writes
        /// its allow rule).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Value>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationAction {
    Accept,
    Decline,
    Cancel,
}

/// Settings to change mid-session; fields left `None` stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SettingsChange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_thinking_tokens: Option<u32>,
    /// Settings in the settings-file vocabulary (`permissions`, `env`, `model`…), merged
    /// over the flag settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
}

/// MCP server control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum McpCommand {
    Reconnect {
        server: String,
    },
    Toggle {
        server: String,
        enabled: bool,
    },
    /// Replaces the servers the front end configured (`{name: config}`).
    SetServers {
        servers: Value,
    },
}

impl SessionCommand {
    /// A prompt of one text block.
    pub fn prompt(text: impl Into<String>) -> SessionCommand {
        SessionCommand::Prompt {
            content: vec![ContentBlock::text(text)],
            id: None,
        }
    }
}
