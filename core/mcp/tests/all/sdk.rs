//! SDK servers: the JSON-RPC goes through `HostRpc::mcp_message`; here the "host" is a tiny
//! hand-written MCP server, as the Python SDK's `sdk_mcp_bridge` answers.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dcl_mcp::{
    ConnectionStatus, HostRpc, HostRpcError, McpManager, McpOptions, NoHost, ServerConfig,
};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Good,
    /// `tools/call` answers with a control error.
    CallFails,
    /// `tools/call` answers without `mcp_response`.
    NoMcpResponse,
    /// `tools/call` answers a JSON-RPC error.
    RpcError,
    /// `initialize` is never answered.
    SilentInit,
    /// `tools/call` is never answered.
    SilentCall,
}

struct FakeHost {
    mode: Mode,
    log: Mutex<Vec<(String, Value)>>,
}

impl FakeHost {
    fn new(mode: Mode) -> Arc<FakeHost> {
        Arc::new(FakeHost {
            mode,
            log: Mutex::new(Vec::new()),
        })
    }
    fn methods(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(_, m)| m["method"].as_str().unwrap_or("<reply>").to_string())
            .collect()
    }
    fn messages(&self, method: &str) -> Vec<Value> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, m)| m["method"] == method)
            .map(|(_, m)| m.clone())
            .collect()
    }
}

/// The JSON-RPC answer of the tiny in-process server, wrapped as the host's control response.
fn answer(message: &Value, mode: Mode) -> Option<Result<Value, HostRpcError>> {
    let id = message.get("id").cloned();
    let method = message["method"].as_str().unwrap_or("");
    let result = match method {
        "initialize" => {
            if mode == Mode::SilentInit {
                return None;
            }
            json!({"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "calc-server", "version": "0.9.0"}})
        }
        "tools/list" => json!({"tools": [
            {"name": "add", "description": "Add numbers",
             "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
            {"name": "say hi", "inputSchema": {"type": "object"}},
        ]}),
        "tools/call" => match mode {
            Mode::CallFails => return Some(Err(HostRpcError::failed("boom from the host"))),
            Mode::NoMcpResponse => return Some(Ok(json!({"something": "else"}))),
            Mode::SilentCall => return None,
            Mode::RpcError => {
                return Some(Ok(json!({"mcp_response": {"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": "handler raised"}}})));
            }
            _ => {
                let a = message["params"]["arguments"]["a"].as_f64().unwrap_or(0.0);
                let b = message["params"]["arguments"]["b"].as_f64().unwrap_or(0.0);
                json!({"content": [{"type": "text", "text": format!("{}", a + b)}], "isError": false})
            }
        },
        _ if id.is_none() => {
            return Some(Ok(
                json!({"mcp_response": {"jsonrpc": "2.0", "result": {}}}),
            ));
        }
        _ => {
            return Some(Ok(json!({"mcp_response": {"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("Method '{method}' not found")}}})));
        }
    };
    Some(Ok(
        json!({"mcp_response": {"jsonrpc": "2.0", "id": id, "result": result}}),
    ))
}

impl HostRpc for FakeHost {
    fn mcp_message(
        &self,
        server: &str,
        message: Value,
    ) -> BoxFuture<'_, Result<Value, HostRpcError>> {
        self.log
            .lock()
            .unwrap()
            .push((server.to_string(), message.clone()));
        let reply = answer(&message, self.mode);
        Box::pin(async move {
            match reply {
                Some(r) => r,
                None => futures::future::pending().await,
            }
        })
    }
}

fn manager(host: Arc<FakeHost>, env: &[(&str, &str)]) -> McpManager {
    let child_env = std::sync::Arc::new(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    McpManager::with_options(
        host,
        McpOptions {
            child_env,
            client_name: "claude-code".into(),
            client_version: "2.1.332".into(),
            ..McpOptions::default()
        },
    )
}

fn calc() -> BTreeMap<String, ServerConfig> {
    [(
        "calc".to_string(),
        ServerConfig::Sdk {
            name: "calc-server".into(),
        },
    )]
    .into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_sequence_over_the_host() {
    let host = FakeHost::new(Mode::Good);
    let m = manager(host.clone(), &[]);
    m.start(calc()).await;
    let st = &m.status()[0];
    assert_eq!(st.status, ConnectionStatus::Connected, "{st:?}");
    assert_eq!(st.server_info.as_ref().unwrap()["name"], "calc-server");
    assert_eq!(
        host.methods(),
        vec!["initialize", "notifications/initialized", "tools/list"]
    );
    // mcp_message's server_name is the mcpServers key.
    assert!(host.log.lock().unwrap().iter().all(|(s, _)| s == "calc"));
    let init = &host.messages("initialize")[0];
    assert_eq!(init["jsonrpc"], "2.0");
    // dcl answers servers' elicitations (forwarded to the host), in both modes.
    assert_eq!(
        init["params"]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}})
    );
    assert_eq!(init["params"]["clientInfo"]["name"], "claude-code");
    assert_eq!(init["params"]["clientInfo"]["version"], "2.1.332");
    assert!(init["params"]["protocolVersion"].is_string());
    assert!(
        host.messages("notifications/initialized")[0]
            .get("id")
            .is_none()
    );

    let names: Vec<String> = m.tools().into_iter().map(|t| t.qualified_name).collect();
    assert_eq!(names, vec!["mcp__calc__add", "mcp__calc__say_hi"]);

    let meta = json!({"claudecode/toolUseId": "toolu_1"});
    let r = m
        .call_with_meta(
            "mcp__calc__add",
            json!({"a": 1, "b": 2}),
            meta.as_object().cloned(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(r.content, vec![json!({"type": "text", "text": "3"})]);
    assert!(!r.is_error);
    let call = &host.messages("tools/call")[0];
    assert_eq!(call["params"]["name"], "add");
    assert_eq!(call["params"]["arguments"], json!({"a": 1, "b": 2}));
    assert_eq!(call["params"]["_meta"]["claudecode/toolUseId"], "toolu_1");
    assert!(
        call["params"]["_meta"].get("progressToken").is_some(),
        "{call}"
    );
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_errors_and_malformed_replies_are_errors() {
    for (mode, expect) in [
        (Mode::CallFails, "boom from the host"),
        (Mode::NoMcpResponse, "mcp_response"),
        (Mode::RpcError, "handler raised"),
    ] {
        let host = FakeHost::new(mode);
        let m = manager(host.clone(), &[("MCP_TOOL_TIMEOUT", "2000")]);
        m.start(calc()).await;
        assert_eq!(m.status()[0].status, ConnectionStatus::Connected);
        let e = m
            .call(
                "mcp__calc__add",
                json!({"a": 1, "b": 2}),
                CancellationToken::new(),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains(expect), "{expect}: {e}");
        // One bad answer does not take the server down.
        assert_eq!(m.status()[0].status, ConnectionStatus::Connected);
        m.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_host_times_out() {
    let host = FakeHost::new(Mode::SilentInit);
    let m = manager(host.clone(), &[("MCP_TIMEOUT", "300")]);
    let t = Instant::now();
    m.start(calc()).await;
    assert!(t.elapsed() < Duration::from_secs(2));
    let st = &m.status()[0];
    assert_eq!(st.status, ConnectionStatus::Failed);
    assert!(st.error.as_ref().unwrap().contains("timed out"), "{st:?}");

    let host = FakeHost::new(Mode::SilentCall);
    let m = manager(host.clone(), &[("MCP_TOOL_TIMEOUT", "300")]);
    m.start(calc()).await;
    let t = Instant::now();
    let e = m
        .call("mcp__calc__add", json!({}), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("timed out"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2));
    // The host is told the request is abandoned.
    let deadline = Instant::now() + Duration::from_secs(2);
    while host.messages("notifications/cancelled").is_empty() {
        assert!(Instant::now() < deadline, "no notifications/cancelled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled = &host.messages("notifications/cancelled")[0];
    let call = &host.messages("tools/call")[0];
    assert_eq!(cancelled["params"]["requestId"], call["id"]);
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_host_sdk_servers_fail_clearly() {
    let m = McpManager::new(Arc::new(NoHost), BTreeMap::new());
    m.start(calc()).await;
    let st = &m.status()[0];
    assert_eq!(st.status, ConnectionStatus::Failed);
    assert!(st.error.as_ref().unwrap().contains("SDK host"), "{st:?}");
}
