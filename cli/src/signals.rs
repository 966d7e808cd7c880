//! The signals that end a stream-json session: SIGTERM and SIGINT on Unix; on Windows the
//! console's close and Ctrl+C events (its only equivalents).

/// One of them, listened for from creation; never fires when it could not be set up.
pub struct Signal(Option<Inner>);

#[cfg(unix)]
type Inner = tokio::signal::unix::Signal;
#[cfg(windows)]
enum Inner {
    Close(tokio::signal::windows::CtrlClose),
    CtrlC(tokio::signal::windows::CtrlC),
}

impl Signal {
    pub fn terminate() -> Signal {
        #[cfg(unix)]
        return Signal(
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok(),
        );
        #[cfg(windows)]
        return Signal(tokio::signal::windows::ctrl_close().ok().map(Inner::Close));
    }

    pub fn interrupt() -> Signal {
        #[cfg(unix)]
        return Signal(
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok(),
        );
        #[cfg(windows)]
        return Signal(tokio::signal::windows::ctrl_c().ok().map(Inner::CtrlC));
    }

    /// Waits for the next delivery (forever when there is no listener).
    pub async fn recv(&mut self) {
        match &mut self.0 {
            #[cfg(unix)]
            Some(s) => {
                s.recv().await;
            }
            #[cfg(windows)]
            Some(Inner::Close(s)) => {
                s.recv().await;
            }
            #[cfg(windows)]
            Some(Inner::CtrlC(s)) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }
}
