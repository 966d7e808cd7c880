"""Issue 13: skills, custom slash commands and plugins through the public API of both
PyPI SDKs (``plugins=[{"type": "local", "path": …}]`` becomes ``--plugin-dir``).

  m1. a plugin's command, agent and skill: listed in init, the command delegates to the
      plugin's agent
  m2. a project custom command with arguments: ``$ARGUMENTS`` reaches the model
  m3. a skill used through the Skill tool: the result holds its body
  m4. reload_plugins (Qoder's client method) re-reads a plugin
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import HELLO
from sdks import Sdk, inits, one_shot, only_result, sdk, turn  # noqa: F401  (sdk is a fixture)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_plugin(root: Path) -> Path:
    kit = root / "kit"
    write(kit / ".claude-plugin" / "plugin.json", '{"name": "kit", "version": "1.0.0"}')
    write(
        kit / "commands" / "ask.md",
        "---\ndescription: Ask the helper\n---\n"
        'FAKE_TOOL Agent {"description":"ask","prompt":"$ARGUMENTS","subagent_type":"kit:helper"}\n',
    )
    write(kit / "agents" / "helper.md", "---\ndescription: Helps\n---\nYou help.\n")
    write(kit / "skills" / "lint" / "SKILL.md", "---\ndescription: Lints\n---\nLint it all.\n")
    return kit


def blocks(sdk: Sdk, msgs: list[Any], kind: str) -> list[Any]:
    cls = getattr(sdk, kind)
    return [
        b
        for m in msgs
        for b in (getattr(m, "content", None) or [])
        if not isinstance(getattr(m, "content", None), str) and isinstance(b, cls)
    ]


def result_texts(sdk: Sdk, msgs: list[Any]) -> list[str]:
    out = []
    for b in blocks(sdk, msgs, "ToolResultBlock"):
        c = b.content
        out.append(c if isinstance(c, str) else " ".join(str(x.get("text", x)) for x in c or []))
    return out


async def test_m1_plugin_command_agent_and_skill(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    kit = make_plugin(workdir.parent)
    opts = sdk.options(dcl_bin, workdir, plugins=[{"type": "local", "path": str(kit)}])
    msgs = await one_shot(sdk, "/kit:ask what is up", opts, "query() with a plugin command")

    init = inits(sdk, msgs)[0].data
    assert "kit:helper" in init["agents"], init
    assert "kit:ask" in init["slash_commands"], init
    assert "kit:lint" in init["skills"], init
    assert [p["name"] for p in init["plugins"]] == ["kit"], init
    calls = [b for b in blocks(sdk, msgs, "ToolUseBlock") if b.name == "Agent"]
    assert calls and calls[0].input["subagent_type"] == "kit:helper", calls
    assert calls[0].input["prompt"] == "what is up", calls
    assert any(HELLO in t for t in result_texts(sdk, msgs)), result_texts(sdk, msgs)
    assert only_result(sdk, msgs).subtype == "success"


async def test_m2_custom_command_with_arguments(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    folder = ".claude" if sdk.name == "claude" else ".qoder"
    write(
        workdir / folder / "commands" / "mk.md",
        "---\ndescription: Make a file\nargument-hint: <path>\n---\nFAKE_WRITE $ARGUMENTS\n",
    )
    target = workdir / "made-by-command.txt"
    opts = sdk.options(dcl_bin, workdir, permission_mode="bypassPermissions")
    msgs = await one_shot(sdk, f"/mk {target}", opts, "query() with a custom command")

    assert "mk" in inits(sdk, msgs)[0].data["slash_commands"]
    writes = [b for b in blocks(sdk, msgs, "ToolUseBlock") if b.name == "Write"]
    assert writes and writes[0].input["file_path"] == str(target), writes
    assert target.read_text() == "hello\n"
    assert only_result(sdk, msgs).subtype == "success"


async def test_m3_skill_used(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    folder = ".claude" if sdk.name == "claude" else ".qoder"
    write(
        workdir / folder / "skills" / "greet" / "SKILL.md",
        "---\nname: greet\ndescription: Greets people\n---\nGreet $ARGUMENTS warmly.\n",
    )
    extra = {"skills": ["greet"]} if sdk.name == "claude" else {}
    opts = sdk.options(dcl_bin, workdir, **extra)
    msgs = await one_shot(
        sdk, 'FAKE_TOOL Skill {"skill":"greet","args":"Ada"}', opts, "query() using a skill"
    )

    assert inits(sdk, msgs)[0].data["skills"] == ["greet"]
    texts = result_texts(sdk, msgs)
    assert any("Base directory for this skill:" in t and "Greet Ada warmly." in t for t in texts), texts
    assert only_result(sdk, msgs).subtype == "success"


async def test_m4_reload_plugins(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    if not hasattr(sdk.client(sdk.options(dcl_bin, workdir)), "reload_plugins"):
        pytest.skip(f"{sdk.name}'s Python client has no reload_plugins()")
    kit = make_plugin(workdir.parent)
    opts = sdk.options(dcl_bin, workdir, plugins=[{"type": "local", "path": str(kit)}])
    async with sdk.client(opts) as client:
        await turn(client, "say hi", "the first turn")
        write(kit / "commands" / "later.md", "Added later")
        answer = await client.reload_plugins()
        names = [c["name"] for c in answer["commands"]]
        assert "kit:later" in names, answer
        assert [p["name"] for p in answer["plugins"]] == ["kit"], answer
        assert any(a["name"] == "kit:helper" for a in answer["agents"]), answer
        assert answer["error_count"] == 0, answer
