"""Sessions that last, in-process: dcl.list_sessions / dcl.get_session_messages read the
transcripts dcl writes, and resume / continue_conversation / fork_session go on from them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import pytest

import dcl
from conftest import MOCK, of_type


async def collect(prompt: str, **kw: Any) -> List[Any]:
    return [m async for m in dcl.query(prompt=prompt, options=dcl.Options(model=MOCK, **kw))]


def result_of(messages: List[Any]) -> dcl.ResultMessage:
    return of_type(messages, dcl.ResultMessage)[-1]


async def test_sessions_are_listed_read_resumed_forked_and_continued(workdir: Path) -> None:
    cwd = str(workdir)
    env = dict(os.environ)
    first = result_of(await collect("remember the word blue", cwd=cwd))
    sid = first.session_id

    listed = dcl.list_sessions(cwd, env=env)
    assert [s["session_id"] for s in listed] == [sid]
    assert listed[0]["summary"] == "remember the word blue"
    assert listed[0]["cwd"] == cwd
    messages = dcl.get_session_messages(sid, cwd, env=env)
    assert [m["type"] for m in messages] == ["user", "assistant"]
    # The prompt is kept as the host sent it: a string (docs/protocol.md "transcript user entries").
    assert messages[0]["message"]["content"] == "remember the word blue"
    assert dcl.get_session_messages("0e0e0e0e-1111-4222-8333-444455556666", cwd, env=env) == []

    fresh = result_of(await collect("what was the word?", cwd=cwd, extra_args={"no-session-persistence": None}))
    resumed = result_of(await collect("what was the word?", cwd=cwd, resume=sid))
    assert resumed.session_id == sid
    # The history reached the model again.
    assert resumed.usage["input_tokens"] > fresh.usage["input_tokens"]
    assert len(dcl.get_session_messages(sid, cwd, env=env)) == 4

    forked = result_of(await collect("branch off", cwd=cwd, resume=sid, fork_session=True))
    assert forked.session_id != sid
    assert len(dcl.get_session_messages(forked.session_id, cwd, env=env)) == 6
    assert len(dcl.get_session_messages(sid, cwd, env=env)) == 4

    continued = result_of(await collect("and now?", cwd=cwd, continue_conversation=True))
    assert continued.session_id == forked.session_id
    assert {s["session_id"] for s in dcl.list_sessions(env=env)} == {sid, forked.session_id}


async def test_resuming_a_missing_session_is_an_error_result(workdir: Path) -> None:
    missing = "0e0e0e0e-1111-4222-8333-444455556666"
    messages: List[Any] = []
    with pytest.raises(dcl.ResultError) as raised:
        async for m in dcl.query(prompt="hi", options=dcl.Options(model=MOCK, cwd=str(workdir), resume=missing)):
            messages.append(m)
    result = result_of(messages)
    assert result.is_error
    assert f"No conversation found with session ID: {missing}" in str(result)
    # The TS SDK's startup failure reason, on the yielded result and on the raised error.
    assert result.startup_failure_reason == "resume_target_not_found"
    assert raised.value.startup_failure_reason == "resume_target_not_found"
    assert f"No conversation found with session ID: {missing}" in str(raised.value)


async def test_a_session_that_started_has_no_startup_failure_reason(workdir: Path) -> None:
    messages: List[Any] = []
    with pytest.raises(dcl.ResultError) as raised:
        async for m in dcl.query(prompt="FAKE_ERR400", options=dcl.Options(model=MOCK, cwd=str(workdir))):
            messages.append(m)
    assert result_of(messages).is_error
    assert result_of(messages).startup_failure_reason is None
    assert raised.value.startup_failure_reason is None