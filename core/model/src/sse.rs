//! Server-Sent Events, from a response body to the typed [`EventStream`] every model
//! client returns. The SSE framing itself is the `sse-stream` crate's (line ends of any
//! kind, split UTF-8, comments, multi-line data); this module adds what a model stream
//! needs around it, the same for every API format:
//!
//! - a bound on the size of one event, so a broken server cannot make us buffer forever;
//! - an event left unterminated by the end of the body is still read (a server that
//!   forgets the final blank line meant what it sent), and one cut off in the middle of
//!   its JSON is a broken connection, not malformed data;
//! - the stream ends at the message's end or at the first error, and [`with_cancel`] ends
//!   it when the turn is cancelled.
//!
//! Each API format supplies only an [`EventMapper`]: what its events mean.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde::de::IgnoredAny;
use sse_stream::SseStream;
use tokio_util::sync::CancellationToken;

use super::events::StreamEvent;
use super::{EventStream, ModelError};

/// A single event larger than this (give or take one network read) is refused.
pub const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

/// A response body as it arrives.
pub type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, ModelError>> + Send>>;

/// One dispatched SSE event: its `event:` name (empty when none was given) and its
/// `data:` lines joined by `\n`. Events without data are never dispatched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// What an API format makes of its SSE events.
pub trait EventMapper: Send + 'static {
    /// Maps one event, pushing the typed events it yields onto `out`. An error ends the
    /// stream with it.
    fn event(&mut self, ev: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ModelError>;

    /// Whether the message is complete; nothing more is read once it is.
    fn is_done(&self) -> bool;

    /// The body ended before [`is_done`](Self::is_done): push the closing events, or say
    /// why the message is incomplete.
    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ModelError>;

    /// Reading or framing the body failed with `error` before the message was complete.
    /// The default ends the stream with it; a format whose message may already be whole
    /// (OpenAI's after its `finish_reason`) closes it instead.
    fn broken(&mut self, error: ModelError, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
        let _ = out;
        Err(error)
    }
}

/// What the byte stream tells the decoder from inside the SSE parser, which owns it: how
/// much arrived since the last event, and whether the body has ended. (The parser offers
/// no access to its input, hence the shared counters.)
#[derive(Debug, Default)]
struct Progress {
    since_event: AtomicUsize,
    ended: AtomicBool,
}

/// The body with a size guard, then (after a clean end) one blank line, which completes
/// an event the server left unterminated.
fn guarded(
    bytes: ByteStream,
    progress: Arc<Progress>,
) -> impl Stream<Item = Result<Bytes, ModelError>> + Send {
    let counter = progress.clone();
    let body = bytes.map(move |chunk| {
        let chunk = chunk?;
        let seen = counter
            .since_event
            .fetch_add(chunk.len(), Ordering::Relaxed)
            + chunk.len();
        if seen > MAX_EVENT_BYTES {
            return Err(ModelError::stream(format!(
                "SSE event larger than {MAX_EVENT_BYTES} bytes"
            )));
        }
        Ok(chunk)
    });
    let terminator = futures::stream::once(async move {
        progress.ended.store(true, Ordering::Relaxed);
        Ok(Bytes::from_static(b"\n\n"))
    });
    body.chain(terminator)
}

fn parser_error(e: sse_stream::Error) -> ModelError {
    match e {
        sse_stream::Error::Body(inner) => match inner.downcast::<ModelError>() {
            Ok(e) => *e,
            Err(other) => ModelError::connection(format!("error reading the stream: {other}")),
        },
        other => ModelError::stream(format!("malformed SSE: {other}")),
    }
}

struct Decoder<M> {
    sse: Pin<Box<dyn Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>>,
    progress: Arc<Progress>,
    mapper: M,
    queue: VecDeque<Result<StreamEvent, ModelError>>,
    scratch: Vec<StreamEvent>,
    /// Nothing more is read: the message ended, or an error was queued.
    done: bool,
}

impl<M: EventMapper> Decoder<M> {
    /// Queues what `result` produced; an error ends the stream.
    fn settle(&mut self, result: Result<(), ModelError>) {
        self.queue.extend(self.scratch.drain(..).map(Ok));
        match result {
            Ok(()) => self.done |= self.mapper.is_done(),
            Err(e) => {
                self.queue.push_back(Err(e));
                self.done = true;
            }
        }
    }

    fn on_event(&mut self, sse: sse_stream::Sse) {
        self.progress.since_event.store(0, Ordering::Relaxed);
        let Some(data) = sse.data else { return };
        let ev = SseEvent {
            event: sse.event.unwrap_or_default(),
            data,
        };
        let mut result = self.mapper.event(&ev, &mut self.scratch);
        // Completed only by the end of the body and not even JSON: it was cut off.
        if result.is_err()
            && self.progress.ended.load(Ordering::Relaxed)
            && serde_json::from_str::<IgnoredAny>(ev.data.trim()).is_err()
        {
            result = Err(ModelError::connection(
                "stream ended in the middle of an event",
            ));
        }
        self.settle(result);
    }

    async fn step(&mut self) {
        match self.sse.next().await {
            Some(Ok(sse)) => self.on_event(sse),
            Some(Err(e)) => {
                let result = self.mapper.broken(parser_error(e), &mut self.scratch);
                self.settle(result);
                self.done = true;
            }
            None => {
                let result = self.mapper.end(&mut self.scratch);
                self.settle(result);
                self.done = true;
            }
        }
    }
}

/// Decodes an SSE body into typed events with `mapper`. The stream ends once the mapper
/// says the message is done, or after the first error.
pub fn decode<M: EventMapper>(bytes: ByteStream, mapper: M) -> EventStream {
    let progress = Arc::new(Progress::default());
    let decoder = Decoder {
        sse: Box::pin(SseStream::from_bytes_stream(guarded(
            bytes,
            progress.clone(),
        ))),
        progress,
        mapper,
        queue: VecDeque::new(),
        scratch: Vec::new(),
        done: false,
    };
    Box::pin(futures::stream::unfold(decoder, |mut d| async move {
        loop {
            if let Some(item) = d.queue.pop_front() {
                return Some((item, d));
            }
            if d.done {
                return None;
            }
            d.step().await;
        }
    }))
}

/// Ends `stream` as soon as `cancel` fires, yielding one `ModelError::Cancelled`. Dropping
/// the inner stream is what stops the work: for HTTP it closes the connection.
pub fn with_cancel(stream: EventStream, cancel: CancellationToken) -> EventStream {
    Box::pin(futures::stream::unfold(
        Some((stream, cancel)),
        |state| async move {
            let (mut stream, cancel) = state?;
            tokio::select! {
                biased;
                _ = cancel.cancelled() => Some((Err(ModelError::Cancelled), None)),
                item = stream.next() => item.map(|it| (it, Some((stream, cancel)))),
            }
        },
    ))
}

/// At most 200 characters of `s`, for error messages.
pub(crate) fn snippet(s: &str) -> String {
    const MAX: usize = 200;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::MessageDeltaBody;

    /// Records every event; done at an event named `stop`.
    #[derive(Default)]
    struct Echo {
        done: bool,
    }

    impl EventMapper for Echo {
        fn event(&mut self, ev: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
            if ev.data.starts_with('{') {
                serde_json::from_str::<IgnoredAny>(&ev.data)
                    .map_err(|e| ModelError::stream(format!("malformed JSON: {e}")))?;
            }
            self.done = ev.event == "stop";
            // The event's name and data, carried in a stop reason / sequence pair.
            out.push(StreamEvent::MessageDelta {
                delta: MessageDeltaBody {
                    stop_reason: Some(ev.event.clone()),
                    stop_sequence: Some(ev.data.clone()),
                },
                usage: None,
            });
            Ok(())
        }
        fn is_done(&self) -> bool {
            self.done
        }
        fn end(&mut self, _: &mut Vec<StreamEvent>) -> Result<(), ModelError> {
            Err(ModelError::connection("ended early"))
        }
    }

    fn pairs(
        items: &[Result<StreamEvent, ModelError>],
    ) -> Vec<Result<(String, String), ModelError>> {
        items
            .iter()
            .map(|it| match it {
                Ok(StreamEvent::MessageDelta { delta, .. }) => Ok((
                    delta.stop_reason.clone().unwrap_or_default(),
                    delta.stop_sequence.clone().unwrap_or_default(),
                )),
                Ok(other) => panic!("{other:?}"),
                Err(e) => Err(e.clone()),
            })
            .collect()
    }

    async fn run(
        chunks: Vec<Result<Bytes, ModelError>>,
    ) -> Vec<Result<(String, String), ModelError>> {
        let items: Vec<_> = decode(Box::pin(futures::stream::iter(chunks)), Echo::default())
            .collect()
            .await;
        pairs(&items)
    }

    fn ok(name: &str, data: &str) -> Result<(String, String), ModelError> {
        Ok((name.to_string(), data.to_string()))
    }

    const SAMPLE: &str = "\u{feff}event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: keep-alive\n\
event: b\rdata: h\u{e9}llo \u{1F600}\r\r\
event: no-data\n\n\
data: plain\n\n\
event: stop\ndata: {}\n\n\
event: after\ndata: ignored\n\n";

    #[tokio::test]
    async fn frames_line_ends_comments_bom_and_multiline_data() {
        let whole = run(vec![Ok(Bytes::from_static(SAMPLE.as_bytes()))]).await;
        assert_eq!(
            whole,
            vec![
                ok("a", "{\"x\":\n1}"),
                ok("b", "h\u{e9}llo \u{1F600}"),
                ok("", "plain"),
                ok("stop", "{}"),
            ]
        );
        // Every split point, including inside a UTF-8 character and between \r and \n.
        let bytes = SAMPLE.as_bytes();
        for i in 0..=bytes.len() {
            let parts = vec![
                Ok(Bytes::copy_from_slice(&bytes[..i])),
                Ok(Bytes::copy_from_slice(&bytes[i..])),
            ];
            assert_eq!(run(parts).await, whole, "split at byte {i}");
        }
        let singles = bytes
            .iter()
            .map(|b| Ok(Bytes::copy_from_slice(&[*b])))
            .collect();
        assert_eq!(run(singles).await, whole);
    }

    #[tokio::test]
    async fn an_unterminated_last_event_is_read_and_a_cut_one_is_a_broken_connection() {
        let got = run(vec![Ok(Bytes::from_static(b"event: stop\ndata: {}"))]).await;
        assert_eq!(got, vec![ok("stop", "{}")]);
        let got = run(vec![Ok(Bytes::from_static(b"event: x\ndata: {\"cut"))]).await;
        assert_eq!(
            got,
            vec![Err(ModelError::connection(
                "stream ended in the middle of an event"
            ))]
        );
        // A complete event with malformed JSON is the format's own error.
        let got = run(vec![Ok(Bytes::from_static(b"data: {oops\n\n"))]).await;
        assert!(matches!(&got[..], [Err(ModelError::Stream(m))] if m.contains("malformed JSON")));
    }

    #[tokio::test]
    async fn the_end_and_byte_errors_reach_the_mapper() {
        assert_eq!(
            run(vec![Ok(Bytes::from_static(b"data: 1\n\n"))]).await,
            vec![ok("", "1"), Err(ModelError::connection("ended early"))]
        );
        assert_eq!(
            run(vec![
                Ok(Bytes::from_static(b"data: 1\n\n")),
                Err(ModelError::connection("reset")),
                Ok(Bytes::from_static(b"data: 2\n\n")),
            ])
            .await,
            vec![ok("", "1"), Err(ModelError::connection("reset"))]
        );
    }

    #[tokio::test]
    async fn malformed_framing_and_oversized_events_are_stream_errors() {
        let got = run(vec![Ok(Bytes::from_static(
            b"event: a\nevent: b\ndata: 1\n\n",
        ))])
        .await;
        assert!(
            matches!(&got[..], [Err(ModelError::Stream(m))] if m.contains("malformed SSE")),
            "{got:?}"
        );
        let big = vec![b'a'; MAX_EVENT_BYTES / 2 + 1];
        let got = run(vec![
            Ok(Bytes::from_static(b"data: ")),
            Ok(Bytes::from(big.clone())),
            Ok(Bytes::from(big)),
        ])
        .await;
        assert!(
            matches!(&got[..], [Err(ModelError::Stream(m))] if m.contains("larger than")),
            "{got:?}"
        );
    }

    #[tokio::test]
    async fn cancel_ends_a_pending_stream() {
        let pending: EventStream = Box::pin(futures::stream::pending());
        let token = CancellationToken::new();
        let mut s = with_cancel(pending, token.clone());
        token.cancel();
        assert_eq!(s.next().await, Some(Err(ModelError::Cancelled)));
        assert_eq!(s.next().await, None);
    }
}
