"""Issue 2: dcl driven through both PyPI SDKs' public API (``[claude]`` =
``claude-agent-sdk``, ``[qoder]`` = ``qoder-agent-sdk``).

  a. one-shot ``query()``            b. multi-turn client
  c. ``can_use_tool`` allow (Write)  d. ``can_use_tool`` deny (Write)
  e. ``interrupt()`` of a slow turn, then a further turn on the same client

The Qoder SDK requires ``auth``: a dummy personal access token is used (the SDK writes it to
a one-shot payload file named by ``QODER_SDK_AUTH_PAYLOAD_FILE``; dcl reads and deletes it)
and sets ``QODER_AGENT_SDK_ENTRYPOINT=sdk-py``, which selects dcl's Qoder dialect.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path
from typing import Any

import claude_agent_sdk
import qoder_agent_sdk
from conftest import DONE_RE, HELLO, bundled_cli_files, collect, within
from sdks import Sdk, inits, one_shot, results, sdk, text_of  # noqa: F401  (sdk is a fixture)


def assistant_texts(sdk: Sdk, msgs: list[Any]) -> list[str]:
    """Joined text of each AssistantMessage that has text blocks."""
    return [t for m in msgs if isinstance(m, sdk.AssistantMessage) and (t := text_of(sdk, m))]


async def response(client: Any, what: str) -> list[Any]:
    return await within(collect(client.receive_response()), what)


def test_no_bundled_cli() -> None:
    """The sdist installs carry no CLI, so only dcl can be what runs."""
    # The pins (tests/sdk-latest.sh points DCL_SDK_REQUIREMENTS at the newest releases).
    pins = dict(
        line.split("==", 1)
        for line in Path(
            os.environ.get("DCL_SDK_REQUIREMENTS") or Path(__file__).with_name("requirements.txt")
        ).read_text().split()
        if "==" in line
    )
    assert claude_agent_sdk.__version__ == pins["claude-agent-sdk"]
    assert qoder_agent_sdk.__version__ == pins["qoder-agent-sdk"]
    found = bundled_cli_files("claude_agent_sdk", ("claude", "claude.exe"))
    found += bundled_cli_files(
        "qoder_agent_sdk", ("qodercli", "qodercli.exe", "qoder", "qoder.exe")
    )
    assert not found, f"a bundled CLI is installed: {found}"


# a. one-shot query ---------------------------------------------------------


async def test_a_one_shot_query(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    msgs = await one_shot(sdk, "say hi", sdk.options(dcl_bin, workdir), "query()")
    res = results(sdk, msgs)
    assert len(res) == 1, f"expected one ResultMessage, got {msgs!r}"
    r = res[0]
    assert r.subtype == "success" and r.is_error is False, r
    assert r.result == HELLO
    assert r.session_id, "result.session_id is empty"
    assert HELLO in assistant_texts(sdk, msgs), f"no AssistantMessage with {HELLO!r}: {msgs!r}"
    init = inits(sdk, msgs)
    assert init, "no system/init message"
    assert init[0].data.get("session_id") == r.session_id
    for m in msgs:
        if isinstance(m, sdk.AssistantMessage) and m.session_id is not None:
            assert m.session_id == r.session_id


# b. multi-turn client ------------------------------------------------------


async def test_b_multi_turn_client(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    async with sdk.client(sdk.options(dcl_bin, workdir)) as client:
        await client.query("say hi")
        first = await response(client, "first result")
        await client.query("say hi again")
        second = await response(client, "second result")

    r1, r2 = results(sdk, first), results(sdk, second)
    assert len(r1) == 1 and len(r2) == 1, (first, second)
    for r in (r1[0], r2[0]):
        assert r.subtype == "success" and not r.is_error, r
        assert r.result == HELLO
    assert r1[0].session_id and r1[0].session_id == r2[0].session_id
    assert HELLO in assistant_texts(sdk, first) and HELLO in assistant_texts(sdk, second)


# c. / d. can_use_tool ------------------------------------------------------


async def run_write_with_permission(
    sdk: Sdk, dcl_bin: str, workdir: Path, allow: bool
) -> tuple[list[Any], list[tuple[str, dict[str, Any], Any]], Path]:
    target = workdir / "hello.txt"
    calls: list[tuple[str, dict[str, Any], Any]] = []

    async def can_use_tool(tool_name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        calls.append((tool_name, dict(tool_input), ctx))
        if allow:
            return sdk.PermissionResultAllow(updated_input=tool_input)
        return sdk.PermissionResultDeny(message="denied by the conformance test")

    opts = sdk.options(dcl_bin, workdir, can_use_tool=can_use_tool, permission_mode="default")
    msgs = await one_shot(sdk, f"please FAKE_WRITE {target}", opts, "query() with can_use_tool")
    return msgs, calls, target


async def test_c_can_use_tool_allow(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    msgs, calls, target = await run_write_with_permission(sdk, dcl_bin, workdir, allow=True)
    assert len(calls) == 1, f"can_use_tool calls: {calls!r}"
    name, tool_input, ctx = calls[0]
    assert name == "Write"
    assert tool_input.get("file_path") == str(target), tool_input
    assert ctx.tool_use_id, "can_use_tool request carried no tool_use_id"
    assert target.is_file(), "Write was allowed but the file does not exist"
    assert target.read_text() == "hello\n"
    res = results(sdk, msgs)
    assert len(res) == 1, msgs
    r = res[0]
    assert r.subtype == "success" and not r.is_error, r
    assert not r.permission_denials, r.permission_denials
    assert r.result and re.match(DONE_RE, r.result), r.result


async def test_d_can_use_tool_deny(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    msgs, calls, target = await run_write_with_permission(sdk, dcl_bin, workdir, allow=False)
    assert [c[0] for c in calls] == ["Write"], f"can_use_tool calls: {calls!r}"
    assert not target.exists(), "Write was denied but the file exists"
    res = results(sdk, msgs)
    assert len(res) == 1, msgs
    denials = res[0].permission_denials
    assert denials is not None and len(denials) == 1, f"permission_denials: {denials!r}"
    assert denials[0]["tool_name"] == "Write", denials[0]
    assert denials[0].get("tool_use_id") == calls[0][2].tool_use_id, denials[0]


# e. interrupt --------------------------------------------------------------


async def test_e_interrupt(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    opts = sdk.options(dcl_bin, workdir, include_partial_messages=True)
    async with sdk.client(opts) as client:
        first_output = asyncio.Event()
        slow: list[Any] = []

        async def consume() -> None:
            async for m in client.receive_response():
                slow.append(m)
                if isinstance(m, (sdk.StreamEvent, sdk.AssistantMessage)):
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

        res = results(sdk, slow)
        assert len(res) == 1, slow
        assert res[0].subtype == "error_during_execution", res[0]
        assert res[0].is_error is True, res[0]
        # The slow turn streams for ~4 s: a result well before that proves the interrupt
        # stopped it rather than the turn running out.
        assert elapsed < 3.0, f"result came {elapsed:.1f}s after interrupt()"

        await client.query("say hi")
        after = await response(client, "the result after the interrupt")
        r = results(sdk, after)
        assert len(r) == 1 and r[0].subtype == "success" and r[0].result == HELLO, after
        assert r[0].session_id == res[0].session_id
