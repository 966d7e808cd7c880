"""Gaps the newest SDKs showed, each through the unmodified SDKs (both of them):
``model="auto"`` is the configured default, a project the client trusts keeps its hooks,
an unknown output style keeps its name, and transcripts keep a string prompt a string."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import HELLO
from sdks import Sdk, inits, one_shot, only_result, sdk  # noqa: F401 - sdk is a fixture


async def test_model_auto_is_the_configured_default(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    opts = sdk.options(dcl_bin, workdir, model="auto", env={"DCL_MODEL": "mock-model"})
    msgs = await one_shot(sdk, "say hi", opts, "query with model auto")
    result = only_result(sdk, msgs)
    assert result.is_error is False, result
    assert result.result == HELLO
    assert inits(sdk, msgs)[-1].data["model"] == "mock-model"


def _project_hook(sdk: Sdk, workdir: Path) -> Path:
    marker = workdir / "hook-ran.txt"
    folder = workdir / (".claude" if sdk.name == "claude" else ".qoder")
    folder.mkdir()
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    (folder / "settings.json").write_text(json.dumps(hooks))
    return marker


async def test_the_clients_trust_record_keeps_a_projects_hooks(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    marker = _project_hook(sdk, workdir)
    await one_shot(sdk, "say hi", sdk.options(dcl_bin, workdir), "untrusted project")
    assert not marker.exists(), "an untrusted project's hook ran"
    record = Path(os.environ["HOME"]) / (".claude.json" if sdk.name == "claude" else ".qoder.json")
    record.write_text(json.dumps({"projects": {str(workdir): {"hasTrustDialogAccepted": True}}}))
    try:
        await one_shot(sdk, "say hi", sdk.options(dcl_bin, workdir), "trusted project")
    finally:
        record.unlink()
    assert marker.exists(), "the client's trust record did not trust the project"


async def test_naming_the_project_source_trusts_it(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    marker = _project_hook(sdk, workdir)
    opts = sdk.options(dcl_bin, workdir, setting_sources=["user", "project"])
    await one_shot(sdk, "say hi", opts, "project source named")
    assert marker.exists(), "the host named the project layer but its hooks did not run"


async def test_an_unknown_output_style_keeps_its_configured_name(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    opts = sdk.options(dcl_bin, workdir, settings=json.dumps({"outputStyle": "Pirate"}))
    msgs = await one_shot(sdk, "say hi", opts, "unknown output style")
    assert inits(sdk, msgs)[-1].data["output_style"] == "Pirate"
    assert only_result(sdk, msgs).result == HELLO


async def test_the_transcript_keeps_a_string_prompt_a_string(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    result = only_result(
        sdk, await one_shot(sdk, "remember the word blue", sdk.options(dcl_bin, workdir), "one turn")
    )
    messages = sdk.mod.get_session_messages(result.session_id, directory=str(workdir))
    assert messages[0].type == "user"
    assert messages[0].message["content"] == "remember the word blue"
