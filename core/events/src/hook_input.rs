//! What a hook receives: one type per event dcl fires, with that event's own fields in the
//! order the hook input JSON carries them. The engine adds the fields every input shares
//! (the SDK's `BaseHookInput`: session id, transcript path, cwd, permission mode, the
//! subagent's id and type, the event's name) after these. Names come from
//! [`HookEventName`], never from string literals: the list lives once, in `hooks`.

use serde::Serialize;
use serde_json::Value;

use crate::hooks::HookEventName;

/// One hook event's input, fired through the engine's one hook function.
pub trait HookEvent: Serialize {
    /// Which event this is.
    const NAME: HookEventName;

    /// What the event's matchers test (the tool's name, a field, a file's name); `None`:
    /// every hook of the event runs.
    fn matcher_subject(&self) -> Option<&str> {
        None
    }

    /// The tool call the event is about, passed to host callbacks as `tool_use_id`.
    fn tool_use_id(&self) -> Option<&str> {
        None
    }

    /// When the event fires, in one line.
    fn description(&self) -> &'static str {
        Self::NAME.description()
    }
}

/// Implements [`HookEvent`] for each type: its name, the field its matchers test and the
/// field naming its tool call.
macro_rules! hook_event {
    ($($ty:ident $(subject $subject:ident)? $(call $call:ident)?;)*) => {$(
        impl HookEvent for $ty {
            const NAME: HookEventName = HookEventName::$ty;
            $(fn matcher_subject(&self) -> Option<&str> {
                Some(self.$subject.as_str())
            })?
            $(fn tool_use_id(&self) -> Option<&str> {
                Some(self.$call.as_str())
            })?
        }
    )*};
}

hook_event! {
    PreToolUse subject tool_name call tool_use_id;
    PostToolUse subject tool_name call tool_use_id;
    PostToolUseFailure subject tool_name call tool_use_id;
    PostToolBatch;
    Notification subject notification_type;
    UserPromptSubmit;
    UserPromptExpansion subject command_name;
    SessionStart subject source;
    SessionEnd subject reason;
    Stop;
    StopFailure subject error;
    Interrupt;
    SubagentStart subject agent_type;
    SubagentStop subject agent_type;
    PreCompact subject trigger;
    PostCompact subject trigger;
    PermissionRequest subject tool_name call tool_use_id;
    PermissionDenied subject tool_name call tool_use_id;
    TaskCreated;
    TaskCompleted;
    Elicitation subject mcp_server_name;
    ElicitationResult subject mcp_server_name;
    ConfigChange subject source;
    InstructionsLoaded subject load_reason;
    CwdChanged;
    FileChanged subject file_name call tool_use_id;
    DirectoryAdded subject source;
}

/// Before a tool runs.
#[derive(Debug, Clone, Serialize)]
pub struct PreToolUse {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
}

/// After a tool succeeded.
#[derive(Debug, Clone, Serialize)]
pub struct PostToolUse {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
    pub duration_ms: u64,
    pub tool_response: Value,
}

/// After a tool failed.
#[derive(Debug, Clone, Serialize)]
pub struct PostToolUseFailure {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
    pub duration_ms: u64,
    pub error: String,
}

/// Once every call of one model response has its result.
#[derive(Debug, Clone, Serialize)]
pub struct PostToolBatch {
    pub tool_calls: Vec<BatchedCall>,
}

/// One call of a PostToolBatch that ran.
#[derive(Debug, Clone, Serialize)]
pub struct BatchedCall {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
    pub tool_response: Value,
}

/// A permission prompt, an MCP elicitation, or an idle host.
#[derive(Debug, Clone, Serialize)]
pub struct Notification {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub notification_type: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct UserPromptSubmit {
    pub prompt: String,
}

/// A prompt naming a custom slash command or skill.
#[derive(Debug, Clone, Serialize)]
pub struct UserPromptExpansion {
    pub expansion_type: String,
    pub command_name: String,
    pub command_args: String,
    pub command_source: String,
    pub prompt: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionStart {
    pub source: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionEnd {
    pub reason: String,
}

/// The main thread's model stopped calling tools.
#[derive(Debug, Clone, Serialize)]
pub struct Stop {
    pub stop_hook_active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StopFailure {
    pub error: String,
    pub error_details: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Interrupt {
    pub source: String,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubagentStart {
    pub agent_id: String,
    pub agent_type: String,
}

/// A subagent's model stopped calling tools.
#[derive(Debug, Clone, Serialize)]
pub struct SubagentStop {
    pub stop_hook_active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    pub agent_id: String,
    pub agent_type: String,
    /// Empty when the session keeps no transcript.
    pub agent_transcript_path: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PreCompact {
    pub trigger: String,
    /// `null` when the host gave none.
    pub custom_instructions: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PostCompact {
    pub trigger: String,
    pub compact_summary: String,
}

/// A model switch, as PreModelSwitch and PostModelSwitch hooks see it.
#[derive(Debug, Clone, Serialize)]
pub struct ModelSwitch {
    pub from_model: String,
    pub to_model: String,
    /// `null` when the switch named no model (the fallback).
    pub requested_model: Option<String>,
    pub source: String,
    pub context_tokens: u64,
    pub prompt_cache_warm: bool,
    pub cache_ttl: String,
    pub estimated_cache_write_usd: f64,
    pub pricing: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PreModelSwitch(pub ModelSwitch);

#[derive(Debug, Clone, Serialize)]
pub struct PostModelSwitch(pub ModelSwitch);

impl HookEvent for PreModelSwitch {
    const NAME: HookEventName = HookEventName::PreModelSwitch;
    fn matcher_subject(&self) -> Option<&str> {
        Some(&self.0.to_model)
    }
}

impl HookEvent for PostModelSwitch {
    const NAME: HookEventName = HookEventName::PostModelSwitch;
    fn matcher_subject(&self) -> Option<&str> {
        Some(&self.0.to_model)
    }
}

/// Before the host is asked to approve a call.
#[derive(Debug, Clone, Serialize)]
pub struct PermissionRequest {
    pub tool_name: String,
    pub tool_input: Value,
    /// For host callbacks only: this input does not carry it.
    #[serde(skip)]
    pub tool_use_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PermissionDenied {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
    pub reason: String,
}

/// A background task (an agent or a shell), as TaskCreated and TaskCompleted hooks see it.
#[derive(Debug, Clone, Serialize)]
pub struct Task {
    pub task_id: String,
    pub task_subject: String,
    pub task_description: String,
}

impl Task {
    pub fn new(task_id: &str, subject: &str, description: &str) -> Task {
        Task {
            task_id: task_id.to_string(),
            task_subject: subject.to_string(),
            task_description: description.to_string(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskCreated(pub Task);

#[derive(Debug, Clone, Serialize)]
pub struct TaskCompleted(pub Task);

/// An MCP server asks for input.
#[derive(Debug, Clone, Serialize)]
pub struct Elicitation {
    pub mcp_server_name: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
}

/// An MCP elicitation's answer.
#[derive(Debug, Clone, Serialize)]
pub struct ElicitationResult {
    pub mcp_server_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    pub action: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}

/// A permission update wrote a settings file.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigChange {
    pub source: String,
    pub file_path: String,
}

/// A memory file the system prompt carries.
#[derive(Debug, Clone, Serialize)]
pub struct InstructionsLoaded {
    pub file_path: String,
    pub memory_type: String,
    pub load_reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CwdChanged {
    pub old_cwd: String,
    pub new_cwd: String,
}

/// A file a Write, Edit or NotebookEdit call touched.
#[derive(Debug, Clone, Serialize)]
pub struct FileChanged {
    pub file_path: String,
    /// `add`, `change` or `unlink`.
    pub event: String,
    /// What matchers test; not in the input.
    #[serde(skip)]
    pub file_name: String,
    #[serde(skip)]
    pub tool_use_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DirectoryAdded {
    pub directory: String,
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{Fired, Matcher};
    use serde_json::json;

    fn check<E: HookEvent>(e: E, seen: &mut Vec<HookEventName>) {
        let input = serde_json::to_value(&e).expect("serialisable");
        let field = |f: &str| input.get(f).and_then(Value::as_str).map(str::to_string);
        let expected = match E::NAME.matcher() {
            Matcher::ToolName => field("tool_name"),
            Matcher::Field(f) => field(f),
            Matcher::FileName => Some("a.rs".to_string()),
            // PostCompact's table entry says matchers are not read, yet dcl has always
            // matched its hooks on the trigger, as PreCompact's.
            Matcher::None if E::NAME == HookEventName::PostCompact => field("trigger"),
            Matcher::None => None,
        };
        assert_eq!(
            e.matcher_subject().map(str::to_string),
            expected,
            "{}",
            E::NAME
        );
        assert_eq!(e.description(), E::NAME.description());
        seen.push(E::NAME);
    }

    fn tool_call() -> (String, Value, String) {
        ("Bash".into(), json!({"command": "ls"}), "toolu_1".into())
    }

    #[test]
    fn every_fired_event_has_a_type_whose_subject_is_its_matcher_field() {
        let s = |t: &str| t.to_string();
        let (tool_name, tool_input, tool_use_id) = tool_call();
        let switch = ModelSwitch {
            from_model: s("a"),
            to_model: s("b"),
            requested_model: None,
            source: s("sdk"),
            context_tokens: 0,
            prompt_cache_warm: false,
            cache_ttl: s("5m"),
            estimated_cache_write_usd: 0.0,
            pricing: s("default"),
        };
        let task = Task {
            task_id: s("t"),
            task_subject: s("s"),
            task_description: s("d"),
        };
        let mut seen = Vec::new();
        let seen = &mut seen;
        check(
            PreToolUse {
                tool_name: tool_name.clone(),
                tool_input: tool_input.clone(),
                tool_use_id: tool_use_id.clone(),
            },
            seen,
        );
        check(
            PostToolUse {
                tool_name: tool_name.clone(),
                tool_input: tool_input.clone(),
                tool_use_id: tool_use_id.clone(),
                duration_ms: 1,
                tool_response: json!("ok"),
            },
            seen,
        );
        check(
            PostToolUseFailure {
                tool_name: tool_name.clone(),
                tool_input: tool_input.clone(),
                tool_use_id: tool_use_id.clone(),
                duration_ms: 1,
                error: s("e"),
            },
            seen,
        );
        check(PostToolBatch { tool_calls: vec![] }, seen);
        check(
            Notification {
                message: s("m"),
                title: None,
                notification_type: s("idle_prompt"),
            },
            seen,
        );
        check(UserPromptSubmit { prompt: s("p") }, seen);
        check(
            UserPromptExpansion {
                expansion_type: s("slash_command"),
                command_name: s("c"),
                command_args: s(""),
                command_source: s("command"),
                prompt: s("/c"),
            },
            seen,
        );
        check(
            SessionStart {
                source: s("startup"),
            },
            seen,
        );
        check(SessionEnd { reason: s("other") }, seen);
        check(
            Stop {
                stop_hook_active: false,
                last_assistant_message: None,
            },
            seen,
        );
        check(
            StopFailure {
                error: s("rate_limit"),
                error_details: s("d"),
                last_assistant_message: None,
            },
            seen,
        );
        check(
            Interrupt {
                source: s("user"),
                reason: s("stop"),
                via: None,
            },
            seen,
        );
        check(
            SubagentStart {
                agent_id: s("a"),
                agent_type: s("t"),
            },
            seen,
        );
        check(
            SubagentStop {
                stop_hook_active: false,
                last_assistant_message: None,
                agent_id: s("a"),
                agent_type: s("t"),
                agent_transcript_path: s(""),
            },
            seen,
        );
        check(
            PreCompact {
                trigger: s("manual"),
                custom_instructions: None,
            },
            seen,
        );
        check(
            PostCompact {
                trigger: s("auto"),
                compact_summary: s("x"),
            },
            seen,
        );
        check(PreModelSwitch(switch.clone()), seen);
        check(PostModelSwitch(switch), seen);
        check(
            PermissionRequest {
                tool_name: tool_name.clone(),
                tool_input: tool_input.clone(),
                tool_use_id: tool_use_id.clone(),
            },
            seen,
        );
        check(
            PermissionDenied {
                tool_name,
                tool_input,
                tool_use_id,
                reason: s("r"),
            },
            seen,
        );
        check(TaskCreated(task.clone()), seen);
        check(TaskCompleted(task), seen);
        check(
            Elicitation {
                mcp_server_name: s("srv"),
                message: s("m"),
                mode: None,
                url: None,
                elicitation_id: None,
                requested_schema: None,
            },
            seen,
        );
        check(
            ElicitationResult {
                mcp_server_name: s("srv"),
                mode: None,
                elicitation_id: None,
                action: json!("accept"),
                content: None,
            },
            seen,
        );
        check(
            ConfigChange {
                source: s("local_settings"),
                file_path: s("/p"),
            },
            seen,
        );
        check(
            InstructionsLoaded {
                file_path: s("/m"),
                memory_type: s("Project"),
                load_reason: s("session_start"),
            },
            seen,
        );
        check(
            CwdChanged {
                old_cwd: s("/a"),
                new_cwd: s("/b"),
            },
            seen,
        );
        check(
            FileChanged {
                file_path: s("/x/a.rs"),
                event: s("add"),
                file_name: s("a.rs"),
                tool_use_id: s("t"),
            },
            seen,
        );
        check(
            DirectoryAdded {
                directory: s("/d"),
                source: s("register_repo_root"),
            },
            seen,
        );
        let fired: Vec<HookEventName> = HookEventName::fired_events().collect();
        assert_eq!(
            *seen, fired,
            "one type per fired event, in the list's order"
        );
        assert!(seen.iter().all(|e| e.fired() == Fired::Yes));
    }

    #[test]
    fn fields_serialise_in_declared_order_and_unset_options_are_left_out() {
        let e = PostToolUse {
            tool_name: "Bash".into(),
            tool_input: json!({}),
            tool_use_id: "t".into(),
            duration_ms: 3,
            tool_response: json!("ok"),
        };
        assert_eq!(
            serde_json::to_string(&e).ok().as_deref(),
            Some(
                r#"{"tool_name":"Bash","tool_input":{},"tool_use_id":"t","duration_ms":3,"tool_response":"ok"}"#
            )
        );
        let n = Notification {
            message: "m".into(),
            title: None,
            notification_type: "idle_prompt".into(),
        };
        assert_eq!(
            serde_json::to_string(&n).ok().as_deref(),
            Some(r#"{"message":"m","notification_type":"idle_prompt"}"#)
        );
        let r = PermissionRequest {
            tool_name: "Bash".into(),
            tool_input: json!({}),
            tool_use_id: "t".into(),
        };
        assert_eq!(
            serde_json::to_string(&r).ok().as_deref(),
            Some(r#"{"tool_name":"Bash","tool_input":{}}"#)
        );
        assert_eq!(r.tool_use_id(), Some("t"));
    }
}
