//! Files and extensions on disk: rewinding to a checkpoint, the host's read state, and
//! reloading plugins.

use std::sync::Arc;

use dcl_events::{AgentEvent, NoticeLevel};
use dcl_protocol::{
    RewindFilesRequest, RewindFilesResponse, RewindRequest, RewindResponse, SeedReadStateRequest,
};

use super::{Answer, ControlError};
use crate::session::actor::Actor;
use crate::session::services::SessionCore;

impl Actor {
    pub(super) fn rewind_files(&mut self, request_id: String, r: RewindFilesRequest) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            // A running turn holds the conversation: the rewind waits for it to end so it
            // never races the turn's own edits.
            let _turn = core.conversation.lock().await;
            let dry_run = r.dry_run.unwrap_or(false);
            let checkpoints = &core.services.checkpoints;
            Ok(Some(checkpoints.rewind(r.user_message_id, dry_run).await?))
        });
    }

    /// `rewind`: the conversation (`scope` `conversation`), the files (`files`) or both go
    /// back to before the prompt `user_message_id`. With `both`, a refused file rewind
    /// leaves the conversation as it is. An events front end is told what was done with
    /// a notice (it reads no control responses).
    pub(super) fn rewind(&mut self, request_id: String, r: RewindRequest) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            let (files, conversation) = match r.scope.as_str() {
                "files" => (true, false),
                "conversation" => (false, true),
                "both" => (true, true),
                other => return Err(ControlError::RewindScope(other.to_string())),
            };
            let dry_run = r.dry_run.unwrap_or(false);
            // Waits for a running turn, so the rewind never races the turn's own edits.
            let mut conv = core.conversation.lock().await;
            if conversation && conv.prompt_index(&r.user_message_id).is_none() {
                return Err(ControlError::RewindUnknownPrompt(r.user_message_id));
            }
            let mut answer = RewindResponse {
                status: if dry_run { "ready" } else { "success" }.into(),
                target_user_message_id: r.user_message_id.clone(),
                scope: r.scope.clone(),
                retained_leaf_id: None,
                removed_message_ids: None,
                files_changed: None,
                insertions: None,
                deletions: None,
                failed_files: None,
                error: None,
                extra: Default::default(),
            };
            let mut said = Vec::new();
            if files {
                let report = core
                    .services
                    .checkpoints
                    .rewind(r.user_message_id.clone(), dry_run)
                    .await?;
                let report: RewindFilesResponse = serde_json::from_value(report)
                    .map_err(|e| ControlError::failed("rewind", e))?;
                if !report.can_rewind {
                    answer.status = "rejected".into();
                    answer.error = report.error;
                    return serde_json::to_value(answer)
                        .map(Some)
                        .map_err(ControlError::Serialize);
                }
                let changed = report.files_changed.unwrap_or_default();
                said.push(format!("{} file(s)", changed.len()));
                answer.files_changed = Some(changed);
                answer.insertions = report.insertions;
                answer.deletions = report.deletions;
            }
            if conversation && !dry_run {
                let removed = conv.rewind_before(&r.user_message_id).unwrap_or_default();
                said.push(format!(
                    "the conversation ({} item(s) removed)",
                    removed.len()
                ));
                answer.retained_leaf_id = conv.last_uuid().map(str::to_string);
                answer.removed_message_ids = Some(removed);
            }
            drop(conv);
            if !dry_run {
                let message = format!("Rewound {} to before the prompt", said.join(" and "));
                core.services
                    .emitter
                    .agent(|| AgentEvent::notice(NoticeLevel::Info, message));
            }
            serde_json::to_value(answer)
                .map(Some)
                .map_err(ControlError::Serialize)
        });
    }

    pub(super) fn reload_plugins(&mut self, request_id: String) {
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            serde_json::to_value(crate::session::extensions::reload(core).await)
                .map(Some)
                .map_err(|e| ControlError::failed("reload_plugins", e))
        });
    }
}

/// dcl's edit tools read the file afresh on every call, so there is no read cache to
/// seed; the request is still checked so mistakes surface.
pub(super) fn seed_read_state(r: SeedReadStateRequest) -> Answer {
    if r.path.trim().is_empty() {
        Err(ControlError::SeedPathEmpty)
    } else if !r.mtime.is_finite() || r.mtime < 0.0 {
        Err(ControlError::SeedInvalidMtime(r.mtime))
    } else {
        Ok(None)
    }
}
