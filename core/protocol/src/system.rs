//! Typed `system` subtypes.
//!
//! [`SystemMessage`] stays the generic wire struct (`subtype` + fields); each struct here is
//! one subtype's shape, convertible both ways:
//!
//! ```
//! use dcl_protocol::{SystemInit, SystemMessage, system::SystemEvent};
//! let init = SystemInit::new("sess", "uuid-1", "/repo", "mock-model");
//! let msg: SystemMessage = init.clone().into();
//! assert_eq!(msg.subtype, "init");
//! assert_eq!(SystemInit::try_from(&msg).unwrap(), init);
//! assert!(matches!(SystemEvent::from(&msg), SystemEvent::Init(_)));
//! ```
//!
//! Every struct carries `session_id` and `uuid` (every outbound line has both) and keeps
//! unknown fields in `extra`.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Message;
use crate::content::Extra;
use crate::messages::SystemMessage;
use crate::responses::{PlanModeState, PluginInfo};
use crate::serde_helpers::compact_f64;
use crate::vocab::{
    CompactTrigger, HookEventName, HookOutcome, InformationalLevel, McpServerState,
    PermissionModeName, SessionState, StatusKind, TaskEndStatus,
};

/// A typed `system` subtype.
pub trait SystemSubtype: Serialize + DeserializeOwned {
    /// The `subtype` value on the wire.
    const SUBTYPE: &'static str;

    /// The generic wire form.
    fn to_system_message(&self) -> SystemMessage {
        let mut fields = match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            // Cannot happen for the structs of this module (all objects with string keys).
            _ => Map::new(),
        };
        // `shift_remove`: with `preserve_order` a plain `remove` swaps the last field into
        // the hole, and the line's key order would no longer be the struct's.
        fields.shift_remove("type");
        fields.shift_remove("subtype");
        let session_id = take_string(&mut fields, "session_id");
        let uuid = take_string(&mut fields, "uuid");
        SystemMessage {
            subtype: Self::SUBTYPE.to_string(),
            session_id,
            uuid,
            fields,
        }
    }

    /// The line to hand to dcl's emitter: an empty `session_id` or `uuid` is left out, so the
    /// emitter stamps the session's id and a fresh uuid (see the constructors of this module,
    /// which leave both empty).
    fn into_message(self) -> Message
    where
        Self: Sized,
    {
        let mut m = self.to_system_message();
        if m.session_id.as_deref() == Some("") {
            m.session_id = None;
        }
        if m.uuid.as_deref() == Some("") {
            m.uuid = None;
        }
        Message::System(m)
    }

    /// Decodes the generic wire form; fails on another subtype or a wrong shape.
    fn from_system_message(message: &SystemMessage) -> Result<Self, SystemConvertError> {
        if message.subtype != Self::SUBTYPE {
            return Err(SystemConvertError::WrongSubtype {
                expected: Self::SUBTYPE,
                found: message.subtype.clone(),
            });
        }
        let mut obj = message.fields.clone();
        if let Some(s) = &message.session_id {
            obj.insert("session_id".into(), Value::String(s.clone()));
        }
        if let Some(u) = &message.uuid {
            obj.insert("uuid".into(), Value::String(u.clone()));
        }
        serde_json::from_value(Value::Object(obj)).map_err(|e| SystemConvertError::BadShape {
            subtype: message.subtype.clone(),
            message: e.to_string(),
        })
    }
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.shift_remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            // Not a string: keep it as an ordinary field rather than lose it.
            map.insert(key.to_string(), other);
            None
        }
        None => None,
    }
}

/// Why a [`SystemMessage`] is not the requested typed subtype.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemConvertError {
    WrongSubtype {
        expected: &'static str,
        found: String,
    },
    BadShape {
        subtype: String,
        message: String,
    },
}

impl std::fmt::Display for SystemConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SystemConvertError::WrongSubtype { expected, found } => {
                write!(f, "expected system/{expected}, found system/{found}")
            }
            SystemConvertError::BadShape { subtype, message } => {
                write!(f, "malformed system/{subtype}: {message}")
            }
        }
    }
}

impl std::error::Error for SystemConvertError {}

macro_rules! system_subtypes {
    ($( $(#[$doc:meta])* $variant:ident($ty:ident) = $name:literal, )*) => {
        $(
            impl SystemSubtype for $ty {
                const SUBTYPE: &'static str = $name;
            }

            impl From<$ty> for SystemMessage {
                fn from(value: $ty) -> Self {
                    value.to_system_message()
                }
            }

            impl From<$ty> for Message {
                fn from(value: $ty) -> Self {
                    Message::System(value.to_system_message())
                }
            }

            impl TryFrom<&SystemMessage> for $ty {
                type Error = SystemConvertError;
                fn try_from(message: &SystemMessage) -> Result<Self, Self::Error> {
                    <$ty as SystemSubtype>::from_system_message(message)
                }
            }

            impl From<$ty> for SystemEvent {
                fn from(value: $ty) -> Self {
                    SystemEvent::$variant(value)
                }
            }
        )*

        /// A `system` line decoded by subtype; anything else (or a known subtype of the wrong
        /// shape) is [`SystemEvent::Other`].
        #[derive(Debug, Clone, PartialEq)]
        pub enum SystemEvent {
            $( $(#[$doc])* $variant($ty), )*
            Other(SystemMessage),
        }

        /// The subtypes [`SystemEvent`] types.
        pub const SYSTEM_SUBTYPES: &[&str] = &[$($name),*];

        /// `(subtype, schema name)`: the `$defs` entry of each typed subtype.
        pub const SYSTEM_SUBTYPE_SCHEMAS: &[(&str, &str)] = &[$(($name, stringify!($ty))),*];

        /// The schema of a `system` line: one branch per typed subtype, so `subtype` is closed
        /// and each branch lists its own required fields. Never built; it only describes.
        #[derive(JsonSchema)]
        #[serde(tag = "subtype")]
        #[allow(dead_code)]
        enum SystemLineSchema {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($ty), )*
        }

        impl JsonSchema for SystemMessage {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "SystemMessage".into()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <SystemLineSchema as JsonSchema>::json_schema(generator)
            }
        }

        impl SystemEvent {
            pub fn subtype(&self) -> &str {
                match self {
                    $( SystemEvent::$variant(_) => $name, )*
                    SystemEvent::Other(m) => &m.subtype,
                }
            }
        }

        impl From<&SystemMessage> for SystemEvent {
            fn from(message: &SystemMessage) -> Self {
                match message.subtype.as_str() {
                    $(
                        $name => match <$ty as SystemSubtype>::from_system_message(message) {
                            Ok(v) => SystemEvent::$variant(v),
                            Err(_) => SystemEvent::Other(message.clone()),
                        },
                    )*
                    _ => SystemEvent::Other(message.clone()),
                }
            }
        }

        impl From<SystemEvent> for SystemMessage {
            fn from(event: SystemEvent) -> Self {
                match event {
                    $( SystemEvent::$variant(v) => v.to_system_message(), )*
                    SystemEvent::Other(m) => m,
                }
            }
        }
    };
}

system_subtypes! {
    Init(SystemInit) = "init",
    Status(SystemStatus) = "status",
    ApiRetry(SystemApiRetry) = "api_retry",
    ThinkingTokens(SystemThinkingTokens) = "thinking_tokens",
    PermissionDenied(SystemPermissionDenied) = "permission_denied",
    Informational(SystemInformational) = "informational",
    HookStarted(SystemHookStarted) = "hook_started",
    HookProgress(SystemHookProgress) = "hook_progress",
    HookResponse(SystemHookResponse) = "hook_response",
    CompactBoundary(SystemCompactBoundary) = "compact_boundary",
    TaskStarted(SystemTaskStarted) = "task_started",
    TaskProgress(SystemTaskProgress) = "task_progress",
    TaskNotification(SystemTaskNotification) = "task_notification",
    TaskUpdated(SystemTaskUpdated) = "task_updated",
    SessionStateChanged(SystemSessionStateChanged) = "session_state_changed",
    BackgroundTasksChanged(SystemBackgroundTasksChanged) = "background_tasks_changed",
    PlanModeChanged(SystemPlanModeChanged) = "plan_mode_changed",
}

impl SystemMessage {
    /// This line decoded by subtype (see [`SystemEvent`]).
    pub fn typed(&self) -> SystemEvent {
        SystemEvent::from(self)
    }
}

/// An MCP server in `system/init.mcp_servers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InitMcpServer {
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
    #[schemars(with = "McpServerState")]
    pub status: String,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InitMcpServer {
    pub fn new(name: impl Into<String>, status: impl Into<String>) -> Self {
        InitMcpServer {
            name: name.into(),
            status: status.into(),
            extra: Extra::new(),
        }
    }
}

/// `system/init`: at the start of every turn (Qoder: also before the `initialize` answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemInit {
    pub cwd: String,
    pub session_id: String,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub mcp_servers: Vec<InitMcpServer>,
    pub model: String,
    #[serde(rename = "permissionMode")]
    #[schemars(with = "PermissionModeName")]
    pub permission_mode: String,
    #[serde(default)]
    pub slash_commands: Vec<String>,
    #[serde(rename = "apiKeySource")]
    pub api_key_source: String,
    /// The protocol level (SDK version gates read it). Absent on real Qoder lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcl_version: Option<String>,
    pub output_style: String,
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub plugins: Vec<PluginInfo>,
    pub uuid: String,
    /// Qoder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qodercli_version: Option<String>,
    /// Qoder (`1.4.0`; TS checks the major).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Qoder: identical in every init and in the `initialize` answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl SystemInit {
    /// An init with dcl's versions filled in, `permissionMode: "default"`,
    /// `apiKeySource: "none"`, `output_style: "default"` and empty lists.
    pub fn new(
        session_id: impl Into<String>,
        uuid: impl Into<String>,
        cwd: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        SystemInit {
            cwd: cwd.into(),
            session_id: session_id.into(),
            tools: Vec::new(),
            mcp_servers: Vec::new(),
            model: model.into(),
            permission_mode: "default".into(),
            slash_commands: Vec::new(),
            api_key_source: "none".into(),
            claude_code_version: Some(crate::PROTOCOL_LEVEL.into()),
            dcl_version: Some(crate::DCL_VERSION.into()),
            output_style: "default".into(),
            agents: Vec::new(),
            skills: Vec::new(),
            plugins: Vec::new(),
            uuid: uuid.into(),
            qodercli_version: None,
            protocol_version: None,
            capabilities: None,
            extra: Extra::new(),
        }
    }

    /// Adds the Qoder fields: `qodercli_version` (the protocol level), `protocol_version`
    /// and `capabilities`.
    pub fn with_qoder(mut self, capabilities: Vec<String>) -> Self {
        self.qodercli_version = Some(crate::PROTOCOL_LEVEL.into());
        self.protocol_version = Some(crate::QODER_PROTOCOL_VERSION.into());
        self.capabilities = Some(capabilities);
        self
    }
}

/// `system/status`: `status` is `requesting`, `compacting` or `null`; `permissionMode` after a
/// mode change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemStatus {
    #[serde(default)]
    #[schemars(with = "Option<StatusKind>")]
    pub status: Option<String>,
    #[serde(
        default,
        rename = "permissionMode",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<PermissionModeName>")]
    pub permission_mode: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/api_retry`: one retry of a failed model request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    #[serde(serialize_with = "compact_f64")]
    pub retry_delay_ms: f64,
    /// HTTP status; `null` for a connection error.
    #[serde(default)]
    pub error_status: Option<u16>,
    pub error: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/thinking_tokens`: estimated thinking so far (with partial messages).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemThinkingTokens {
    pub estimated_tokens: u64,
    pub estimated_tokens_delta: i64,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/permission_denied`: a tool call was refused without asking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemPermissionDenied {
    pub tool_name: String,
    pub tool_use_id: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<Value>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/informational`, e.g. a hook's `systemMessage` (`"PreToolUse:Bash says: …"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemInformational {
    pub content: String,
    /// `notice`, `warning`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<InformationalLevel>")]
    pub level: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/hook_started` (with `--include-hook-events`): a command hook began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookStarted {
    pub hook_id: String,
    /// `Event:subject` (`PreToolUse:Bash`, `SessionStart:startup`) or the event alone.
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/hook_progress` (with `--include-hook-events`): a running hook's output so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookProgress {
    pub hook_id: String,
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub stdout: String,
    pub stderr: String,
    /// Both streams, stdout first.
    pub output: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/hook_response` (with `--include-hook-events`): a hook ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemHookResponse {
    pub hook_id: String,
    pub hook_name: String,
    #[schemars(with = "HookEventName")]
    pub hook_event: String,
    pub output: String,
    pub stdout: String,
    pub stderr: String,
    /// Absent when the hook was killed (timeout, cancel) or never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[schemars(with = "HookOutcome")]
    pub outcome: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `compact_boundary.compact_metadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactMetadata {
    /// `manual` or `auto`.
    #[schemars(with = "CompactTrigger")]
    pub trigger: String,
    pub pre_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserved_segment: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `system/compact_boundary`: the conversation was compacted here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemCompactBoundary {
    pub compact_metadata: CompactMetadata,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

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

/// `system/session_state_changed`: `idle`, `running` or `requires_action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemSessionStateChanged {
    #[schemars(with = "SessionState")]
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_host_only: Option<bool>,
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

/// Qoder `system/plan_mode_changed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemPlanModeChanged {
    pub plan_mode: PlanModeState,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Extra,
}

// ---------------------------------------------------------------------------
// Constructors for dcl's emission sites. Each leaves `session_id` and `uuid` empty: send the
// frame with `emitter.emit(frame.into_message())`, and the emitter stamps both.
// ---------------------------------------------------------------------------

impl SystemInit {
    /// An init for the emitter (no `session_id`/`uuid` yet); see [`SystemInit::new`].
    pub fn unstamped(cwd: impl Into<String>, model: impl Into<String>) -> Self {
        SystemInit::new("", "", cwd, model)
    }

    pub fn with_tools(mut self, tools: Vec<String>) -> Self {
        self.tools = tools;
        self
    }

    pub fn with_mcp_servers(mut self, servers: Vec<InitMcpServer>) -> Self {
        self.mcp_servers = servers;
        self
    }

    pub fn with_permission_mode(mut self, mode: PermissionModeName) -> Self {
        self.permission_mode = mode.into();
        self
    }

    /// Where the API key came from (`ANTHROPIC_API_KEY`, `none`, …).
    pub fn with_api_key_source(mut self, source: impl Into<String>) -> Self {
        self.api_key_source = source.into();
        self
    }
}

impl InitMcpServer {
    /// An entry from a typed state.
    pub fn with_state(name: impl Into<String>, state: McpServerState) -> Self {
        InitMcpServer::new(name, state.as_str())
    }
}

impl SystemStatus {
    fn unstamped(status: Option<StatusKind>, mode: Option<PermissionModeName>) -> Self {
        SystemStatus {
            status: status.map(String::from),
            permission_mode: mode.map(String::from),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }

    /// `{"status":"requesting"}`: a model request is about to go out.
    pub fn requesting() -> Self {
        SystemStatus::unstamped(Some(StatusKind::Requesting), None)
    }

    /// `{"status":"compacting"}`.
    pub fn compacting() -> Self {
        SystemStatus::unstamped(Some(StatusKind::Compacting), None)
    }

    /// `{"status":null,"permissionMode":…}`: the permission mode changed.
    pub fn permission_mode_changed(mode: PermissionModeName) -> Self {
        SystemStatus::unstamped(None, Some(mode))
    }
}

impl SystemApiRetry {
    /// Retry `attempt` of `max_retries`, after `retry_delay_ms`; `error_status` is the HTTP
    /// status (`None` for a connection error), `error` the kind (`overloaded`, …).
    pub fn new(
        attempt: u32,
        max_retries: u32,
        retry_delay_ms: u64,
        error_status: Option<u16>,
        error: impl Into<String>,
    ) -> Self {
        SystemApiRetry {
            attempt,
            max_retries,
            retry_delay_ms: retry_delay_ms as f64,
            error_status,
            error: error.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemPermissionDenied {
    /// A call refused without asking anybody.
    pub fn new(
        tool_name: impl Into<String>,
        tool_use_id: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        SystemPermissionDenied {
            tool_name: tool_name.into(),
            tool_use_id: tool_use_id.into(),
            message: message.into(),
            agent_id: None,
            decision_reason_type: None,
            decision_reason: None,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemInformational {
    pub fn new(content: impl Into<String>, level: InformationalLevel) -> Self {
        SystemInformational {
            content: content.into(),
            level: Some(level.into()),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }

    /// `{"content":…,"level":"warning"}`.
    pub fn warning(content: impl Into<String>) -> Self {
        SystemInformational::new(content, InformationalLevel::Warning)
    }
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

impl SystemHookStarted {
    /// A hook `hook_id` (`hook_name` is `Event:subject`, e.g. `PreToolUse:Bash`) started.
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
    ) -> Self {
        SystemHookStarted {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemHookProgress {
    /// A running hook's output so far (`output` is both streams, stdout first).
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
        stdout: impl Into<String>,
        stderr: impl Into<String>,
    ) -> Self {
        let (stdout, stderr) = (stdout.into(), stderr.into());
        SystemHookProgress {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            output: format!("{stdout}{stderr}"),
            stdout,
            stderr,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}

impl SystemHookResponse {
    /// A hook ended with `outcome`; `exit_code` is `None` when it was killed or never ran.
    pub fn new(
        hook_id: impl Into<String>,
        hook_name: impl Into<String>,
        hook_event: HookEventName,
        stdout: impl Into<String>,
        stderr: impl Into<String>,
        exit_code: Option<i64>,
        outcome: HookOutcome,
    ) -> Self {
        let (stdout, stderr) = (stdout.into(), stderr.into());
        SystemHookResponse {
            hook_id: hook_id.into(),
            hook_name: hook_name.into(),
            hook_event: hook_event.into(),
            output: format!("{stdout}{stderr}"),
            stdout,
            stderr,
            exit_code,
            outcome: outcome.into(),
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }
    }
}
