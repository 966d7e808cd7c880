//! What both API clients need to reach a server: base URL, timeouts, proxy, extra
//! headers. `Debug` never shows a secret: header values, URL userinfo and keys are
//! redacted.

use std::collections::BTreeMap;
use std::time::Duration;

/// Until the response headers arrive (the Anthropic SDKs default to 10 minutes).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
/// Longest silence allowed between two body chunks; the APIs ping every few seconds.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The transport settings of a model client.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// The API's base URL; each format appends its own path. A trailing `/` is fine.
    pub base_url: String,
    /// Time allowed until the response headers arrive.
    pub request_timeout: Duration,
    /// Time allowed between two chunks of the streamed body.
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    /// Proxy URL for every request; `None` means a direct connection. The client never
    /// consults `HTTPS_PROXY` itself: [`HttpConfig::apply_env_map`] does, from the
    /// session's map, because many sessions with different settings share one process.
    pub proxy: Option<String>,
    /// Comma-separated hosts that bypass the proxy (`NO_PROXY` syntax).
    pub no_proxy: Option<String>,
    /// More headers (gateways, `anthropic-beta`, `OpenAI-Organization`). Values are
    /// treated as secrets.
    pub extra_headers: Vec<(String, String)>,
    pub user_agent: String,
}

impl HttpConfig {
    /// `base_url` with the default timeouts, no proxy and no extra headers.
    pub fn new(base_url: impl Into<String>) -> Self {
        HttpConfig {
            base_url: base_url.into(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            proxy: None,
            no_proxy: None,
            extra_headers: Vec::new(),
            user_agent: format!("dcl/{}", env!("CARGO_PKG_VERSION")),
        }
    }

    /// Reads, from the session's map (never the process env): the timeouts
    /// (`DCL_REQUEST_TIMEOUT_MS` or `API_TIMEOUT_MS`, `DCL_IDLE_TIMEOUT_MS`; see
    /// [`crate::retry`]) and the proxy for the base URL ([`proxy_for`]). Unset
    /// values keep what the config has.
    pub fn apply_env_map(&mut self, env: &BTreeMap<String, String>) {
        if let Some(t) = crate::retry::request_timeout(env) {
            self.request_timeout = t;
        }
        if let Some(t) = crate::retry::idle_timeout(env) {
            self.idle_timeout = t;
        }
        let (proxy, no_proxy) = proxy_for(&self.base_url, env);
        self.proxy = proxy;
        self.no_proxy = no_proxy;
    }

    /// `path` (starting with `/`) under the base URL.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url.trim_end_matches('/'))
    }
}

/// The value of `key` in an env map, trimmed; empty counts as unset.
pub fn env_value(env: &BTreeMap<String, String>, key: &str) -> Option<String> {
    env.get(key)
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// Proxy for requests to `base_url`, from the env map: `HTTPS_PROXY` / `HTTP_PROXY` (by
/// the URL's scheme) or `ALL_PROXY`, either case; and `NO_PROXY`. Empty values are unset.
pub fn proxy_for(
    base_url: &str,
    env: &BTreeMap<String, String>,
) -> (Option<String>, Option<String>) {
    let first = |keys: &[&str]| keys.iter().find_map(|k| env_value(env, k));
    let proxy = if base_url.trim().starts_with("http://") {
        first(&["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
    } else {
        first(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"])
    };
    (proxy, first(&["NO_PROXY", "no_proxy"]))
}

/// `scheme://user:pass@host/…` → `scheme://<redacted>@host/…`; other URLs unchanged.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) if scheme.is_empty() => format!("<redacted>@{}", &rest[at + 1..]),
        Some(at) => format!("{scheme}://<redacted>@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Shows whether a secret is set, never its value.
pub(crate) struct Redacted<'a>(pub &'a Option<String>);

impl std::fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "Some(<redacted>)",
            None => "None",
        })
    }
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .extra_headers
            .iter()
            .map(|(k, _)| (k.as_str(), "<redacted>"))
            .collect();
        f.debug_struct("HttpConfig")
            .field("base_url", &redact_url(&self.base_url))
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("connect_timeout", &self.connect_timeout)
            // A proxy URL may hold `user:password@`.
            .field("proxy", &self.proxy.as_deref().map(redact_url))
            .field("no_proxy", &self.no_proxy)
            .field("extra_headers", &headers)
            .field("user_agent", &self.user_agent)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env as env;

    #[test]
    fn proxy_comes_from_the_map_by_scheme() {
        let map = env(&[
            ("HTTP_PROXY", "http://plain:3128"),
            ("https_proxy", "http://secure:3128"),
            ("NO_PROXY", "localhost,.internal"),
        ]);
        assert_eq!(
            proxy_for("http://127.0.0.1:9", &map),
            (
                Some("http://plain:3128".into()),
                Some("localhost,.internal".into())
            )
        );
        assert_eq!(
            proxy_for("https://api.example", &map).0.as_deref(),
            Some("http://secure:3128")
        );
        let all = env(&[("ALL_PROXY", "socks5://s:1080"), ("HTTPS_PROXY", " ")]);
        assert_eq!(
            proxy_for("https://x", &all),
            (Some("socks5://s:1080".into()), None),
            "an empty value is unset"
        );
        assert_eq!(proxy_for("https://x", &env(&[])), (None, None));
    }

    #[test]
    fn apply_env_map_sets_timeouts_and_proxy_only_from_the_map() {
        let mut cfg = HttpConfig::new("https://api.example");
        cfg.apply_env_map(&env(&[]));
        assert_eq!(cfg, HttpConfig::new("https://api.example"));
        cfg.apply_env_map(&env(&[
            ("API_TIMEOUT_MS", "1500"),
            ("DCL_IDLE_TIMEOUT_MS", "250"),
            ("HTTPS_PROXY", "http://u:pw@proxy:3128"),
            ("NO_PROXY", "api.example"),
        ]));
        assert_eq!(cfg.request_timeout, Duration::from_millis(1500));
        assert_eq!(cfg.idle_timeout, Duration::from_millis(250));
        assert_eq!(cfg.proxy.as_deref(), Some("http://u:pw@proxy:3128"));
        assert_eq!(cfg.no_proxy.as_deref(), Some("api.example"));
    }

    #[test]
    fn debug_redacts_userinfo_and_header_values() {
        let mut cfg = HttpConfig::new("https://user:base-secret@gw.example/v1");
        cfg.proxy = Some("http://puser:proxy-secret@proxy:3128".into());
        cfg.extra_headers = vec![("X-Gateway-Key".into(), "header-secret".into())];
        let dbg = format!("{cfg:?}");
        for secret in [
            "base-secret",
            "proxy-secret",
            "header-secret",
            "user:",
            "puser",
        ] {
            assert!(!dbg.contains(secret), "{secret} in {dbg}");
        }
        // What is not secret stays visible.
        for shown in ["gw.example/v1", "proxy:3128", "X-Gateway-Key"] {
            assert!(dbg.contains(shown), "{shown} missing in {dbg}");
        }
        assert_eq!(
            format!("{:?}", Redacted(&Some("k".into()))),
            "Some(<redacted>)"
        );
        assert_eq!(format!("{:?}", Redacted(&None)), "None");
    }

    #[test]
    fn urls_lose_their_userinfo() {
        assert_eq!(
            redact_url("https://u:secret@gw.example/x@y"),
            "https://<redacted>@gw.example/x@y"
        );
        assert_eq!(redact_url("u:secret@host"), "<redacted>@host");
        assert_eq!(redact_url("http://127.0.0.1:9"), "http://127.0.0.1:9");
    }
}
