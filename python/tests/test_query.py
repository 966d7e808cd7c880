"""dcl.query / dcl.query_sync: one-shot and streamed prompts, errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List

import pytest

import dcl
from conftest import MOCK, init_data, of_type, opts, text_of


async def collect(prompt: Any, options: Any) -> List[Any]:
    return [m async for m in dcl.query(prompt=prompt, options=options)]


async def test_one_shot(workdir: Path) -> None:
    messages = await collect("hello", opts(workdir))
    assert isinstance(messages[0], dcl.SystemMessage) and messages[0].subtype == "init"
    assert init_data(messages)["cwd"] == str(workdir)
    assert init_data(messages)["model"] == MOCK
    assert text_of(messages) == "Hello from the fake model."
    result = messages[-1]
    assert isinstance(result, dcl.ResultMessage)
    assert result.subtype == "success" and not result.is_error
    assert result.result == "Hello from the fake model."
    assert result.num_turns == 1 and result.session_id == init_data(messages)["session_id"]
    assert result.usage and result.usage["input_tokens"] > 0


async def test_streamed_prompts_are_one_multi_turn_session(workdir: Path) -> None:
    async def prompts() -> AsyncIterator[Dict[str, Any]]:
        yield {"type": "user", "message": {"role": "user", "content": "hello"}}
        yield {"type": "user", "message": {"role": "user", "content": "please FAKE_BASH"}}

    messages = await collect(prompts(), opts(workdir))
    results = of_type(messages, dcl.ResultMessage)
    assert len(results) == 2
    assert results[0].result == "Hello from the fake model."
    assert results[1].num_turns == 2  # Bash round trip
    assert len({r.session_id for r in results}) == 1


async def test_mapping_options_with_camel_case_aliases(workdir: Path) -> None:
    messages = await collect(
        "hello",
        {"model": MOCK, "cwd": str(workdir), "permissionMode": "plan", "disallowedTools": ["Bash"]},
    )
    init = init_data(messages)
    assert init["permissionMode"] == "plan"
    assert "Bash" not in init["tools"]


def test_query_sync_returns_every_message(workdir: Path) -> None:
    messages = dcl.query_sync(prompt="hello", options=opts(workdir))
    assert isinstance(messages[-1], dcl.ResultMessage)
    assert text_of(messages) == "Hello from the fake model."


async def test_query_sync_inside_a_running_loop(workdir: Path) -> None:
    messages = dcl.query_sync(
        prompt=[{"type": "user", "message": {"role": "user", "content": "hello"}}], options=opts(workdir)
    )
    assert of_type(messages, dcl.ResultMessage)[0].result == "Hello from the fake model."


async def test_api_error_raises_result_error_after_the_result(workdir: Path) -> None:
    seen: List[Any] = []
    with pytest.raises(dcl.ResultError) as info:
        async for m in dcl.query(prompt="FAKE_ERR400", options=opts(workdir)):
            seen.append(m)
    result = of_type(seen, dcl.ResultMessage)[-1]
    assert result.is_error
    err = info.value
    assert isinstance(err, dcl.ProcessError) and isinstance(err, dcl.DclError)
    assert err.api_error_status == 400
    assert err.session_id == result.session_id
    assert "fake: prompt is invalid" in str(err)


async def test_max_turns_error_result(workdir: Path) -> None:
    with pytest.raises(dcl.ResultError) as info:
        await collect("please FAKE_BASH", opts(workdir, max_turns=1))
    assert info.value.subtype == "error_max_turns"


async def test_invalid_options_raise_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(dcl.InvalidOptionsError) as info:
        await collect("hello", dcl.Options(model=MOCK, cwd=str(tmp_path / "missing")))
    assert "does not exist" in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, dcl.CLIConnectionError)
    with pytest.raises(dcl.InvalidOptionsError):
        await collect("hello", dcl.Options(model=MOCK, permission_mode="sideways"))
    with pytest.raises(TypeError):
        dcl.Options.from_any({"modle": MOCK})
    with pytest.raises(ValueError):
        await collect(
            "hello",
            dcl.Options(model=MOCK, can_use_tool=lambda *a: None, permission_prompt_tool_name="mcp__x__y"),
        )


def test_raw_session_bad_line_raises_value_error_and_keeps_serving(workdir: Path) -> None:
    session = dcl.open(json.dumps({"model": MOCK, "cwd": str(workdir), "legacyEvents": False}))
    with pytest.raises(ValueError) as info:
        session.send("{not json")
    assert isinstance(info.value, dcl.BadInputError)
    session.send(json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}))
    session.end_input()
    lines = []
    while True:
        line = session.recv_blocking(10)
        if line is None:
            break
        lines.append(json.loads(line))
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "Hello from the fake model."
    assert all(m["session_id"] == session.session_id for m in lines)
    with pytest.raises(dcl.SessionClosedError):
        session.send(json.dumps({"type": "user", "message": {"role": "user", "content": "again"}}))


def test_raw_session_recv_blocking_timeout(workdir: Path) -> None:
    session = dcl.Session.open(json.dumps({"model": MOCK, "cwd": str(workdir)}))
    with pytest.raises(TimeoutError):
        session.recv_blocking(0.2)
    with pytest.raises(ValueError):
        session.recv_blocking(-1)
    session.close()
    assert session.recv_blocking(5) is None


async def test_raw_session_recv_is_awaitable_and_cancel_safe(workdir: Path) -> None:
    session = dcl.open(json.dumps({"model": MOCK, "cwd": str(workdir), "legacyEvents": False}))
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(session.recv(), 0.2)  # cancelled: no line may be lost
    session.send(json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}))
    session.end_input()
    kinds = []
    while (line := await session.recv()) is not None:
        kinds.append(json.loads(line)["type"])
    assert kinds == ["system", "assistant", "result"]
