//! McpManager against the `dcl-mcp-fixture` stdio server (rmcp server side).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dcl_mcp::{ConnectionStatus, McpManager, McpOptions, NoHost, ServerConfig};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const FIXTURE: &str = env!("CARGO_BIN_EXE_dcl-mcp-fixture");

fn fixture(args: &[&str]) -> ServerConfig {
    ServerConfig::Stdio {
        command: FIXTURE.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    }
}

fn base_env(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    for (k, v) in extra {
        env.insert(k.to_string(), v.to_string());
    }
    env
}

fn manager(extra: &[(&str, &str)]) -> McpManager {
    McpManager::new(Arc::new(NoHost), base_env(extra))
}

fn servers(list: &[(&str, ServerConfig)]) -> BTreeMap<String, ServerConfig> {
    list.iter()
        .map(|(n, c)| (n.to_string(), c.clone()))
        .collect()
}

fn status_of(m: &McpManager, name: &str) -> dcl_mcp::ServerStatus {
    m.status().into_iter().find(|s| s.name == name).unwrap()
}

fn text_of(r: &dcl_mcp::CallResult) -> String {
    r.content
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

/// Live (non-zombie) processes whose command line contains `marker`.
fn procs_with(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(true);
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            out.push(pid);
        }
    }
    out
}

/// Live processes whose parent is one of `parents`.
fn children_of(parents: &[i32]) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<i32>().ok());
        if ppid.is_some_and(|p| parents.contains(&p)) && pid_alive(pid) {
            out.push(pid);
        }
    }
    out
}

fn pid_alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty()
        && !stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(true)
}

async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connects_lists_tools_and_calls_them() {
    let m = manager(&[]);
    m.start(servers(&[("fx", fixture(&[]))])).await;
    let st = status_of(&m, "fx");
    assert_eq!(st.status, ConnectionStatus::Connected, "{st:?}");
    assert_eq!(st.server_info.as_ref().unwrap()["name"], "dcl-mcp-fixture");
    assert_eq!(st.scope.as_deref(), Some("dynamic"));
    assert!(st.tools.iter().any(|t| t.name == "echo"));
    let status_json = serde_json::to_value(&st).unwrap();
    assert_eq!(status_json["serverInfo"]["version"], "1.2.3");
    assert_eq!(status_json["config"]["type"], "stdio");

    let tools = m.tools();
    let echo = tools
        .iter()
        .find(|t| t.qualified_name == "mcp__fx__echo")
        .unwrap();
    assert_eq!(echo.server, "fx");
    assert_eq!(echo.name, "echo");
    assert_eq!(echo.input_schema["required"], json!(["text"]));
    assert_eq!(echo.description.as_deref(), Some("Echo the text back"));

    let ct = CancellationToken::new;
    let r = m
        .call("mcp__fx__echo", json!({"text": "hello"}), ct())
        .await
        .unwrap();
    assert_eq!(r.content, vec![json!({"type": "text", "text": "hello"})]);
    assert!(!r.is_error);
    let r = m
        .call("mcp__fx__add", json!({"a": 1, "b": 2}), ct())
        .await
        .unwrap();
    assert_eq!(text_of(&r), "3");
    let r = m.call("mcp__fx__fail", json!({}), ct()).await.unwrap();
    assert!(r.is_error);
    assert_eq!(text_of(&r), "this tool always fails");
    let r = m.call("mcp__fx__image", Value::Null, ct()).await.unwrap();
    assert_eq!(r.content[1]["type"], "image");
    assert_eq!(r.content[1]["source"]["type"], "base64");
    assert_eq!(r.content[1]["source"]["media_type"], "image/png");

    let e = m.call("mcp__fx__nope", json!({}), ct()).await.unwrap_err();
    assert!(e.to_string().contains("No such MCP tool"), "{e}");
    let e = m.call("mcp__fx__echo", json!([1]), ct()).await.unwrap_err();
    assert!(e.to_string().contains("JSON object"), "{e}");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_gets_exactly_the_given_env_and_the_session_cwd() {
    let cwd = tempfile::tempdir().unwrap();
    let options = McpOptions {
        child_env: std::sync::Arc::new(base_env(&[("FROM_SESSION", "s"), ("SHARED", "session")])),
        cwd: Some(cwd.path().to_path_buf()),
        ..McpOptions::default()
    };
    let m = McpManager::with_options(Arc::new(NoHost), options);
    let mut config = fixture(&[]);
    if let ServerConfig::Stdio { env, .. } = &mut config {
        env.insert("FROM_CONFIG".into(), "c".into());
        env.insert("SHARED".into(), "config".into());
    }
    m.start(servers(&[("fx", config)])).await;
    let get = |name: &str| {
        let m = m.clone();
        let name = name.to_string();
        async move {
            let r = m
                .call(
                    "mcp__fx__env",
                    json!({"name": name}),
                    CancellationToken::new(),
                )
                .await
                .unwrap();
            text_of(&r)
        }
    };
    assert_eq!(get("FROM_SESSION").await, "s");
    assert_eq!(get("FROM_CONFIG").await, "c");
    assert_eq!(get("SHARED").await, "config");
    // Nothing of the test process's own environment leaks in.
    assert_eq!(get("CARGO_MANIFEST_DIR").await, "<unset>");
    let r = m
        .call("mcp__fx__cwd", json!({}), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        std::fs::canonicalize(text_of(&r)).unwrap(),
        std::fs::canonicalize(cwd.path()).unwrap()
    );
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_and_secret_names_do_not_reach_servers_unless_configured() {
    let options = McpOptions {
        child_env: std::sync::Arc::new(base_env(&[
            ("ANTHROPIC_API_KEY", "sk-ant-session"),
            ("GITHUB_TOKEN", "ghp-session"),
            ("PLAIN", "p"),
        ])),
        ..McpOptions::default()
    };
    let m = McpManager::with_options(Arc::new(NoHost), options);
    let mut config = fixture(&[]);
    if let ServerConfig::Stdio { env, .. } = &mut config {
        // A server's configured env always passes, also a secret from the session.
        env.insert("SERVER_TOKEN".into(), "${GITHUB_TOKEN}".into());
    }
    m.start(servers(&[("fx", config)])).await;
    let get = |name: &str| {
        let m = m.clone();
        let name = name.to_string();
        async move {
            let r = m
                .call(
                    "mcp__fx__env",
                    json!({"name": name}),
                    CancellationToken::new(),
                )
                .await
                .unwrap();
            text_of(&r)
        }
    };
    assert_eq!(get("ANTHROPIC_API_KEY").await, "<unset>");
    assert_eq!(get("GITHUB_TOKEN").await, "<unset>");
    assert_eq!(get("PLAIN").await, "p");
    assert_eq!(get("SERVER_TOKEN").await, "ghp-session");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_servers_never_block_the_others() {
    let m = manager(&[("MCP_TIMEOUT", "1500")]);
    let started = Instant::now();
    m.start(servers(&[
        ("good", fixture(&["--banner"])),
        (
            "missing",
            ServerConfig::Stdio {
                command: "/nonexistent/dcl-mcp-server".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
        ),
        ("crash", fixture(&["--fail-start"])),
        ("hang", fixture(&["--hang"])),
        (
            "needs-var",
            ServerConfig::Stdio {
                command: "${DCL_TEST_UNSET_VAR}/x".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
        ),
    ]))
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    // A banner line on stdout is tolerated.
    assert_eq!(status_of(&m, "good").status, ConnectionStatus::Connected);
    let missing = status_of(&m, "missing");
    assert_eq!(missing.status, ConnectionStatus::Failed);
    assert!(missing.error.unwrap().contains("cannot start"));
    let crash = status_of(&m, "crash");
    assert_eq!(crash.status, ConnectionStatus::Failed);
    let e = crash.error.unwrap();
    assert!(e.contains("refusing to start"), "{e}");
    assert!(e.contains("status 2"), "{e}");
    let hang = status_of(&m, "hang");
    assert!(hang.error.unwrap().contains("timed out"));
    assert!(
        status_of(&m, "needs-var")
            .error
            .unwrap()
            .contains("DCL_TEST_UNSET_VAR")
    );
    let e = m
        .call("mcp__crash__echo", json!({}), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not connected"), "{e}");
    let r = m
        .call(
            "mcp__good__echo",
            json!({"text": "ok"}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&r), "ok");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_timeout_and_cancellation() {
    let m = manager(&[("MCP_TOOL_TIMEOUT", "300")]);
    m.start(servers(&[("fx", fixture(&[]))])).await;
    let t = Instant::now();
    let e = m
        .call(
            "mcp__fx__sleep",
            json!({"ms": 5000}),
            CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("timed out"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2));

    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    // No tool timeout here: only the cancellation can end this call early.
    let m2 = manager(&[]);
    m2.start(servers(&[("fx", fixture(&[]))])).await;
    let t = Instant::now();
    let e = m2
        .call("mcp__fx__sleep", json!({"ms": 5000}), cancel)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("cancelled"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(3));
    m2.shutdown().await;
    // The server is still fine.
    assert_eq!(status_of(&m, "fx").status, ConnectionStatus::Connected);
    let r = m
        .call(
            "mcp__fx__sleep",
            json!({"ms": 10}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&r), "slept 10 ms");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_mid_call_fails_clearly_and_can_reconnect() {
    let m = manager(&[]);
    m.start(servers(&[("fx", fixture(&[])), ("other", fixture(&[]))]))
        .await;
    let e = m
        .call("mcp__fx__exit", json!({}), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("disconnected"), "{e}");
    assert!(e.to_string().contains("exited with status 3"), "{e}");
    assert!(e.to_string().contains("exiting on request"), "{e}");
    let st = status_of(&m, "fx");
    assert_eq!(st.status, ConnectionStatus::Failed);
    assert!(st.error.unwrap().contains("status 3"));
    assert!(!m.tools().iter().any(|t| t.server == "fx"));
    assert_eq!(status_of(&m, "other").status, ConnectionStatus::Connected);

    m.reconnect("fx").await.unwrap();
    assert_eq!(status_of(&m, "fx").status, ConnectionStatus::Connected);
    let r = m
        .call(
            "mcp__fx__echo",
            json!({"text": "back"}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&r), "back");
    assert!(
        m.reconnect("nope")
            .await
            .unwrap_err()
            .to_string()
            .contains("nope")
    );
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toggle_disables_and_enables() {
    let m = manager(&[]);
    let marker = format!("--marker=toggle-{}", std::process::id());
    m.start(servers(&[("fx", fixture(&[&marker]))])).await;
    assert_eq!(procs_with(&marker).len(), 1);
    m.toggle("fx", false).await.unwrap();
    let st = status_of(&m, "fx");
    assert_eq!(st.status, ConnectionStatus::Disabled);
    assert!(st.tools.is_empty());
    assert!(m.tools().is_empty());
    eventually("the disabled server's process is gone", || {
        procs_with(&marker).is_empty()
    })
    .await;
    let e = m
        .call(
            "mcp__fx__echo",
            json!({"text": "x"}),
            CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("disabled"), "{e}");
    assert!(
        m.reconnect("fx")
            .await
            .unwrap_err()
            .to_string()
            .contains("disabled")
    );
    m.toggle("fx", true).await.unwrap();
    assert_eq!(status_of(&m, "fx").status, ConnectionStatus::Connected);
    assert!(m.toggle("nope", true).await.is_err());
    m.shutdown().await;
    assert!(procs_with(&marker).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_process_behind() {
    let m = manager(&[]);
    let marker = format!("--marker=shutdown-{}", std::process::id());
    m.start(servers(&[
        ("a", fixture(&[&marker])),
        ("b", fixture(&[&marker])),
    ]))
    .await;
    assert_eq!(procs_with(&marker).len(), 2);
    let r = m
        .call(
            "mcp__a__spawn_grandchild",
            json!({}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    // The server reports the PID inside its own PID namespace (dcl-sandbox); find the
    // host PID as the server's child instead.
    let _: i32 = text_of(&r).parse().unwrap();
    let servers = procs_with(&marker);
    let grandchild = children_of(&servers)
        .into_iter()
        .next()
        .expect("the server's sleep is running");
    assert!(pid_alive(grandchild));
    let t = Instant::now();
    m.shutdown().await;
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(procs_with(&marker).is_empty());
    eventually("the grandchild is gone", || !pid_alive(grandchild)).await;
    assert!(
        m.status()
            .iter()
            .all(|s| s.status == ConnectionStatus::Failed)
    );
    assert!(m.reconnect("a").await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_kills_its_servers() {
    let marker = format!("--marker=drop-{}", std::process::id());
    {
        let m = manager(&[]);
        m.start(servers(&[("a", fixture(&[&marker]))])).await;
        assert_eq!(procs_with(&marker).len(), 1);
    }
    eventually("the dropped manager's server is gone", || {
        procs_with(&marker).is_empty()
    })
    .await;
}

/// The engine shares the manager across tasks and spawns its futures.
#[allow(dead_code)]
fn manager_and_its_futures_are_send() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: T) {}
    let m = manager(&[]);
    send_sync(&m);
    send(m.start(BTreeMap::new()));
    send(m.call("x", Value::Null, CancellationToken::new()));
    send(m.toggle("x", true));
    send(m.reconnect("x"));
    send(m.shutdown());
    send(m.set_servers(BTreeMap::new()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_servers_adds_removes_and_keeps() {
    let m = manager(&[]);
    let marker = format!("--marker=set-{}", std::process::id());
    m.start(servers(&[("a", fixture(&[])), ("b", fixture(&[&marker]))]))
        .await;
    let r = m
        .set_servers(servers(&[
            ("a", fixture(&[])),
            ("c", fixture(&["--fail-start"])),
        ]))
        .await;
    assert_eq!(r.added, vec!["c"]);
    assert_eq!(r.removed, vec!["b"]);
    assert!(r.errors["c"].contains("refusing to start"), "{r:?}");
    let names: Vec<String> = m.status().into_iter().map(|s| s.name).collect();
    assert_eq!(names, vec!["a", "c"]);
    assert_eq!(status_of(&m, "a").status, ConnectionStatus::Connected);
    assert!(procs_with(&marker).is_empty());
    m.shutdown().await;
}
