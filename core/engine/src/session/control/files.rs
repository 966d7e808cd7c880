//! Files and extensions on disk: rewinding to a checkpoint, the host's read state, and
//! reloading plugins.

use std::sync::Arc;

use dcl_protocol::{RewindFilesRequest, SeedReadStateRequest};

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
