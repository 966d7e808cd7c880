"""File checkpoints in-process: turns that write and edit, then ``rewind_files``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List

import pytest

import dcl
from conftest import opts


def user(text: str, uuid: str) -> Dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None, "uuid": uuid}


async def one(message: Dict[str, Any]) -> AsyncIterator[Dict[str, Any]]:
    yield message


async def turn(client: dcl.Client, text: str, uuid: str) -> List[Any]:
    await client.query(one(user(text, uuid)))
    return [m async for m in client.receive_response()]


def files(root: Path) -> Dict[str, bytes]:
    out: Dict[str, bytes] = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = Path(dirpath) / n
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


async def test_rewind_files_restores_a_written_and_an_edited_file(workdir: Path, tmp_path: Path) -> None:
    (workdir / ".git").mkdir()
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (workdir / "a.txt").write_text("original line\n")
    before = files(workdir)
    o = opts(
        workdir,
        permission_mode="bypassPermissions",
        enable_file_checkpointing=True,
        env={"DCL_CONFIG_DIR": str(tmp_path / "dcl-home")},
    )
    async with dcl.Client(o) as client:
        await turn(client, f"FAKE_WRITE {workdir / 'new.txt'}", "11111111-1111-4111-8111-111111111111")
        edit = '{"file_path": "%s", "old_string": "original", "new_string": "edited"}' % (workdir / "a.txt")
        await turn(client, f"FAKE_TOOL Edit {edit}", "22222222-2222-4222-8222-222222222222")
        assert (workdir / "new.txt").read_text() == "hello\n"
        assert (workdir / "a.txt").read_text() == "edited line\n"

        dry = await client.rewind_files("11111111-1111-4111-8111-111111111111", dry_run=True)
        assert dry["canRewind"] is True and len(dry["filesChanged"]) == 2, dry
        assert (workdir / "new.txt").exists(), "a dry run changes nothing"

        (workdir / "a.txt").write_text("someone else\n")
        with pytest.raises(dcl.ControlRequestError, match="a.txt"):
            await client.rewind_files("11111111-1111-4111-8111-111111111111")
        (workdir / "a.txt").write_text("edited line\n")

        done = await client.rewind_files("11111111-1111-4111-8111-111111111111")
        assert done == dry, (done, dry)
    assert files(workdir) == before


async def test_rewind_files_without_checkpoints_says_why(workdir: Path) -> None:
    async with dcl.Client(opts(workdir)) as client:
        with pytest.raises(dcl.ControlRequestError, match="not enabled"):
            await client.rewind_files("11111111-1111-4111-8111-111111111111")
