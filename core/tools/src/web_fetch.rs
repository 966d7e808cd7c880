//! WebFetch: downloads a URL and gives the model its content, HTML converted to
//! Markdown. dcl runs no second model over the page, so the result is the (truncated)
//! content itself, headed by the model's prompt for it to answer.
//!
//! Redirects within the same host are followed (at most `MAX_REDIRECTS`); a redirect to
//! another host is reported back instead, so the model (and the permission check) sees
//! the new host before anything is fetched from it.

use std::time::Instant;

use reqwest::{StatusCode, Url};
use serde::Deserialize;
use serde_json::{Value, json};

use super::net;
use super::support::input_str;
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;

const MAX_URL_CHARS: usize = 2000;
const MAX_REDIRECTS: usize = 5;
/// Bytes downloaded at most; the rest of a larger body is not read.
const MAX_DOWNLOAD_BYTES: usize = 10 * 1024 * 1024;
/// Characters of page content the model sees.
const MAX_CONTENT_CHARS: usize = 100_000;
/// Bytes checked for NUL when a response does not say what it is.
const SNIFF_BYTES: usize = 8192;

const DESCRIPTION: &str = "Fetches a URL and returns its content: HTML pages converted to \
Markdown, text and JSON as they are (binary content such as images or PDFs is refused). \
`url` must be a fully-formed http(s) URL; http is upgraded to https except for localhost. \
`prompt` says what you want from the page: dcl runs no model over the page, so the result \
is the page content (cut at 100000 characters) under your prompt, for you to answer it \
yourself. Redirects on the same host are followed; when a URL redirects to a different \
host, the result says so and gives the new URL: call WebFetch again with it to continue. \
Read-only; it needs the user's permission because it uses the network.";

pub struct WebFetchTool;

#[derive(Debug, Deserialize)]
struct WebFetchInput {
    url: String,
    prompt: String,
}

/// The definition, built once per process.
static WEB_FETCH_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        WebFetchTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/web_fetch.json")),
    )
});

impl Tool for WebFetchTool {
    fn name(&self) -> &'static str {
        "WebFetch"
    }

    fn spec(&self) -> ToolSpec {
        WEB_FETCH_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "url").map(|u| format!("Fetch {u}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: WebFetchInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let started = Instant::now();
            match net::or_cancelled(&ctx.cancel, fetch(&input, ctx, started)).await {
                Ok(output) => output,
                Err(message) => ToolOutput::error(message.to_string()),
            }
        })
    }
}

/// Why WebFetch returned no page; the text is its error result.
#[derive(Debug, thiserror::Error)]
/// URLs are kept as text: a `Url` would make every `Result` of this module large.
enum FetchError {
    #[error(transparent)]
    Web(#[from] net::WebError),
    #[error("Invalid URL: longer than {MAX_URL_CHARS} characters.")]
    UrlTooLong,
    /// `raw` is the URL as given; `why` what is wrong with it.
    #[error("Invalid URL {raw:?}: {why}")]
    InvalidUrl { raw: String, why: String },
    #[error("Failed to fetch {url}: {chain}")]
    Send { url: String, chain: String },
    #[error("{url} answered {status} without a Location header.")]
    NoLocation { url: String, status: StatusCode },
    /// `reason` is the URL parser's (its error type is not re-exported by reqwest).
    #[error("{url} redirects to an invalid URL {location:?}: {reason}")]
    BadLocation {
        url: String,
        location: String,
        reason: String,
    },
    #[error("Too many redirects: {0} redirected more than {MAX_REDIRECTS} times.")]
    TooManyRedirects(String),
    #[error("Request failed with status code {} {code_text} ({url}).", status.as_u16())]
    Status {
        status: StatusCode,
        code_text: String,
        url: String,
    },
    #[error(
        "{url} returned binary content ({mime}, {bytes} bytes), which WebFetch cannot show. \
         Download it with Bash (e.g. curl -o) if you need the file."
    )]
    Binary {
        url: String,
        mime: String,
        bytes: usize,
    },
}

/// The URL to request: validated, with http upgraded to https off this machine.
fn target_url(raw: &str) -> Result<Url, FetchError> {
    let invalid = |why: String| FetchError::InvalidUrl {
        raw: raw.to_string(),
        why,
    };
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(FetchError::UrlTooLong);
    }
    let mut url = Url::parse(raw.trim()).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("only http and https URLs can be fetched.".into()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host.".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "URLs with a user name or password are not fetched.".into(),
        ));
    }
    if url.scheme() == "http" && !net::is_loopback(&url) {
        url.set_scheme("https")
            .map_err(|()| invalid("cannot switch it to https.".into()))?;
        // An explicit :80 meant plain http's port; https has its own default.
        if url.port() == Some(80) {
            let _ = url.set_port(None);
        }
    }
    Ok(url)
}

/// A redirect that may be followed: same scheme and port, and the same host up to a
/// leading `www.`.
fn same_site(from: &Url, to: &Url) -> bool {
    let strip = |u: &Url| {
        u.host_str()
            .map(|h| h.trim_start_matches("www.").to_ascii_lowercase())
    };
    from.scheme() == to.scheme()
        && from.port_or_known_default() == to.port_or_known_default()
        && strip(from) == strip(to)
        && to.username().is_empty()
        && to.password().is_none()
}

async fn fetch(
    input: &WebFetchInput,
    ctx: &ToolContext,
    started: Instant,
) -> Result<ToolOutput, FetchError> {
    let url = target_url(&input.url)?;
    let client = net::client(&ctx.env)?;
    let mut current = url.clone();
    let mut redirects = 0;
    let response = loop {
        let response = client
            .get(current.clone())
            .header(reqwest::header::ACCEPT, "text/markdown, text/html, */*")
            .send()
            .await
            .map_err(|e| FetchError::Send {
                url: current.to_string(),
                chain: net::error_chain(&e),
            })?;
        let status = response.status();
        if !status.is_redirection() || status == StatusCode::NOT_MODIFIED {
            break response;
        }
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| FetchError::NoLocation {
                url: current.to_string(),
                status,
            })?;
        let next = current
            .join(location)
            .map_err(|e| FetchError::BadLocation {
                url: current.to_string(),
                location: location.to_string(),
                reason: e.to_string(),
            })?;
        if !same_site(&current, &next) {
            return Ok(redirect_report(input, &url, &next, status, started));
        }
        redirects += 1;
        if redirects > MAX_REDIRECTS {
            return Err(FetchError::TooManyRedirects(url.to_string()));
        }
        current = next;
    };

    let status = response.status();
    let code_text = status.canonical_reason().unwrap_or("").to_string();
    if !status.is_success() {
        return Err(FetchError::Status {
            status,
            code_text,
            url: current.to_string(),
        });
    }
    let mime = net::mime_type(&response);
    let body = net::read_body(response, MAX_DOWNLOAD_BYTES).await?;
    let kind = classify(mime.as_deref(), &body.bytes);
    let (content, described_as) = match kind {
        Kind::Binary => {
            return Err(FetchError::Binary {
                url: current.to_string(),
                mime: mime.unwrap_or_else(|| "unknown type".to_string()),
                bytes: body.bytes.len(),
            });
        }
        Kind::Html => {
            let html = String::from_utf8_lossy(&body.bytes).into_owned();
            let markdown = net::html_to_markdown(html).await;
            (markdown, "converted from HTML to Markdown")
        }
        Kind::Text => (
            String::from_utf8_lossy(&body.bytes).into_owned(),
            "as received",
        ),
    };
    let content = cut(&content, MAX_CONTENT_CHARS);
    let download_note = if body.truncated {
        format!(
            "\n\n[Only the first {} MiB of the response were downloaded.]",
            MAX_DOWNLOAD_BYTES / (1024 * 1024)
        )
    } else {
        String::new()
    };
    let result = format!(
        "Prompt: {prompt}\n\n\
         (dcl runs no model over fetched pages: the content of {current} follows, {described_as}. \
         Answer the prompt from it yourself.)\n\n\
         ---\n\n{content}{download_note}",
        prompt = input.prompt,
    );
    let structured = json!({
        "bytes": body.bytes.len(),
        "code": status.as_u16(),
        "codeText": code_text,
        "result": result,
        "durationMs": started.elapsed().as_millis() as u64,
        "url": input.url,
    });
    Ok(ToolOutput::ok(result).with_structured(structured))
}

fn redirect_report(
    input: &WebFetchInput,
    original: &Url,
    next: &Url,
    status: StatusCode,
    started: Instant,
) -> ToolOutput {
    let code_text = status.canonical_reason().unwrap_or("");
    let text = format!(
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n\
         Original URL: {original}\n\
         Redirect URL: {next}\n\
         Status: {} {code_text}\n\n\
         It was not followed. To fetch the redirected page, call WebFetch again with:\n\
         - url: \"{next}\"\n\
         - prompt: \"{}\"",
        status.as_u16(),
        input.prompt
    );
    let structured = json!({
        "bytes": text.len(),
        "code": status.as_u16(),
        "codeText": code_text,
        "result": text,
        "durationMs": started.elapsed().as_millis() as u64,
        "url": input.url,
    });
    ToolOutput::ok(text).with_structured(structured)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
}

/// What a body is, from its declared type, or from its bytes when the type is missing
/// or says nothing useful.
fn classify(mime: Option<&str>, bytes: &[u8]) -> Kind {
    let sniffed = || {
        let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
        if head.contains(&0) {
            return Kind::Binary;
        }
        // A cut in the middle of a character at the end of the window is fine.
        if let Err(e) = std::str::from_utf8(head)
            && (e.error_len().is_some() || head.len() < SNIFF_BYTES)
        {
            return Kind::Binary;
        }
        let start = String::from_utf8_lossy(&head[..head.len().min(512)]).to_ascii_lowercase();
        let start = start.trim_start();
        if start.starts_with("<!doctype html") || start.starts_with("<html") {
            Kind::Html
        } else {
            Kind::Text
        }
    };
    let Some(mime) = mime else {
        return sniffed();
    };
    match mime {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        m if m.starts_with("text/") => Kind::Text,
        "application/json"
        | "application/xml"
        | "application/javascript"
        | "application/ecmascript"
        | "application/x-javascript"
        | "application/yaml"
        | "application/x-yaml"
        | "application/toml"
        | "application/x-sh"
        | "application/sql"
        | "application/graphql" => Kind::Text,
        m if m.ends_with("+json") || m.ends_with("+xml") => Kind::Text,
        m if m.starts_with("image/")
            || m.starts_with("audio/")
            || m.starts_with("video/")
            || m.starts_with("font/") =>
        {
            Kind::Binary
        }
        "application/pdf"
        | "application/zip"
        | "application/gzip"
        | "application/x-gzip"
        | "application/x-tar"
        | "application/wasm"
        | "application/vnd.ms-excel"
        | "application/msword" => Kind::Binary,
        m if m.starts_with("application/vnd.openxmlformats") => Kind::Binary,
        // application/octet-stream and anything unknown: look at the bytes.
        _ => sniffed(),
    }
}

/// `text` cut to `max_chars`, saying how much was left out.
fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_string(),
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!(
                "{}\n\n[Content truncated: {rest} more characters not shown.]",
                &text[..at]
            )
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// One canned HTTP response.
    #[derive(Clone)]
    pub(crate) struct Reply {
        pub status: &'static str,
        pub headers: Vec<(String, String)>,
        pub body: Arc<Vec<u8>>,
        pub delay: Duration,
    }

    impl Reply {
        pub(crate) fn new(
            status: &'static str,
            content_type: &str,
            body: impl Into<Vec<u8>>,
        ) -> Self {
            Reply {
                status,
                headers: vec![("Content-Type".to_string(), content_type.to_string())],
                body: Arc::new(body.into()),
                delay: Duration::ZERO,
            }
        }

        fn redirect(location: &str) -> Self {
            Reply {
                status: "301 Moved Permanently",
                headers: vec![("Location".to_string(), location.to_string())],
                body: Arc::new(Vec::new()),
                delay: Duration::ZERO,
            }
        }
    }

    /// A tiny HTTP/1.1 server on 127.0.0.1: `route` maps a request target (path and
    /// query) to a reply. Returns the base URL (`http://127.0.0.1:PORT`). The accept loop
    /// ends with the test's runtime.
    pub(crate) async fn serve(route: impl Fn(&str) -> Reply + Send + Sync + 'static) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let route = Arc::new(route);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let route = route.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&request);
                    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let reply = route(&target);
                    tokio::time::sleep(reply.delay).await;
                    let mut out = format!("HTTP/1.1 {}\r\n", reply.status);
                    for (k, v) in &reply.headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str(&format!(
                        "Content-Length: {}\r\nConnection: close\r\n\r\n",
                        reply.body.len()
                    ));
                    if socket.write_all(out.as_bytes()).await.is_err() {
                        return;
                    }
                    // A client that stops reading (size cap) makes this fail: fine.
                    let _ = socket.write_all(&reply.body).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        format!("http://{addr}")
    }

    fn ctx() -> ToolContext {
        ToolContext::new(PathBuf::from("/tmp"))
    }

    async fn fetch_url(ctx: &ToolContext, url: &str) -> ToolOutput {
        WebFetchTool
            .call(json!({"url": url, "prompt": "Summarise it"}), ctx)
            .await
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    fn routes(target: &str) -> Reply {
        match target {
            "/page" => Reply::new(
                "200 OK",
                "text/html; charset=utf-8",
                "<!doctype html><html><head><title>T</title><script>evil()</script></head>\
                 <body><h1>Welcome</h1><p>Hello <em>there</em>, see \
                 <a href=\"/docs\">the docs</a>.</p></body></html>",
            ),
            "/same" => Reply::redirect("/hop"),
            "/hop" => Reply::redirect("/page"),
            "/loop" => Reply::redirect("/loop"),
            "/other" => Reply::redirect("http://localhost:1/elsewhere"),
            "/json" => Reply::new("200 OK", "application/json", r#"{"a": [1, 2]}"#),
            "/plain" => Reply::new("200 OK", "text/plain", "just text\n"),
            "/png" => Reply::new("200 OK", "image/png", b"\x89PNG\r\n\x1a\n\0\0\0".to_vec()),
            "/octet" => Reply::new("200 OK", "application/octet-stream", vec![1u8, 0, 2, 0, 3]),
            "/huge" => Reply::new("200 OK", "text/plain", "x".repeat(11 * 1024 * 1024)),
            "/slow" => Reply {
                delay: Duration::from_secs(5),
                ..Reply::new("200 OK", "text/plain", "late")
            },
            _ => Reply::new("404 Not Found", "text/html", "<h1>Not here</h1>"),
        }
    }

    #[tokio::test]
    async fn html_is_converted_and_prefixed_with_the_prompt() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/page")).await;
        assert!(!out.is_error, "{out:?}");
        let t = text(&out);
        assert!(t.starts_with("Prompt: Summarise it\n"), "{t}");
        assert!(t.contains("converted from HTML to Markdown"), "{t}");
        assert!(t.contains("# Welcome"), "{t}");
        assert!(t.contains("Hello *there*, see [the docs](/docs)."), "{t}");
        assert!(!t.contains("evil"), "{t}");
        let s = out.structured.unwrap();
        assert_eq!(s["code"], 200);
        assert_eq!(s["codeText"], "OK");
        assert_eq!(s["url"], format!("{base}/page"));
        assert_eq!(s["result"], t);
        assert!(s["bytes"].as_u64().unwrap() > 100);
    }

    #[tokio::test]
    async fn same_host_redirects_are_followed() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/same")).await;
        assert!(!out.is_error, "{out:?}");
        assert!(text(&out).contains("# Welcome"));
        assert!(text(&out).contains(&format!("{base}/page")));
    }

    #[tokio::test]
    async fn redirect_loops_stop() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/loop")).await;
        assert!(out.is_error);
        assert!(text(&out).contains("Too many redirects"), "{}", text(&out));
    }

    #[tokio::test]
    async fn cross_host_redirects_are_reported_not_followed() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/other")).await;
        assert!(!out.is_error, "{out:?}");
        let t = text(&out);
        assert!(t.starts_with("REDIRECT DETECTED"), "{t}");
        assert!(
            t.contains("Redirect URL: http://localhost:1/elsewhere"),
            "{t}"
        );
        assert!(t.contains("Status: 301 Moved Permanently"), "{t}");
        assert!(t.contains("- prompt: \"Summarise it\""), "{t}");
        assert_eq!(out.structured.unwrap()["code"], 301);
    }

    #[tokio::test]
    async fn http_errors_are_error_results() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/missing")).await;
        assert!(out.is_error);
        assert!(
            text(&out).starts_with("Request failed with status code 404 Not Found"),
            "{}",
            text(&out)
        );
    }

    #[tokio::test]
    async fn text_and_json_pass_through() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/json")).await;
        assert!(
            text(&out).ends_with("---\n\n{\"a\": [1, 2]}"),
            "{}",
            text(&out)
        );
        assert!(text(&out).contains("as received"));
        let out = fetch_url(&ctx(), &format!("{base}/plain")).await;
        assert!(text(&out).ends_with("just text\n"));
    }

    #[tokio::test]
    async fn binary_is_refused() {
        let base = serve(routes).await;
        for path in ["/png", "/octet"] {
            let out = fetch_url(&ctx(), &format!("{base}{path}")).await;
            assert!(out.is_error, "{path}");
            assert!(text(&out).contains("binary content"), "{}", text(&out));
        }
    }

    #[tokio::test]
    async fn huge_bodies_are_capped() {
        let base = serve(routes).await;
        let out = fetch_url(&ctx(), &format!("{base}/huge")).await;
        assert!(!out.is_error, "{out:?}");
        let t = text(&out);
        assert!(t.contains("[Content truncated:"), "{}", &t[t.len() - 300..]);
        assert!(t.ends_with("[Only the first 10 MiB of the response were downloaded.]"));
        assert!(t.chars().count() < MAX_CONTENT_CHARS + 1000);
        assert_eq!(out.structured.unwrap()["bytes"], MAX_DOWNLOAD_BYTES as u64);
    }

    #[tokio::test]
    async fn timeout_comes_from_the_session_env() {
        let base = serve(routes).await;
        let mut ctx = ctx();
        let mut env = BTreeMap::new();
        env.insert(net::TIMEOUT_ENV.to_string(), "300".to_string());
        ctx.env = Arc::new(env);
        let started = Instant::now();
        let out = fetch_url(&ctx, &format!("{base}/slow")).await;
        assert!(out.is_error);
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            text(&out).contains("timed out") || text(&out).contains("timeout"),
            "{}",
            text(&out)
        );
    }

    #[tokio::test]
    async fn cancel_interrupts_the_fetch() {
        let base = serve(routes).await;
        let ctx = ctx();
        let cancel = ctx.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            cancel.cancel();
        });
        let out = fetch_url(&ctx, &format!("{base}/slow")).await;
        assert!(out.is_error);
        assert_eq!(text(&out), net::INTERRUPTED);
    }

    #[tokio::test]
    async fn invalid_urls_are_refused_before_any_request() {
        let ctx = ctx();
        for (url, expected) in [
            ("not a url", "Invalid URL"),
            ("ftp://example.com/x", "only http and https"),
            ("https://user:pw@example.com/", "user name or password"),
        ] {
            let out = fetch_url(&ctx, url).await;
            assert!(out.is_error, "{url}");
            assert!(text(&out).contains(expected), "{url}: {}", text(&out));
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(fetch_url(&ctx, &long).await.is_error);
    }

    #[test]
    fn http_is_upgraded_except_on_loopback() {
        assert_eq!(
            target_url("http://example.com/a?b=1").unwrap().as_str(),
            "https://example.com/a?b=1"
        );
        assert_eq!(
            target_url("http://example.com:80/").unwrap().as_str(),
            "https://example.com/"
        );
        assert_eq!(
            target_url("http://127.0.0.1:8080/x").unwrap().as_str(),
            "http://127.0.0.1:8080/x"
        );
        assert_eq!(
            target_url("http://localhost/").unwrap().as_str(),
            "http://localhost/"
        );
    }

    #[test]
    fn same_site_allows_www_only() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_site(&u("https://a.com/x"), &u("https://www.a.com/y")));
        assert!(same_site(&u("https://www.a.com/x"), &u("https://a.com/y")));
        assert!(!same_site(&u("https://a.com/"), &u("https://b.com/")));
        assert!(!same_site(&u("https://a.com/"), &u("http://a.com/")));
        assert!(!same_site(&u("https://a.com/"), &u("https://a.com:8443/")));
        assert!(!same_site(&u("https://a.com/"), &u("https://evil.a.com/")));
    }

    #[test]
    fn classify_by_type_then_bytes() {
        assert_eq!(classify(Some("text/html"), b""), Kind::Html);
        assert_eq!(classify(Some("application/ld+json"), b"{}"), Kind::Text);
        assert_eq!(classify(Some("image/webp"), b"RIFF"), Kind::Binary);
        assert_eq!(classify(None, b"<!DOCTYPE html><p>x"), Kind::Html);
        assert_eq!(classify(None, b"plain"), Kind::Text);
        assert_eq!(classify(None, b"\xff\xfe\x00a"), Kind::Binary);
        assert_eq!(
            classify(Some("application/octet-stream"), "ok é".as_bytes()),
            Kind::Text
        );
    }

    #[test]
    fn cut_counts_what_it_drops() {
        assert_eq!(cut("abcdef", 10), "abcdef");
        assert_eq!(
            cut("abcdef", 2),
            "ab\n\n[Content truncated: 4 more characters not shown.]"
        );
    }

    #[test]
    fn metadata() {
        assert_eq!(WebFetchTool.kind(), ToolKind::Other);
        assert!(!WebFetchTool.always_allowed());
        let schema = WebFetchTool.spec().input_schema().clone();
        assert_eq!(schema["required"], json!(["url", "prompt"]));
        assert_eq!(schema["properties"]["url"]["format"], "uri");
    }
}
