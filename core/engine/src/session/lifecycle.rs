//! The session's own hook points outside any turn: the idle notification after a quiet
//! spell, and SessionEnd when the input ends or the session closes.

use std::sync::Arc;

use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;

use super::services::SessionCore;
use super::turn::{TurnContext, TurnStop, hooks};

/// How long SessionEnd hooks may take: the session is over, so a hook (or a host that is
/// gone and will never answer its callback) must not hold the process open for long.
const SESSION_END_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// SessionEnd: the host's input ended (`prompt_input_exit`) or the session was closed
/// (`other`), after every turn and answer is done. Bounded by [`SESSION_END_GRACE`]. A
/// callback hook cannot be answered once the host's input is closed, so in practice
/// SessionEnd is for settings command hooks.
pub(super) async fn session_end(core: &Arc<SessionCore>, reason: &str) {
    if !hooks::any_for(core, "SessionEnd") {
        return;
    }
    let cancel = CancellationToken::new();
    let mut input = Map::new();
    input.insert("reason".into(), json!(reason));
    let ctx = TurnContext::main(core.clone(), String::new(), TurnStop::under(cancel.clone()));
    let run = hooks::run(&ctx, "SessionEnd", None, None, input);
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
    if !hooks::any_for(core, "Notification") {
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
    let mut input = Map::new();
    input.insert("message".into(), json!("Claude is waiting for your input"));
    input.insert("notification_type".into(), json!("idle_prompt"));
    hooks::run_outside(core, "Notification", input).await;
}
