//! Items: what a turn is made of. Each is started once, may grow by deltas, and is
//! completed once (with its final state).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::ContentBlock;
use crate::tool_call::{HookRun, ToolCall};

/// An item's id: unique in its session. A tool call's is the model's tool-use id.
pub type ItemId = String;

/// One item of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    pub id: ItemId,
    /// The subagent scope: the `Agent` tool call whose subagent produced this item (`None`
    /// on the main thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    #[serde(flatten)]
    pub body: ItemBody,
}

/// What an item is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ItemBody {
    /// The prompt a turn answers (or a subagent's prompt).
    UserMessage {
        content: Vec<ContentBlock>,
    },
    /// The model's answer text; grows by [`ItemDelta::Text`].
    AgentText {
        text: String,
    },
    /// The model's visible reasoning; grows by [`ItemDelta::Thinking`].
    Thinking {
        text: String,
    },
    ToolCall(ToolCall),
    HookRun(HookRun),
}

/// How an open item grows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ItemDelta {
    Text {
        text: String,
    },
    Thinking {
        text: String,
    },
    /// A tool call's status changed (it started running, after any permission).
    ToolStatus {
        status: crate::tool_call::ToolStatus,
    },
    /// A tool call is still running after this long.
    ToolProgress {
        elapsed_seconds: f64,
    },
    /// A hook run printed more output.
    HookOutput {
        output: String,
    },
}

impl Item {
    pub fn new(id: impl Into<ItemId>, body: ItemBody) -> Item {
        Item {
            id: id.into(),
            parent_tool_call_id: None,
            body,
        }
    }

    /// The same item, scoped under the subagent of the `Agent` call `parent`.
    pub fn within(mut self, parent: Option<String>) -> Item {
        self.parent_tool_call_id = parent;
        self
    }

    pub fn as_tool_call(&self) -> Option<&ToolCall> {
        match &self.body {
            ItemBody::ToolCall(call) => Some(call),
            _ => None,
        }
    }
}
