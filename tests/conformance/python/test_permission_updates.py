"""Issue 9: a host's ``updated_permissions`` through each SDK's public API.

``can_use_tool`` allows the first call with a ``PermissionUpdate`` (``addRules``, behavior
``allow``, destination ``localSettings``): dcl writes the rule to the session's local
settings file (the client's project folder: ``.claude/``, Qoder ``.qoder/``) and does not
ask again for the same command, in this session or the next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import claude_agent_sdk.types
import qoder_agent_sdk.types

from sdks import Sdk, sdk, turn  # noqa: F401  (sdk is a fixture)

TOUCH_COMMAND = "touch made.txt && echo made"  # what the mock runs for FAKE_TOUCH


async def test_m_updated_permissions_local_settings(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        asked.append(name)
        types = claude_agent_sdk.types if sdk.name == "claude" else qoder_agent_sdk.types
        update = types.PermissionUpdate(
            type="addRules",
            rules=[types.PermissionRuleValue(tool_name="Bash", rule_content=TOUCH_COMMAND)],
            behavior="allow",
            destination="localSettings",
        )
        return sdk.PermissionResultAllow(updated_input=tool_input, updated_permissions=[update])

    opts = sdk.options(dcl_bin, workdir, permission_mode="default", can_use_tool=can_use_tool)
    async with sdk.client(opts) as client:
        await turn(client, "please FAKE_TOUCH", "the first FAKE_TOUCH")
        (workdir / "made.txt").unlink()
        await turn(client, "please FAKE_TOUCH", "the second FAKE_TOUCH")
    assert asked == ["Bash"], f"asked {asked!r}: the session rule did not hold"
    assert (workdir / "made.txt").exists()

    folder = ".claude" if sdk.name == "claude" else ".qoder"
    local = workdir / folder / "settings.local.json"
    assert local.exists(), f"{local} was not written"
    written = json.loads(local.read_text())
    assert written["permissions"]["allow"] == [f"Bash({TOUCH_COMMAND})"], written

    # A new session reads the rule from the file: nothing is asked.
    (workdir / "made.txt").unlink()
    opts = sdk.options(dcl_bin, workdir, permission_mode="default", can_use_tool=can_use_tool)
    async with sdk.client(opts) as client:
        await turn(client, "please FAKE_TOUCH", "FAKE_TOUCH in a new session")
    assert asked == ["Bash"], f"asked {asked!r} in the new session"
    assert (workdir / "made.txt").exists()
