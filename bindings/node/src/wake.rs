//! `Waker`: the one wake-up of a Node thread's sessions. A session armed with
//! `host.arm(waker, key)` puts its key in the waker's ready set when it has events; the
//! first key of a burst calls `onReady` on Node's thread (one threadsafe function for all
//! sessions), which takes the keys (`takeReady()`) and pulls each session's events
//! (`host.tryEvents(max)`).
//!
//! ```text
//! waker = new Waker(onReady)      one per thread: onReady() runs when keys are ready
//! waker.hold(true | false)        whether the waker keeps Node's event loop alive
//! host.arm(waker, key); waker.takeReady() -> [key...]; host.tryEvents(max) -> batch | null
//! ```
//!
//! A session waiting for events holds no task, promise or threadsafe function of its own:
//! those were made anew on every wake-up, in the middle of a burst of turns, and an idle
//! session kept them.

use std::sync::{Arc, Mutex};

use dcl_bridge::host::Waker as BridgeWaker;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

/// `onReady`, callable from any thread; weak: it keeps Node alive only while held.
type Signal = ThreadsafeFunction<(), (), (), Status, false, true>;

#[napi]
pub struct Waker {
    inner: Arc<BridgeWaker>,
    signal: Arc<Mutex<Signal>>,
}

impl Waker {
    pub(crate) fn shared(&self) -> Arc<BridgeWaker> {
        Arc::clone(&self.inner)
    }
}

#[napi]
impl Waker {
    /// `onReady()` runs on Node's thread when armed sessions have events waiting; it
    /// should call `takeReady()`. The waker does not keep Node alive until `hold(true)`.
    #[napi(constructor)]
    pub fn new(on_ready: Function<'_, (), ()>) -> Result<Waker> {
        let tsfn: Signal = on_ready
            .build_threadsafe_function()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?;
        let signal = Arc::new(Mutex::new(tsfn));
        let calls = Arc::clone(&signal);
        let inner = BridgeWaker::with_signal(move || {
            let tsfn = calls.lock().unwrap_or_else(|p| p.into_inner());
            // NonBlocking into an unbounded queue: only fails once Node is shutting down,
            // when nobody is left to wake.
            let _ = tsfn.call((), ThreadsafeFunctionCallMode::NonBlocking);
        })
        .map_err(|e| Error::from_reason(format!("cannot make a waker: {e}")))?;
        Ok(Waker {
            inner: Arc::new(inner),
            signal,
        })
    }

    /// The keys made ready since the last call.
    #[napi]
    pub fn take_ready(&self) -> Vec<u32> {
        self.inner
            .take_ready()
            .into_iter()
            .filter_map(|k| u32::try_from(k).ok())
            .collect()
    }

    /// Whether the waker keeps Node's event loop alive: the package holds it while any
    /// session is open, as a pending read did before.
    #[napi]
    pub fn hold(&self, env: Env, on: bool) -> Result<()> {
        let mut tsfn = self.signal.lock().unwrap_or_else(|p| p.into_inner());
        // `refer`/`unref` are deprecated in favour of cloning the function, which counts
        // threads, not references to the event loop: the latter is what is wanted here.
        #[allow(deprecated)]
        if on {
            tsfn.refer(&env)
        } else {
            tsfn.unref(&env)
        }
    }
}
