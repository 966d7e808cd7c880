//! Incremental Server-Sent Events decoding, and the bridge from a byte stream to the
//! typed [`EventStream`] every model client returns.
//!
//! Bytes arrive in arbitrary pieces (a TCP read can end in the middle of a line, of a
//! UTF-8 character, or between the `\r` and `\n` of a line end), so the decoder keeps the
//! unfinished line between calls and only decodes text once a line is complete.
//!
//! The Anthropic HTTP client and the mock model both go through [`event_stream`], so the
//! offline path exercises exactly the decoding the network path uses.

use std::collections::VecDeque;
use std::pin::Pin;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::events::StreamEvent;
use super::{EventStream, ModelError};

/// A single event or line larger than this is refused: a broken or hostile server must not
/// make us buffer without bound.
pub const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

/// Event types of the Messages API stream. Anything else is skipped, as the API docs ask
/// clients to do, so new event kinds do not break old clients.
const KNOWN_EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

/// Delta types [`super::Delta`] models; other delta kinds are skipped for the same reason.
const KNOWN_DELTAS: &[&str] = &[
    "text_delta",
    "thinking_delta",
    "signature_delta",
    "input_json_delta",
    "citations_delta",
];

/// One dispatched SSE event: its `event:` name (empty when none was given) and its
/// `data:` lines joined by `\n`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Incremental SSE parser (the WHATWG "event stream" rules that matter here: `event:` and
/// `data:` fields, multi-line data, `:` comments, LF / CRLF / CR line ends, a leading BOM).
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line being read; decoded only when complete so split UTF-8 is safe.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` at the start of the next one is the same
    /// line end, not an empty line (which would dispatch an event too early).
    skip_lf: bool,
    /// Whether the first line was seen (a UTF-8 BOM may only precede it).
    started: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk; returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, ModelError> {
        let mut out = Vec::new();
        let mut rest = chunk;
        if self.skip_lf && !rest.is_empty() {
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
            self.skip_lf = false;
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..pos]);
            let was_cr = rest[pos] == b'\r';
            rest = &rest[pos + 1..];
            self.end_line(&mut out);
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
        if self.line.len() + self.data.len() > MAX_EVENT_BYTES {
            return Err(ModelError::Stream(format!(
                "SSE event larger than {MAX_EVENT_BYTES} bytes"
            )));
        }
        Ok(out)
    }

    /// Call at end of input. Leniently treats an unterminated last line and an event
    /// missing its closing blank line as complete (the spec would drop them), because a
    /// server that forgets the final newline still meant what it sent.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut out);
        }
        self.dispatch(&mut out);
        out.pop()
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let mut bytes = std::mem::take(&mut self.line);
        if !self.started {
            self.started = true;
            if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
                bytes.drain(..3);
            }
        }
        if bytes.is_empty() {
            self.dispatch(out);
            return;
        }
        if bytes[0] == b':' {
            return; // comment (servers use them as keep-alives)
        }
        let line = String::from_utf8_lossy(&bytes);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // `id`, `retry` and unknown fields do not matter to a one-shot stream
        }
        // Keep the buffer's capacity for the next line.
        bytes.clear();
        self.line = bytes;
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if self.has_data {
            self.has_data = false;
            out.push(SseEvent {
                event,
                data: std::mem::take(&mut self.data),
            });
        }
    }
}

/// Turns one SSE event into a typed stream event. `Ok(None)` for events to skip (unknown
/// types, empty data); an `error` event becomes `ModelError::Stream("<type>: <message>")`.
pub fn parse_event(ev: &SseEvent) -> Result<Option<StreamEvent>, ModelError> {
    let data = ev.data.trim();
    if data.is_empty() || data == "[DONE]" {
        return Ok(None);
    }
    let name = if ev.event.is_empty() {
        "message"
    } else {
        ev.event.as_str()
    };
    let mut value: Value = serde_json::from_str(data).map_err(|e| {
        ModelError::Stream(format!(
            "malformed JSON in the data of SSE event `{name}`: {e}; data: {}",
            snippet(data)
        ))
    })?;
    let Some(obj) = value.as_object_mut() else {
        return Err(ModelError::Stream(format!(
            "SSE event `{name}` carries JSON that is not an object: {}",
            snippet(data)
        )));
    };
    // The data's own `type` decides; fall back to the `event:` name when it is missing.
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => {
            obj.insert("type".into(), Value::String(name.to_string()));
            name.to_string()
        }
    };
    if kind == "error" {
        return Err(api_error(obj.get("error")));
    }
    if !KNOWN_EVENTS.contains(&kind.as_str()) {
        tracing::debug!(event = %kind, "skipping unknown SSE event type");
        return Ok(None);
    }
    if kind == "content_block_delta" {
        let delta_kind = obj
            .get("delta")
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !KNOWN_DELTAS.contains(&delta_kind) {
            tracing::debug!(delta = %delta_kind, "skipping unknown delta type");
            return Ok(None);
        }
    }
    serde_json::from_value(value).map(Some).map_err(|e| {
        ModelError::Stream(format!(
            "unexpected shape of `{kind}` event: {e}; data: {}",
            snippet(data)
        ))
    })
}

/// `{"type": "overloaded_error", "message": "Overloaded"}` → `overloaded_error: Overloaded`
/// (so [`ModelError::is_retryable`] sees "overloaded").
fn api_error(error: Option<&Value>) -> ModelError {
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("error");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("the API sent an error event without a message");
    ModelError::Stream(format!("{kind}: {message}"))
}

/// At most 200 characters of `s`, for error messages.
pub(crate) fn snippet(s: &str) -> String {
    const MAX: usize = 200;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, ModelError>> + Send>>;

struct DecodeState {
    bytes: ByteStream,
    decoder: SseDecoder,
    queue: VecDeque<Result<StreamEvent, ModelError>>,
    saw_stop: bool,
    /// No more reading: `message_stop`, an error, or the end of the bytes was reached.
    done: bool,
}

impl DecodeState {
    fn handle(&mut self, ev: &SseEvent) {
        if self.done {
            return; // anything after message_stop or an error is ignored
        }
        match parse_event(ev) {
            Ok(Some(se)) => {
                if matches!(se, StreamEvent::MessageStop) {
                    self.saw_stop = true;
                    self.done = true;
                }
                self.queue.push_back(Ok(se));
            }
            Ok(None) => {}
            Err(e) => {
                self.queue.push_back(Err(e));
                self.done = true;
            }
        }
    }

    fn fail(&mut self, e: ModelError) {
        if !self.done {
            self.queue.push_back(Err(e));
            self.done = true;
        }
    }
}

/// Decodes a byte stream of SSE into typed events. The stream ends after `message_stop`
/// or after the first error; if the bytes end before `message_stop` the last item is
/// `ModelError::Connection("stream ended before message_stop")`.
pub fn event_stream<S>(bytes: S) -> EventStream
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    let state = DecodeState {
        bytes: Box::pin(bytes),
        decoder: SseDecoder::new(),
        queue: VecDeque::new(),
        saw_stop: false,
        done: false,
    };
    Box::pin(futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(item) = st.queue.pop_front() {
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            match st.bytes.next().await {
                Some(Ok(chunk)) => match st.decoder.push(&chunk) {
                    Ok(events) => {
                        for ev in &events {
                            st.handle(ev);
                        }
                    }
                    Err(e) => st.fail(e),
                },
                Some(Err(e)) => st.fail(e),
                None => {
                    if let Some(ev) = st.decoder.finish() {
                        st.handle(&ev);
                    }
                    if !st.saw_stop {
                        st.fail(ModelError::Connection(
                            "stream ended before message_stop".into(),
                        ));
                    }
                    st.done = true;
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Delta;

    const SAMPLE: &str = "event: message_start\r\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\r\n\
\r\n\
: keep-alive comment\n\
event: ping\n\
data: {\"type\": \"ping\"}\n\
\n\
event: content_block_start\r\
data: {\"type\":\"content_block_start\",\"index\":0,\r\
data: \"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\
\r\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\u{e9}llo \u{1F600}\"}}\n\
\n\
event: content_block_stop\n\
data: {\"type\":\"content_block_stop\",\"index\":0}\n\
\n\
event: message_delta\n\
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":7}}\n\
\n\
event: message_stop\n\
data: {\"type\":\"message_stop\"}\n\
\n";

    fn decode_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(d.push(c).unwrap());
        }
        out.extend(d.finish());
        out
    }

    #[test]
    fn decodes_fields_multiline_data_comments_and_line_ends() {
        let events = decode_all(&[SAMPLE.as_bytes()]);
        let names: Vec<_> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(
            events[2].data,
            "{\"type\":\"content_block_start\",\"index\":0,\n\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"
        );
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let bytes = SAMPLE.as_bytes();
        let whole = decode_all(&[bytes]);
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            assert_eq!(decode_all(&[a, b]), whole, "split at byte {i}");
        }
        // Three pieces too: catches state that survives only one boundary.
        for i in (0..bytes.len()).step_by(7) {
            for j in i..bytes.len().min(i + 40) {
                let (a, rest) = bytes.split_at(i);
                let (b, c) = rest.split_at(j - i);
                assert_eq!(decode_all(&[a, b, c]), whole, "split at {i},{j}");
            }
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_all(&singles), whole);
    }

    #[test]
    fn cr_at_chunk_end_then_lf_is_one_line_end() {
        let ev = decode_all(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(
            ev,
            [SseEvent {
                event: String::new(),
                data: "a\nb".into()
            }]
        );
    }

    #[test]
    fn bom_field_without_colon_and_no_space() {
        let ev = decode_all(&[b"\xEF\xBB\xBFevent:x\ndata\ndata:y\n\n"]);
        assert_eq!(
            ev,
            [SseEvent {
                event: "x".into(),
                data: "\ny".into()
            }]
        );
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        assert!(decode_all(&[b"event: ping\n\n: c\n\n"]).is_empty());
    }

    #[test]
    fn unterminated_last_event_is_still_delivered() {
        let ev = decode_all(&[b"data: {\"type\":\"message_stop\"}"]);
        assert_eq!(ev.len(), 1);
    }

    #[test]
    fn oversized_event_is_an_error() {
        let mut d = SseDecoder::new();
        let big = vec![b'a'; MAX_EVENT_BYTES + 1];
        assert!(matches!(d.push(&big), Err(ModelError::Stream(_))));
    }

    fn ev(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.into(),
            data: data.into(),
        }
    }

    #[test]
    fn parse_typed_events() {
        let got = parse_event(&ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}"#,
        ))
        .unwrap();
        assert_eq!(
            got,
            Some(StreamEvent::ContentBlockDelta {
                index: 2,
                delta: Delta::InputJsonDelta {
                    partial_json: "{\"a".into()
                }
            })
        );
        // `type` missing from data: the event name is used.
        assert_eq!(
            parse_event(&ev("message_stop", "{}")).unwrap(),
            Some(StreamEvent::MessageStop)
        );
    }

    #[test]
    fn malformed_json_is_a_stream_error() {
        let err = parse_event(&ev("content_block_delta", "{not json")).unwrap_err();
        match err {
            ModelError::Stream(m) => {
                assert!(m.contains("malformed JSON"), "{m}");
                assert!(m.contains("content_block_delta"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_event(&ev("x", "[1,2]")),
            Err(ModelError::Stream(_))
        ));
        // Known type, wrong shape.
        assert!(matches!(
            parse_event(&ev(
                "content_block_stop",
                r#"{"type":"content_block_stop"}"#
            )),
            Err(ModelError::Stream(_))
        ));
    }

    #[test]
    fn error_event_carries_type_and_message() {
        let err = parse_event(&ev(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ))
        .unwrap_err();
        assert_eq!(
            err,
            ModelError::Stream("overloaded_error: Overloaded".into())
        );
        assert!(err.is_retryable());
        assert!(err.to_string().contains("overloaded"));
    }

    #[test]
    fn unknown_events_and_deltas_are_skipped() {
        assert_eq!(
            parse_event(&ev("future", r#"{"type":"future_event"}"#)).unwrap(),
            None
        );
        assert_eq!(
            parse_event(&ev(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta"}}"#
            ))
            .unwrap(),
            None
        );
        assert_eq!(parse_event(&ev("", "")).unwrap(), None);
    }

    fn chunks_stream(
        chunks: Vec<Result<Bytes, ModelError>>,
    ) -> impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static {
        futures::stream::iter(chunks)
    }

    async fn collect(s: EventStream) -> Vec<Result<StreamEvent, ModelError>> {
        s.collect().await
    }

    #[tokio::test]
    async fn event_stream_ends_at_message_stop_at_any_chunking() {
        let bytes = SAMPLE.as_bytes();
        let whole = collect(event_stream(chunks_stream(vec![Ok(Bytes::from_static(
            bytes,
        ))])))
        .await;
        assert_eq!(whole.len(), 7, "ping is typed too: {whole:?}");
        assert!(whole.iter().all(Result::is_ok));
        assert_eq!(whole.last(), Some(&Ok(StreamEvent::MessageStop)));
        for i in 0..=bytes.len() {
            let parts = vec![
                Ok(Bytes::copy_from_slice(&bytes[..i])),
                Ok(Bytes::copy_from_slice(&bytes[i..])),
            ];
            assert_eq!(collect(event_stream(chunks_stream(parts))).await, whole);
        }
    }

    #[tokio::test]
    async fn early_end_is_a_connection_error() {
        let cut = &SAMPLE[..SAMPLE.find("event: message_delta").unwrap()];
        let got = collect(event_stream(chunks_stream(vec![Ok(Bytes::from(cut))]))).await;
        assert_eq!(
            got.last(),
            Some(&Err(ModelError::Connection(
                "stream ended before message_stop".into()
            )))
        );
        assert_eq!(got.len(), 6);
    }

    #[tokio::test]
    async fn malformed_data_ends_the_stream_with_one_error() {
        let body = "event: message_start\ndata: {oops\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let got = collect(event_stream(chunks_stream(vec![Ok(Bytes::from(body))]))).await;
        assert_eq!(got.len(), 1);
        assert!(matches!(&got[0], Err(ModelError::Stream(m)) if m.contains("malformed JSON")));
    }

    #[tokio::test]
    async fn byte_errors_pass_through() {
        let got = collect(event_stream(chunks_stream(vec![
            Ok(Bytes::from_static(
                b"event: ping\ndata: {\"type\":\"ping\"}\n\n",
            )),
            Err(ModelError::Connection("reset".into())),
        ])))
        .await;
        assert_eq!(
            got,
            [
                Ok(StreamEvent::Ping),
                Err(ModelError::Connection("reset".into()))
            ]
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
