//! One wake-up for many sessions. A language's event loop (asyncio) watches one
//! descriptor; sessions with something to deliver put their key in a ready set and poke
//! that descriptor once (only when the set goes from empty to not empty). An idle session
//! therefore costs no descriptor at all, and a burst across 10,000 sessions is one
//! wake-up, after which the loop takes the whole ready set. A runtime without a descriptor
//! loop (a JVM dispatcher thread) blocks in [`Waker::wait_ready`] instead.

use std::collections::HashSet;
use std::io::{ErrorKind, Read, Write};
#[cfg(unix)]
use std::os::fd::{AsRawFd, RawFd};
#[cfg(unix)]
use std::os::unix::net::UnixStream;
#[cfg(windows)]
use std::os::windows::io::{AsRawSocket as _, RawSocket as RawFd};
#[cfg(windows)]
type UnixStream = loopback::Stream;
#[cfg(unix)]
type Socket = UnixStream;
#[cfg(windows)]
type Socket = std::net::TcpStream;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The wake-up of one event loop: a socket pair (the loop reads `fd()`) and a ready set.
pub struct Waker {
    ready: Mutex<Ready>,
    /// Signalled when the ready set stops being empty (for [`Waker::wait_ready`]).
    filled: Condvar,
    poke: Socket,
    watched: Socket,
    /// Called as well when the ready set stops being empty, for an event loop that cannot
    /// watch a descriptor (Node's: a threadsafe function into JavaScript).
    signal: Option<Box<dyn Fn() + Send + Sync>>,
}

#[derive(Default)]
struct Ready {
    order: Vec<u64>,
    seen: HashSet<u64>,
}

impl Waker {
    /// Two descriptors, whatever the number of sessions it serves.
    pub fn new() -> std::io::Result<Waker> {
        let (poke, watched) = UnixStream::pair()?;
        // Neither side may ever block: a full socket means a wake-up is already pending,
        // and draining stops when nothing is left.
        poke.set_nonblocking(true)?;
        watched.set_nonblocking(true)?;
        Ok(Waker {
            ready: Mutex::new(Ready::default()),
            filled: Condvar::new(),
            poke,
            watched,
            signal: None,
        })
    }

    /// A waker that also calls `signal` (on the notifying thread, without holding the
    /// ready set) each time the ready set stops being empty: once per burst, not per key.
    pub fn with_signal(signal: impl Fn() + Send + Sync + 'static) -> std::io::Result<Waker> {
        let mut waker = Waker::new()?;
        waker.signal = Some(Box::new(signal));
        Ok(waker)
    }

    /// The descriptor the event loop watches for reading.
    pub fn fd(&self) -> RawFd {
        #[cfg(unix)]
        return self.watched.as_raw_fd();
        #[cfg(windows)]
        return self.watched.as_raw_socket();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ready> {
        match self.ready.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Marks `key` ready; wakes the loop unless a wake-up is already on its way.
    pub fn notify(&self, key: u64) {
        let mut ready = self.lock();
        if !ready.seen.insert(key) {
            return;
        }
        ready.order.push(key);
        if ready.order.len() == 1 {
            // WouldBlock: the socket is full of wake-ups the loop has not read; one more
            // adds nothing.
            let _ = (&self.poke).write(&[1]);
            self.filled.notify_all();
            drop(ready);
            if let Some(signal) = &self.signal {
                signal();
            }
        }
    }

    /// Blocks until some key is ready (or `timeout` passed: an empty batch), then takes
    /// them as [`Waker::take_ready`] does. For a thread that waits instead of watching
    /// [`Waker::fd`].
    pub fn wait_ready(&self, timeout: Option<Duration>) -> Vec<u64> {
        let deadline = timeout.map(|t| Instant::now() + t);
        {
            let mut ready = self.lock();
            while ready.order.is_empty() {
                ready = match deadline {
                    None => self.filled.wait(ready).unwrap_or_else(|p| p.into_inner()),
                    Some(d) => {
                        let left = d.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            break;
                        }
                        match self.filled.wait_timeout(ready, left) {
                            Ok((g, _)) => g,
                            Err(p) => p.into_inner().0,
                        }
                    }
                };
            }
        }
        self.take_ready()
    }

    /// Every key made ready since the last call, in order; clears the wake-up. Drains the
    /// socket first, so a `notify` racing this call either lands in this batch or pokes
    /// again.
    pub fn take_ready(&self) -> Vec<u64> {
        let mut buf = [0u8; 256];
        loop {
            match (&self.watched).read(&mut buf) {
                Ok(n) if n == buf.len() => continue,
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let mut ready = self.lock();
        ready.seen.clear();
        std::mem::take(&mut ready.order)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn many_notifies_are_one_wake_up_and_one_batch() {
        let w = Waker::new().unwrap();
        for key in [3, 1, 3, 2] {
            w.notify(key);
        }
        let mut probe = [0u8; 8];
        assert_eq!(
            (&w.watched).read(&mut probe).unwrap(),
            1,
            "one byte for the burst"
        );
        assert_eq!(w.take_ready(), vec![3, 1, 2]);
        assert!(w.take_ready().is_empty());
        w.notify(7);
        assert_eq!(w.take_ready(), vec![7]);
    }

    #[test]
    fn the_signal_fires_once_per_filling_of_the_ready_set() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let fired = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&fired);
        let w = Waker::with_signal(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        for key in [5, 6, 5] {
            w.notify(key);
        }
        assert_eq!(fired.load(Ordering::SeqCst), 1);
        assert_eq!(w.take_ready(), vec![5, 6]);
        w.notify(6);
        assert_eq!(fired.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn wait_ready_blocks_until_a_key_is_ready_or_the_timeout() {
        let w = std::sync::Arc::new(Waker::new().unwrap());
        assert!(w.wait_ready(Some(Duration::from_millis(20))).is_empty());
        let poker = std::sync::Arc::clone(&w);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            poker.notify(5);
            poker.notify(6);
        });
        let mut got = w.wait_ready(Some(Duration::from_secs(10)));
        t.join().unwrap();
        got.extend(w.wait_ready(Some(Duration::from_millis(1))));
        assert_eq!(got, vec![5, 6]);
    }
}

/// Windows has no socketpair for an event loop to watch: a connected pair of loopback TCP
/// sockets (what Python's `socket.socketpair` does there) stands in.
#[cfg(windows)]
mod loopback {
    use std::net::{Ipv4Addr, TcpListener, TcpStream};

    pub(super) struct Stream;

    impl Stream {
        pub(super) fn pair() -> std::io::Result<(TcpStream, TcpStream)> {
            let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
            let a = TcpStream::connect(listener.local_addr()?)?;
            // Another local process may connect first: take only our own connection.
            loop {
                let (b, peer) = listener.accept()?;
                if peer == a.local_addr()? {
                    a.set_nodelay(true)?;
                    return Ok((a, b));
                }
            }
        }
    }
}
