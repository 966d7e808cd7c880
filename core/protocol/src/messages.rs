//! Stream-json messages (everything that is not a control envelope).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, Extra, MessageContent, Usage};
use crate::schema::require;
use crate::serde_helpers::{compact_f64, double_option, present_value};
use crate::vocab::{
    AssistantError, ResultSubtype, StartupFailureReason, StopReason, TerminalReason,
};
use schemars::Schema;

// Fields dcl always writes although a host's line (or an older reference line) may lack them.
fn user_written(schema: &mut Schema) {
    require(schema, &["uuid", "parent_tool_use_id", "session_id"]);
}
fn parent_written(schema: &mut Schema) {
    require(schema, &["parent_tool_use_id"]);
}
fn result_written(schema: &mut Schema) {
    require(schema, &["uuid"]);
}

/// `message` of a `user` line: a role and string-or-blocks content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserPayload {
    #[serde(default = "user_role")]
    pub role: String,
    pub content: MessageContent,
    #[serde(flatten)]
    pub extra: Extra,
}

fn user_role() -> String {
    "user".into()
}

/// A `user` line in either direction: a host prompt, a tool result, or a replay.
///
/// The schema (what dcl writes) requires `uuid`, `session_id` and `parent_tool_use_id`; a
/// host's line may lack them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = user_written)]
pub struct UserMessage {
    pub message: UserPayload,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
    /// writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
    /// `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
    /// give the `null` form; a literal `None` drops the key.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_tool_use_id: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    #[serde(default, rename = "isReplay", skip_serializing_if = "Option::is_none")]
    pub is_replay: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `message` of an `assistant` line: one Messages-API response (one block per line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AssistantPayload {
    pub id: String,
    #[serde(rename = "type", default = "message_type")]
    pub kind: String,
    #[serde(default = "assistant_role")]
    pub role: String,
    pub model: String,
    pub content: Vec<ContentBlock>,
    #[serde(default)]
    #[schemars(with = "Option<StopReason>")]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub stop_sequence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(flatten)]
    pub extra: Extra,
}

fn message_type() -> String {
    "message".into()
}
fn assistant_role() -> String {
    "assistant".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = parent_written)]
pub struct AssistantMessage {
    pub message: AssistantPayload,
    /// The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
    /// writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
    /// `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
    /// give the `null` form; a literal `None` drops the key.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_tool_use_id: Option<Option<String>>,
    pub session_id: String,
    pub uuid: String,
    /// Set on synthetic assistant lines that report an API failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<AssistantError>")]
    pub error: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool call that a rule, a mode, a hook or the host refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: String,
    pub tool_input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Per-model usage and cost, keyed by model id in `modelUsage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub web_search_requests: u64,
    #[serde(default, rename = "costUSD", serialize_with = "compact_f64")]
    pub cost_usd: f64,
    #[serde(default)]
    pub context_window: u64,
    #[serde(default)]
    pub max_output_tokens: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `result` line that ends every turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = result_written)]
pub struct ResultMessage {
    #[schemars(with = "ResultSubtype")]
    pub subtype: String,
    pub is_error: bool,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<StopReason>")]
    pub stop_reason: Option<String>,
    pub session_id: String,
    #[serde(default, serialize_with = "compact_f64")]
    pub total_cost_usd: f64,
    #[serde(default)]
    pub usage: Usage,
    /// Per model id; each entry is a [`ModelUsage`] (see [`ResultMessage::model_usage_typed`]).
    #[serde(default, rename = "modelUsage")]
    #[schemars(with = "std::collections::BTreeMap<String, ModelUsage>")]
    pub model_usage: serde_json::Map<String, Value>,
    #[serde(default)]
    pub permission_denials: Vec<PermissionDenial>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<TerminalReason>")]
    pub terminal_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// `None` = absent; `Some(Value::Null)` = an explicit `null` (kept on a round trip).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub api_error_status: Option<Value>,
    /// Why the session could not start, on its error result (the TS SDK's
    /// `SDKStartupFailureReason`); dcl sends `resume_target_not_found` for a `--resume` no
    /// home holds. Claude dialect only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<StartupFailureReason>")]
    pub startup_failure_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A raw Messages-API stream event, forwarded with `--include-partial-messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = parent_written)]
pub struct StreamEventMessage {
    pub event: Value,
    pub session_id: String,
    pub uuid: String,
    /// The Agent tool call a subagent line belongs to; `null` on main-thread lines (dcl always
    /// writes the key). Rust tri-state: `None` = key absent, `Some(None)` = `null`,
    /// `Some(Some(id))` = a subagent line. The constructors and [`parent_tool_use_id_null`]
    /// give the `null` form; a literal `None` drops the key.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_tool_use_id: Option<Option<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `system` line. `subtype` says which; the rest of its fields vary by subtype
/// and are typed by [`crate::system`] builders.
///
/// Its schema is not this generic shape but one branch per typed subtype (closed `subtype`,
/// each with its required fields): see `JsonSchema for SystemMessage` in [`crate::system`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMessage {
    pub subtype: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(flatten)]
    pub fields: Extra,
}

/// `tool_progress`: a tool call is still running (the TS SDK's `SDKToolProgressMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolProgressMessage {
    pub tool_use_id: String,
    pub tool_name: String,
    /// The Agent call whose subagent made this call; `null` on the main thread.
    pub parent_tool_use_id: Option<String>,
    pub elapsed_time_seconds: f64,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `prompt_suggestion`: the next thing the user may want to say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PromptSuggestionMessage {
    pub suggestion: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `transcript_mirror` (with `--session-mirror`): transcript entries dcl has committed to
/// disk, for the SDK's `SessionStore`; `filePath` is the transcript's absolute path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TranscriptMirrorMessage {
    #[serde(rename = "filePath")]
    pub file_path: String,
    pub entries: Vec<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `conversation_reset` (after `/clear`): the history is gone and a new session id starts;
/// `session_id` is the old one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConversationResetMessage {
    pub new_conversation_id: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The value of `parent_tool_use_id` on a main-thread line dcl writes: an explicit `null`.
pub const fn parent_tool_use_id_null() -> Option<Option<String>> {
    Some(None)
}

/// Reads a tri-state `parent_tool_use_id` as a plain option (absent and `null` are both `None`).
fn flatten_parent(parent: &Option<Option<String>>) -> Option<&str> {
    parent.as_ref().and_then(|p| p.as_deref())
}

impl UserPayload {
    /// `{"role":"user","content":…}`.
    pub fn new(content: MessageContent) -> Self {
        UserPayload {
            role: user_role(),
            content,
            extra: Extra::new(),
        }
    }
}

impl UserMessage {
    /// A user line with `parent_tool_use_id: null` and nothing else set.
    pub fn new(content: MessageContent) -> Self {
        UserMessage {
            message: UserPayload::new(content),
            uuid: None,
            parent_tool_use_id: parent_tool_use_id_null(),
            session_id: None,
            timestamp: None,
            tool_use_result: None,
            is_replay: None,
            extra: Extra::new(),
        }
    }

    /// The parent tool use, if any (absent and `null` both read as `None`).
    pub fn parent_tool_use_id(&self) -> Option<&str> {
        flatten_parent(&self.parent_tool_use_id)
    }

    /// Qoder `priority`: `now`, `next` (the default) or `later`.
    pub fn priority(&self) -> Option<&str> {
        self.extra.get("priority").and_then(Value::as_str)
    }

    /// Qoder/Claude `shouldQuery`: `false` appends the message without starting a turn.
    pub fn should_query(&self) -> Option<bool> {
        self.extra.get("shouldQuery").and_then(Value::as_bool)
    }

    /// `origin` (`{"kind": …}`), echoed on the turn's result when present.
    pub fn origin(&self) -> Option<&Value> {
        self.extra.get("origin")
    }
}

impl AssistantPayload {
    /// `{"id":…,"type":"message","role":"assistant","model":…,"content":…}` with
    /// `stop_reason`/`stop_sequence` `null` and no usage.
    pub fn new(
        id: impl Into<String>,
        model: impl Into<String>,
        content: Vec<ContentBlock>,
    ) -> Self {
        AssistantPayload {
            id: id.into(),
            kind: message_type(),
            role: assistant_role(),
            model: model.into(),
            content,
            stop_reason: None,
            stop_sequence: None,
            usage: None,
            extra: Extra::new(),
        }
    }
}

impl AssistantMessage {
    /// An assistant line with `parent_tool_use_id: null`.
    pub fn new(
        message: AssistantPayload,
        session_id: impl Into<String>,
        uuid: impl Into<String>,
    ) -> Self {
        AssistantMessage {
            message,
            parent_tool_use_id: parent_tool_use_id_null(),
            session_id: session_id.into(),
            uuid: uuid.into(),
            error: None,
            extra: Extra::new(),
        }
    }

    /// The parent tool use, if any (absent and `null` both read as `None`).
    pub fn parent_tool_use_id(&self) -> Option<&str> {
        flatten_parent(&self.parent_tool_use_id)
    }
}

impl StreamEventMessage {
    /// A `stream_event` line with `parent_tool_use_id: null`.
    pub fn new(event: Value, session_id: impl Into<String>, uuid: impl Into<String>) -> Self {
        StreamEventMessage {
            event,
            session_id: session_id.into(),
            uuid: uuid.into(),
            parent_tool_use_id: parent_tool_use_id_null(),
            extra: Extra::new(),
        }
    }

    /// The parent tool use, if any (absent and `null` both read as `None`).
    pub fn parent_tool_use_id(&self) -> Option<&str> {
        flatten_parent(&self.parent_tool_use_id)
    }
}

impl ModelUsage {
    /// An entry with no tokens and no cost yet, for a model with these limits.
    pub fn new(context_window: u64, max_output_tokens: u64) -> Self {
        ModelUsage {
            context_window,
            max_output_tokens,
            ..ModelUsage::default()
        }
    }

    /// Adds one request's usage and its cost.
    pub fn add(&mut self, usage: &Usage, cost_usd: f64) {
        self.input_tokens += usage.input_tokens;
        self.output_tokens += usage.output_tokens;
        self.cache_read_input_tokens += usage.cache_read_input_tokens;
        self.cache_creation_input_tokens += usage.cache_creation_input_tokens;
        self.cost_usd += cost_usd;
    }

    /// The entry as a `modelUsage` value.
    pub fn to_value(&self) -> Value {
        // A struct of numbers and a string-keyed map cannot fail to serialize.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl ResultMessage {
    /// A result with no turns, usage, cost or denials yet (`duration`s 0, `stop_reason`
    /// `null`, `api_error_status` `null`); `uuid` stays unset for the emitter to stamp.
    pub fn new(
        subtype: ResultSubtype,
        is_error: bool,
        terminal_reason: TerminalReason,
        session_id: impl Into<String>,
    ) -> Self {
        ResultMessage {
            subtype: subtype.into(),
            is_error,
            duration_ms: 0,
            duration_api_ms: 0,
            num_turns: 0,
            result: None,
            stop_reason: None,
            session_id: session_id.into(),
            total_cost_usd: 0.0,
            usage: Usage::default(),
            model_usage: serde_json::Map::new(),
            permission_denials: Vec::new(),
            terminal_reason: Some(terminal_reason.into()),
            errors: None,
            structured_output: None,
            api_error_status: Some(Value::Null),
            startup_failure_reason: None,
            uuid: None,
            extra: Extra::new(),
        }
    }

    /// Sets `modelUsage` from typed entries (keyed by model id, in the given order).
    pub fn set_model_usage<'a>(
        &mut self,
        entries: impl IntoIterator<Item = (&'a str, &'a ModelUsage)>,
    ) {
        self.model_usage = entries
            .into_iter()
            .map(|(model, u)| (model.to_string(), u.to_value()))
            .collect();
    }

    /// `modelUsage` decoded per model; entries that do not decode are skipped.
    pub fn model_usage_typed(&self) -> Vec<(String, ModelUsage)> {
        self.model_usage
            .iter()
            .filter_map(|(k, v)| {
                serde_json::from_value::<ModelUsage>(v.clone())
                    .ok()
                    .map(|u| (k.clone(), u))
            })
            .collect()
    }

    /// Qoder `total_credits` (session total), when present.
    pub fn total_credits(&self) -> Option<f64> {
        self.extra.get("total_credits").and_then(Value::as_f64)
    }
}

impl SystemMessage {
    /// A system line with no fields besides `subtype`.
    pub fn new(subtype: impl Into<String>) -> Self {
        SystemMessage {
            subtype: subtype.into(),
            session_id: None,
            uuid: None,
            fields: Extra::new(),
        }
    }
}

// ---------------------------------------------------------------------------
// Legacy event lines (the seed keeps them for old scripts; `--no-legacy-events` turns them off).
// ---------------------------------------------------------------------------

/// Legacy `{"type":"text","text":…}`: one per finished text block of the assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegacyTextMessage {
    pub text: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Legacy `{"type":"tool_start",…}`: a tool call is complete and about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegacyToolStartMessage {
    pub tool_use_id: String,
    pub name: String,
    pub input: Value,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Legacy `{"type":"tool_result",…}`: a tool finished; `content` is its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegacyToolResultMessage {
    pub tool_use_id: String,
    pub content: String,
    pub is_error: bool,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Legacy `{"type":"usage",…}`: token usage of this turn and the session's cost so far, just
/// before `result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegacyUsageMessage {
    pub usage: Usage,
    #[serde(serialize_with = "compact_f64")]
    pub total_cost_usd: f64,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}
