//! The session's own hook points outside any turn: the idle notification after a quiet
//! spell, and SessionEnd when the input ends or the session closes.

use std::sync::Arc;

use dcl_events::HookEvent;
use dcl_events::hook_input::{Notification, SessionEnd};
use tokio_util::sync::CancellationToken;

use super::hooks::{self, HookScope};
use super::services::SessionCore;

/// How long SessionEnd hooks may take: the session is over, so a hook (or a host that is
/// gone and will never answer its callback) must not hold the process open for long.
const SESSION_END_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// SessionEnd: the host's input ended (`prompt_input_exit`) or the session was closed
/// (`other`), after every turn and answer is done. Bounded by [`SESSION_END_GRACE`]. A
/// callback hook cannot be answered once the host's input is closed, so in practice
/// SessionEnd is for settings command hooks.
pub(super) async fn session_end(core: &Arc<SessionCore>, reason: &str) {
    if !hooks::any_for(core, SessionEnd::NAME) {
        return;
    }
    let cancel = CancellationToken::new();
    let scope = HookScope {
        cancel: cancel.clone(),
        ..HookScope::session(core)
    };
    let end = SessionEnd {
        reason: reason.into(),
    };
    let run = hooks::fire(&scope, &end);
    tokio::pin!(run);
    tokio::select! {
        _ = &mut run => {}
        _ = tokio::time::sleep(SESSION_END_GRACE) => {
            // Cancelled hooks are killed and reported as cancelled, not left running.
            cancel.cancel();
            run.await;
        }
    }
}

/// How long after a turn's result, with nothing queued, the host counts as idle: the
/// reference's 60 s, or `DCL_IDLE_NOTIFICATION_MS`.
const IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// When an `idle_prompt` Notification is due, counted from now; `None` when no
/// Notification hook would hear it (the timer is not even armed).
pub(super) fn idle_deadline(core: &SessionCore) -> Option<tokio::time::Instant> {
    if !hooks::any_for(core, Notification::NAME) {
        return None;
    }
    let after = core
        .services
        .env
        .get("DCL_IDLE_NOTIFICATION_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(IDLE_AFTER, std::time::Duration::from_millis);
    Some(tokio::time::Instant::now() + after)
}

/// Notification (`idle_prompt`): the last turn ended a while ago and no prompt came since;
/// worded as the reference words it. Once per idle spell.
pub(super) async fn idle_notification(core: &Arc<SessionCore>) {
    let note = Notification {
        message: "Claude is waiting for your input".into(),
        title: None,
        notification_type: "idle_prompt".into(),
    };
    hooks::fire(&HookScope::session(core), &note).await;
}
