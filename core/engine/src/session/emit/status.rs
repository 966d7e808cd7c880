//! The session's state as its host sees it, outside the conversation: the permission mode,
//! a model request or a compaction under way, a retried API call, a compaction's boundary,
//! a call denied with nobody asked, a background agent's start, progress and end, the
//! model's raw stream, a suggested next prompt, a conversation reset. Each is
//! its `system` line (and its typed event, where the event stream has one); the turn and
//! control code say what happened and never build the line.

use dcl_events::{AgentEvent, NoticeLevel};
use dcl_model::ModelError;
use dcl_policy::permissions::PermissionMode;
use dcl_protocol::{
    CompactMetadata, ConversationResetMessage, Extra, Message, PermissionModeName,
    PromptSuggestionMessage, StreamEventMessage, SystemApiRetry, SystemCompactBoundary,
    SystemPermissionDenied, SystemStatus, SystemTaskNotification, SystemTaskProgress,
    SystemTaskStarted, TaskEndStatus,
};

use super::{Emitter, TurnEmitter, new_uuid};

/// The wire's name of a permission mode.
pub(crate) fn mode_name(mode: PermissionMode) -> PermissionModeName {
    match mode {
        PermissionMode::Default => PermissionModeName::Default,
        PermissionMode::AcceptEdits => PermissionModeName::AcceptEdits,
        PermissionMode::Plan => PermissionModeName::Plan,
        PermissionMode::BypassPermissions => PermissionModeName::BypassPermissions,
        PermissionMode::DontAsk => PermissionModeName::DontAsk,
    }
}

impl Emitter {
    /// A background agent started for the Agent call `tool_use_id`.
    pub(crate) fn task_started(&self, task_id: &str, description: &str, tool_use_id: &str) {
        self.system(SystemTaskStarted::new(
            task_id,
            description,
            tool_use_id,
            "local_agent",
        ));
    }

    /// A background agent is still running: its tool calls so far and the latest.
    pub(crate) fn task_progress(
        &self,
        (task_id, description, tool_use_id): (&str, &str, &str),
        tool_uses: u64,
        duration_ms: u64,
        last_tool_name: Option<String>,
    ) {
        self.system(SystemTaskProgress::new(
            task_id,
            description,
            tool_use_id,
            tool_uses,
            duration_ms,
            last_tool_name,
        ));
    }

    /// A background agent ended.
    pub(crate) fn task_ended(
        &self,
        (task_id, tool_use_id): (&str, &str),
        status: TaskEndStatus,
        summary: &str,
        duration_ms: u64,
    ) {
        self.system(SystemTaskNotification::new(
            task_id,
            tool_use_id,
            status,
            summary,
            duration_ms,
        ));
    }

    /// The permission mode changed (a control request, or a plan that ended).
    pub(crate) fn permission_mode_changed(&self, mode: PermissionMode) {
        self.agent(|| AgentEvent::SessionConfigured {
            model: None,
            permission_mode: Some(mode.as_str().to_string()),
        });
        self.system(SystemStatus::permission_mode_changed(mode_name(mode)));
    }
}

impl TurnEmitter {
    /// One event of the model's stream, as the API sent it (`includePartialMessages`).
    pub(crate) fn stream_event(&self, event: serde_json::Value) {
        self.emit(Message::StreamEvent(StreamEventMessage::new(event, "", "")));
    }

    /// The `prompt_suggestion` line.
    pub(crate) fn prompt_suggestion(&self, suggestion: String) {
        self.emit(Message::PromptSuggestion(PromptSuggestionMessage {
            suggestion,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        }));
    }

    /// `/clear`: the conversation `old` ended, `new` begins.
    pub(crate) fn conversation_reset(&self, old: String, new: String) {
        self.emit(Message::ConversationReset(ConversationResetMessage {
            new_conversation_id: new,
            session_id: old,
            uuid: new_uuid(),
            extra: Extra::new(),
        }));
    }

    /// A model request is on its way (`includePartialMessages` sessions are told).
    pub(crate) fn requesting(&self) {
        self.system(SystemStatus::requesting());
    }

    /// The conversation is being compacted.
    pub(crate) fn compacting(&self) {
        self.system(SystemStatus::compacting());
    }

    /// `{"status": null}`: compaction is over.
    pub(crate) fn compaction_over(&self) {
        self.system(SystemStatus {
            status: None,
            permission_mode: None,
            session_id: String::new(),
            uuid: String::new(),
            extra: Extra::new(),
        });
    }

    /// The conversation was compacted: what came before the boundary `uuid` is summarised.
    pub(crate) fn compact_boundary(&self, uuid: String, trigger: &str, pre_tokens: u64) {
        self.system(SystemCompactBoundary {
            compact_metadata: CompactMetadata {
                trigger: trigger.into(),
                pre_tokens,
                preserved_segment: None,
                extra: Extra::new(),
            },
            session_id: String::new(),
            uuid,
            extra: Extra::new(),
        });
    }

    /// A model request failed with `error` and is retried after `delay_ms`.
    pub(crate) fn api_retry(&self, error: &ModelError, attempt: u32, max: u32, delay_ms: u64) {
        self.agent(|| {
            AgentEvent::notice(
                NoticeLevel::Warning,
                format!(
                    "the model API failed ({error}); retry {attempt} of {max} in {delay_ms} ms"
                ),
            )
        });
        self.system(SystemApiRetry::new(
            attempt,
            max,
            delay_ms,
            error.status(),
            error.as_str(),
        ));
    }

    /// A call was denied without asking anyone (the host cannot be asked, or `dontAsk`).
    pub(crate) fn permission_denied(&self, tool_name: &str, tool_use_id: &str, message: &str) {
        self.system(SystemPermissionDenied::new(
            tool_name.to_string(),
            tool_use_id.to_string(),
            message.to_string(),
        ));
    }

    /// The permission mode changed during a turn (its plan ended).
    pub(crate) fn permission_mode_changed(&self, mode: PermissionMode) {
        self.session().permission_mode_changed(mode);
    }
}
