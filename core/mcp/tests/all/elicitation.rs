//! Elicitation: the `dcl-mcp-fixture` server's `ask` tool sends `elicitation/create`; dcl-mcp
//! forwards it to the host (`HostRpc::elicit`) and maps the host's answer back.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use dcl_mcp::{CallResult, HostRpc, HostRpcError, McpManager, NoHost, ServerConfig};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const FIXTURE: &str = env!("CARGO_BIN_EXE_dcl-mcp-fixture");

/// A host that answers every elicitation with `answer` and records what it was asked.
struct Host {
    answer: Result<Value, HostRpcError>,
    asked: Mutex<Vec<(String, Value)>>,
}

impl Host {
    fn new(answer: Result<Value, HostRpcError>) -> Arc<Host> {
        Arc::new(Host {
            answer,
            asked: Mutex::new(Vec::new()),
        })
    }
}

impl HostRpc for Host {
    fn mcp_message(
        &self,
        _server: &str,
        _message: Value,
    ) -> BoxFuture<'_, Result<Value, HostRpcError>> {
        Box::pin(async { Err(HostRpcError::failed("no SDK servers here")) })
    }

    fn elicit(&self, server: &str, request: Value) -> BoxFuture<'_, Result<Value, HostRpcError>> {
        self.asked
            .lock()
            .unwrap()
            .push((server.to_string(), request));
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

fn env() -> BTreeMap<String, String> {
    BTreeMap::from([(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    )])
}

async fn ask(host: Arc<dyn HostRpc>, question: &str) -> CallResult {
    let m = McpManager::new(host, env());
    m.start(BTreeMap::from([(
        "fx".to_string(),
        ServerConfig::Stdio {
            command: FIXTURE.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        },
    )]))
    .await;
    let r = m
        .call(
            "mcp__fx__ask",
            json!({"question": question}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    m.shutdown().await;
    r
}

fn text_of(r: &CallResult) -> String {
    r.content
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

#[tokio::test]
async fn an_accepted_elicitation_returns_the_hosts_content() {
    let host = Host::new(Ok(
        json!({"action": "accept", "content": {"answer": "blue"}}),
    ));
    let r = ask(host.clone(), "colour?").await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(text_of(&r), "blue");
    let asked = host.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    let (server, request) = &asked[0];
    assert_eq!(server, "fx");
    assert_eq!(request["message"], "colour?");
    assert_eq!(request["mode"], "form");
    assert_eq!(request["requested_schema"]["type"], "object");
    assert_eq!(
        request["requested_schema"]["properties"]["answer"]["type"],
        "string"
    );
    assert_eq!(request["requested_schema"]["required"], json!(["answer"]));
}

#[tokio::test]
async fn a_declined_elicitation_is_declined() {
    let host = Host::new(Ok(json!({"action": "decline"})));
    let r = ask(host, "colour?").await;
    assert_eq!(text_of(&r), "declined");
}

#[tokio::test]
async fn a_cancelled_elicitation_is_cancelled() {
    let host = Host::new(Ok(json!({"action": "cancel"})));
    let r = ask(host, "colour?").await;
    assert_eq!(text_of(&r), "cancelled");
}

#[tokio::test]
async fn a_host_error_cancels_the_elicitation() {
    let host = Host::new(Err(HostRpcError::failed("the host refused")));
    let r = ask(host.clone(), "colour?").await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(text_of(&r), "cancelled");
    assert_eq!(host.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_malformed_answer_cancels_the_elicitation() {
    for bad in [
        json!({}),
        json!({"action": "maybe"}),
        json!({"action": "accept", "content": "blue"}),
        json!("accept"),
    ] {
        let r = ask(Host::new(Ok(bad.clone())), "colour?").await;
        assert_eq!(text_of(&r), "cancelled", "{bad}");
    }
}

#[tokio::test]
async fn without_a_host_elicitations_are_declined() {
    let r = ask(Arc::new(NoHost), "colour?").await;
    assert_eq!(text_of(&r), "declined");
}

/// Implementors that do not override `elicit` decline.
#[tokio::test]
async fn the_default_elicit_declines() {
    struct Plain;
    impl HostRpc for Plain {
        fn mcp_message(&self, _: &str, _: Value) -> BoxFuture<'_, Result<Value, HostRpcError>> {
            Box::pin(async { Err(HostRpcError::failed("none")) })
        }
    }
    assert_eq!(
        Plain.elicit("fx", json!({"message": "?"})).await.unwrap(),
        json!({"action": "decline"})
    );
    let r = ask(Arc::new(Plain), "colour?").await;
    assert_eq!(text_of(&r), "declined");
}
