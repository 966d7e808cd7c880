"""Issue 3: hooks, SDK MCP tools, partial messages, runtime control, context
usage and structured output, through the public API of both PyPI SDKs.

Every scenario runs once per SDK (``[claude]`` = ``claude-agent-sdk``,
``[qoder]`` = ``qoder-agent-sdk``); where an SDK lacks a feature the case is
skipped with the reason, never dropped.

  f. PreToolUse hook denies Bash         g. PreToolUse hook rewrites Write input
  h. SDK MCP tool call (+ mcp_status)    i. include_partial_messages stream events
  j. set_model / set_permission_mode     k. get_context_usage
  l. structured output (output_format)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import DONE_RE, HELLO, within
from sdks import Sdk, inits, one_shot, only_result, sdk, text_of, turn  # noqa: F401  (sdk is a fixture)

TOUCH_COMMAND = "touch made.txt && echo made"  # what the mock runs for FAKE_TOUCH


def pre_tool_use(**fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


# f. a PreToolUse hook blocks a tool ----------------------------------------


async def test_f_hook_denies_bash(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    seen: list[tuple[dict[str, Any], str | None]] = []

    async def deny_bash(hook_input: Any, tool_use_id: str | None, ctx: Any) -> Any:
        seen.append((dict(hook_input), tool_use_id))
        return pre_tool_use(
            permissionDecision="deny", permissionDecisionReason="blocked by the conformance hook"
        )

    opts = sdk.options(
        dcl_bin,
        workdir,
        permission_mode="bypassPermissions",  # only the hook can stop the command
        hooks={"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[deny_bash])]},
    )
    msgs = await one_shot(sdk, "please FAKE_TOUCH", opts, "query() with a denying hook")

    assert len(seen) == 1, f"hook calls: {seen!r}"
    hook_input, hook_tool_use_id = seen[0]
    assert hook_input.get("hook_event_name") == "PreToolUse", hook_input
    assert hook_input.get("tool_name") == "Bash", hook_input
    assert hook_input.get("tool_input", {}).get("command") == TOUCH_COMMAND, hook_input
    assert hook_tool_use_id and hook_input.get("tool_use_id") == hook_tool_use_id, seen[0]

    assert not (workdir / "made.txt").exists(), "the hook denied Bash but made.txt exists"
    r = only_result(sdk, msgs)
    assert r.subtype == "success", r
    denials = r.permission_denials
    assert denials and len(denials) == 1, f"permission_denials: {denials!r}"
    assert denials[0]["tool_name"] == "Bash", denials[0]
    assert denials[0].get("tool_use_id") == hook_tool_use_id, denials[0]
    assert denials[0].get("tool_input", {}).get("command") == TOUCH_COMMAND, denials[0]


# g. a PreToolUse hook rewrites the input -----------------------------------


async def test_g_hook_rewrites_write_input(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    target = workdir / "hello.txt"
    rewritten = "rewritten by the conformance hook\n"
    seen: list[dict[str, Any]] = []
    asked: list[str] = []

    async def rewrite(hook_input: Any, tool_use_id: str | None, ctx: Any) -> Any:
        seen.append(dict(hook_input))
        return pre_tool_use(
            permissionDecision="allow",
            updatedInput={**hook_input["tool_input"], "content": rewritten},
        )

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        asked.append(name)
        return sdk.PermissionResultAllow(updated_input=tool_input)

    opts = sdk.options(
        dcl_bin,
        workdir,
        permission_mode="default",
        can_use_tool=can_use_tool,
        hooks={"PreToolUse": [sdk.HookMatcher(matcher="Write", hooks=[rewrite])]},
    )
    async with sdk.client(opts) as client:  # can_use_tool needs streaming mode
        msgs = await turn(client, f"please FAKE_WRITE {target}", "the Write turn")

    assert [s.get("tool_name") for s in seen] == ["Write"], seen
    assert seen[0]["tool_input"] == {"file_path": str(target), "content": "hello\n"}, seen[0]
    assert target.is_file(), "Write did not run"
    assert target.read_text() == rewritten, "the hook's updatedInput was not used"
    assert asked == [], f"the hook allowed Write, yet can_use_tool was asked: {asked!r}"
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and not r.permission_denials, r
    assert r.result and re.match(DONE_RE, r.result), r.result


# h. a host-defined (SDK) MCP tool ------------------------------------------


def calc_server(sdk: Sdk, calls: list[dict[str, Any]]) -> Any:
    @sdk.tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(dict(args))
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    return sdk.create_sdk_mcp_server("calc", version="1.0.0", tools=[add])


async def test_h1_sdk_mcp_tool_call(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    calls: list[dict[str, Any]] = []
    opts = sdk.options(
        dcl_bin,
        workdir,
        mcp_servers={"calc": calc_server(sdk, calls)},
        allowed_tools=["mcp__calc__add"],
    )
    async with sdk.client(opts) as client:
        msgs = await turn(client, 'FAKE_TOOL mcp__calc__add {"a":2,"b":3}', "the MCP tool turn")

    assert calls == [{"a": 2, "b": 3}], f"tool handler calls: {calls!r}; messages: {msgs!r}"
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and not r.is_error, r
    assert not r.permission_denials, r.permission_denials
    assert r.result == "Done. The tool result had 1 chars.", r.result  # "5"


async def test_h2_sdk_mcp_status_connected(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    opts = sdk.options(dcl_bin, workdir, mcp_servers={"calc": calc_server(sdk, [])})
    async with sdk.client(opts) as client:
        status = await within(client.get_mcp_status(), "get_mcp_status()")
    servers = {s.get("name"): s for s in status.get("mcpServers", [])}
    assert "calc" in servers, f"mcp_status: {status!r}"
    assert servers["calc"].get("status") == "connected", servers["calc"]
    tools = [t.get("name") for t in servers["calc"].get("tools") or []]
    assert "add" in tools, servers["calc"]


# i. partial messages -------------------------------------------------------


async def test_i_partial_messages(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    opts = sdk.options(dcl_bin, workdir, include_partial_messages=True)
    msgs = await one_shot(sdk, "say hi", opts, "query() with partial messages")

    first_assistant = next(
        (i for i, m in enumerate(msgs) if isinstance(m, sdk.AssistantMessage)), None
    )
    assert first_assistant is not None, f"no AssistantMessage: {msgs!r}"
    before = [m for m in msgs[:first_assistant] if isinstance(m, sdk.StreamEvent)]
    kinds = [e.event.get("type") for e in before]
    assert "message_start" in kinds, f"stream events before the AssistantMessage: {kinds}"
    deltas = [
        e.event["delta"]
        for e in before
        if e.event.get("type") == "content_block_delta"
        and e.event.get("delta", {}).get("type") == "text_delta"
    ]
    assert deltas, f"no content_block_delta before the AssistantMessage: {kinds}"
    assert kinds.index("message_start") < kinds.index("content_block_delta"), kinds
    assert "".join(d["text"] for d in deltas) == HELLO == text_of(sdk, msgs[first_assistant])
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and r.result == HELLO, r
    for e in (m for m in msgs if isinstance(m, sdk.StreamEvent)):
        assert e.session_id == r.session_id and e.uuid, e


# j. set_model / set_permission_mode ----------------------------------------


async def test_j1_set_model(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    async with sdk.client(sdk.options(dcl_bin, workdir)) as client:
        first = await turn(client, "say hi", "the first turn")
        await within(client.set_model("mock-other"), "set_model()")
        second = await turn(client, "say hi", "the turn after set_model")

    assert [m.data.get("model") for m in inits(sdk, first)][-1:] == ["mock-model"], first
    init2 = inits(sdk, second)
    assert init2, f"no system/init in the turn after set_model: {second!r}"
    assert init2[-1].data.get("model") == "mock-other", init2[-1].data
    models = [m.model for m in second if isinstance(m, sdk.AssistantMessage)]
    assert models and set(models) == {"mock-other"}, models
    r = only_result(sdk, second)
    assert r.subtype == "success" and r.result == HELLO, r


async def test_j2_set_permission_mode(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    made = workdir / "made.txt"
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        asked.append((name, dict(tool_input)))
        # Allows: whatever stops the command in plan mode is plan mode itself.
        return sdk.PermissionResultAllow(updated_input=tool_input)

    opts = sdk.options(dcl_bin, workdir, permission_mode="default", can_use_tool=can_use_tool)
    async with sdk.client(opts) as client:
        await within(client.set_permission_mode("bypassPermissions"), "set_permission_mode()")
        bypass = await turn(client, "please FAKE_TOUCH", "the bypassPermissions turn")
        bypass_asked = list(asked)
        bypass_made = made.exists()
        made.unlink(missing_ok=True)

        await within(client.set_permission_mode("plan"), "set_permission_mode('plan')")
        plan = await turn(client, "please FAKE_TOUCH", "the plan-mode turn")

    assert [m.data.get("permissionMode") for m in inits(sdk, bypass)][-1:] == [
        "bypassPermissions"
    ], inits(sdk, bypass)
    assert bypass_asked == [], f"bypassPermissions, yet can_use_tool was asked: {bypass_asked!r}"
    assert bypass_made, "bypassPermissions: made.txt was not created"
    r1 = only_result(sdk, bypass)
    assert r1.subtype == "success" and not r1.permission_denials, r1

    assert [m.data.get("permissionMode") for m in inits(sdk, plan)][-1:] == ["plan"], inits(
        sdk, plan
    )
    assert not made.exists(), "plan mode ran the command (made.txt exists)"
    r2 = only_result(sdk, plan)
    denials = r2.permission_denials
    assert denials and [d["tool_name"] for d in denials] == ["Bash"], f"denials: {denials!r}"


# k. get_context_usage ------------------------------------------------------


def check_claude_context_usage(usage: dict[str, Any]) -> int:
    cats = usage.get("categories")
    assert isinstance(cats, list) and cats, f"no categories: {usage!r}"
    for c in cats:
        assert isinstance(c.get("name"), str) and isinstance(c.get("tokens"), int), c
    assert usage.get("model") == "mock-model", usage
    assert isinstance(usage.get("maxTokens"), int) and usage["maxTokens"] > 0, usage
    total = usage.get("totalTokens")
    assert isinstance(total, int) and total > 0, usage
    return total


QODER_CATEGORY_TYPES = {
    "system_prompt", "system_tools", "skills", "messages", "other", "free_space", "auto_compact",
}


def check_qoder_context_usage(usage: dict[str, Any]) -> tuple[float, int]:
    """qoder_agent_sdk.ContextUsageResponse: percentages, not token counts."""
    cats = usage.get("categories")
    assert isinstance(cats, list) and cats, f"no categories: {usage!r}"
    for c in cats:
        assert c.get("type") in QODER_CATEGORY_TYPES, f"category {c!r} in {usage!r}"
        assert isinstance(c.get("percentage"), (int, float)), c
    assert usage.get("model") == "mock-model", usage
    used = (usage.get("contextWindow") or {}).get("usedPercentage")
    assert isinstance(used, (int, float)), f"no contextWindow.usedPercentage: {usage!r}"
    session = usage.get("session") or {}
    assert isinstance(session.get("promptCount"), int), f"no session.promptCount: {usage!r}"
    return used, session["promptCount"]


async def test_k_get_context_usage(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    async with sdk.client(sdk.options(dcl_bin, workdir)) as client:
        before = await within(client.get_context_usage(), "get_context_usage() before a turn")
        await turn(client, "say hi", "a turn")
        after = await within(client.get_context_usage(), "get_context_usage() after a turn")

    if sdk.name == "claude":
        t0, t1 = check_claude_context_usage(before), check_claude_context_usage(after)
        assert t1 > t0, f"totalTokens did not grow after a turn: {t0} -> {t1}"
    else:
        (u0, p0), (u1, p1) = check_qoder_context_usage(before), check_qoder_context_usage(after)
        assert u1 > u0, f"contextWindow.usedPercentage did not grow after a turn: {u0} -> {u1}"
        assert p1 == p0 + 1, f"session.promptCount: {p0} -> {p1}"


# l. structured output ------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "ok": {"type": "boolean"},
        "color": {"type": "string", "enum": ["red", "green"]},
    },
    "required": ["name", "count", "ok", "color"],
    "additionalProperties": False,
}
# The mock's example instance of SCHEMA.
SCHEMA_EXAMPLE = {"name": "example", "count": 1, "ok": True, "color": "red"}


async def test_l_structured_output(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    if sdk.name == "qoder":
        pytest.skip(
            "qoder-agent-sdk 1.0.16 has no structured output: QoderAgentOptions has no "
            "output_format and ResultMessage drops structured_output (an InitVar)"
        )
    opts = sdk.options(
        dcl_bin, workdir, output_format={"type": "json_schema", "schema": SCHEMA}
    )
    msgs = await one_shot(sdk, "answer as JSON", opts, "query() with output_format")
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and not r.is_error, r
    assert r.structured_output == SCHEMA_EXAMPLE, r.structured_output
