//! [`AgentEvent`]: everything a session tells its front end.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::item::{Item, ItemDelta, ItemId};
use crate::request::{HostRequest, PlanEntry};
use crate::turn::{TokenUsage, TurnEnd};

/// One thing that happened in a session, in order.
///
/// The lifecycle: `session_started`, then per prompt `turn_started`, items
/// (`item_started`, `item_delta`…, `item_completed`), requests the session waits on, and
/// `turn_ended`; `session_ended` last. Items of a subagent carry the `Agent` tool call
/// that scopes them ([`Item::parent_tool_call_id`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// What the session is: model, tools, servers. Sent as each turn starts (the setup may
    /// have changed since the last).
    SessionStarted(SessionInfo),
    /// A setting changed mid-session (by a command, a tool or the session itself).
    SessionConfigured {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        permission_mode: Option<String>,
    },
    TurnStarted {
        turn_id: String,
    },
    ItemStarted {
        item: Item,
    },
    ItemDelta {
        item_id: ItemId,
        delta: ItemDelta,
    },
    /// The item in its final state (a tool call with its status and result).
    ItemCompleted {
        item: Item,
    },
    /// The session waits for the front end's answer.
    Request(HostRequest),
    /// A request is no longer wanted (its turn ended or was interrupted); an answer to it
    /// is ignored.
    RequestWithdrawn {
        request_id: String,
    },
    /// The agent's plan (todo list), whole, each time it changes.
    PlanUpdated {
        entries: Vec<PlanEntry>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// The running turn's token usage so far, and the session's cost.
    Usage {
        usage: TokenUsage,
        total_cost_usd: f64,
    },
    /// How full the model's context is after a turn: the conversation, system prompt,
    /// tools and memory as the session estimates them (`get_context_usage`'s total).
    ContextUsage {
        used_tokens: u64,
        context_window: u64,
    },
    /// Something the user should know that is no item (a retry, a warning, an error).
    Notice {
        level: NoticeLevel,
        message: String,
    },
    TurnEnded(TurnEnd),
    /// Nothing follows.
    SessionEnded,
}

/// What a session is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    pub session_id: String,
    pub cwd: String,
    pub model: String,
    pub permission_mode: String,
    pub tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerInfo>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slash_commands: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerInfo {
    pub name: String,
    /// `connected`, `pending`, `failed`, `needs-auth` or `disabled`.
    pub status: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

impl AgentEvent {
    /// A one-line notice.
    pub fn notice(level: NoticeLevel, message: impl Into<String>) -> AgentEvent {
        AgentEvent::Notice {
            level,
            message: message.into(),
        }
    }
}
