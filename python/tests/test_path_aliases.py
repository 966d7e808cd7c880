"""The path decision holds through aliases in process: a deny rule naming a symlink binds on
every name of the file, a write through a link to a protected file is refused, and the
positive twins (an ordinary link inside the project) still work."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import dcl
from conftest import opts, text_of, tool_results

SECRET = "API_KEY=hunter2"


async def run(prompt: str, options: dcl.Options) -> List[Any]:
    return [m async for m in dcl.query(prompt=prompt, options=options)]


def plant_env_link(workdir: Path) -> None:
    (workdir / "config").mkdir()
    (workdir / "config" / "dev.env").write_text(SECRET + "\n")
    os.symlink("config/dev.env", workdir / ".env")


async def test_deny_rule_naming_a_link_binds_on_the_link_and_its_target(workdir: Path) -> None:
    plant_env_link(workdir)
    for path in (".env", "config/dev.env"):
        messages = await run(f"FAKE_READ {path}", opts(workdir, disallowed_tools=["Read(./.env)"]))
        result = tool_results(messages)[0]
        assert result.is_error, path
        assert SECRET not in str(result.content) and SECRET not in text_of(messages), path


async def test_positive_twin_a_link_the_rules_do_not_name_reads(workdir: Path) -> None:
    plant_env_link(workdir)
    (workdir / "notes").mkdir()
    (workdir / "notes" / "plain.txt").write_text("just notes\n")
    os.symlink("notes/plain.txt", workdir / "link.txt")
    messages = await run("FAKE_READ link.txt", opts(workdir, disallowed_tools=["Read(./.env)"]))
    result = tool_results(messages)[0]
    assert not result.is_error and "just notes" in str(result.content)


async def test_write_through_a_link_to_a_protected_file_is_refused(workdir: Path) -> None:
    (workdir / ".claude").mkdir()
    settings = workdir / ".claude" / "settings.json"
    settings.write_text("{}\n")
    os.symlink(".claude/settings.json", workdir / "notes.txt")
    messages = await run("FAKE_WRITE notes.txt", opts(workdir, permission_mode="acceptEdits"))
    assert tool_results(messages)[0].is_error
    assert settings.read_text() == "{}\n"


async def test_positive_twin_write_through_an_ordinary_link_lands_in_its_target(workdir: Path) -> None:
    (workdir / "docs").mkdir()
    (workdir / "docs" / "out.txt").write_text("old\n")
    os.symlink("docs/out.txt", workdir / "out.txt")
    messages = await run("FAKE_WRITE out.txt", opts(workdir, permission_mode="acceptEdits"))
    assert not tool_results(messages)[0].is_error
    assert (workdir / "docs" / "out.txt").read_text() == "hello\n"


async def test_a_name_that_only_resembles_a_protected_one_is_written(workdir: Path) -> None:
    (workdir / "my.claude").mkdir()
    messages = await run("FAKE_WRITE my.claude/settings.json", opts(workdir, permission_mode="acceptEdits"))
    assert not tool_results(messages)[0].is_error
    assert (workdir / "my.claude" / "settings.json").read_text() == "hello\n"
