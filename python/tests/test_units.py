"""Pure-Python parts: the in-process MCP server's JSON-RPC, option mapping, wire forms."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path
from typing import Any, Dict, TypedDict

import pytest

import dcl
from dcl._host import HostSession, hook_output_wire, permission_wire
from dcl.options import session_options


async def test_mcp_server_json_rpc() -> None:
    @dcl.tool("add", "Add", {"a": int, "b": int})
    async def add(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    class Echo(TypedDict):
        text: str

    @dcl.tool("echo", "Echo", Echo)
    def echo(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"content": [{"type": "text", "text": args["text"]}], "is_error": False}

    config = dcl.create_sdk_mcp_server("calc", "2.0.0", [add, echo])
    assert config["type"] == "sdk" and config["name"] == "calc"
    server = config["instance"]
    init = await server.handle(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    )
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert init["result"]["serverInfo"] == {"name": "calc", "version": "2.0.0"}
    assert await server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    tools = (await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))["result"]["tools"]
    assert [t["name"] for t in tools] == ["add", "echo"]
    assert tools[0]["inputSchema"] == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }
    assert tools[1]["inputSchema"]["required"] == ["text"]

    async def call(name: str, args: Any) -> Dict[str, Any]:
        reply = await server.handle(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": args}}
        )
        assert reply["id"] == 2
        return reply["result"]

    assert await call("add", {"a": 1, "b": 2}) == {"content": [{"type": "text", "text": "3"}], "isError": False}
    assert (await call("echo", {"text": "hi"}))["content"][0]["text"] == "hi"
    bad = await call("add", {"a": "x"})
    assert bad["isError"] and "validation" in bad["content"][0]["text"]
    assert (await call("nope", {}))["isError"]
    unknown = await server.handle({"jsonrpc": "2.0", "id": 3, "method": "resources/list"})
    assert unknown["error"]["code"] == -32601
    assert (await server.handle({"jsonrpc": "2.0", "id": 4, "method": "ping"}))["result"] == {}


def test_session_options_carry_every_cli_option(tmp_path: Path) -> None:
    async def approve(*_: Any) -> Any:
        return dcl.PermissionResultAllow()

    server = dcl.create_sdk_mcp_server("calc", tools=[])
    options = dcl.Options(
        model="m1",
        fallback_model="m2",
        cwd=str(tmp_path),
        permission_mode="acceptEdits",
        allowed_tools=["Read"],
        disallowed_tools=["Write"],
        tools=["Read", "Bash"],
        system_prompt={"type": "preset", "preset": "claude_code", "append": "extra"},
        max_turns=3,
        max_budget_usd=1.5,
        effort="high",
        thinking={"type": "enabled", "budget_tokens": 1000},
        can_use_tool=approve,
        mcp_servers={"calc": server, "ext": {"type": "stdio", "command": "srv", "args": ["-x"]}},
        strict_mcp_config=True,
        include_partial_messages=True,
        env={"FOO": "bar", "HOME": None},
        add_dirs=[str(tmp_path / "extra")],
        extra_args={"replay-user-messages": None, "debug-to-stderr": None, "host-timeout": "9"},
        session_id="7b2d41d6-1a1e-4a2e-9d0a-53b1b1e3b0f5",
        settings='{"a": 1}',
        setting_sources=["user", "project"],
        output_format={"type": "json_schema", "schema": {"type": "object"}},
        skills=["s1"],
        enable_file_checkpointing=True,
    )
    o = session_options(options)
    assert o["model"] == "m1" and o["fallbackModel"] == "m2"
    assert o["cwd"] == str(tmp_path) and o["env"]["PWD"] == str(tmp_path)
    assert o["env"]["FOO"] == "bar" and "HOME" not in o["env"]
    assert o["env"]["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"] == "true"
    assert o["permissionMode"] == "acceptEdits" and o["permissionPromptTool"] == "stdio"
    assert o["allowedTools"] == ["Read", "Skill(s1)"] and o["disallowedTools"] == ["Write"]
    assert o["tools"] == ["Read", "Bash"]
    assert "systemPrompt" not in o and o["appendSystemPrompt"] == "extra"
    assert o["maxTurns"] == 3 and o["maxBudgetUsd"] == 1.5 and o["effort"] == "high"
    assert o["maxThinkingTokens"] == 1000
    assert json.loads(o["mcpConfig"][0]) == {"mcpServers": {"ext": {"type": "stdio", "command": "srv", "args": ["-x"]}}}
    in_config = session_options(options, sdk_servers_in_mcp_config=True)
    assert json.loads(in_config["mcpConfig"][0])["mcpServers"]["calc"] == {"type": "sdk", "name": "calc"}
    assert o["strictMcpConfig"] is True and o["includePartialMessages"] is True
    assert o["addDirs"] == [str(tmp_path / "extra")]
    assert o["replayUserMessages"] is True and o["hostTimeoutSecs"] == 9.0
    assert o["ignoredFlags"] == ["--debug-to-stderr"]
    assert o["sessionId"] == "7b2d41d6-1a1e-4a2e-9d0a-53b1b1e3b0f5"
    assert o["settings"] == '{"a": 1}' and o["settingSources"] == ["user", "project"]
    assert o["jsonSchema"] == {"type": "object"}
    assert o["legacyEvents"] is False and o["outputFormat"] == "stream-json"

    minimal = session_options(dcl.Options())
    assert minimal["systemPrompt"] == "" and set(minimal) == {"outputFormat", "legacyEvents", "env", "systemPrompt"}
    assert minimal["env"] == dict(os.environ)


def test_qoder_and_camel_case_aliases() -> None:
    o = dcl.Options.from_any(
        {"planMode": True, "additionalDirectories": ["/x"], "maxTurns": 2, "allowedTools": ["Read"]}
    )
    assert o.plan_mode and o.add_dirs == ["/x"] and o.max_turns == 2 and o.allowed_tools == ["Read"]
    assert session_options(o)["permissionMode"] == "plan"
    skip = session_options(dcl.Options(allow_dangerously_skip_permissions=True))
    assert skip["permissionMode"] == "bypassPermissions"
    assert dcl.Options.from_any(None, model="x").model == "x"
    assert dcl.Options.from_any({"cli_path": "/bin/claude", "model": "x"}).model == "x"


def test_options_from_claude_agent_options() -> None:
    sdk = pytest.importorskip("claude_agent_sdk")
    o = dcl.Options.from_any(
        sdk.ClaudeAgentOptions(model="mock-model", max_turns=2, cli_path="/nowhere", permission_mode="plan")
    )
    assert (o.model, o.max_turns, o.permission_mode) == ("mock-model", 2, "plan")


def test_permission_and_hook_wire_forms() -> None:
    allow = permission_wire(dcl.PermissionResultAllow(), {"a": 1})
    assert allow == {"behavior": "allow", "updatedInput": {"a": 1}}
    rule = dcl.PermissionUpdate(type="addRules", rules=[dcl.PermissionRuleValue("Bash", "ls:*")], behavior="allow")
    allow = permission_wire(dcl.PermissionResultAllow(updated_input={"b": 2}, updated_permissions=[rule]), {"a": 1})
    assert allow["updatedInput"] == {"b": 2}
    assert allow["updatedPermissions"] == [
        {"type": "addRules", "destination": "session", "rules": [{"toolName": "Bash", "ruleContent": "ls:*"}], "behavior": "allow"}
    ]
    deny = permission_wire(dcl.PermissionResultDeny(message="no", interrupt=True), {})
    assert deny == {"behavior": "deny", "message": "no", "interrupt": True}
    assert permission_wire({"behavior": "allow"}, {"a": 1})["updatedInput"] == {"a": 1}
    with pytest.raises(TypeError):
        permission_wire(True, {})
    assert hook_output_wire({"continue_": False, "async_": True, "reason": "r"}) == {
        "continue": False,
        "async": True,
        "reason": "r",
    }
    assert hook_output_wire(None) == {}
    assert dcl.PermissionUpdate.from_dict(rule.to_dict()) == dcl.PermissionUpdate(
        type="addRules", rules=[dcl.PermissionRuleValue("Bash", "ls:*")], behavior="allow", destination="session"
    )


def test_parse_message_errors() -> None:
    with pytest.raises(dcl.MessageParseError):
        dcl.parse_message({"type": "assistant", "message": {"content": "not a list", "model": "m"}})
    with pytest.raises(dcl.MessageParseError):
        dcl.parse_message({"no": "type"})
    assert dcl.parse_message({"type": "keep_alive"}) is None
    assert dcl.parse_message({"type": "tool_start", "name": "x"}) is None


def test_plugins_persist_session_and_agent_options(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    opts = dcl.Options(cwd=str(tmp_path), plugins=[{"type": "local", "path": "kit"}], persist_session=False)
    out = session_options(opts)
    assert out["pluginDirs"] == [str(kit)]
    assert out["persistSession"] is False
    # Twins: the defaults add neither key.
    plain = session_options(dcl.Options(cwd=str(tmp_path)))
    assert "pluginDirs" not in plain and "persistSession" not in plain
    with pytest.raises(ValueError, match="plugins"):
        session_options(dcl.Options(plugins=[{"type": "marketplace", "name": "x"}]))
    # camelCase names from a mapping reach the same fields.
    o = dcl.Options.from_any({"forwardSubagentText": True, "persistSession": False, "agent": "reviewer"})
    assert o.forward_subagent_text and o.persist_session is False and o.agent == "reviewer"


def test_session_store_urls_are_acted_on_and_foreign_stores_are_said_not_to_be() -> None:
    import warnings

    from dcl.options import session_options

    out = session_options(dcl.Options(model="m", session_store="redis://127.0.0.1:6379/0"))
    assert out["sessionStore"] == "redis://127.0.0.1:6379/0"

    class Store:
        dcl_url = "postgres://u@h/db"

    assert session_options(dcl.Options(model="m", session_store=Store()))["sessionStore"] == "postgres://u@h/db"
    assert dcl.Options.from_any({"sessionStore": "file:/tmp/s"}).session_store == "file:/tmp/s"

    class SdkStore:  # an SDK adapter dcl cannot drain to
        async def append(self, key: object, entries: object) -> None: ...

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session_options(dcl.Options(model="m", session_store=SdkStore()))
    assert "sessionStore" not in out
    assert "session_store" in out["ignoredFlags"]
    assert any("does not act on a SdkStore" in str(w.message) for w in caught)


async def test_queued_messages_wait_as_text_and_results_count_when_they_arrive(caplog: pytest.LogCaptureFixture) -> None:
    host = HostSession(dcl.Options())
    host._message('{"type":"assistant","message":{"role":"assistant","content":[]}}')
    host._message("not JSON")
    # Holds the token "result" without being one: parsed early, neither counted nor lost.
    host._message('{"type":"user","message":{"role":"user","content":"the \\"result\\" of it"}}')
    host._message('["an array"]')
    assert host.results == 0
    # Nothing read yet: a message that is not the result waits as text, which the cyclic
    # GC does not track (thousands of sessions mid-turn hold no dicts for it to walk).
    items = list(host._queue._items or [])
    assert isinstance(items[0], str) and not gc.is_tracked(items[0])

    host._message('{"type":"result","subtype":"error_during_execution","is_error":true}')
    assert host.results == 1
    assert host.last_error_result is not None and host.last_error_result["is_error"] is True

    got = [await host.next_message() for _ in range(3)]
    assert [m["type"] for m in got if m] == ["assistant", "user", "result"]
    assert got[1] is not None and got[1]["message"]["content"] == 'the "result" of it'
    assert "not JSON" in caplog.text
    assert "not a JSON object" in caplog.text and "an array" in caplog.text
