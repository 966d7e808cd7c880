"""The Rust host (``dcl._native.Host``) under the package: correlation, timeouts and
cancellation, MCP JSON-RPC, awaited control calls, and what an idle session costs in
descriptors."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import dcl
from dcl import _native
from dcl._host import new_key, next_events, pull
from conftest import MOCK, in_process_only, opts, tool_results


def host_options(workdir: Path, **extra: Any) -> str:
    return json.dumps({"model": MOCK, "cwd": str(workdir), "persistSession": False, **extra})


def user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}})


async def until(host: Any, key: int, want: str) -> List[Tuple[str, str, str]]:
    """Events up to and including the first of kind ``want`` (a ``result`` message for
    ``"result"``)."""
    seen: List[Tuple[str, str, str]] = []
    while True:
        # One at a time: what follows the event looked for stays queued for the next call.
        events = await asyncio.wait_for(next_events(host, key, 1), 30)
        assert events, f"the session ended; saw {seen}"
        for event in events:
            seen.append(event)
            rid, kind, payload = event
            if kind == want or (want == "result" and kind == "message" and json.loads(payload)["type"] == "result"):
                return seen


async def initialized(host: Any, key: int, spec: Dict[str, Any]) -> Dict[str, Any]:
    call = host.initialize(json.dumps(spec))
    assert call.id.startswith("req_")
    how, payload = await asyncio.wait_for(pull(call, new_key(), call.take), 30)
    assert how == "ok", payload
    assert call.take() is None, "an outcome is taken once"
    answer: Dict[str, Any] = json.loads(payload)
    return answer


async def test_can_use_tool_is_correlated_by_the_host(workdir: Path) -> None:
    host = _native.Host(host_options(workdir, permissionPromptTool="stdio"))
    await initialized(host, 101, {})
    host.send(user("FAKE_WRITE notes.txt"))
    rid, kind, payload = (await until(host, 101, "can_use_tool"))[-1]
    request = json.loads(payload)
    assert request["tool_name"] == "Write" and rid
    host.respond(rid, json.dumps({"behavior": "allow", "updatedInput": request["input"]}))
    with pytest.raises(KeyError):  # answered already: a clean error, nothing sent
        host.respond(rid, "{}")
    await until(host, 101, "result")
    assert (workdir / "notes.txt").read_text() == "hello\n"
    assert host.pending_callbacks() == 0
    host.close()


async def test_a_callback_that_never_answers_times_out_with_a_cancel(workdir: Path) -> None:
    host = _native.Host(host_options(workdir, permissionPromptTool="stdio"), 0.3)
    await initialized(host, 102, {})
    host.send(user("FAKE_WRITE never.txt"))
    rid = (await until(host, 102, "can_use_tool"))[-1][0]
    cancel = (await until(host, 102, "cancel"))[-1]
    assert cancel[0] == rid and json.loads(cancel[2])["reason"] == "timeout"
    with pytest.raises(KeyError):
        host.respond(rid, json.dumps({"behavior": "allow"}))
    await until(host, 102, "result")
    assert not (workdir / "never.txt").exists()
    host.close()


async def test_a_stuck_callback_is_cancelled_when_dcl_withdraws_it(workdir: Path) -> None:
    cancelled = asyncio.Event()

    async def stuck(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        try:
            await asyncio.Event().wait()  # never answers
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("unreachable")

    options = opts(workdir, can_use_tool=stuck, host_timeout=0.5)
    messages = [m async for m in dcl.query(prompt="FAKE_WRITE stuck.txt", options=options)]
    assert cancelled.is_set()
    assert tool_results(messages)[0].is_error
    assert not (workdir / "stuck.txt").exists()


async def test_mcp_json_rpc_is_answered_by_the_host(workdir: Path) -> None:
    calls: List[Dict[str, Any]] = []

    @dcl.tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: Dict[str, Any]) -> Dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}

    server = dcl.create_sdk_mcp_server("calc", "1.0.0", [add])
    options = opts(workdir, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    async with dcl.Client(options) as client:
        await client.query('FAKE_TOOL mcp__calc__add {"a": 20, "b": 22}')
        good = [m async for m in client.receive_response()]
        # Arguments that do not fit the schema are refused in Rust: the function never runs.
        await client.query('FAKE_TOOL mcp__calc__add {"a": "twenty"}')
        bad = [m async for m in client.receive_response()]
        status = await client.mcp_status()
    assert calls == [{"a": 20, "b": 22}]
    assert "sum=42" in str(tool_results(good)[0].content) and not tool_results(good)[0].is_error
    assert tool_results(bad)[0].is_error and "validation" in str(tool_results(bad)[0].content)
    assert any(s.get("name") == "calc" for s in status["mcpServers"])


async def test_awaited_control_calls_resolve_concurrently(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        usage, status, mode, model = await asyncio.gather(
            client.get_context_usage(),
            client.mcp_status(),
            client.set_permission_mode("acceptEdits"),
            client.set_model(MOCK),
        )
        assert isinstance(usage, dict) and "mcpServers" in status
        assert isinstance(mode, dict) and isinstance(model, dict)
        with pytest.raises(dcl.ControlRequestError):
            await client.rewind_files("no-such-message")


def _fds() -> Dict[str, int]:
    kinds: Dict[str, int] = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        kind = target.split(":")[0] if ":" in target else "file"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


IDLE = int(os.environ.get("DCL_TEST_IDLE_SESSIONS", "2000"))


async def _open_idle(workdir: Path, n: int) -> Tuple[Dict[str, int], Dict[str, int], List[dcl.Client]]:
    warm = dcl.Client(opts(workdir))
    await warm.connect()  # the runtime, its threads and the loop's waker exist from here
    before = _fds()
    clients = []
    for _ in range(n):
        client = dcl.Client(opts(workdir))
        await client.connect()
        clients.append(client)
    after = _fds()
    clients.append(warm)
    return before, after, clients


@in_process_only
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
async def test_idle_sessions_add_no_host_descriptor(workdir: Path) -> None:
    before, after, clients = await _open_idle(workdir, IDLE)
    try:
        grown = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
        # The host and its wake-up add nothing per session: no socket, eventfd or file.
        assert sum(v for k, v in grown.items() if k != "pipe") < 10, grown
        # What remains is the engine's containment scope (dcl_sandbox::Scope, a pipe pair
        # made in ShellState::new): two per session, and nothing else.
        assert grown.get("pipe", 0) <= 2 * IDLE + 4, grown
    finally:
        for client in clients:
            await client.disconnect()


@in_process_only
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
async def test_idle_sessions_cost_no_descriptor(workdir: Path) -> None:
    before, after, clients = await _open_idle(workdir, IDLE)
    try:
        assert sum(after.values()) - sum(before.values()) < IDLE // 10
    finally:
        for client in clients:
            await client.disconnect()


async def test_sessions_after_their_turns_hold_no_task(workdir: Path) -> None:
    # The loop's waker routes each session's events: no reader task waits per session. A
    # task's wait made during the turns is what an idle session kept, which kept pymalloc's
    # arenas of the burst (BENCHMARKS.md, "No pending read per session").
    n = 40
    clients = [dcl.Client(opts(workdir)) for _ in range(n)]
    for client in clients:
        await client.connect()

    async def turn(client: dcl.Client) -> int:
        await client.query("hello")
        return sum([isinstance(m, dcl.ResultMessage) async for m in client.receive_response()])

    try:
        before = len(asyncio.all_tasks())
        for _ in range(2):
            assert await asyncio.wait_for(asyncio.gather(*(turn(c) for c in clients)), 60) == [1] * n
        await asyncio.sleep(0)  # the gathered tasks are done
        assert len(asyncio.all_tasks()) <= before, [t.get_coro() for t in asyncio.all_tasks()]
        assert before < n, "an open session holds no task"
    finally:
        for client in clients:
            await client.disconnect()


async def test_a_claude_agent_sdk_server_answers_its_own_json_rpc(workdir: Path) -> None:
    sdk = pytest.importorskip("claude_agent_sdk")

    @sdk.tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}

    server = sdk.create_sdk_mcp_server("calc", "1.0.0", [add])
    options = opts(workdir, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    messages = [m async for m in dcl.query(prompt='FAKE_TOOL mcp__calc__add {"a": 2, "b": 5}', options=options)]
    block = tool_results(messages)[0]
    assert not block.is_error and "sum=7" in str(block.content)


async def test_a_refused_call_and_a_call_after_close_say_so(workdir: Path) -> None:
    host = _native.Host(host_options(workdir))
    await initialized(host, 103, {})
    call = host.call(json.dumps({"subtype": "rewind_files", "user_message_id": "nope"}))
    how, message = await asyncio.wait_for(pull(call, new_key(), call.take), 30)
    assert how == "refused" and message, (how, message)
    host.close()
    # After the end, a call is refused at once rather than left waiting.
    with pytest.raises(dcl.DclError):
        host.call(json.dumps({"subtype": "mcp_status"}))


def test_no_request_id_bookkeeping_in_the_package() -> None:
    """Correlation lives in the Rust host: no table keyed by request id, no ids minted here."""
    import re

    src = Path(dcl.__file__).parent
    offenders = []
    for f in sorted(src.glob("*.py")):
        text = f.read_text()
        if re.search(r"_pending\b|request_id\"\s*:\s*(rid|id)\b|f\"req_", text):
            offenders.append(f.name)
    assert offenders == []
