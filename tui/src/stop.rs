//! The ways the outside world ends an interactive session besides the keyboard: the
//! terminal hanging up or the process being asked to stop (SIGHUP / SIGTERM on Unix, the
//! console closing or Ctrl+Break on Windows). Each ends the loop so the terminal is
//! restored and the session's processes reaped on the way out.

use std::io;

#[cfg(unix)]
pub(crate) struct Stop {
    hangup: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Stop {
    pub(crate) fn new() -> io::Result<Stop> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Stop {
            hangup: signal(SignalKind::hangup())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    pub(crate) async fn recv(&mut self) {
        tokio::select! {
            _ = self.hangup.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

#[cfg(windows)]
pub(crate) struct Stop {
    close: tokio::signal::windows::CtrlClose,
    brk: tokio::signal::windows::CtrlBreak,
}

#[cfg(windows)]
impl Stop {
    pub(crate) fn new() -> io::Result<Stop> {
        Ok(Stop {
            close: tokio::signal::windows::ctrl_close()?,
            brk: tokio::signal::windows::ctrl_break()?,
        })
    }

    pub(crate) async fn recv(&mut self) {
        tokio::select! {
            _ = self.close.recv() => {}
            _ = self.brk.recv() => {}
        }
    }
}
