//! The host side of the control protocol (`dcl_bridge::host`) against real sessions on the
//! mock model: correlation both ways, timeouts, `initialize`, and in-process MCP tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::host::{Host, HostConfig, HostEvent, InitSpec, McpServerSpec, Waker, kind};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

fn options(dir: &std::path::Path, extra: Value) -> String {
    let mut o = json!({"cwd": dir, "model": "mock-model", "persistSession": false});
    if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
        o.extend(extra.clone());
    }
    o.to_string()
}

fn prompt(text: &str) -> String {
    json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
}

/// Events until `stop` says so; panics when the session ends or nothing comes first.
fn events_until(host: &Host, mut stop: impl FnMut(&HostEvent) -> bool) -> Vec<HostEvent> {
    let mut seen = Vec::new();
    loop {
        // One at a time: what follows the event looked for stays queued for the next call.
        let batch = host.next_events_blocking(1, Some(WAIT)).unwrap();
        assert!(!batch.is_empty(), "ended or timed out; saw {seen:#?}");
        for e in batch {
            let done = stop(&e);
            seen.push(e);
            if done {
                return seen;
            }
        }
    }
}

fn is_result(e: &HostEvent) -> bool {
    e.kind == kind::MESSAGE && e.payload_json().unwrap()["type"] == "result"
}

fn initialize(host: &Host, spec: Value) -> Value {
    let spec: InitSpec = serde_json::from_value(spec).unwrap();
    let id = host.initialize(&spec).unwrap();
    let seen = events_until(host, |e| e.kind == kind::CONTROL_RESPONSE && e.id == id);
    let answer = seen.last().unwrap().payload_json().unwrap();
    assert_eq!(answer["subtype"], "success", "{answer}");
    answer
}

/// Tool results of the messages seen, as (is_error, content text).
fn tool_results(seen: &[HostEvent]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for e in seen.iter().filter(|e| e.kind == kind::MESSAGE) {
        let m = e.payload_json().unwrap();
        if m["type"] != "user" {
            continue;
        }
        for block in m["message"]["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push((block["is_error"] == true, block["content"].to_string()));
            }
        }
    }
    out
}

#[test]
fn can_use_tool_is_an_event_and_respond_is_the_control_response() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::open(
        &options(dir.path(), json!({"permissionPromptTool": "stdio"})),
        HostConfig::default(),
    )
    .unwrap();
    initialize(&host, json!({}));
    host.send(&prompt("FAKE_WRITE notes.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let ask = seen.last().unwrap();
    let request = ask.payload_json().unwrap();
    assert_eq!(request["tool_name"], "Write");
    assert!(!ask.id.is_empty());
    host.respond(
        &ask.id,
        Ok(json!({"behavior": "allow", "updatedInput": request["input"]})),
    )
    .unwrap();
    // Answered once: a second answer is a clean error, not a second line to dcl.
    assert!(matches!(
        host.respond(&ask.id, Ok(json!({}))),
        Err(dcl_bridge::host::HostError::NotPending(_))
    ));
    let seen = events_until(&host, is_result);
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1, "{seen:#?}");
    assert!(!results[0].0, "{results:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(host.pending_callbacks(), 0);
}

#[test]
fn a_callback_that_never_answers_times_out_is_answered_and_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::open(
        &options(dir.path(), json!({"permissionPromptTool": "stdio"})),
        HostConfig {
            callback_timeout: Some(Duration::from_millis(300)),
            ..HostConfig::default()
        },
    )
    .unwrap();
    initialize(&host, json!({}));
    host.send(&prompt("FAKE_WRITE never.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let id = seen.last().unwrap().id.clone();
    // Nobody answers: the host withdraws the request from the language ...
    let seen = events_until(&host, |e| e.kind == kind::CANCEL);
    let cancel = seen.last().unwrap();
    assert_eq!(cancel.id, id);
    assert_eq!(cancel.payload_json().unwrap()["reason"], "timeout");
    // ... answered dcl with an error (the tool call is refused, the turn goes on) ...
    let seen = events_until(&host, is_result);
    let results = tool_results(&seen);
    assert!(results[0].0, "{results:?}");
    assert!(results[0].1.contains("did not answer"), "{results:?}");
    assert!(!dir.path().join("never.txt").exists());
    // ... and a late answer is an error the language can ignore.
    assert!(matches!(
        host.respond(&id, Ok(json!({"behavior": "allow"}))),
        Err(dcl_bridge::host::HostError::NotPending(_))
    ));
}

#[test]
fn dcl_withdrawing_a_request_is_a_cancel_event() {
    let dir = tempfile::tempdir().unwrap();
    // dcl's own host timeout (0.3 s) fires first: it sends control_cancel_request.
    let host = Host::open(
        &options(
            dir.path(),
            json!({"permissionPromptTool": "stdio", "hostTimeoutSecs": 0.3}),
        ),
        HostConfig::default(),
    )
    .unwrap();
    initialize(&host, json!({}));
    host.send(&prompt("FAKE_WRITE late.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let id = seen.last().unwrap().id.clone();
    let seen = events_until(&host, |e| e.kind == kind::CANCEL);
    assert_eq!(seen.last().unwrap().id, id);
    assert_eq!(
        seen.last().unwrap().payload_json().unwrap()["reason"],
        "cancelled"
    );
    assert!(host.respond(&id, Ok(json!({"behavior": "allow"}))).is_err());
    events_until(&host, is_result);
}

#[test]
fn hook_callbacks_carry_their_index() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::open(
        &options(dir.path(), json!({"permissionMode": "bypassPermissions"})),
        HostConfig::default(),
    )
    .unwrap();
    initialize(
        &host,
        json!({"hooks": [
            {"event": "PostToolUse", "callbacks": 1},
            {"event": "PreToolUse", "matcher": "Bash", "callbacks": 1}
        ]}),
    );
    host.send(&prompt(r#"FAKE_TOOL Bash {"command": "echo hooked"}"#))
        .unwrap();
    let seen = events_until(&host, |e| e.kind == "hook_callback");
    let ask = seen.last().unwrap();
    let payload = ask.payload_json().unwrap();
    assert_eq!(payload["callback_index"], 1, "{payload}");
    assert_eq!(payload["input"]["hook_event_name"], "PreToolUse");
    host.respond(&ask.id, Ok(json!({}))).unwrap();
    let seen = events_until(&host, |e| e.kind == "hook_callback");
    let post = seen.last().unwrap();
    assert_eq!(post.payload_json().unwrap()["callback_index"], 0);
    host.respond(&post.id, Ok(json!({}))).unwrap();
    events_until(&host, is_result);
}

fn calc() -> McpServerSpec {
    serde_json::from_value(json!({
        "name": "calc", "version": "1.2.3",
        "tools": [{"name": "add", "description": "Add two integers", "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}}]
    }))
    .unwrap()
}

#[test]
fn an_in_process_mcp_tool_is_called_by_the_mock_model() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::open(
        &options(
            dir.path(),
            json!({"allowedTools": ["mcp__calc__add"], "permissionMode": "default"}),
        ),
        HostConfig::default(),
    )
    .unwrap();
    host.add_mcp_server(calc()).unwrap();
    initialize(&host, json!({}));
    host.send(&prompt(r#"FAKE_TOOL mcp__calc__add {"a": 2, "b": 3}"#))
        .unwrap();
    // initialize and tools/list were answered by the host: the first event is the call.
    let seen = events_until(&host, |e| e.kind == kind::TOOL_CALL || is_result(e));
    let call = seen.last().unwrap();
    assert_eq!(call.kind, kind::TOOL_CALL, "{seen:#?}");
    let payload = call.payload_json().unwrap();
    assert_eq!(payload["server"], "calc");
    assert_eq!(payload["tool"], "add");
    let sum =
        payload["arguments"]["a"].as_i64().unwrap() + payload["arguments"]["b"].as_i64().unwrap();
    host.respond(
        &call.id,
        Ok(json!({"content": [{"type": "text", "text": format!("sum={sum}")}]})),
    )
    .unwrap();
    let seen = events_until(&host, is_result);
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1, "{seen:#?}");
    assert!(
        !results[0].0 && results[0].1.contains("sum=5"),
        "{results:?}"
    );

    // Arguments that do not fit the schema never reach the language.
    host.send(&prompt(r#"FAKE_TOOL mcp__calc__add {"a": "two"}"#))
        .unwrap();
    let seen = events_until(&host, is_result);
    assert!(seen.iter().all(|e| e.kind != kind::TOOL_CALL), "{seen:#?}");
    let results = tool_results(&seen);
    assert!(
        results[0].0 && results[0].1.contains("validation"),
        "{results:?}"
    );

    // A tool that fails is an error result the model reads.
    host.send(&prompt(r#"FAKE_TOOL mcp__calc__add {"a": 1, "b": 1}"#))
        .unwrap();
    let seen = events_until(&host, |e| e.kind == kind::TOOL_CALL);
    host.respond(&seen.last().unwrap().id, Err("adder on fire".into()))
        .unwrap();
    let seen = events_until(&host, is_result);
    let results = tool_results(&seen);
    assert!(
        results[0].0 && results[0].1.contains("adder on fire"),
        "{results:?}"
    );
}

#[test]
fn awaited_control_calls_resolve_with_their_own_ids() {
    let dir = tempfile::tempdir().unwrap();
    let host =
        Arc::new(Host::open(&options(dir.path(), json!({})), HostConfig::default()).unwrap());
    let rt = dcl_bridge::runtime().unwrap();
    let h = Arc::clone(&host);
    let (init, model, usage, status, bad) = rt.block_on(async move {
        let init = h.request(InitSpec::default().request(&[])).await.unwrap();
        // Several calls in flight at once, each answered under its own id.
        let (model, usage, status) = tokio::join!(
            h.request(json!({"subtype": "set_model", "model": "mock-model"})),
            h.request(json!({"subtype": "get_context_usage"})),
            h.request(json!({"subtype": "mcp_status"})),
        );
        let bad = h
            .request(json!({"subtype": "rewind_files", "user_message_id": "nope"}))
            .await;
        (init, model, usage, status, bad)
    });
    assert!(init.get("commands").is_some() || init.is_object(), "{init}");
    model.unwrap();
    assert!(usage.unwrap().is_object());
    assert!(status.unwrap().get("mcpServers").is_some());
    assert!(
        matches!(bad, Err(dcl_bridge::host::HostError::Refused { ref subtype, .. }) if subtype == "rewind_files"),
        "{bad:?}"
    );
    // The pump answered them all; messages still flow as events.
    host.send(&prompt("hello")).unwrap();
    events_until(&host, is_result);
}

#[test]
fn one_waker_serves_many_idle_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let waker = Arc::new(Waker::new().unwrap());
    let hosts: Vec<Host> = (0..20)
        .map(|_| Host::open(&options(dir.path(), json!({})), HostConfig::default()).unwrap())
        .collect();
    for (key, h) in hosts.iter().enumerate() {
        // Drain what opening emitted, then wait armed.
        while h.try_events(256).is_some_and(|b| !b.is_empty()) {}
        h.arm(Arc::clone(&waker), key as u64);
    }
    hosts[7].send(&prompt("hello")).unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    let mut ready = Vec::new();
    while ready.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        ready = waker.take_ready();
    }
    assert_eq!(ready, vec![7]);
    assert!(hosts[7].try_events(256).is_some());
}

#[test]
fn a_raw_server_gets_its_json_rpc_as_events() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::open(
        &options(dir.path(), json!({"allowedTools": ["mcp__ext__echo"]})),
        HostConfig::default(),
    )
    .unwrap();
    host.add_mcp_server(serde_json::from_value(json!({"name": "ext", "raw": true})).unwrap())
        .unwrap();
    // The server's JSON-RPC may come before `initialize` is answered (dcl connects its MCP
    // servers meanwhile): every event is handled by one loop.
    host.initialize(&InitSpec::default()).unwrap();
    host.send(&prompt(r#"FAKE_TOOL mcp__ext__echo {"text": "raw"}"#))
        .unwrap();
    let mut methods = Vec::new();
    let seen = events_until(&host, |e| {
        if e.kind != kind::MCP_MESSAGE {
            return is_result(e);
        }
        let p = e.payload_json().unwrap();
        assert_eq!(p["server_name"], "ext");
        let m = &p["message"];
        let method = m["method"].as_str().unwrap_or("").to_string();
        let id = m.get("id").cloned().unwrap_or(Value::Null);
        let answer = match method.as_str() {
            "initialize" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "ext", "version": "0"}}}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}]}}),
            "tools/call" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": format!("echo:{}", m["params"]["arguments"]["text"])}]}}),
            _ => Value::Null, // notifications
        };
        methods.push(method);
        host.respond(&e.id, Ok(answer)).unwrap();
        false
    });
    assert!(methods.iter().any(|m| m == "tools/call"), "{methods:?}");
    let results = tool_results(&seen);
    assert!(
        !results[0].0 && results[0].1.contains("echo:"),
        "{results:?}"
    );
}

#[test]
fn withdrawn_says_how_each_request_ended() {
    use dcl_bridge::host::Withdrawal;
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(
        Host::open(
            &options(dir.path(), json!({"permissionPromptTool": "stdio"})),
            HostConfig {
                callback_timeout: Some(Duration::from_millis(300)),
                ..HostConfig::default()
            },
        )
        .unwrap(),
    );
    let rt = dcl_bridge::runtime().unwrap();
    initialize(&host, json!({}));
    // Answered: the watcher learns it, so the language stops nothing.
    host.send(&prompt("FAKE_WRITE a.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let ask = seen.last().unwrap().clone();
    let watch = {
        let h = Arc::clone(&host);
        let id = ask.id.clone();
        rt.spawn(async move { h.withdrawn(&id).await })
    };
    std::thread::sleep(Duration::from_millis(50));
    let input = ask.payload_json().unwrap()["input"].clone();
    host.respond(
        &ask.id,
        Ok(json!({"behavior": "allow", "updatedInput": input})),
    )
    .unwrap();
    assert_eq!(rt.block_on(watch).unwrap(), Withdrawal::Answered);
    assert_eq!(rt.block_on(host.withdrawn(&ask.id)), Withdrawal::NotPending);
    events_until(&host, is_result);
    // Never answered: the watcher learns of the timeout (the twin of the answered case).
    host.send(&prompt("FAKE_WRITE b.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let id = seen.last().unwrap().id.clone();
    let h = Arc::clone(&host);
    assert_eq!(
        rt.block_on(async move { h.withdrawn(&id).await }),
        Withdrawal::TimedOut
    );
    events_until(&host, is_result);
    assert!(!dir.path().join("b.txt").exists());
}

#[test]
fn a_request_may_name_its_own_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // One queued event stalls the pump, so dcl's answers are not read while events wait.
    let host = Host::open(
        &options(dir.path(), json!({})),
        HostConfig {
            max_events: 1,
            ..HostConfig::default()
        },
    )
    .unwrap();
    let rt = dcl_bridge::runtime().unwrap();
    // dcl answers initialize within a generous timeout ...
    let init = rt.block_on(host.request_with_timeout(InitSpec::default().request(&[]), Some(WAIT)));
    assert!(init.is_ok(), "{init:?}");
    // ... and with the pump stalled behind untaken messages, a short one fails with the
    // call's subtype named.
    host.send(&prompt("hello")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let late = rt.block_on(host.request_with_timeout(
        json!({"subtype": "mcp_status"}),
        Some(Duration::from_millis(200)),
    ));
    assert!(
        matches!(late, Err(dcl_bridge::host::HostError::Timeout(ref s)) if s == "mcp_status"),
        "{late:?}"
    );
    // Taking the events lets the session go on.
    events_until(&host, is_result);
}

#[test]
fn server_instructions_and_structured_content_reach_dcl() {
    use dcl_bridge::host::McpServer;
    let spec: McpServerSpec = serde_json::from_value(json!({
        "name": "calc", "instructions": "Use add for sums.",
        "tools": [{"name": "add", "description": "d", "inputSchema": {"type": "object"}}]
    }))
    .unwrap();
    let server = McpServer::new(spec).unwrap();
    let dcl_bridge::host::McpStep::Reply(init) =
        server.handle(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    else {
        panic!("initialize is answered by the host")
    };
    assert_eq!(init["result"]["instructions"], "Use add for sums.");
    let answer = McpServer::tool_result(
        &json!(2),
        Ok(json!({"content": [{"type": "text", "text": "5"}], "structuredContent": {"sum": 5}})),
    );
    assert_eq!(answer["result"]["structuredContent"], json!({"sum": 5}));
    assert_eq!(answer["result"]["isError"], false);
    // Without instructions the key is absent, as before.
    let bare = McpServer::new(calc()).unwrap();
    let dcl_bridge::host::McpStep::Reply(init) =
        bare.handle(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}))
    else {
        panic!("initialize is answered by the host")
    };
    assert!(init["result"].get("instructions").is_none());
}

/// The `dcl` binary of this build (`cargo build` puts it beside `deps/`), for the child
/// transport. CI builds the workspace before testing, so there it must exist.
fn dcl_binary() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("dcl");
    if bin.is_file() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: cargo build -p dcl-cli first",
        bin.display()
    );
    eprintln!(
        "skipped: {} is not built (cargo build -p dcl-cli)",
        bin.display()
    );
    None
}

#[test]
fn a_dcl_child_is_driven_by_the_same_host() {
    let Some(dcl) = dcl_binary() else { return };
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = json!({
        "cwd": dir.path(), "model": "mock-model", "permissionPromptTool": "stdio",
        "env": {"HOME": home.path(), "PATH": std::env::var("PATH").unwrap_or_default()},
    });
    let host = Host::spawn(&dcl, &opts.to_string(), HostConfig::default()).unwrap();
    let known = host.session_id();
    initialize(&host, json!({}));
    host.send(&prompt("FAKE_WRITE child.txt")).unwrap();
    let seen = events_until(&host, |e| e.kind == "can_use_tool");
    let ask = seen.last().unwrap();
    let input = ask.payload_json().unwrap()["input"].clone();
    host.respond(
        &ask.id,
        Ok(json!({"behavior": "allow", "updatedInput": input})),
    )
    .unwrap();
    let seen = events_until(&host, is_result);
    let result = seen.last().unwrap().payload_json().unwrap();
    assert_eq!(
        result["session_id"], known,
        "the id the host gave the child"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("child.txt")).unwrap(),
        "hello\n"
    );
    // The options went through a private file the child removed.
    let leftovers: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(&known))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    host.close();
}

#[test]
fn a_child_refusing_its_options_is_an_invalid_options_error() {
    let Some(dcl) = dcl_binary() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rt = dcl_bridge::runtime().unwrap();
    // Caught before spawning, naming the option, as in process ...
    let bad = json!({"cwd": dir.path(), "model": "mock-model", "maxTurns": -1});
    let e = Host::spawn(&dcl, &bad.to_string(), HostConfig::default())
        .err()
        .expect("refused");
    assert!(
        matches!(&e, dcl_bridge::host::HostError::Bridge(b) if b.option() == Some("maxTurns")),
        "{e:?}"
    );
    // ... or by the child at start-up: the waiting call gets its reason.
    let bad = json!({"cwd": dir.path(), "model": "mock-model", "permissionMode": "sideways"});
    let host = Host::spawn(&dcl, &bad.to_string(), HostConfig::default()).unwrap();
    let answer = rt.block_on(host.request(InitSpec::default().request(&[])));
    match answer {
        Err(dcl_bridge::host::HostError::Bridge(dcl_bridge::BridgeError::InvalidOptions {
            message,
            ..
        })) => assert!(message.contains("sideways"), "{message}"),
        other => panic!("expected the child's refusal, got {other:?}"),
    }
    // Its twin: a good mode opens.
    let good = json!({"cwd": dir.path(), "model": "mock-model", "permissionMode": "plan"});
    let host = Host::spawn(&dcl, &good.to_string(), HostConfig::default()).unwrap();
    assert!(
        rt.block_on(host.request(InitSpec::default().request(&[])))
            .is_ok()
    );
}
