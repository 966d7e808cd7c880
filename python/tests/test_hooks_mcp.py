"""Hooks (hook_callback) and in-process MCP tools (mcp_message) through dcl's core."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import dcl
from conftest import init_data, of_type, opts, tool_results



async def test_blocking_pre_tool_use_hook(workdir: Path) -> None:
    calls: List[Dict[str, Any]] = []

    async def guard(input: Dict[str, Any], tool_use_id: Optional[str], context: dcl.HookContext) -> Dict[str, Any]:
        calls.append({"input": input, "tool_use_id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "writes are blocked by the guard",
            }
        }

    seen_by_post: List[str] = []

    def after(input: Dict[str, Any], tool_use_id: Optional[str], context: dcl.HookContext) -> Dict[str, Any]:
        seen_by_post.append(input.get("tool_name", ""))
        return {}

    options = opts(
        workdir,
        permission_mode="bypassPermissions",
        hooks={
            "PreToolUse": [dcl.HookMatcher(matcher="Write", hooks=[guard], timeout=10)],
            "PostToolUse": [dcl.HookMatcher(matcher=None, hooks=[after])],
        },
    )
    messages = [m async for m in dcl.query(prompt="FAKE_WRITE blocked.txt", options=options)]
    assert not (workdir / "blocked.txt").exists()
    assert len(calls) == 1
    assert calls[0]["input"]["hook_event_name"] == "PreToolUse"
    assert calls[0]["input"]["tool_name"] == "Write"
    assert calls[0]["input"]["tool_input"]["file_path"] == "blocked.txt"
    block = tool_results(messages)[0]
    assert block.is_error and "writes are blocked by the guard" in str(block.content)
    assert seen_by_post == []  # the tool never ran


async def test_hook_continue_false_stops_the_turn(workdir: Path) -> None:
    async def stop(input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        return {"continue_": False, "stopReason": "enough"}

    options = opts(
        workdir,
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [dcl.HookMatcher(hooks=[stop])]},
    )
    messages: List[Any] = []
    try:
        async for m in dcl.query(prompt="FAKE_WRITE x.txt", options=options):
            messages.append(m)
    except dcl.ResultError:
        pass
    assert of_type(messages, dcl.ResultMessage)[-1].terminal_reason == "hook_stopped"


def calc_server() -> Any:
    calls: List[Dict[str, Any]] = []

    @dcl.tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: Dict[str, Any]) -> Dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    @dcl.tool("fail", "Always fails", {"type": "object", "properties": {}})
    def fail(args: Dict[str, Any]) -> Dict[str, Any]:  # a sync tool
        raise RuntimeError("tool failed on purpose")

    return dcl.create_sdk_mcp_server("calc", "1.0.0", [add, fail]), calls


async def test_in_process_mcp_tool_called_by_the_model(workdir: Path) -> None:
    server, calls = calc_server()
    options = opts(workdir, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    messages = [
        m async for m in dcl.query(prompt='FAKE_TOOL mcp__calc__add {"a":1,"b":2}', options=options)
    ]
    assert calls == [{"a": 1, "b": 2}]
    block = tool_results(messages)[0]
    assert not block.is_error
    assert "3" in str(block.content)
    init = init_data(messages)
    assert "mcp__calc__add" in init["tools"]
    assert any(s.get("name") == "calc" for s in init["mcp_servers"])


async def test_in_process_mcp_tool_error_and_permission(workdir: Path) -> None:
    server, _ = calc_server()
    asked: List[str] = []

    async def approve(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        asked.append(tool)
        return dcl.PermissionResultAllow()

    options = opts(workdir, mcp_servers={"calc": server}, can_use_tool=approve)
    messages = [m async for m in dcl.query(prompt="FAKE_TOOL mcp__calc__fail {}", options=options)]
    assert asked == ["mcp__calc__fail"]
    block = tool_results(messages)[0]
    assert block.is_error and "tool failed on purpose" in str(block.content)
