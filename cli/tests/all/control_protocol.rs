//! The control protocol beyond the basics: hooks, settings, context usage, structured
//! output, prompt suggestions and the subtypes that must answer with a clear error.

use crate::common;

use common::{Dcl, STREAM};
use serde_json::{Value, json};

fn init_with(d: &mut Dcl, extra: Value) -> Value {
    let mut req = json!({"subtype": "initialize"});
    if let (Some(r), Some(e)) = (req.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            r.insert(k.clone(), v.clone());
        }
    }
    d.control("init", req);
    d.response_to("init")
}

/// Answers hook callbacks with `answer(input)` until a result arrives; returns the inputs.
fn serve_hooks(d: &mut Dcl, answer: impl Fn(&Value) -> Value) -> (Vec<Value>, Value) {
    let mut inputs = Vec::new();
    loop {
        let v = d.next(20).expect("stdout closed");
        if v["type"] == "control_request" && v["request"]["subtype"] == "hook_callback" {
            inputs.push(v["request"].clone());
            let id = v["request_id"].as_str().unwrap().to_string();
            let out = answer(&v["request"]);
            d.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":out}}));
        } else if v["type"] == "result" {
            return (inputs, v);
        }
    }
}

#[test]
fn a_pre_tool_use_hook_blocks_a_tool() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    let resp = init_with(
        &mut d,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}}),
    );
    assert_eq!(resp["response"]["subtype"], "success");
    d.user("please FAKE_TOUCH");
    let (inputs, result) = serve_hooks(
        &mut d,
        |_| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no touching"}}),
    );
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["callback_id"], "hook_0");
    assert_eq!(inputs[0]["input"]["hook_event_name"], "PreToolUse");
    assert_eq!(inputs[0]["input"]["tool_name"], "Bash");
    assert_eq!(
        inputs[0]["input"]["tool_input"]["command"],
        "touch made.txt && echo made"
    );
    assert!(inputs[0]["tool_use_id"].is_string());
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    assert!(!d.cwd().join("made.txt").exists());
    let tr = d
        .seen
        .iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert_eq!(
        tr["message"]["content"][0]["content"],
        "PreToolUse:Bash hook error: no touching"
    );
    d.finish();
}

#[test]
fn a_pre_tool_use_hook_rewrites_the_input() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    init_with(
        &mut d,
        json!({"hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hookCallbackIds": ["hook_w"]}]}}),
    );
    let target = d.cwd().join("hello.txt");
    d.user(&format!("please FAKE_WRITE {}", target.display()));
    let t = target.display().to_string();
    let (inputs, result) = serve_hooks(
        &mut d,
        move |_| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"file_path": t, "content": "rewritten by hook\n"}}}),
    );
    assert_eq!(inputs.len(), 1);
    assert_eq!(result["subtype"], "success");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "rewritten by hook\n"
    );
    d.finish();
}

#[test]
fn post_tool_use_and_prompt_hooks_fire_and_add_context() {
    let mut d = Dcl::start(STREAM);
    init_with(
        &mut d,
        json!({"hooks": {
            "UserPromptSubmit": [{"hookCallbackIds": ["hook_p"]}],
            "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_post"]}],
            "Stop": [{"hookCallbackIds": ["hook_stop"]}]
        }}),
    );
    d.user("please FAKE_BASH");
    let (inputs, result) = serve_hooks(&mut d, |req| match req["callback_id"].as_str() {
        Some("hook_post") => {
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked by the host"}, "systemMessage": "looks fine"})
        }
        _ => json!({}),
    });
    let events: Vec<&str> = inputs
        .iter()
        .map(|i| i["input"]["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(events, vec!["UserPromptSubmit", "PostToolUse", "Stop"]);
    assert_eq!(inputs[0]["input"]["prompt"], "please FAKE_BASH");
    assert_eq!(
        inputs[1]["input"]["tool_response"]["stdout"]
            .as_str()
            .map(str::trim),
        Some("hi")
    );
    let tr = d
        .seen
        .iter()
        .find(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result")
        .unwrap();
    assert!(
        tr["message"]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("checked by the host")
    );
    assert!(d.seen.iter().any(|v| v["subtype"] == "informational"
        && v["content"].as_str().unwrap().contains("looks fine")));
    assert_eq!(result["subtype"], "success");
    d.finish();
}

#[test]
fn a_hook_that_says_stop_ends_the_turn() {
    let mut d = Dcl::start(STREAM);
    init_with(
        &mut d,
        json!({"hooks": {"UserPromptSubmit": [{"hookCallbackIds": ["hook_0"]}]}}),
    );
    d.user("please FAKE_BASH");
    let (_, result) = serve_hooks(
        &mut d,
        |_| json!({"continue": false, "stopReason": "not today"}),
    );
    assert_eq!(result["terminal_reason"], "hook_stopped");
    assert_eq!(result["result"], "not today");
    assert_eq!(result["num_turns"], 0);
    d.finish();
}

#[test]
fn a_host_that_fails_a_hook_does_not_stop_the_session() {
    let mut d = Dcl::start(STREAM);
    init_with(
        &mut d,
        json!({"hooks": {"PreToolUse": [{"hookCallbackIds": ["hook_0"], "timeout": 1}]}}),
    );
    d.user("please FAKE_BASH");
    // Never answer the hook: it times out after a second and the tool still runs.
    let result = d.until_type("result");
    assert_eq!(result["result"], "Done. The tool result had 2 chars.");
    d.finish();
}

#[test]
fn settings_files_and_flags_merge_and_apply_flag_settings_changes_them() {
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--settings",
                r#"{"permissions":{"allow":["Bash(touch made.txt:*)","Bash(echo:*)"]}}"#,
            ],
        ]
        .concat(),
    );
    std::fs::create_dir_all(d.cwd().join(".dcl")).unwrap();
    d.control("g", json!({"subtype": "get_settings"}));
    let r = d.response_to("g");
    let sources: Vec<&str> = r["response"]["response"]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, vec!["flag"]);
    assert_eq!(r["response"]["response"]["applied"]["model"], "mock-model");
    // The allow rule from --settings skips the prompt.
    d.user("please FAKE_TOUCH");
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"], json!([]));
    assert!(d.cwd().join("made.txt").exists());
    d.control("a", json!({"subtype": "apply_flag_settings", "settings": {"model": "mock-two", "effortLevel": "low", "permissions": {"defaultMode": "plan"}}}));
    assert_eq!(d.response_to("a")["response"]["subtype"], "success");
    d.control(
        "bad",
        json!({"subtype": "apply_flag_settings", "settings": {"theme": "dark"}}),
    );
    let bad = d.response_to("bad");
    assert_eq!(bad["response"]["subtype"], "error");
    assert!(bad["response"]["error"].as_str().unwrap().contains("theme"));
    d.control("g2", json!({"subtype": "get_settings"}));
    let r = d.response_to("g2");
    assert_eq!(r["response"]["response"]["applied"]["model"], "mock-two");
    assert_eq!(r["response"]["response"]["applied"]["effort"], "low");
    assert_eq!(
        r["response"]["response"]["effective"]["permissions"]["defaultMode"],
        "plan"
    );
    d.user("say hi");
    let init = d.until(|v| v["subtype"] == "init" && v["model"] == "mock-two");
    assert_eq!(init["permissionMode"], "plan");
    d.finish();
}

#[test]
fn user_and_project_settings_files_are_read_in_order() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".dcl")).unwrap();
    std::fs::write(
        home.path().join(".dcl/settings.json"),
        r#"{"model":"mock-user","env":{"DCL_TEST_X":"1"}}"#,
    )
    .unwrap();
    let mut d = Dcl::start_with_env(
        &[
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ],
        &[("HOME", home.path().to_str().unwrap())],
    );
    std::fs::create_dir_all(d.cwd().join(".dcl")).unwrap();
    d.control("g", json!({"subtype": "get_settings"}));
    let r = d.response_to("g");
    assert_eq!(r["response"]["response"]["applied"]["model"], "mock-user");
    assert_eq!(r["response"]["response"]["sources"][0]["source"], "user");
    d.finish();
}

#[test]
fn set_max_thinking_tokens_maps_to_effort() {
    let mut d = Dcl::start(STREAM);
    for (tokens, effort) in [
        (json!(0), json!("off")),
        (json!(4096), json!("low")),
        (json!(10000), json!("medium")),
        (json!(30000), json!("high")),
        (json!(90000), json!("max")),
        (Value::Null, Value::Null),
    ] {
        d.control(
            "t",
            json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": tokens}),
        );
        assert_eq!(d.response_to("t")["response"]["subtype"], "success");
        d.control("g", json!({"subtype": "get_settings"}));
        assert_eq!(
            d.response_to("g")["response"]["response"]["applied"]["effort"],
            effort
        );
    }
    d.finish();
}

#[test]
fn context_usage_is_real_and_grows() {
    let mut d = Dcl::start(STREAM);
    d.control("c1", json!({"subtype": "get_context_usage"}));
    let first = d.response_to("c1")["response"]["response"].clone();
    let names: Vec<&str> = first["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in ["System prompt", "System tools", "Messages"] {
        assert!(names.contains(&n), "{names:?}");
    }
    assert!(first["totalTokens"].as_u64().unwrap() > 0);
    for c in first["categories"].as_array().unwrap() {
        assert!(c["kind"] == "used" || c["kind"] == "free", "{c}");
        assert!(c["type"].is_string() && c["percentage"].is_number(), "{c}");
    }
    assert!(first["contextWindow"]["usedPercentage"].is_number());
    assert_eq!(first["maxTokens"], 200000);
    d.user("please FAKE_BASH");
    d.until_type("result");
    d.control("c2", json!({"subtype": "get_context_usage"}));
    let second = d.response_to("c2")["response"]["response"].clone();
    assert!(second["totalTokens"].as_u64().unwrap() > first["totalTokens"].as_u64().unwrap());
    assert!(second["percentage"].as_f64().unwrap() > 0.0);
    assert_eq!(second["session"]["promptCount"], 1);
    assert_eq!(second["session"]["toolCalls"], 1);
    d.finish();
}

#[test]
fn a_json_schema_is_passed_through_as_structured_output() {
    let schema = r#"{"type":"object","properties":{"answer":{"type":"string"},"count":{"type":"integer"}},"required":["answer","count"]}"#;
    let mut d = Dcl::start(&[STREAM, &["--json-schema", schema]].concat());
    d.user("give me data");
    let result = d.until_type("result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(
        result["structured_output"],
        json!({"answer": "example", "count": 1})
    );
    let parsed: Value = serde_json::from_str(result["result"].as_str().unwrap()).unwrap();
    assert_eq!(parsed, result["structured_output"]);
    let init = d.of_type("system")[0].clone();
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "StructuredOutput")
    );
    d.finish();
}

#[test]
fn prompt_suggestions_follow_a_successful_turn() {
    let mut d = Dcl::start(STREAM);
    init_with(&mut d, json!({"promptSuggestions": true}));
    d.user("say hi");
    d.until_type("result");
    let s = d.until_type("prompt_suggestion");
    assert!(!s["suggestion"].as_str().unwrap().is_empty());
    d.finish();
}

#[test]
fn unbuilt_subsystems_answer_errors_never_fake_success() {
    let mut d = Dcl::start(STREAM);
    for (id, req, needle) in [
        (
            "r",
            json!({"subtype": "rewind_files", "user_message_id": "x"}),
            "checkpoint",
        ),
        ("s", json!({"subtype": "stop_task", "task_id": "t1"}), "t1"),
        (
            "m",
            json!({"subtype": "mcp_set_servers", "servers": {}}),
            "dcl mcp add",
        ),
        (
            "t",
            json!({"subtype": "mcp_toggle", "serverName": "nope", "enabled": false}),
            "nope",
        ),
    ] {
        d.control(id, req);
        let r = d.response_to(id);
        assert_eq!(r["response"]["subtype"], "error", "{r}");
        assert!(
            r["response"]["error"].as_str().unwrap().contains(needle),
            "{r}"
        );
    }
    d.control(
        "seed",
        json!({"subtype": "seed_read_state", "path": "/x", "mtime": 1.0}),
    );
    assert_eq!(d.response_to("seed")["response"]["subtype"], "success");
    d.control("seed2", json!({"subtype": "seed_read_state", "path": "/x"}));
    assert_eq!(d.response_to("seed2")["response"]["subtype"], "error");
    d.control("rp", json!({"subtype": "reload_plugins"}));
    let r = d.response_to("rp");
    assert_eq!(r["response"]["response"]["plugins"], json!([]));
    d.finish();
}

#[test]
fn qoder_dialect_sends_init_before_the_initialize_answer_with_capabilities() {
    let mut d = Dcl::start_with_env(
        &[
            "--print",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--model",
            "mock-model",
        ],
        &[("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py")],
    );
    d.control("i", json!({"type": "initialize", "subtype": "initialize"}));
    let first = d.next(10).unwrap();
    assert_eq!(first["subtype"], "init");
    assert_eq!(first["protocol_version"], "1.4.0");
    assert!(first["qodercli_version"].is_string());
    let resp = d.response_to("i");
    assert_eq!(
        resp["response"]["response"]["capabilities"],
        first["capabilities"]
    );
    d.user("say hi");
    let init = d.until(|v| v["subtype"] == "init");
    assert_eq!(init["capabilities"], first["capabilities"]);
    let result = d.until_type("result");
    assert_eq!(result["total_credits"], 0);
    d.finish();
}

#[test]
fn subtype_falls_back_to_type_for_qoder_ts() {
    let mut d = Dcl::start(STREAM);
    d.control("i", json!({"type": "mcp_status"}));
    assert_eq!(d.response_to("i")["response"]["subtype"], "success");
    d.finish();
}

#[test]
fn priority_now_replaces_the_running_turn() {
    let mut d = Dcl::start(&[STREAM, &["--include-partial-messages"]].concat());
    d.user("FAKE_SLOW please");
    d.until(|v| v["type"] == "stream_event" && v["event"]["type"] == "content_block_delta");
    d.send(json!({"type":"user","message":{"role":"user","content":"say hi"},"priority":"now"}));
    let first = d.until_type("result");
    assert_eq!(first["subtype"], "error_during_execution");
    let second = d.until_type("result");
    assert_eq!(second["result"], "Hello from the fake model.");
    d.finish();
}

#[test]
fn origin_is_echoed_on_the_result() {
    let mut d = Dcl::start(STREAM);
    d.send(json!({"type":"user","message":{"role":"user","content":"say hi"},"origin":{"kind":"human"}}));
    let r = d.until_type("result");
    assert_eq!(r["origin"], json!({"kind":"human"}));
    d.finish();
}

#[test]
fn stop_task_kills_a_background_shell() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    d.user(r#"FAKE_TOOL Bash {"command":"sleep 60","run_in_background":true}"#);
    let tr =
        d.until(|v| v["type"] == "user" && v["message"]["content"][0]["type"] == "tool_result");
    let text = tr["message"]["content"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("bash_1"), "{text}");
    d.until_type("result");
    d.control("s1", json!({"subtype": "stop_task", "task_id": "bash_1"}));
    assert_eq!(d.response_to("s1")["response"]["subtype"], "success");
    d.control("s2", json!({"subtype": "stop_task", "task_id": "bash_1"}));
    assert_eq!(d.response_to("s2")["response"]["subtype"], "error");
    d.finish();
}

#[test]
fn todo_write_never_asks() {
    let mut d = Dcl::start(STREAM);
    d.user(r#"FAKE_TOOL TodoWrite {"todos":[{"content":"Write tests","status":"in_progress","activeForm":"Writing tests"}]}"#);
    let result = d.until_type("result");
    assert_eq!(result["permission_denials"], json!([]));
    assert!(d.seen.iter().all(|v| v["type"] != "control_request"));
    d.finish();
}

/// Plays a tiny in-process MCP server `calc` on the host side of the control channel.
fn answer_mcp(d: &mut Dcl, req: &Value) {
    let id = req["request_id"].as_str().unwrap().to_string();
    let msg = &req["request"]["message"];
    let rpc_id = msg.get("id").cloned();
    let result = match msg["method"].as_str().unwrap_or("") {
        "initialize" => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "calc", "version": "1.0.0"}})
        }
        "tools/list" => {
            json!({"tools": [{"name": "add", "description": "Add two numbers", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}]})
        }
        "tools/call" => {
            let args = &msg["params"]["arguments"];
            let sum = args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap();
            json!({"content": [{"type": "text", "text": format!("{sum}")}], "isError": false})
        }
        _ => json!({}),
    };
    let mut response = json!({"jsonrpc": "2.0", "result": result});
    if let Some(i) = rpc_id {
        response["id"] = i;
    }
    d.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{"mcp_response": response}}}));
}

#[test]
fn a_host_provided_mcp_tool_is_called_through_mcp_message() {
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--mcp-config",
                r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#,
                "--allowedTools",
                "mcp__calc__add",
            ],
        ]
        .concat(),
    );
    d.control("init", json!({"subtype": "initialize"}));
    d.user(r#"FAKE_TOOL mcp__calc__add {"a":2,"b":3}"#);
    let mut calls = Vec::new();
    let result = loop {
        let v = d.next(20).expect("stdout closed");
        if v["type"] == "control_request" && v["request"]["subtype"] == "mcp_message" {
            assert_eq!(v["request"]["server_name"], "calc");
            calls.push(
                v["request"]["message"]["method"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
            answer_mcp(&mut d, &v);
        } else if v["type"] == "result" {
            break v;
        }
    };
    assert_eq!(
        &calls[..3],
        &["initialize", "notifications/initialized", "tools/list"]
    );
    assert!(calls.contains(&"tools/call".to_string()));
    assert_eq!(result["result"], "Done. The tool result had 1 chars.");
    let init = d
        .of_type("system")
        .into_iter()
        .find(|v| v["subtype"] == "init")
        .unwrap()
        .clone();
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "mcp__calc__add")
    );
    assert_eq!(init["mcp_servers"][0]["name"], "calc");
    assert_eq!(init["mcp_servers"][0]["status"], "connected");
    d.control("st", json!({"subtype": "mcp_status"}));
    let st = d.response_to("st");
    assert_eq!(
        st["response"]["response"]["mcpServers"][0]["status"],
        "connected"
    );
    assert_eq!(
        st["response"]["response"]["servers"][0]["tools"][0]["name"],
        "add"
    );
    d.finish();
}

#[test]
fn a_dead_mcp_server_is_reported_not_fatal() {
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--mcp-config",
                r#"{"mcpServers":{"gone":{"command":"/nonexistent/mcp-server"}}}"#,
            ],
        ]
        .concat(),
    );
    d.user("say hi");
    let result = d.until_type("result");
    assert_eq!(result["result"], "Hello from the fake model.");
    let init = d
        .of_type("system")
        .into_iter()
        .find(|v| v["subtype"] == "init")
        .unwrap()
        .clone();
    assert_eq!(init["mcp_servers"][0]["status"], "failed");
    d.control(
        "t",
        json!({"subtype": "mcp_toggle", "serverName": "gone", "enabled": false}),
    );
    assert_eq!(d.response_to("t")["response"]["subtype"], "success");
    d.control("st", json!({"subtype": "mcp_status"}));
    assert_eq!(
        d.response_to("st")["response"]["response"]["mcpServers"][0]["status"],
        "disabled"
    );
    d.finish();
}

#[test]
fn memory_files_reach_the_model_and_context_usage() {
    let mut d = Dcl::start(STREAM);
    std::fs::write(d.cwd().join("DCL.md"), "Always answer in haiku.").unwrap();
    d.finish();
    // A new session in the same directory reads the file at start.
    let cwd = d.cwd();
    let mut d2 = Dcl::start(&[STREAM, &["--cwd", cwd.to_str().unwrap()]].concat());
    d2.control("c", json!({"subtype": "get_context_usage"}));
    let r = d2.response_to("c")["response"]["response"].clone();
    let files = r["memoryFiles"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{r}");
    assert!(files[0]["path"].as_str().unwrap().ends_with("DCL.md"));
    let mem = r["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "memory_files")
        .unwrap()
        .clone();
    assert!(mem["tokens"].as_u64().unwrap() > 0);
    d2.finish();
}

#[test]
fn a_pre_tool_use_stop_ends_the_turn_before_the_tool_runs() {
    let mut d = Dcl::start(&[STREAM, &["--permission-mode", "bypassPermissions"]].concat());
    init_with(
        &mut d,
        json!({"hooks": {"PreToolUse": [{"hookCallbackIds": ["hook_0"]}]}}),
    );
    d.user("please FAKE_TOUCH");
    let (_, result) = serve_hooks(&mut d, |_| json!({"continue": false, "stopReason": "halt"}));
    assert_eq!(result["terminal_reason"], "hook_stopped");
    assert!(!d.cwd().join("made.txt").exists());
    d.finish();
}

#[test]
fn update_queued_message_rewrites_a_waiting_prompt() {
    let mut d = Dcl::start(&[STREAM, &["--include-partial-messages"]].concat());
    d.user("FAKE_SLOW please");
    d.until(|v| v["type"] == "stream_event" && v["event"]["type"] == "content_block_delta");
    // Queued behind the slow turn, then rewritten before it starts.
    d.send(json!({"type":"user","uuid":"q1","message":{"role":"user","content":"FAKE_TOUCH"}}));
    d.control(
        "u",
        json!({"subtype": "update_queued_message", "message_uuid": "q1", "content": "say hi"}),
    );
    let r = d.response_to("u");
    assert_eq!(r["response"]["subtype"], "success", "{r}");
    assert_eq!(r["response"]["response"]["outcome"], "updated");
    // Twin: a uuid nobody queued is not_queued, and nothing changes.
    d.control(
        "u2",
        json!({"subtype": "update_queued_message", "message_uuid": "nope", "content": "x"}),
    );
    assert_eq!(
        d.response_to("u2")["response"]["response"]["outcome"],
        "not_queued"
    );
    d.until_type("result");
    let second = d.until_type("result");
    assert_eq!(second["result"], "Hello from the fake model.", "{second}");
    assert!(!d.cwd().join("made.txt").exists());
    d.finish();
}

#[test]
fn list_permission_rules_names_each_rules_source() {
    let settings =
        json!({"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./secret)"]}}).to_string();
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--settings",
                &settings,
                "--allowedTools",
                "Bash(git status)",
            ],
        ]
        .concat(),
    );
    d.control("l", json!({"subtype": "list_permission_rules"}));
    let r = d.response_to("l");
    assert_eq!(r["response"]["subtype"], "success", "{r}");
    let state = &r["response"]["response"]["state"];
    let rules = state["rules"].as_array().unwrap();
    let find = |rule: &str| {
        rules
            .iter()
            .find(|e| e["rule"] == rule)
            .unwrap_or_else(|| panic!("{rule}: {rules:?}"))
    };
    assert_eq!(find("Bash(ls:*)")["source"], "flagSettings");
    assert_eq!(find("Bash(ls:*)")["behavior"], "allow");
    assert_eq!(find("Read(./secret)")["behavior"], "deny");
    assert_eq!(find("Bash(git status)")["source"], "cliArg");
    assert_eq!(state["originalCwd"], json!(d.cwd().display().to_string()));
    assert_eq!(state["managedOnly"], false);
    d.finish();
}

#[test]
fn newer_sdk_requests_dcl_cannot_honour_answer_named_errors() {
    let mut d = Dcl::start(STREAM);
    for (id, req, needle) in [
        (
            "c",
            json!({"subtype": "set_cwd", "path": "/tmp"}),
            "set_cwd is not supported by dcl",
        ),
        (
            "s",
            json!({"subtype": "get_status"}),
            "get_status is not supported by dcl",
        ),
        (
            "e",
            json!({"subtype": "export_conversation"}),
            "export_conversation is not supported by dcl",
        ),
        (
            "r",
            json!({"subtype": "register_repo_root", "directory": ".", "reload_claude_md": true}),
            "reload_claude_md is not supported by dcl",
        ),
    ] {
        d.control(id, req);
        let r = d.response_to(id);
        assert_eq!(r["response"]["subtype"], "error", "{r}");
        assert!(
            r["response"]["error"].as_str().unwrap().contains(needle),
            "{r}"
        );
    }
    // Twin: a plain register_repo_root is acted on.
    std::fs::create_dir_all(d.cwd().join("other")).unwrap();
    d.control(
        "ok",
        json!({"subtype": "register_repo_root", "directory": "other"}),
    );
    assert_eq!(d.response_to("ok")["response"]["subtype"], "success");
    d.control("l", json!({"subtype": "list_permission_rules"}));
    let r = d.response_to("l");
    let dirs = r["response"]["response"]["state"]["workspaceDirectories"].to_string();
    assert!(dirs.contains("other") && dirs.contains("session"), "{dirs}");
    d.finish();
}

#[test]
fn get_hooks_listing_lists_settings_and_callback_hooks_by_event() {
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo checked", "timeout": 5}]}]}})
    .to_string();
    let mut d = Dcl::start(&[STREAM, &["--settings", &settings]].concat());
    init_with(
        &mut d,
        json!({"hooks": {"Stop": [{"hookCallbackIds": ["hook_7"]}],
                         "Setup": [{"hookCallbackIds": ["hook_8"]}]}}),
    );
    d.control("h", json!({"subtype": "get_hooks_listing"}));
    let r = d.response_to("h");
    assert_eq!(r["response"]["subtype"], "success", "{r}");
    let listing = &r["response"]["response"];
    let hooks = listing["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{hooks:?}");
    // The SDK's lifecycle order: PreToolUse, Stop, Setup.
    assert_eq!(hooks[0]["event"], "PreToolUse");
    assert_eq!(hooks[0]["matcher"], "Bash");
    assert_eq!(hooks[0]["source"], "flagSettings");
    assert_eq!(hooks[0]["type"], "command");
    assert_eq!(hooks[0]["commandText"], "echo checked");
    assert_eq!(hooks[0]["timeout"], 5);
    assert_eq!(hooks[1]["event"], "Stop");
    assert_eq!(hooks[1]["source"], "sessionHook");
    assert_eq!(hooks[1]["commandText"], "hook_7");
    let events = listing["events"].as_array().unwrap();
    let setup = events.iter().find(|e| e["name"] == "Setup").unwrap();
    assert!(
        setup["summary"].as_str().unwrap().contains("never fires"),
        "{setup}"
    );
    assert_eq!(listing["eventCatalog"].as_array().unwrap().len(), 35);
    assert_eq!(listing["policy"]["allDisabled"], false);
    d.finish();
}

/// One turn calling `mcp__a__b__add` on a host server named `a__b`, under bypassPermissions;
/// returns (whether the host saw a tools/call, the result, the tools system/init listed).
fn call_on_server_named_a_b(extra: &[&str]) -> (bool, Value, Vec<Value>) {
    let mut d = Dcl::start(
        &[
            STREAM,
            &[
                "--mcp-config",
                r#"{"mcpServers":{"a__b":{"type":"sdk","name":"a__b"}}}"#,
                "--permission-mode",
                "bypassPermissions",
            ],
            extra,
        ]
        .concat(),
    );
    d.control("init", json!({"subtype": "initialize"}));
    d.user(r#"FAKE_TOOL mcp__a__b__add {"a":2,"b":3}"#);
    let mut called = false;
    let result = loop {
        let v = d.next(20).expect("stdout closed");
        if v["type"] == "control_request" && v["request"]["subtype"] == "mcp_message" {
            called |= v["request"]["message"]["method"] == "tools/call";
            answer_mcp(&mut d, &v);
        } else if v["type"] == "result" {
            break v;
        }
    };
    let tools = d
        .of_type("system")
        .into_iter()
        .find(|v| v["subtype"] == "init")
        .and_then(|v| v["tools"].as_array().cloned())
        .unwrap_or_default();
    d.finish();
    (called, result, tools)
}

#[test]
fn a_deny_rule_on_a_server_whose_name_holds_the_separator_holds_under_bypass() {
    let (called, result, tools) = call_on_server_named_a_b(&["--disallowedTools", "mcp__a__b"]);
    assert!(!called, "the denied server's tool ran: {result}");
    assert!(!tools.iter().any(|t| t == "mcp__a__b__add"), "{tools:?}");
    // Twin: without the rule, bypassPermissions runs it.
    let (called, result, tools) = call_on_server_named_a_b(&[]);
    assert!(called, "{result}");
    assert!(tools.iter().any(|t| t == "mcp__a__b__add"), "{tools:?}");
    assert_eq!(result["result"], "Done. The tool result had 1 chars.");
}
