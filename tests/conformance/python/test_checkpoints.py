"""Issue 12: file checkpoints and ``rewind_files`` through the public API of both PyPI
SDKs against the ``dcl`` binary: ``enable_file_checkpointing=True``, user-message uuids
from ``replay-user-messages``, then ``rewind_files`` restores the work tree and leaves the
user's ``.git`` alone."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from conftest import within
from sdks import Sdk, only_result, sdk, turn  # noqa: F401  (sdk is a fixture)


def files(root: Path) -> dict[str, str]:
    """Every file under ``root`` (``.git`` included): its sha256 and mode."""
    out: dict[str, str] = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = Path(dirpath) / n
            out[str(p.relative_to(root))] = (
                f"{hashlib.sha256(p.read_bytes()).hexdigest()} {oct(p.stat().st_mode & 0o7777)}"
            )
    return out


def prompt_uuid(sdk: Sdk, msgs: list[Any]) -> str:
    """The uuid of the turn's replayed prompt (the first user message of the turn)."""
    users = [m for m in msgs if isinstance(m, sdk.UserMessage) and getattr(m, "uuid", None)]
    assert users, f"no replayed user message with a uuid: {msgs!r}"
    return str(users[0].uuid)


async def test_m_rewind_files_restores_the_work_tree(
    sdk: Sdk, dcl_bin: str, workdir: Path, tmp_path: Path
) -> None:
    (workdir / ".git").mkdir()
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (workdir / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (workdir / "a.txt").write_text("original line\n")
    before = files(workdir)
    opts = sdk.options(
        dcl_bin,
        workdir,
        permission_mode="bypassPermissions",
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None, "data-dir": str(tmp_path / "dcl-home")},
    )
    async with sdk.client(opts) as client:
        first = await turn(client, f"FAKE_WRITE {workdir / 'new.txt'}", "the write turn")
        assert only_result(sdk, first).subtype == "success", first
        edit = json.dumps(
            {"file_path": str(workdir / "a.txt"), "old_string": "original", "new_string": "edited"}
        )
        second = await turn(client, f"FAKE_TOOL Edit {edit}", "the edit turn")
        assert only_result(sdk, second).subtype == "success", second
        assert (workdir / "new.txt").read_text() == "hello\n"
        assert (workdir / "a.txt").read_text() == "edited line\n"

        if sdk.name == "qoder":
            dry = await within(
                client.rewind_files(prompt_uuid(sdk, first), dry_run=True), "rewind_files(dry_run)"
            )
            dry = dry if isinstance(dry, dict) else vars(dry)
            assert dry.get("canRewind") is True and len(dry.get("filesChanged") or []) == 2, dry
            assert (workdir / "new.txt").exists(), "a dry run changes nothing"
        await within(client.rewind_files(prompt_uuid(sdk, first)), "rewind_files()")

    assert files(workdir) == before, "files back as they were, .git untouched"
    assert (tmp_path / "dcl-home" / "checkpoints").is_dir()
