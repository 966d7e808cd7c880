"""dcl driven through PyPI ``claude-agent-sdk`` (public API only).

Scenarios (same in every conformance file):
  a. one-shot ``query()``            b. multi-turn ``ClaudeSDKClient``
  c. ``can_use_tool`` allow (Write)  d. ``can_use_tool`` deny (Write)
  e. ``interrupt()`` of a slow turn, then a further turn on the same client
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import claude_agent_sdk
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    query,
)
from conftest import DONE_RE, HELLO, bundled_cli_files, collect, within


def options(dcl_bin: str, cwd: Path, **kw: Any) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(cli_path=dcl_bin, model="mock-model", cwd=str(cwd), **kw)


def results(msgs: list[Any]) -> list[ResultMessage]:
    return [m for m in msgs if isinstance(m, ResultMessage)]


def assistant_texts(msgs: list[Any]) -> list[str]:
    """Joined text of each AssistantMessage that has text blocks."""
    out = []
    for m in msgs:
        if isinstance(m, AssistantMessage):
            text = "".join(b.text for b in m.content if isinstance(b, TextBlock))
            if text:
                out.append(text)
    return out


async def response(client: ClaudeSDKClient, what: str) -> list[Any]:
    return await within(collect(client.receive_response()), what)


def test_no_bundled_cli() -> None:
    """The sdist install carries no CLI, so only dcl can be what runs."""
    assert claude_agent_sdk.__version__ == "0.2.189"
    found = bundled_cli_files("claude_agent_sdk", ("claude", "claude.exe"))
    assert not found, f"a bundled CLI is installed: {found}"


# a. one-shot query ---------------------------------------------------------


async def test_a_one_shot_query(dcl_bin: str, workdir: Path) -> None:
    msgs = await within(
        collect(query(prompt="say hi", options=options(dcl_bin, workdir))), "query()"
    )
    res = results(msgs)
    assert len(res) == 1, f"expected one ResultMessage, got {msgs!r}"
    r = res[0]
    assert r.subtype == "success" and r.is_error is False, r
    assert r.result == HELLO
    assert r.session_id, "result.session_id is empty"
    assert HELLO in assistant_texts(msgs), f"no AssistantMessage with {HELLO!r}: {msgs!r}"
    inits = [m for m in msgs if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert inits, "no system/init message"
    assert inits[0].data.get("session_id") == r.session_id
    for m in msgs:
        if isinstance(m, AssistantMessage) and m.session_id is not None:
            assert m.session_id == r.session_id


# b. multi-turn client ------------------------------------------------------


async def test_b_multi_turn_client(dcl_bin: str, workdir: Path) -> None:
    async with ClaudeSDKClient(options=options(dcl_bin, workdir)) as client:
        await client.query("say hi")
        first = await response(client, "first result")
        await client.query("say hi again")
        second = await response(client, "second result")

    r1, r2 = results(first), results(second)
    assert len(r1) == 1 and len(r2) == 1, (first, second)
    for r in (r1[0], r2[0]):
        assert r.subtype == "success" and not r.is_error, r
        assert r.result == HELLO
    assert r1[0].session_id and r1[0].session_id == r2[0].session_id
    assert HELLO in assistant_texts(first) and HELLO in assistant_texts(second)


# c. / d. can_use_tool ------------------------------------------------------


async def run_write_with_permission(
    dcl_bin: str, workdir: Path, allow: bool
) -> tuple[list[Any], list[tuple[str, dict[str, Any], ToolPermissionContext]], Path]:
    target = workdir / "hello.txt"
    calls: list[tuple[str, dict[str, Any], ToolPermissionContext]] = []

    async def can_use_tool(
        tool_name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        calls.append((tool_name, dict(tool_input), ctx))
        if allow:
            return PermissionResultAllow(updated_input=tool_input)
        return PermissionResultDeny(message="denied by the conformance test")

    opts = options(dcl_bin, workdir, can_use_tool=can_use_tool, permission_mode="default")
    msgs = await within(
        collect(query(prompt=f"please FAKE_WRITE {target}", options=opts)),
        "query() with can_use_tool",
    )
    return msgs, calls, target


async def test_c_can_use_tool_allow(dcl_bin: str, workdir: Path) -> None:
    msgs, calls, target = await run_write_with_permission(dcl_bin, workdir, allow=True)
    assert len(calls) == 1, f"can_use_tool calls: {calls!r}"
    name, tool_input, ctx = calls[0]
    assert name == "Write"
    assert tool_input.get("file_path") == str(target), tool_input
    assert ctx.tool_use_id, "can_use_tool request carried no tool_use_id"
    assert target.is_file(), "Write was allowed but the file does not exist"
    assert target.read_text() == "hello\n"
    res = results(msgs)
    assert len(res) == 1, msgs
    r = res[0]
    assert r.subtype == "success" and not r.is_error, r
    assert not r.permission_denials, r.permission_denials
    assert r.result and re.match(DONE_RE, r.result), r.result


async def test_d_can_use_tool_deny(dcl_bin: str, workdir: Path) -> None:
    msgs, calls, target = await run_write_with_permission(dcl_bin, workdir, allow=False)
    assert [c[0] for c in calls] == ["Write"], f"can_use_tool calls: {calls!r}"
    assert not target.exists(), "Write was denied but the file exists"
    res = results(msgs)
    assert len(res) == 1, msgs
    denials = res[0].permission_denials
    assert denials is not None and len(denials) == 1, f"permission_denials: {denials!r}"
    assert denials[0]["tool_name"] == "Write", denials[0]
    assert denials[0].get("tool_use_id") == calls[0][2].tool_use_id, denials[0]


# e. interrupt --------------------------------------------------------------


async def test_e_interrupt(dcl_bin: str, workdir: Path) -> None:
    opts = options(dcl_bin, workdir, include_partial_messages=True)
    async with ClaudeSDKClient(options=opts) as client:
        first_output = asyncio.Event()
        slow: list[Any] = []

        async def consume() -> None:
            async for m in client.receive_response():
                slow.append(m)
                if isinstance(m, (StreamEvent, AssistantMessage)):
                    first_output.set()

        await client.query("FAKE_SLOW please")
        reader = asyncio.create_task(consume())
        try:
            await asyncio.wait_for(first_output.wait(), 2.0)
        except asyncio.TimeoutError:
            pass  # no streamed output yet: interrupt anyway
        assert not reader.done(), f"the slow turn ended before the interrupt: {slow!r}"
        interrupted_at = time.monotonic()
        await within(client.interrupt(), "the interrupt control response", 15)
        await within(reader, "the interrupted turn's result", 15)
        elapsed = time.monotonic() - interrupted_at

        res = results(slow)
        assert len(res) == 1, slow
        assert res[0].subtype == "error_during_execution", res[0]
        assert res[0].is_error is True, res[0]
        assert elapsed < 3.0, f"result came {elapsed:.1f}s after interrupt()"

        await client.query("say hi")
        after = await response(client, "the result after the interrupt")
        r = results(after)
        assert len(r) == 1 and r[0].subtype == "success" and r[0].result == HELLO, after
        assert r[0].session_id == res[0].session_id
