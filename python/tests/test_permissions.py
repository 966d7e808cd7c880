"""can_use_tool: allow, deny, modified input, permission updates; file effects asserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import dcl
from conftest import of_type, opts, tool_results


async def run(prompt: str, options: dcl.Options) -> List[Any]:
    return [m async for m in dcl.query(prompt=prompt, options=options)]


async def test_allow_writes_the_file(workdir: Path) -> None:
    asked: List[Dict[str, Any]] = []

    async def approve(tool: str, input: Dict[str, Any], ctx: dcl.ToolPermissionContext) -> dcl.PermissionResult:
        asked.append({"tool": tool, "input": input, "ctx": ctx})
        return dcl.PermissionResultAllow()

    messages = await run("FAKE_WRITE notes.txt", opts(workdir, can_use_tool=approve))
    assert (workdir / "notes.txt").read_text() == "hello\n"
    assert len(asked) == 1 and asked[0]["tool"] == "Write"
    assert asked[0]["input"] == {"file_path": "notes.txt", "content": "hello\n"}
    ctx = asked[0]["ctx"]
    assert ctx.tool_use_id and ctx.blocked_path == str(workdir / "notes.txt")
    assert all(isinstance(s, dcl.PermissionUpdate) for s in ctx.suggestions)
    assert not tool_results(messages)[0].is_error
    assert messages[-1].permission_denials == []


async def test_deny_leaves_no_file_and_tells_the_model(workdir: Path) -> None:
    async def refuse(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        return dcl.PermissionResultDeny(message="not in this repo")

    messages = await run("FAKE_WRITE notes.txt", opts(workdir, can_use_tool=refuse))
    assert not (workdir / "notes.txt").exists()
    result_block = tool_results(messages)[0]
    assert result_block.is_error and "not in this repo" in str(result_block.content)
    denials = messages[-1].permission_denials
    assert denials and denials[0]["tool_name"] == "Write"


async def test_deny_with_interrupt_stops_the_turn(workdir: Path) -> None:
    def refuse(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:  # sync callback
        return dcl.PermissionResultDeny(message="stop", interrupt=True)

    messages: List[Any] = []
    try:
        async for m in dcl.query(prompt="FAKE_WRITE notes.txt", options=opts(workdir, can_use_tool=refuse)):
            messages.append(m)
    except dcl.ResultError:
        pass
    assert not (workdir / "notes.txt").exists()
    assert of_type(messages, dcl.ResultMessage)


async def test_modified_input_is_what_runs(workdir: Path) -> None:
    async def redirect(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        return dcl.PermissionResultAllow(updated_input={**input, "file_path": "elsewhere.txt", "content": "changed\n"})

    await run("FAKE_WRITE notes.txt", opts(workdir, can_use_tool=redirect))
    assert not (workdir / "notes.txt").exists()
    assert (workdir / "elsewhere.txt").read_text() == "changed\n"


async def test_updated_permissions_stop_later_prompts(workdir: Path) -> None:
    asked: List[str] = []

    async def approve_always(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        asked.append(tool)
        rule = dcl.PermissionUpdate(
            type="addRules", rules=[dcl.PermissionRuleValue(tool_name="Write")], behavior="allow"
        )
        return dcl.PermissionResultAllow(updated_permissions=[rule])

    async with dcl.Client(opts(workdir, can_use_tool=approve_always)) as client:
        for name in ("a.txt", "b.txt"):
            await client.query(f"FAKE_WRITE {name}")
            [m async for m in client.receive_response()]
    assert (workdir / "a.txt").exists() and (workdir / "b.txt").exists()
    assert asked == ["Write"]


async def test_raising_callback_denies(workdir: Path) -> None:
    async def broken(tool: str, input: Dict[str, Any], ctx: Any) -> dcl.PermissionResult:
        raise RuntimeError("callback exploded")

    messages = await run("FAKE_WRITE notes.txt", opts(workdir, can_use_tool=broken))
    assert not (workdir / "notes.txt").exists()
    block = tool_results(messages)[0]
    assert block.is_error and "callback exploded" in str(block.content)


async def test_no_callback_means_denied(workdir: Path) -> None:
    messages = await run("FAKE_WRITE notes.txt", opts(workdir))
    assert not (workdir / "notes.txt").exists()
    assert tool_results(messages)[0].is_error


async def test_allowed_tools_and_accept_edits_need_no_callback(workdir: Path) -> None:
    await run("FAKE_WRITE a.txt", opts(workdir, allowed_tools=["Write"]))
    await run("FAKE_WRITE b.txt", opts(workdir, permission_mode="acceptEdits"))
    assert (workdir / "a.txt").exists() and (workdir / "b.txt").exists()
