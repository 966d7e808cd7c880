//! Host -> dcl control requests: each subtype is answered by one function, in a module by
//! subject — [`initialize`], [`settings`] (mode, model settings, flag settings),
//! [`mcp_servers`], [`turns`] (interrupt, queued prompts, background tasks), [`files`]
//! (checkpoints, read state, plugins); session requests (rename, rules, directories, the
//! model) are in `session::requests`.

mod files;
mod initialize;
mod mcp_servers;
mod settings;
mod turns;

use dcl_protocol::{ControlRequestEnvelope, HostRequest};
use serde::Serialize;
use serde_json::Value;

use super::actor::Actor;
use super::services::SessionCore;
use dcl_policy::permissions::InvalidPermissionMode;
use std::sync::Arc;

use settings::FLAG_KEYS;

/// Why a control request is answered with an `error` response. The text is that
/// response's `error`: SDKs show it to their users and tests assert on it, so each
/// variant keeps the wording dcl has always sent.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error("Already initialized")]
    AlreadyInitialized,
    #[error(transparent)]
    Hooks(#[from] super::hook_registry::HooksConfigError),
    #[error("initialize.agent {name:?}: no such agent (known: {known})")]
    UnknownInitializeAgent { name: String, known: String },
    #[error("initialize.agent {name:?}: no such agent")]
    NoSuchInitializeAgent { name: String },
    #[error("initialize.reasoningEffort must be a string")]
    ReasoningEffortNotAString,
    /// A value of a setting that is not one of its values (`permissionMode`, an effort).
    #[error(transparent)]
    PermissionMode(#[from] InvalidPermissionMode),
    #[error(transparent)]
    Effort(#[from] super::effort::UnknownEffort),
    #[error(transparent)]
    Agents(#[from] crate::agents::AgentDefinitionError),
    /// `apply_flag_settings` with a key of the wrong type (`key` says which, `expected` what).
    #[error("apply_flag_settings: {key} must be {expected}")]
    FlagSettingType {
        key: &'static str,
        expected: &'static str,
    },
    #[error(
        "apply_flag_settings: permissions.{0} cannot be changed this way (only permissions.defaultMode)"
    )]
    FlagSettingPermission(String),
    #[error("apply_flag_settings: unsupported key {key:?} (supported: {})", FLAG_KEYS.join(", "))]
    FlagSettingUnsupported { key: String },
    #[error("seed_read_state: path is empty")]
    SeedPathEmpty,
    #[error("seed_read_state: invalid mtime {0}")]
    SeedInvalidMtime(f64),
    #[error("rename_session: title is empty")]
    RenameTitleEmpty,
    #[error("rename_session: session {id} is no longer this process's session ({current})")]
    RenameOtherSession { id: String, current: String },
    #[error("update_queued_message: content is missing")]
    QueuedContentMissing,
    #[error("update_queued_message: content is empty")]
    QueuedContentEmpty,
    #[error(
        "set_cwd is not supported by dcl: a session's working directory is fixed when it opens (start a new session in {0})"
    )]
    SetCwdUnsupported(String),
    #[error(
        "register_repo_root: {0} is not supported by dcl (send reload_plugins separately; memory files are read when the session opens)"
    )]
    RepoRootReloadUnsupported(&'static str),
    #[error("register_repo_root: {} is not a directory", .0.display())]
    RepoRootNotADirectory(std::path::PathBuf),
    #[error("set_model: a PreModelSwitch hook refused the switch to {model}: {reason}")]
    ModelSwitchRefused { model: String, reason: String },
    #[error(
        "mcp_set_servers is not supported: configure MCP servers with `dcl mcp add`, or provide them from the host through initialize.sdkMcpServers"
    )]
    McpSetServersUnsupported,
    #[error("{subtype} is not supported by dcl {}", dcl_protocol::DCL_VERSION)]
    Unsupported { subtype: String },
    #[error(transparent)]
    Rewind(#[from] super::checkpoints::RewindError),
    #[error("rewind: scope must be `conversation`, `files` or `both`, not {0:?}")]
    RewindScope(String),
    #[error("rewind: no prompt {0} in this conversation (it may have been compacted)")]
    RewindUnknownPrompt(String),
    #[error("response serialization failed: {0}")]
    Serialize(serde_json::Error),
    /// What a request (or one of its fields) ran into, prefixed with its name as in
    /// `stop_task: No shell found with ID: …` or `initialize.jsonSchema: …`.
    #[error("{what}: {source}")]
    Failed {
        what: &'static str,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl ControlError {
    /// `what` failed with `source` (anything that converts to a boxed error, a message
    /// from a crate that words its errors as text included).
    pub(crate) fn failed(
        what: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ControlError {
        ControlError::Failed {
            what,
            source: source.into(),
        }
    }
}

/// A control request's answer: the `success` payload, or the `error`.
pub(crate) type Answer = Result<Option<Value>, ControlError>;

impl Actor {
    pub(super) fn handle_control(&mut self, req: ControlRequestEnvelope) {
        let id = req.request_id.clone();
        let parsed = match HostRequest::parse(&req.request) {
            Ok(p) => p,
            Err(e) => {
                self.respond(id, Err(e));
                return;
            }
        };
        // Requests answered from a task (their work waits on something) return at once.
        let answer = match parsed {
            HostRequest::Initialize(r) => self.initialize(r),
            HostRequest::Interrupt(r) => self.interrupt_request(r),
            HostRequest::SetPermissionMode(r) => self.set_permission_mode(r),
            HostRequest::SetModel(r) => match self.set_model(id.clone(), r) {
                Some(a) => a,
                None => return,
            },
            HostRequest::RenameSession(r) => self.rename_session(r),
            HostRequest::GenerateSessionTitle(r) => self.generate_session_title(r),
            HostRequest::UpdateQueuedMessage(r) => self.update_queued_message(r),
            HostRequest::ListPermissionRules(_) => self.list_permission_rules(),
            HostRequest::GetHooksListing(_) => answer(super::hooks::listing(&self.core)),
            HostRequest::SetCwd(r) => self.set_cwd(r),
            HostRequest::RegisterRepoRoot(r) => return self.register_repo_root(id, r),
            HostRequest::SetMaxThinkingTokens(r) => self.set_max_thinking_tokens(r),
            HostRequest::McpStatus(_) => return self.mcp_status(id),
            HostRequest::CancelAsyncMessage(r) => self.cancel_async_message(r),
            HostRequest::ApplyFlagSettings(r) => self.apply_flag_settings(r.settings),
            HostRequest::GetSettings(_) => answer(self.get_settings()),
            HostRequest::GetContextUsage(_) => {
                answer(super::turn::context_usage::usage(&self.core))
            }
            HostRequest::SeedReadState(r) => files::seed_read_state(r),
            HostRequest::StopTask(r) => self.stop_task(r),
            HostRequest::RewindFiles(r) => return self.rewind_files(id, r),
            HostRequest::Rewind(r) => return self.rewind(id, r),
            HostRequest::ReloadPlugins(_) => return self.reload_plugins(id),
            HostRequest::McpToggle(r) => return self.mcp_toggle(id, r),
            HostRequest::McpReconnect(r) => return self.mcp_reconnect(id, r),
            HostRequest::McpMessage(r) => mcp_servers::mcp_message(r),
            HostRequest::GetModels(_) => self.get_models(),
            HostRequest::McpSetServers(_) => Err(ControlError::McpSetServersUnsupported),
            other => Err(ControlError::Unsupported {
                subtype: other.subtype().to_string(),
            }),
        };
        self.respond(id, answer);
    }
}

/// A typed answer payload.
pub(crate) fn answer(payload: impl Serialize) -> Answer {
    serde_json::to_value(payload)
        .map(Some)
        .map_err(ControlError::Serialize)
}

impl Actor {
    /// Answers a request whose work takes time (MCP connects) from a task, so the actor
    /// keeps serving meanwhile.
    pub(super) fn answer_later<F, Fut>(&mut self, request_id: String, work: F)
    where
        F: FnOnce(Arc<SessionCore>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Answer> + Send + 'static,
    {
        let core = self.core.clone();
        // Owned by the actor: the session does not end before these answers are out.
        self.answers.spawn(async move {
            let answer = work(core.clone()).await;
            core.services.emitter.control_answer(request_id, answer);
        });
    }
}
