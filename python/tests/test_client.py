"""dcl.Client: multi-turn, interrupt, partial messages, live settings, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

import pytest

import dcl
from conftest import MOCK, init_data, of_type, opts, text_of


async def turn(client: dcl.Client, prompt: str) -> List[Any]:
    await client.query(prompt)
    return [m async for m in client.receive_response()]


async def test_multi_turn_keeps_one_session(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        first = await turn(client, "hello")
        second = await turn(client, "please FAKE_BASH")
        assert text_of(first) == "Hello from the fake model."
        assert "I'll run it." in text_of(second)
        r1, r2 = first[-1], second[-1]
        assert isinstance(r1, dcl.ResultMessage) and isinstance(r2, dcl.ResultMessage)
        assert r1.session_id == r2.session_id == client.session_id
        info = await client.get_server_info()
        assert info is not None and "models" in info


async def test_connect_with_prompt_and_disconnect(workdir: Path) -> None:
    client = dcl.Client(opts(workdir))
    await client.connect("hello")
    messages = [m async for m in client.receive_response()]
    assert text_of(messages) == "Hello from the fake model."
    await client.disconnect()
    with pytest.raises(dcl.CLIConnectionError):
        await client.query("again")


async def test_not_connected() -> None:
    client = dcl.Client(dcl.Options(model=MOCK))
    with pytest.raises(dcl.CLIConnectionError, match="Not connected"):
        await client.query("hello")
    with pytest.raises(dcl.CLIConnectionError):
        await client.interrupt()


async def test_interrupt_ends_the_turn_with_an_error_result(workdir: Path) -> None:
    async with dcl.Client(opts(workdir, include_partial_messages=True)) as client:
        await client.query("FAKE_SLOW")
        messages: List[Any] = []
        interrupted = False
        async for m in client.receive_response():
            messages.append(m)
            if isinstance(m, dcl.StreamEvent) and m.event.get("type") == "content_block_delta" and not interrupted:
                interrupted = True
                answer = await client.interrupt()
                assert answer.get("still_queued") == []
        result = messages[-1]
        assert isinstance(result, dcl.ResultMessage)
        assert result.is_error and result.subtype == "error_during_execution"
        assert result.terminal_reason in ("aborted_streaming", "aborted_tools")
        words = "".join(
            m.event["delta"].get("text", "")
            for m in of_type(messages, dcl.StreamEvent)
            if m.event.get("type") == "content_block_delta"
        )
        assert "w39" not in words  # stopped long before the end of the slow stream
        # the session goes on after an interrupt (the mock still sees the interrupted
        # prompt in its history, so it streams again: interrupt that one too)
        await client.query("hello")
        await client.interrupt()
        after = [m async for m in client.receive_response()]
        assert isinstance(after[-1], dcl.ResultMessage)


async def test_partial_messages_stream_text_deltas(workdir: Path) -> None:
    async with dcl.Client(opts(workdir, include_partial_messages=True)) as client:
        messages = await turn(client, "hello")
    events = of_type(messages, dcl.StreamEvent)
    kinds = [e.event.get("type") for e in events]
    assert kinds[0] == "message_start" and "message_stop" in kinds
    deltas = "".join(
        e.event["delta"]["text"] for e in events if e.event.get("type") == "content_block_delta"
    )
    assert deltas == "Hello from the fake model."
    assert all(e.session_id == messages[-1].session_id and e.uuid for e in events)
    # the complete assistant message still comes
    assert text_of(messages) == "Hello from the fake model."


async def test_no_partial_messages_by_default(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        messages = await turn(client, "hello")
    assert not of_type(messages, dcl.StreamEvent)


async def test_live_settings(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        assert (await client.set_permission_mode("plan")).get("mode") == "plan"
        messages = await turn(client, "FAKE_WRITE plan.txt")
        assert init_data(messages)["permissionMode"] == "plan"
        assert not (workdir / "plan.txt").exists()
        assert (await client.set_model("mock-model-2")).get("model") == "mock-model-2"
        messages = await turn(client, "hello")
        assert init_data(messages)["model"] == "mock-model-2"
        status = await client.mcp_status()
        assert isinstance(status.get("mcpServers"), list)
        assert (await client.get_mcp_status()) == status
        with pytest.raises(dcl.ControlRequestError):
            await client.set_permission_mode("sideways")


async def test_unimplemented_control_requests_raise_control_request_error(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        for call in (client.get_context_usage(), client.rewind_files("00000000-0000-0000-0000-000000000000")):
            try:
                answer = await call
            except dcl.ControlRequestError as e:
                assert str(e)
            else:
                assert isinstance(answer, dict)


async def test_error_result_in_a_client_is_a_message_not_an_exception(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        messages = await turn(client, "FAKE_ERR400")
        assert messages[-1].is_error and messages[-1].api_error_status == 400
        # the session keeps serving (the mock still sees FAKE_ERR400 in its history)
        assert isinstance((await turn(client, "hello"))[-1], dcl.ResultMessage)
