"""Sessions through the unmodified SDKs: dcl's transcripts are what the SDKs' own session
helpers list and read, ``resume`` brings the history back, and claude-agent-sdk's
``SessionStore`` receives a session through ``--session-mirror`` and resumes it from the
store on an empty HOME."""

from __future__ import annotations

from pathlib import Path

import claude_agent_sdk
from sdks import Sdk, one_shot, only_result, sdk  # noqa: F401 - sdk is a fixture


async def test_sdk_helpers_list_read_and_resume_dcl_sessions(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    first = only_result(sdk, await one_shot(sdk, "remember the word blue", sdk.options(dcl_bin, workdir), "first"))
    sid = first.session_id
    listed = [s.session_id for s in sdk.mod.list_sessions(directory=str(workdir))]
    assert listed == [sid]
    messages = sdk.mod.get_session_messages(sid, directory=str(workdir))
    assert [m.type for m in messages] == ["user", "assistant"]

    fresh = only_result(
        sdk,
        await one_shot(sdk, "what was the word?", sdk.options(dcl_bin, workdir, extra_args={"no-session-persistence": None}), "fresh"),
    )
    resumed = only_result(
        sdk, await one_shot(sdk, "what was the word?", sdk.options(dcl_bin, workdir, resume=sid), "resume")
    )
    assert resumed.session_id == sid
    assert resumed.usage["input_tokens"] > fresh.usage["input_tokens"]
    assert len(sdk.mod.get_session_messages(sid, directory=str(workdir))) == 4


async def test_claude_session_store_mirrors_and_resumes_on_an_empty_home(dcl_bin: str, workdir: Path, tmp_path: Path) -> None:
    sdk = Sdk("claude", claude_agent_sdk)
    store = claude_agent_sdk.InMemorySessionStore()
    first = only_result(
        sdk, await one_shot(sdk, "remember the word blue", sdk.options(dcl_bin, workdir, session_store=store), "mirrored")
    )
    key = {"project_key": claude_agent_sdk.project_key_for_directory(str(workdir)), "session_id": first.session_id}
    entries = await store.load(key)
    assert entries, "the store received nothing"
    assert [e["type"] for e in entries if e.get("type") in ("user", "assistant")] == ["user", "assistant"]

    empty = tmp_path / "empty-home"
    empty.mkdir()
    resumed = only_result(
        sdk,
        await one_shot(
            sdk,
            "what was the word?",
            sdk.options(dcl_bin, workdir, session_store=store, resume=first.session_id, env={"HOME": str(empty)}),
            "store-backed resume",
        ),
    )
    assert resumed.is_error is False, resumed
    assert resumed.session_id == first.session_id
    # The store now holds both turns.
    entries = await store.load(key)
    assert [e["type"] for e in entries if e.get("type") in ("user", "assistant")] == ["user", "assistant"] * 2
