//! How model calls are retried and timed out, read from the session's environment map
//! (never the process environment).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `DCL_MAX_RETRIES` (or `CLAUDE_CODE_MAX_RETRIES`) | retries after the first attempt | 2 |
//! | `DCL_RETRY_BASE_MS` | first backoff; doubles per attempt, plus up to 25 % jitter | 500 |
//! | `DCL_RETRY_MAX_DELAY_MS` | cap of the exponential backoff | 32000 |
//! | `DCL_RETRY_AFTER_MAX_MS` | cap of a server's `retry-after` | 60000 |
//! | `DCL_REQUEST_TIMEOUT_MS` (or `API_TIMEOUT_MS`) | until the response headers arrive | 600000 |
//! | `DCL_IDLE_TIMEOUT_MS` | longest silence between two body chunks | 300000 |
//!
//! A call is retried on the errors whose [`ModelError::kind`] is retryable (408, 409, 429,
//! 5xx including 529, broken connections, timeouts, an overloaded stream error; see
//! [`super::ErrorKind::is_retryable`]) as long as the stream
//! has produced no content block: [`prime`] reads up to the first content block, so a
//! stream that breaks or stalls before it is retried like a failed request, and one that
//! breaks afterwards ends the turn with a clear error.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;

use super::{EventStream, ModelError, StreamEvent};

pub const DEFAULT_MAX_RETRIES: u32 = 2;
pub const DEFAULT_BASE_DELAY_MS: u64 = 500;
pub const DEFAULT_MAX_DELAY_MS: u64 = 32_000;
pub const DEFAULT_MAX_RETRY_AFTER_MS: u64 = 60_000;
/// More retries than this are never made, whatever the environment says.
pub const MAX_RETRIES_LIMIT: u32 = 100;

/// The retry policy of one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: fail at once).
    pub max_retries: u32,
    /// Backoff before the first retry; doubled for each further one.
    pub base_delay_ms: u64,
    /// Cap of the exponential backoff (jitter included).
    pub max_delay_ms: u64,
    /// Cap of a server-requested `retry-after` wait.
    pub max_retry_after_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: DEFAULT_MAX_RETRIES,
            base_delay_ms: DEFAULT_BASE_DELAY_MS,
            max_delay_ms: DEFAULT_MAX_DELAY_MS,
            max_retry_after_ms: DEFAULT_MAX_RETRY_AFTER_MS,
        }
    }
}

/// The first of `keys` set to a non-empty value that parses.
fn parse_first<T: std::str::FromStr>(env: &BTreeMap<String, String>, keys: &[&str]) -> Option<T> {
    keys.iter().find_map(|k| {
        env.get(*k)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .and_then(|v| v.parse().ok())
    })
}

impl RetryPolicy {
    /// Reads the policy from the session's environment map; unset or unparsable values
    /// keep their defaults.
    pub fn from_env_map(env: &BTreeMap<String, String>) -> Self {
        let d = RetryPolicy::default();
        RetryPolicy {
            max_retries: parse_first::<u32>(env, &["DCL_MAX_RETRIES", "CLAUDE_CODE_MAX_RETRIES"])
                .unwrap_or(d.max_retries)
                .min(MAX_RETRIES_LIMIT),
            base_delay_ms: parse_first(env, &["DCL_RETRY_BASE_MS"]).unwrap_or(d.base_delay_ms),
            max_delay_ms: parse_first(env, &["DCL_RETRY_MAX_DELAY_MS"]).unwrap_or(d.max_delay_ms),
            max_retry_after_ms: parse_first(env, &["DCL_RETRY_AFTER_MAX_MS"])
                .unwrap_or(d.max_retry_after_ms),
        }
    }

    /// Whether a call that failed with `err` after `retries_done` retries is tried again.
    pub fn should_retry(&self, err: &ModelError, retries_done: u32) -> bool {
        retries_done < self.max_retries && err.is_retryable()
    }

    /// Milliseconds to wait before retry number `attempt` (1-based): the server's
    /// `retry-after` when it gave one (capped at `max_retry_after_ms`), else
    /// `base · 2^(attempt-1)` plus up to 25 % jitter, capped at `max_delay_ms`.
    pub fn delay_ms(&self, attempt: u32, err: &ModelError) -> u64 {
        if let ModelError::Http {
            retry_after: Some(secs),
            ..
        } = err
            && secs.is_finite()
        {
            let ms = (secs * 1000.0).max(0.0);
            return (ms as u64).min(self.max_retry_after_ms);
        }
        let exp = self
            .base_delay_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(20));
        let jitter = match exp / 4 {
            0 => 0,
            q => rand::random::<u64>() % (q + 1),
        };
        exp.saturating_add(jitter).min(self.max_delay_ms)
    }
}

/// `DCL_REQUEST_TIMEOUT_MS`, else `API_TIMEOUT_MS` (what Claude Code reads): time allowed
/// until the response headers arrive. `None` when unset (the client's default applies).
pub fn request_timeout(env: &BTreeMap<String, String>) -> Option<Duration> {
    parse_first::<u64>(env, &["DCL_REQUEST_TIMEOUT_MS", "API_TIMEOUT_MS"])
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
}

/// `DCL_IDLE_TIMEOUT_MS`: longest silence allowed between two chunks of a streamed body.
pub fn idle_timeout(env: &BTreeMap<String, String>) -> Option<Duration> {
    parse_first::<u64>(env, &["DCL_IDLE_TIMEOUT_MS"])
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
}

/// Reads `stream` until its first content block starts (or the message ends). An error
/// before that point is returned as `Err`, so the caller may retry: nothing of the answer
/// has been shown yet. Otherwise the stream is handed back with the events read so far
/// replayed first, unchanged.
pub async fn prime(mut stream: EventStream) -> Result<EventStream, ModelError> {
    let mut head: Vec<Result<StreamEvent, ModelError>> = Vec::new();
    loop {
        match stream.next().await {
            None => return Ok(Box::pin(futures::stream::iter(head))),
            Some(Err(e)) => return Err(e),
            Some(Ok(StreamEvent::Error { error })) => {
                return Err(ModelError::api_stream_error(&error.kind, &error.message));
            }
            Some(Ok(ev)) => {
                let content = matches!(
                    ev,
                    StreamEvent::ContentBlockStart { .. }
                        | StreamEvent::ContentBlockDelta { .. }
                        | StreamEvent::MessageDelta { .. }
                        | StreamEvent::MessageStop
                );
                head.push(Ok(ev));
                if content {
                    return Ok(Box::pin(futures::stream::iter(head).chain(stream)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::MessageStart;
    use crate::test_env as env;

    fn http(status: u16, retry_after: Option<f64>) -> ModelError {
        ModelError::Http {
            status,
            message: "x".into(),
            retry_after,
        }
    }

    #[test]
    fn policy_reads_the_map_with_fallbacks() {
        assert_eq!(RetryPolicy::from_env_map(&env(&[])), RetryPolicy::default());
        let p = RetryPolicy::from_env_map(&env(&[
            ("CLAUDE_CODE_MAX_RETRIES", "7"),
            ("DCL_RETRY_BASE_MS", "10"),
            ("DCL_RETRY_MAX_DELAY_MS", "100"),
            ("DCL_RETRY_AFTER_MAX_MS", "250"),
        ]));
        assert_eq!(p.max_retries, 7);
        assert_eq!(p.base_delay_ms, 10);
        assert_eq!(p.max_delay_ms, 100);
        assert_eq!(p.max_retry_after_ms, 250);
        let p = RetryPolicy::from_env_map(&env(&[
            ("DCL_MAX_RETRIES", "1"),
            ("CLAUDE_CODE_MAX_RETRIES", "7"),
        ]));
        assert_eq!(p.max_retries, 1, "DCL_ wins");
        let p = RetryPolicy::from_env_map(&env(&[("DCL_MAX_RETRIES", "lots")]));
        assert_eq!(p.max_retries, DEFAULT_MAX_RETRIES);
        let p = RetryPolicy::from_env_map(&env(&[("DCL_MAX_RETRIES", "100000")]));
        assert_eq!(p.max_retries, MAX_RETRIES_LIMIT);
    }

    #[test]
    fn which_errors_are_retried() {
        let p = RetryPolicy::default();
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(p.should_retry(&http(s, None), 0), "{s}");
        }
        for s in [400, 401, 403, 404, 413] {
            assert!(!p.should_retry(&http(s, None), 0), "{s}");
        }
        assert!(p.should_retry(&ModelError::Connection("reset".into()), 1));
        assert!(!p.should_retry(&ModelError::Connection("reset".into()), 2));
        assert!(p.should_retry(&ModelError::api_stream_error("overloaded_error", "x"), 0));
        assert!(p.should_retry(&ModelError::timeout("idle"), 0));
        assert!(!p.should_retry(&ModelError::stream("malformed JSON"), 0));
        // The kind decides, not the words: an unclassified text that mentions overload.
        assert!(!p.should_retry(&ModelError::Stream("overloaded_error: x".into()), 0));
        assert!(!p.should_retry(&ModelError::Cancelled, 0));
        assert!(!p.should_retry(&ModelError::Config("no key".into()), 0));
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let p = RetryPolicy {
            max_retries: 10,
            base_delay_ms: 100,
            max_delay_ms: 1000,
            max_retry_after_ms: 5000,
        };
        let e = ModelError::Connection("x".into());
        for _ in 0..50 {
            let d1 = p.delay_ms(1, &e);
            assert!((100..=125).contains(&d1), "{d1}");
            let d3 = p.delay_ms(3, &e);
            assert!((400..=500).contains(&d3), "{d3}");
            assert_eq!(p.delay_ms(9, &e), 1000);
            assert_eq!(p.delay_ms(60, &e), 1000, "no overflow");
        }
        // retry-after is respected, and capped.
        assert_eq!(p.delay_ms(1, &http(429, Some(2.0))), 2000);
        assert_eq!(p.delay_ms(1, &http(429, Some(0.0))), 0);
        assert_eq!(p.delay_ms(1, &http(429, Some(3600.0))), 5000);
        let nan = p.delay_ms(1, &http(429, Some(f64::NAN)));
        assert!(
            (100..=125).contains(&nan),
            "a broken retry-after falls back: {nan}"
        );
    }

    #[test]
    fn timeouts_from_the_map() {
        assert_eq!(request_timeout(&env(&[])), None);
        assert_eq!(
            request_timeout(&env(&[("API_TIMEOUT_MS", "900")])),
            Some(Duration::from_millis(900))
        );
        assert_eq!(
            request_timeout(&env(&[
                ("API_TIMEOUT_MS", "900"),
                ("DCL_REQUEST_TIMEOUT_MS", "50")
            ])),
            Some(Duration::from_millis(50))
        );
        assert_eq!(
            request_timeout(&env(&[("DCL_REQUEST_TIMEOUT_MS", "0")])),
            None
        );
        assert_eq!(
            idle_timeout(&env(&[("DCL_IDLE_TIMEOUT_MS", "75")])),
            Some(Duration::from_millis(75))
        );
    }

    fn start() -> StreamEvent {
        StreamEvent::MessageStart {
            message: MessageStart {
                id: "m".into(),
                model: "x".into(),
                usage: Default::default(),
                extra: Default::default(),
            },
        }
    }

    fn stream(items: Vec<Result<StreamEvent, ModelError>>) -> EventStream {
        Box::pin(futures::stream::iter(items))
    }

    #[tokio::test]
    async fn prime_fails_before_content_and_replays_after() {
        let err = prime(stream(vec![
            Ok(start()),
            Ok(StreamEvent::Ping),
            Err(ModelError::Connection("reset".into())),
        ]))
        .await
        .err();
        assert_eq!(err, Some(ModelError::Connection("reset".into())));

        let block = StreamEvent::ContentBlockStart {
            index: 0,
            content_block: serde_json::json!({"type": "text", "text": ""}),
        };
        let s = prime(stream(vec![
            Ok(start()),
            Ok(block.clone()),
            Err(ModelError::Connection("reset".into())),
        ]))
        .await
        .unwrap();
        let all: Vec<_> = s.collect().await;
        assert_eq!(
            all,
            vec![
                Ok(start()),
                Ok(block),
                Err(ModelError::Connection("reset".into()))
            ]
        );

        // An empty stream is handed back as is (the accumulator reports it).
        let s = prime(stream(vec![Ok(start())])).await.unwrap();
        assert_eq!(s.collect::<Vec<_>>().await, vec![Ok(start())]);
    }
}
