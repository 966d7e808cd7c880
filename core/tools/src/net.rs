//! HTTP plumbing shared by WebFetch and WebSearch: a client configured only from the
//! session's env map (never the process environment, and never a proxy taken from it),
//! capped body reads, interruption, and HTML-to-Markdown conversion.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::{Client, Response, Url, redirect};
use tokio_util::sync::CancellationToken;

/// Session env var overriding the whole-request timeout, in milliseconds.
pub(crate) const TIMEOUT_ENV: &str = "DCL_WEB_TIMEOUT_MS";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The text of an interrupted web call.
pub(crate) const INTERRUPTED: &str = "[Request interrupted by user for tool use]";

/// What the shared HTTP plumbing of the web tools ran into; the text is the tool's error
/// result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WebError {
    #[error("{INTERRUPTED}")]
    Interrupted,
    #[error("Cannot set up the HTTP client: {0}")]
    Client(reqwest::Error),
    /// The body broke off; the text is the error with its causes ([`error_chain`]).
    #[error("Error while reading the response: {0}")]
    Read(String),
}

/// A client that follows no redirects (callers decide which to follow), uses no proxy,
/// and gives up after the session's timeout.
pub(crate) fn client(env: &BTreeMap<String, String>) -> Result<Client, WebError> {
    Client::builder()
        .redirect(redirect::Policy::none())
        .no_proxy()
        .timeout(timeout(env))
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(concat!("dcl/", env!("CARGO_PKG_VERSION"), " (WebFetch)"))
        .build()
        .map_err(WebError::Client)
}

fn timeout(env: &BTreeMap<String, String>) -> Duration {
    env.get(TIMEOUT_ENV)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

/// Whether `url` points at this machine (plain http is allowed there).
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Runs `work`, or stops with `INTERRUPTED` when the turn is cancelled.
pub(crate) async fn or_cancelled<T, E: From<WebError>>(
    cancel: &CancellationToken,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    tokio::select! {
        result = work => result,
        () = cancel.cancelled() => Err(WebError::Interrupted.into()),
    }
}

/// A response body read up to `max_bytes`; `truncated` tells whether more was sent.
pub(crate) struct Body {
    pub bytes: Vec<u8>,
    pub truncated: bool,
}

pub(crate) async fn read_body(mut response: Response, max_bytes: usize) -> Result<Body, WebError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| WebError::Read(error_chain(&e)))?
    {
        let room = max_bytes - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Body {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Body {
        bytes,
        truncated: false,
    })
}

/// An error with its causes (reqwest's own message is often just "error sending
/// request"; the cause says "connection refused" or "timed out").
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The lowercase MIME type of a response, without parameters (`text/html`).
pub(crate) fn mime_type(response: &Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
}

/// Nesting deeper than this is converted to plain text: the Markdown converter
/// recurses once per level, and a hostile page could otherwise exhaust the stack.
const MAX_HTML_DEPTH: usize = 400;
/// Stack for the conversion thread, generous for `MAX_HTML_DEPTH` levels.
const CONVERT_STACK_BYTES: usize = 64 * 1024 * 1024;

/// HTML as Markdown, without scripts, styles and other non-content elements. Runs on
/// its own thread (parsing a large page is CPU work, and the converter is not `Send`).
pub(crate) async fn html_to_markdown(html: String) -> String {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("dcl-html2md".to_string())
        .stack_size(CONVERT_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(convert_html(&html));
        });
    if spawned.is_err() {
        return String::new();
    }
    rx.await.unwrap_or_default()
}

fn convert_html(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed",
        ])
        .build();
    // html5ever slows down quadratically on deep nesting, so such documents never reach it.
    if estimated_depth(html) > MAX_HTML_DEPTH {
        return strip_tags(html);
    }
    let Ok(tree) = converter.html_to_tree(html) else {
        return strip_tags(html);
    };
    if tree_depth(&tree) > MAX_HTML_DEPTH {
        return strip_tags(html);
    }
    collapse_blank_lines(&converter.tree_to_markdown(&tree))
}

/// Elements that never hold children, or whose end tag may be left out (so counting
/// their start tags would overstate the depth).
const NON_NESTING: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead",
    "tbody", "tfoot", "colgroup", "caption", "rb", "rt", "rp", "html", "head", "body",
];

/// A linear upper estimate of how deeply the document nests elements: start tags minus
/// end tags, ignoring void elements, those with optional end tags, comments, and the
/// contents of `<script>` and `<style>`. Stops counting past `MAX_HTML_DEPTH`.
fn estimated_depth(html: &str) -> usize {
    let lower = html.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let (mut depth, mut deepest, mut pos) = (0usize, 0usize, 0usize);
    while let Some(found) = memchr::memchr(b'<', &bytes[pos..]) {
        let open = pos + found;
        let rest = &lower[open + 1..];
        if rest.starts_with("!--") {
            pos = rest.find("-->").map_or(bytes.len(), |i| open + 1 + i + 3);
            continue;
        }
        let closing = rest.starts_with('/');
        let name: String = rest
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let tag_end = rest.find('>').map_or(bytes.len(), |i| open + 1 + i + 1);
        pos = tag_end;
        if name.is_empty() || NON_NESTING.contains(&name.as_str()) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
            continue;
        }
        if lower[open..tag_end].ends_with("/>") {
            continue;
        }
        if name == "script" || name == "style" {
            let close = format!("</{name}");
            pos = lower[pos..].find(&close).map_or(bytes.len(), |i| pos + i);
            continue;
        }
        depth += 1;
        deepest = deepest.max(depth);
        if deepest > MAX_HTML_DEPTH {
            break;
        }
    }
    deepest
}

/// The deepest nesting level of a parsed document, found without recursion.
fn tree_depth(root: &htmd::Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root.children.borrow().clone(), 1usize)];
    while let Some((children, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if depth > MAX_HTML_DEPTH {
            break;
        }
        for child in children {
            let grandchildren = child.children.borrow().clone();
            if !grandchildren.is_empty() {
                stack.push((grandchildren, depth + 1));
            }
        }
    }
    deepest
}

/// A crude text-only rendering for documents the converter should not see: tags are
/// dropped, as are the contents of `<script>` and `<style>`.
fn strip_tags(html: &str) -> String {
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `html`.
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len() / 2);
    let mut pos = 0;
    while let Some(found) = lower[pos..].find('<') {
        let open = pos + found;
        out.push_str(&html[pos..open]);
        let tag = &lower[open..];
        let end = if tag.starts_with("<script") {
            tag.find("</script>").map(|i| i + "</script>".len())
        } else if tag.starts_with("<style") {
            tag.find("</style>").map(|i| i + "</style>".len())
        } else {
            tag.find('>').map(|i| i + 1)
        };
        match end {
            Some(n) => {
                out.push(' ');
                pos = open + n;
            }
            None => {
                pos = html.len();
            }
        }
    }
    out.push_str(&html[pos..]);
    let text = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    collapse_blank_lines(&lines.join("\n"))
}

/// At most one blank line in a row, no blank edges.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[tokio::test]
    async fn html_becomes_markdown_without_scripts() {
        let html = "<html><head><title>T</title><style>p{color:red}</style>\
                    <script>alert(1)</script></head><body><h1>Hello</h1>\
                    <p>Some <a href=\"https://x.test/a\">link</a> and <b>bold</b>.</p>\
                    <ul><li>one</li><li>two</li></ul></body></html>";
        let md = html_to_markdown(html.to_string()).await;
        assert!(md.contains("# Hello"), "{md}");
        assert!(md.contains("[link](https://x.test/a)"), "{md}");
        assert!(md.contains("**bold**"), "{md}");
        assert!(md.contains("one") && md.contains("two"), "{md}");
        assert!(!md.contains("alert"), "{md}");
        assert!(!md.contains("color:red"), "{md}");
    }

    #[tokio::test]
    async fn deeply_nested_html_falls_back_to_text() {
        let depth = 20_000;
        let html = format!(
            "{}deep text<script>bad()</script>{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        assert!(estimated_depth(&html) > MAX_HTML_DEPTH);
        let started = std::time::Instant::now();
        let md = html_to_markdown(html).await;
        assert_eq!(md.trim(), "deep text");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn depth_estimate_and_tree_depth_agree_on_ordinary_pages() {
        let page = "<!doctype html><html><head><meta charset=utf-8><title>t</title>\
                    <script>if (a < b) { x = '<div>'; }</script></head><body>\
                    <!-- <div><div> --><div class=a><p>one<p>two<br><img src=x />\
                    <ul><li>a<li>b</ul><section><div><span>deep</span></div></section>\
                    </div></body></html>";
        assert_eq!(estimated_depth(page), 4, "div > section > div > span");
        let tree = htmd::HtmlToMarkdown::new().html_to_tree(page).unwrap();
        let depth = tree_depth(&tree);
        assert!((7..=10).contains(&depth), "{depth}");
        let nested = format!("{}x{}", "<div>".repeat(300), "</div>".repeat(300));
        let tree = htmd::HtmlToMarkdown::new().html_to_tree(&nested).unwrap();
        assert!(tree_depth(&tree) >= 300);
        assert!(estimated_depth(&nested) == 300);
    }

    #[test]
    fn strip_tags_keeps_text_only() {
        assert_eq!(
            strip_tags("<p>a &amp; b</p>\n\n\n<STYLE>x</STYLE><p>c</p>"),
            "a & b\n\nc"
        );
    }

    #[test]
    fn loopback_detection() {
        for u in ["http://localhost:1/", "http://127.0.0.1/", "http://[::1]/"] {
            assert!(is_loopback(&Url::parse(u).unwrap()), "{u}");
        }
        assert!(!is_loopback(&Url::parse("http://example.com/").unwrap()));
    }

    #[test]
    fn timeout_comes_from_the_session_env() {
        let mut env = BTreeMap::new();
        assert_eq!(timeout(&env), DEFAULT_TIMEOUT);
        env.insert(TIMEOUT_ENV.to_string(), "250".to_string());
        assert_eq!(timeout(&env), Duration::from_millis(250));
    }
}
