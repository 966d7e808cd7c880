//! TaskCreated / TaskCompleted: background agents and shells starting and finishing.

use dcl_events::hook_input::{Task, TaskCompleted, TaskCreated};

use super::{HookScope, fire};
use crate::session::services::SessionCore;

/// TaskCreated / TaskCompleted for background shells (`run_in_background`), the command
/// as both `task_subject` and `task_description`. Completed
/// means it exited 0 by itself; a failing or killed shell fires no TaskCompleted. Weak:
/// the shells belong to the session.
pub(crate) struct ShellTaskHooks(pub std::sync::Weak<SessionCore>);

impl dcl_tools::background::ShellListener for ShellTaskHooks {
    fn started<'a>(&'a self, id: &'a str, command: &'a str) -> dcl_model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(core) = self.0.upgrade() {
                let created = TaskCreated(Task::new(id, command, command));
                fire(&HookScope::session(&core), &created).await;
            }
        })
    }

    fn exited<'a>(
        &'a self,
        id: &'a str,
        command: &'a str,
        code: i32,
    ) -> dcl_model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if code == 0
                && let Some(core) = self.0.upgrade()
            {
                let completed = TaskCompleted(Task::new(id, command, command));
                fire(&HookScope::session(&core), &completed).await;
            }
        })
    }
}
