//! WebSearch: searches the web through a SearXNG-compatible JSON endpoint named by
//! `DCL_SEARCH_URL` in the session's environment (`<url>?q=<query>&format=json`).
//! Without one, dcl has no search provider and the call fails with a message saying
//! how to configure it.

use std::time::Instant;

use reqwest::Url;
use serde::Deserialize;
use serde_json::{Value, json};

use super::net;
use super::support::input_str;
use super::{ProcessSpec, Tool, ToolContext, ToolKind, ToolOutput, ToolSpec, parse_input};
use crate::BoxFuture;

/// Session env var naming the search endpoint.
pub const SEARCH_URL_ENV: &str = "DCL_SEARCH_URL";
/// Results shown at most.
const MAX_RESULTS: usize = 10;
/// Characters of a result's snippet shown at most.
const MAX_SNIPPET_CHARS: usize = 300;
/// Bytes of the provider's answer read at most.
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

const DESCRIPTION: &str = "Searches the web and returns result titles, links and snippets \
as a Markdown list. Use it for information newer than your training data or that you need \
to verify. `allowed_domains` keeps only results from those domains (and their subdomains); \
`blocked_domains` drops results from them; give one or the other, not both. Cite the links \
you rely on in your answer. dcl needs a search provider for this: the session's \
DCL_SEARCH_URL must point at a SearXNG-compatible JSON endpoint, otherwise the call fails.";

pub struct WebSearchTool;

#[derive(Debug, Deserialize)]
struct WebSearchInput {
    query: String,
    #[serde(default)]
    allowed_domains: Option<Vec<String>>,
    #[serde(default)]
    blocked_domains: Option<Vec<String>>,
}

/// The definition, built once per process.
static WEB_SEARCH_SPEC: ProcessSpec = ProcessSpec::new(|| {
    ToolSpec::from_schema_text(
        WebSearchTool.name(),
        DESCRIPTION,
        dcl_protocol::compact_schema!(include_bytes!("schemas/web_search.json")),
    )
});

impl Tool for WebSearchTool {
    fn name(&self) -> &'static str {
        "WebSearch"
    }

    fn spec(&self) -> ToolSpec {
        WEB_SEARCH_SPEC.get()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn describe(&self, input: &Value) -> Option<String> {
        input_str(input, "query").map(|q| format!("Search the web for {q:?}"))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input: WebSearchInput = match parse_input(self.name(), input) {
                Ok(input) => input,
                Err(e) => return e,
            };
            let started = Instant::now();
            match net::or_cancelled(&ctx.cancel, search(&input, ctx, started)).await {
                Ok(output) => output,
                Err(message) => ToolOutput::error(message.to_string()),
            }
        })
    }
}

/// A domain filter entry as a bare lowercase host (`https://www.A.com/x` → `a.com`).
fn normalize_domain(domain: &str) -> String {
    let d = domain.trim().to_ascii_lowercase();
    let d = d.split("://").last().unwrap_or(&d).to_string();
    let d = d.split(['/', '?', '#']).next().unwrap_or("").to_string();
    let d = d.split(':').next().unwrap_or("").to_string();
    let d = d.trim_start_matches("*.").trim_start_matches('.');
    d.strip_prefix("www.").unwrap_or(d).to_string()
}

/// Whether `host` is `domain` or one of its subdomains.
fn host_matches(host: &str, domain: &str) -> bool {
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    !domain.is_empty()
        && (host == domain
            || host
                .strip_suffix(domain)
                .is_some_and(|rest| rest.ends_with('.')))
}

#[derive(Debug, Clone, PartialEq)]
struct Hit {
    title: String,
    url: String,
    snippet: String,
}

/// Why WebSearch returned no results; the text is its error result.
#[derive(Debug, thiserror::Error)]
enum SearchError {
    #[error(transparent)]
    Web(#[from] net::WebError),
    #[error(
        "<tool_use_error>InputValidationError: WebSearch failed due to the following issue: \
         query must be at least 2 characters long</tool_use_error>"
    )]
    QueryTooShort,
    #[error("Cannot specify both allowed_domains and blocked_domains in the same request.")]
    BothDomainLists,
    #[error(
        "WebSearch is not available: no search provider is configured for dcl. To enable \
         it, set {SEARCH_URL_ENV} in the session's environment to a SearXNG-compatible \
         search endpoint (for example https://searx.example.org/search); dcl requests \
         `<{SEARCH_URL_ENV}>?q=<query>&format=json` and reads its `results` list (the \
         SearXNG instance must have the json format enabled). Meanwhile, use WebFetch on \
         a page you know the URL of."
    )]
    NotConfigured,
    /// `reason` is the URL parser's (its error type is not re-exported by reqwest).
    #[error("{SEARCH_URL_ENV} is not a valid URL ({endpoint:?}): {reason}")]
    BadEndpoint { endpoint: String, reason: String },
    #[error("{SEARCH_URL_ENV} must be an http(s) URL, not {0:?}.")]
    NotHttp(String),
    /// The request failed; the text is the error with its causes.
    #[error("Web search failed: {0}")]
    Send(String),
    #[error("Web search failed: the search provider answered {0}.")]
    Status(reqwest::StatusCode),
    #[error("Web search failed: the search provider's answer is too large.")]
    TooLarge,
    #[error(
        "Web search failed: the search provider did not answer with JSON ({0}); \
         {SEARCH_URL_ENV} must be a SearXNG-compatible endpoint with the json format enabled."
    )]
    NotJson(serde_json::Error),
}

async fn search(
    input: &WebSearchInput,
    ctx: &ToolContext,
    started: Instant,
) -> Result<ToolOutput, SearchError> {
    let query = input.query.trim();
    if query.chars().count() < 2 {
        return Err(SearchError::QueryTooShort);
    }
    let allowed: Vec<String> = input
        .allowed_domains
        .iter()
        .flatten()
        .map(|d| normalize_domain(d))
        .filter(|d| !d.is_empty())
        .collect();
    let blocked: Vec<String> = input
        .blocked_domains
        .iter()
        .flatten()
        .map(|d| normalize_domain(d))
        .filter(|d| !d.is_empty())
        .collect();
    if !allowed.is_empty() && !blocked.is_empty() {
        return Err(SearchError::BothDomainLists);
    }
    let Some(endpoint) = ctx
        .env
        .get(SEARCH_URL_ENV)
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
    else {
        return Err(SearchError::NotConfigured);
    };
    let mut url = Url::parse(endpoint).map_err(|e| SearchError::BadEndpoint {
        endpoint: endpoint.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(SearchError::NotHttp(endpoint.to_string()));
    }
    url.query_pairs_mut()
        .append_pair("q", query)
        .append_pair("format", "json");

    let client = net::client(&ctx.env)?;
    let response = client
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| SearchError::Send(net::error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(SearchError::Status(status));
    }
    let body = net::read_body(response, MAX_RESPONSE_BYTES).await?;
    if body.truncated {
        return Err(SearchError::TooLarge);
    }
    let parsed: Value = serde_json::from_slice(&body.bytes).map_err(SearchError::NotJson)?;
    let hits = parse_hits(&parsed, &allowed, &blocked);
    let text = render(query, &hits);
    let structured = json!({
        "query": query,
        "results": [{
            "tool_use_id": format!("srvtoolu_dcl_{}", uuid::Uuid::new_v4().simple()),
            "content": hits
                .iter()
                .map(|h| json!({"title": h.title, "url": h.url}))
                .collect::<Vec<_>>(),
        }],
        "durationSeconds": started.elapsed().as_secs_f64(),
        "searchCount": 1,
    });
    Ok(ToolOutput::ok(text).with_structured(structured))
}

/// The usable results, filtered by domain, at most `MAX_RESULTS`, without duplicates.
fn parse_hits(answer: &Value, allowed: &[String], blocked: &[String]) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    let results = answer
        .get("results")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for result in results {
        let Some(url) = result.get("url").and_then(Value::as_str) else {
            continue;
        };
        let Some(host) = Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
        else {
            continue;
        };
        if !allowed.is_empty() && !allowed.iter().any(|d| host_matches(&host, d)) {
            continue;
        }
        if blocked.iter().any(|d| host_matches(&host, d)) {
            continue;
        }
        if hits.iter().any(|h| h.url == url) {
            continue;
        }
        let title = result
            .get("title")
            .and_then(Value::as_str)
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| url.to_string());
        let snippet = result
            .get("content")
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        hits.push(Hit {
            title,
            url: url.to_string(),
            snippet,
        });
        if hits.len() == MAX_RESULTS {
            break;
        }
    }
    hits
}

fn render(query: &str, hits: &[Hit]) -> String {
    if hits.is_empty() {
        return format!("Web search results for query: \"{query}\"\n\nNo results found.");
    }
    let mut out = format!("Web search results for query: \"{query}\"\n");
    for (i, hit) in hits.iter().enumerate() {
        let title = hit
            .title
            .replace('\\', "\\\\")
            .replace('[', "\\[")
            .replace(']', "\\]");
        let link = hit.url.replace('(', "%28").replace(')', "%29");
        out.push_str(&format!("\n{}. [{title}]({link})", i + 1));
        if !hit.snippet.is_empty() {
            let snippet: String = hit.snippet.chars().take(MAX_SNIPPET_CHARS).collect();
            let ellipsis = if hit.snippet.chars().count() > MAX_SNIPPET_CHARS {
                "…"
            } else {
                ""
            };
            out.push_str(&format!("\n   {snippet}{ellipsis}"));
        }
    }
    out.push_str("\n\nCite the sources you use as Markdown links in your answer.");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::web_fetch::tests::{Reply, serve};
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    fn ctx_with(url: Option<&str>) -> ToolContext {
        let mut ctx = ToolContext::new(PathBuf::from("/tmp"));
        let mut env = BTreeMap::new();
        if let Some(url) = url {
            env.insert(SEARCH_URL_ENV.to_string(), url.to_string());
        }
        ctx.env = Arc::new(env);
        ctx
    }

    fn text(out: &ToolOutput) -> String {
        out.content.to_text()
    }

    fn answer() -> String {
        json!({
            "query": "rust",
            "results": [
                {"url": "https://www.rust-lang.org/learn", "title": "Learn [Rust]", "content": "The book and more"},
                {"url": "https://doc.rust-lang.org/std/", "title": "std", "content": ""},
                {"url": "https://example.com/rust", "title": "Example", "content": "An example"},
                {"url": "https://notrust-lang.org/", "title": "Lookalike"},
                {"url": "https://example.com/rust", "title": "Duplicate"},
                {"title": "no url"}
            ]
        })
        .to_string()
    }

    /// A fake SearXNG that records the request targets it saw.
    async fn fake_searx() -> (String, Arc<Mutex<Vec<String>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let base = serve(move |target: &str| {
            log.lock().unwrap().push(target.to_string());
            if target.starts_with("/search?") {
                Reply::new("200 OK", "application/json", answer())
            } else if target.starts_with("/html?") {
                Reply::new("200 OK", "text/html", "<p>nope</p>")
            } else {
                Reply::new("500 Internal Server Error", "text/plain", "boom")
            }
        })
        .await;
        (base, seen)
    }

    #[tokio::test]
    async fn without_a_provider_it_explains_how_to_configure_one() {
        let out = WebSearchTool
            .call(json!({"query": "rust"}), &ctx_with(None))
            .await;
        assert!(out.is_error);
        let t = text(&out);
        assert!(t.starts_with("WebSearch is not available"), "{t}");
        assert!(t.contains("DCL_SEARCH_URL"));
        assert!(t.contains("format=json"));
    }

    #[tokio::test]
    async fn queries_the_provider_and_lists_results_as_links() {
        let (base, seen) = fake_searx().await;
        let ctx = ctx_with(Some(&format!("{base}/search?lang=en")));
        let out = WebSearchTool
            .call(json!({"query": "rust & co"}), &ctx)
            .await;
        assert!(!out.is_error, "{out:?}");
        assert_eq!(
            seen.lock().unwrap().as_slice(),
            ["/search?lang=en&q=rust+%26+co&format=json"]
        );
        let t = text(&out);
        assert!(
            t.starts_with("Web search results for query: \"rust & co\"\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "1. [Learn \\[Rust\\]](https://www.rust-lang.org/learn)\n   The book and more"
            ),
            "{t}"
        );
        assert!(
            t.contains("2. [std](https://doc.rust-lang.org/std/)"),
            "{t}"
        );
        assert!(t.contains("3. [Example](https://example.com/rust)"), "{t}");
        assert!(t.contains("4. [Lookalike]"), "{t}");
        assert!(!t.contains("Duplicate") && !t.contains("5."), "{t}");
        let s = out.structured.unwrap();
        assert_eq!(s["query"], "rust & co");
        assert_eq!(s["results"][0]["content"].as_array().unwrap().len(), 4);
        assert_eq!(s["results"][0]["content"][1]["title"], "std");
    }

    #[tokio::test]
    async fn allowed_and_blocked_domains_filter_results() {
        let (base, _) = fake_searx().await;
        let ctx = ctx_with(Some(&format!("{base}/search")));
        let out = WebSearchTool
            .call(
                json!({"query": "rust", "allowed_domains": ["https://rust-lang.org/"]}),
                &ctx,
            )
            .await;
        let urls: Vec<String> = out.structured.unwrap()["results"][0]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["url"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            urls,
            [
                "https://www.rust-lang.org/learn",
                "https://doc.rust-lang.org/std/"
            ]
        );

        let out = WebSearchTool
            .call(
                json!({"query": "rust", "blocked_domains": ["rust-lang.org", "example.com"]}),
                &ctx,
            )
            .await;
        let t = text(&out);
        assert!(t.contains("[Lookalike](https://notrust-lang.org/)"), "{t}");
        assert!(
            !t.contains("rust-lang.org/learn") && !t.contains("example.com"),
            "{t}"
        );

        let out = WebSearchTool
            .call(
                json!({"query": "rust", "allowed_domains": ["nothing.test"]}),
                &ctx,
            )
            .await;
        assert!(!out.is_error);
        assert!(text(&out).ends_with("No results found."));

        let out = WebSearchTool
            .call(
                json!({"query": "rust", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}),
                &ctx,
            )
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("Cannot specify both"));
    }

    #[tokio::test]
    async fn provider_failures_are_error_results() {
        let (base, _) = fake_searx().await;
        let out = WebSearchTool
            .call(
                json!({"query": "rust"}),
                &ctx_with(Some(&format!("{base}/broken"))),
            )
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("500"), "{}", text(&out));
        let out = WebSearchTool
            .call(
                json!({"query": "rust"}),
                &ctx_with(Some(&format!("{base}/html"))),
            )
            .await;
        assert!(out.is_error);
        assert!(
            text(&out).contains("did not answer with JSON"),
            "{}",
            text(&out)
        );
        let out = WebSearchTool
            .call(json!({"query": "rust"}), &ctx_with(Some("not a url")))
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("not a valid URL"));
    }

    #[tokio::test]
    async fn short_queries_are_rejected() {
        let out = WebSearchTool
            .call(
                json!({"query": " a "}),
                &ctx_with(Some("http://127.0.0.1:1/")),
            )
            .await;
        assert!(out.is_error);
        assert!(text(&out).contains("at least 2 characters"));
    }

    #[test]
    fn domain_matching() {
        assert_eq!(
            normalize_domain("https://WWW.Example.com:443/x"),
            "example.com"
        );
        assert_eq!(normalize_domain("*.example.com"), "example.com");
        assert!(host_matches("docs.example.com", "example.com"));
        assert!(host_matches("www.example.com", "example.com"));
        assert!(!host_matches("badexample.com", "example.com"));
        assert!(!host_matches("example.com", ""));
    }

    #[test]
    fn metadata() {
        let schema = WebSearchTool.spec().input_schema().clone();
        assert_eq!(schema["properties"]["query"]["minLength"], 2);
        assert_eq!(schema["required"], json!(["query"]));
        assert_eq!(WebSearchTool.kind(), ToolKind::Other);
    }
}
