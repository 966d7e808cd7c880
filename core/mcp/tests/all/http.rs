//! HTTP transports against in-process servers on 127.0.0.1: rmcp's streamable-HTTP server,
//! and a small legacy HTTP+SSE server (GET event stream + POST endpoint) in front of the same
//! rmcp fixture handler.

#[allow(dead_code)]
#[path = "../../src/bin/dcl-mcp-fixture/handler.rs"]
mod handler;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use dcl_mcp::{ConnectionStatus, McpManager, NoHost, ServerConfig};
use futures::{SinkExt, StreamExt};
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::json;
use tokio_util::sync::CancellationToken;

type Seen = Arc<Mutex<Vec<String>>>;

/// Records the `x-api-key` header of every request.
async fn record_header(State(seen): State<Seen>, req: Request, next: Next) -> Response {
    if let Some(v) = req.headers().get("x-api-key") {
        seen.lock()
            .unwrap()
            .push(v.to_str().unwrap_or("").to_string());
    }
    next.run(req).await
}

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}")
}

fn text_of(r: &dcl_mcp::CallResult) -> String {
    r.content
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

fn headers() -> BTreeMap<String, String> {
    [("X-Api-Key".to_string(), "s3cret".to_string())].into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http() {
    let seen: Seen = Arc::default();
    let service = StreamableHttpService::new(
        || Ok(handler::Fixture::default()),
        Arc::new(LocalSessionManager::default()),
        Default::default(),
    );
    let router = Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(seen.clone(), record_header));
    let base = serve(router).await;

    let m = McpManager::new(Arc::new(NoHost), BTreeMap::new());
    let servers = [
        (
            "web".to_string(),
            ServerConfig::Http {
                url: format!("{base}/mcp"),
                headers: headers(),
            },
        ),
        (
            "down".to_string(),
            ServerConfig::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: BTreeMap::new(),
            },
        ),
    ];
    m.start(servers.into()).await;
    let status = m.status();
    let web = status.iter().find(|s| s.name == "web").unwrap();
    assert_eq!(web.status, ConnectionStatus::Connected, "{web:?}");
    assert_eq!(web.server_info.as_ref().unwrap()["name"], "dcl-mcp-fixture");
    // Header values are redacted in the status.
    assert_eq!(web.config["headers"]["X-Api-Key"], "[redacted]");
    let down = status.iter().find(|s| s.name == "down").unwrap();
    assert_eq!(down.status, ConnectionStatus::Failed);

    let r = m
        .call(
            "mcp__web__echo",
            json!({"text": "over http"}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&r), "over http");
    let r = m
        .call("mcp__web__image", json!({}), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.content[1]["source"]["data"], handler::PNG_1X1);
    let seen = seen.lock().unwrap().clone();
    assert!(
        !seen.is_empty() && seen.iter().all(|v| v == "s3cret"),
        "{seen:?}"
    );
    m.shutdown().await;
}

/// One legacy SSE session: messages POSTed to /messages go to the rmcp server; its answers
/// go out on the GET /sse stream.
#[derive(Clone, Default)]
struct Legacy {
    to_server: Arc<Mutex<Option<futures::channel::mpsc::UnboundedSender<ClientJsonRpcMessage>>>>,
    seen: Seen,
}

async fn sse_stream(State(state): State<Legacy>, req: Request) -> Response {
    if let Some(v) = req.headers().get("x-api-key") {
        state
            .seen
            .lock()
            .unwrap()
            .push(v.to_str().unwrap_or("").to_string());
    }
    let (to_server_tx, to_server_rx) = futures::channel::mpsc::unbounded::<ClientJsonRpcMessage>();
    let (from_server_tx, from_server_rx) =
        futures::channel::mpsc::unbounded::<ServerJsonRpcMessage>();
    *state.to_server.lock().unwrap() = Some(to_server_tx);
    tokio::spawn(async move {
        if let Ok(running) = handler::Fixture::default()
            .serve((from_server_tx, to_server_rx))
            .await
        {
            let _ = running.waiting().await;
        }
    });
    let first = futures::stream::once(async {
        Ok::<_, Infallible>(Bytes::from(
            "event: endpoint\ndata: /messages?session=1\n\n",
        ))
    });
    let rest = from_server_rx.map(|m| {
        let data = serde_json::to_string(&m).unwrap();
        Ok::<_, Infallible>(Bytes::from(format!("event: message\ndata: {data}\n\n")))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(first.chain(rest)))
        .unwrap()
}

async fn post_message(State(state): State<Legacy>, body: Bytes) -> StatusCode {
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    let tx = state.to_server.lock().unwrap().clone();
    match tx {
        Some(mut tx) => {
            let _ = tx.send(message).await;
            StatusCode::ACCEPTED
        }
        None => StatusCode::NOT_FOUND,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sse() {
    let state = Legacy::default();
    let router = Router::new()
        .route("/sse", get(sse_stream))
        .route("/messages", post(post_message))
        .with_state(state.clone());
    let base = serve(router).await;

    let m = McpManager::new(Arc::new(NoHost), BTreeMap::new());
    m.start(
        [(
            "old".to_string(),
            ServerConfig::Sse {
                url: format!("{base}/sse"),
                headers: headers(),
            },
        )]
        .into(),
    )
    .await;
    let st = &m.status()[0];
    assert_eq!(st.status, ConnectionStatus::Connected, "{st:?}");
    let r = m
        .call(
            "mcp__old__add",
            json!({"a": 2, "b": 40}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&r), "42");
    assert_eq!(state.seen.lock().unwrap().as_slice(), ["s3cret"]);
    m.shutdown().await;
}
