//! The turn and what runs beside it: `interrupt`, withdrawing a queued prompt, stopping a
//! background task.

use dcl_protocol::{
    CancelAsyncMessageRequest, CancelAsyncMessageResponse, Extra, InterruptRequest,
    InterruptResponse, StopTaskRequest,
};

use super::{Answer, ControlError, answer};
use crate::session::actor::Actor;

impl Actor {
    pub(super) fn interrupt_request(&mut self, r: InterruptRequest) -> Answer {
        let still = self.interrupt(
            r.cancel_queued != Some(false),
            crate::session::turn::StopCause::USER_STOP,
        );
        answer(InterruptResponse {
            still_queued: still,
            ..InterruptResponse::default()
        })
    }

    /// Takes a queued prompt off the queue; its prompt gets a cancelled result.
    pub(super) fn cancel_async_message(&mut self, r: CancelAsyncMessageRequest) -> Answer {
        let before = self.queue.len();
        let mut cancelled = None;
        self.queue.retain(|p| {
            if p.uuid == r.message_uuid {
                cancelled = Some(p.clone());
                false
            } else {
                true
            }
        });
        if let Some(p) = &cancelled {
            crate::session::turn::emit_cancelled_result(&self.core, p);
        }
        answer(CancelAsyncMessageResponse {
            cancelled: self.queue.len() != before,
            extra: Extra::new(),
        })
    }

    /// A background agent, else a background shell.
    pub(super) fn stop_task(&mut self, r: StopTaskRequest) -> Answer {
        let agent = self
            .core
            .state
            .with(|s| s.background_agents.get(&r.task_id).cloned());
        match agent {
            // The agent's task reports `task_notification` (stopped) as it ends.
            Some(cancel) => {
                cancel.cancel();
                Ok(None)
            }
            None => self
                .core
                .services
                .shell
                .background
                .stop(&r.task_id)
                .map(|()| None)
                .map_err(|e| ControlError::failed("stop_task", e)),
        }
    }
}
