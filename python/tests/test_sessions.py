"""Several in-process sessions at once: separate cwds, 100 concurrent approvals."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Dict, List

import dcl
from conftest import MOCK, init_data, tool_results


async def test_two_sessions_write_relative_paths_into_their_own_cwd(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()

    async def approve(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        return dcl.PermissionResultAllow()

    async def run(cwd: Path, name: str) -> List[Any]:
        options = dcl.Options(model=MOCK, cwd=str(cwd), can_use_tool=approve)
        return [m async for m in dcl.query(prompt=f"FAKE_WRITE {name}", options=options)]

    ra, rb = await asyncio.gather(run(a, "same.txt"), run(b, "same.txt"))
    assert (a / "same.txt").read_text() == "hello\n"
    assert (b / "same.txt").read_text() == "hello\n"
    assert init_data(ra)["cwd"] == str(a.resolve()) and init_data(rb)["cwd"] == str(b.resolve())
    assert init_data(ra)["session_id"] != init_data(rb)["session_id"]
    # Bash too runs in each session's own directory
    both = await asyncio.gather(
        *(
            collect_bash(d)
            for d in (a, b)
        )
    )
    assert [str(p.resolve()) for p in (a, b)] == both


async def collect_bash(cwd: Path) -> str:
    options = dcl.Options(model=MOCK, cwd=str(cwd), permission_mode="bypassPermissions")
    messages = [m async for m in dcl.query(prompt='FAKE_TOOL Bash {"command": "pwd -P"}', options=options)]
    return str(tool_results(messages)[0].content).strip()


async def test_hundred_sessions_one_slow_callback_stalls_no_other(tmp_path: Path) -> None:
    n = 100
    release = asyncio.Event()
    done_at: Dict[int, float] = {}
    asked: List[int] = []

    def approver(i: int) -> Any:
        async def approve(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
            asked.append(i)
            if i == 0:
                # Held until every other session has finished: if one slow callback
                # stalled the others, this would never be released (and time out).
                await asyncio.wait_for(release.wait(), 60)
            else:
                await asyncio.sleep(0.01 * (i % 7))  # interleave the others
            return dcl.PermissionResultAllow(updated_input={**input, "content": f"session {i}\n"})

        return approve

    async def run(i: int) -> None:
        cwd = tmp_path / f"s{i}"
        cwd.mkdir()
        options = dcl.Options(model=MOCK, cwd=str(cwd), can_use_tool=approver(i))
        async for _ in dcl.query(prompt=f"FAKE_WRITE out{i}.txt", options=options):
            pass
        done_at[i] = time.monotonic()

    slow = asyncio.ensure_future(run(0))
    others = [asyncio.ensure_future(run(i)) for i in range(1, n)]
    await asyncio.wait_for(asyncio.gather(*others), 120)
    assert not slow.done() and 0 in asked  # the slow one is still waiting on its callback
    released_at = time.monotonic()
    release.set()
    await asyncio.wait_for(slow, 60)
    assert len(done_at) == n
    assert all(t < released_at for i, t in done_at.items() if i != 0)
    for i in range(n):
        assert (tmp_path / f"s{i}" / f"out{i}.txt").read_text() == f"session {i}\n"
