"""claude-agent-sdk's own query() and ClaudeSDKClient, in-process through DclTransport.
Each option the SDK would turn into a CLI flag is observed in the session."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

sdk = pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)

from dcl.transport import DclTransport  # noqa: E402

MOCK = "mock-model"


async def run(prompt: str, options: Any) -> List[Any]:
    return [m async for m in sdk.query(prompt=prompt, options=options, transport=DclTransport(options))]


def init_of(messages: List[Any]) -> Dict[str, Any]:
    return next(m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")


def results_of(messages: List[Any]) -> List[ToolResultBlock]:
    return [
        b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


def text(messages: List[Any]) -> str:
    return "".join(
        b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)
    )


async def test_sdk_query_in_process(workdir: Path) -> None:
    options = ClaudeAgentOptions(model=MOCK, cwd=str(workdir))
    messages = await run("hello", options)
    init = init_of(messages)
    assert init["model"] == MOCK and init["cwd"] == str(workdir)
    assert text(messages) == "Hello from the fake model."
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


async def test_can_use_tool_allow_and_deny(workdir: Path) -> None:
    asked: List[str] = []

    async def decide(tool: str, input: Dict[str, Any], ctx: Any) -> Any:
        asked.append(input["file_path"])
        if input["file_path"] == "yes.txt":
            return PermissionResultAllow(updated_input={**input, "content": "via sdk\n"})
        return PermissionResultDeny(message="no thanks")

    options = ClaudeAgentOptions(model=MOCK, cwd=str(workdir), can_use_tool=decide)
    await run("FAKE_WRITE yes.txt", options)
    denied = await run("FAKE_WRITE no.txt", options)
    assert asked == ["yes.txt", "no.txt"]
    assert (workdir / "yes.txt").read_text() == "via sdk\n"
    assert not (workdir / "no.txt").exists()
    assert "no thanks" in str(results_of(denied)[0].content)


async def test_permission_mode_allowed_and_disallowed_tools_and_tools(workdir: Path) -> None:
    messages = await run("FAKE_WRITE a.txt", ClaudeAgentOptions(model=MOCK, cwd=str(workdir), permission_mode="acceptEdits"))
    assert init_of(messages)["permissionMode"] == "acceptEdits"
    assert (workdir / "a.txt").exists()
    await run("FAKE_WRITE b.txt", ClaudeAgentOptions(model=MOCK, cwd=str(workdir), allowed_tools=["Write"]))
    assert (workdir / "b.txt").exists()
    messages = await run("hello", ClaudeAgentOptions(model=MOCK, cwd=str(workdir), disallowed_tools=["Bash"]))
    assert "Bash" not in init_of(messages)["tools"] and "Write" in init_of(messages)["tools"]
    messages = await run("hello", ClaudeAgentOptions(model=MOCK, cwd=str(workdir), tools=["Read", "Write"]))
    assert sorted(init_of(messages)["tools"]) == ["Read", "Write"]


async def test_settings_and_the_remaining_flags(workdir: Path) -> None:
    options = ClaudeAgentOptions(
        model=MOCK,
        cwd=str(workdir),
        settings='{"permissions": {"allow": ["Write"]}}',
        setting_sources=[],
        fallback_model="mock-model-2",
        effort="high",
        max_budget_usd=5.0,
        max_thinking_tokens=2048,
    )
    transport = DclTransport(options)
    o = transport.session_options
    assert (o["fallbackModel"], o["effort"], o["maxBudgetUsd"], o["maxThinkingTokens"]) == (
        "mock-model-2",
        "high",
        5.0,
        2048,
    )
    messages = [m async for m in sdk.query(prompt="FAKE_WRITE s.txt", options=options, transport=transport)]
    assert (workdir / "s.txt").exists()  # allowed by the inline settings, nobody asked
    assert messages[-1].subtype == "success"


async def test_system_prompt_reaches_the_model(workdir: Path) -> None:
    # The mock counts input tokens as chars / 4 of system prompt + messages + tools.
    base = await run("hello", ClaudeAgentOptions(model=MOCK, cwd=str(workdir)))
    big = await run("hello", ClaudeAgentOptions(model=MOCK, cwd=str(workdir), system_prompt="x" * 4000))
    grown = big[-1].usage["input_tokens"] - base[-1].usage["input_tokens"]
    assert 990 <= grown <= 1010
    appended = await run(
        "hello",
        ClaudeAgentOptions(
            model=MOCK, cwd=str(workdir), system_prompt={"type": "preset", "preset": "claude_code", "append": "y" * 4000}
        ),
    )
    assert appended[-1].usage["input_tokens"] > base[-1].usage["input_tokens"] + 900


async def test_max_turns_surfaces_as_the_sdks_result_error(workdir: Path) -> None:
    seen: List[Any] = []
    with pytest.raises(sdk.ProcessError) as info:
        async for m in sdk.query(
            prompt="please FAKE_BASH",
            options=(o := ClaudeAgentOptions(model=MOCK, cwd=str(workdir), max_turns=1)),
            transport=DclTransport(o),
        ):
            seen.append(m)
    assert seen[-1].subtype == "error_max_turns"
    assert getattr(info.value, "subtype", None) == "error_max_turns"  # the SDK's ResultError


async def test_partial_messages_env_session_id_and_extra_args(workdir: Path) -> None:
    sid = str(uuid.uuid4())
    options = ClaudeAgentOptions(
        model=MOCK,
        cwd=str(workdir),
        include_partial_messages=True,
        env={"DCL_TRANSPORT_PROBE": "probe-value"},
        permission_mode="bypassPermissions",
        session_id=sid,
        extra_args={"replay-user-messages": None},
    )
    messages = await run('FAKE_TOOL Bash {"command": "echo $DCL_TRANSPORT_PROBE"}', options)
    assert any(isinstance(m, StreamEvent) for m in messages)
    assert "probe-value" in str(results_of(messages)[0].content)
    assert init_of(messages)["session_id"] == sid == messages[-1].session_id
    replays = [m for m in messages if isinstance(m, UserMessage) and isinstance(m.content, str)]
    assert replays and "FAKE_TOOL" in replays[0].content


async def test_add_dirs_extend_unasked_reads(workdir: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "data.txt").write_text("outside data")
    asked: List[str] = []

    async def record(tool: str, input: Dict[str, Any], ctx: Any) -> Any:
        asked.append(tool)
        return PermissionResultDeny(message="asked")

    prompt = f"FAKE_READ {extra / 'data.txt'}"
    await run(prompt, ClaudeAgentOptions(model=MOCK, cwd=str(workdir), can_use_tool=record))
    assert asked == ["Read"]  # outside the cwd: asks
    messages = await run(
        prompt, ClaudeAgentOptions(model=MOCK, cwd=str(workdir), can_use_tool=record, add_dirs=[str(extra)])
    )
    assert asked == ["Read"]  # inside an added dir: no question
    assert "outside data" in str(results_of(messages)[0].content)


async def test_sdk_client_multi_turn_and_interrupt(workdir: Path) -> None:
    options = ClaudeAgentOptions(model=MOCK, cwd=str(workdir), include_partial_messages=True)
    async with ClaudeSDKClient(options, transport=DclTransport(options)) as client:
        await client.query("hello")
        first = [m async for m in client.receive_response()]
        assert text(first) == "Hello from the fake model."
        await client.query("FAKE_SLOW")
        async for m in client.receive_response():
            if isinstance(m, StreamEvent) and m.event.get("type") == "content_block_delta":
                await client.interrupt()
                break
        rest = [m async for m in client.receive_response()]
        assert rest[-1].subtype == "error_during_execution"
        await client.set_permission_mode("plan")
        await client.query("hello")
        third = [m async for m in client.receive_response()]
        assert init_of(third)["permissionMode"] == "plan"


async def test_sdk_mcp_server_through_the_transport(workdir: Path) -> None:
    @sdk.tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    server = sdk.create_sdk_mcp_server("calc", "1.0.0", [add])
    options = ClaudeAgentOptions(
        model=MOCK, cwd=str(workdir), mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"]
    )
    messages = await run('FAKE_TOOL mcp__calc__add {"a":1,"b":2}', options)
    block = results_of(messages)[0]
    assert not block.is_error and "3" in str(block.content)


async def test_sdk_hooks_through_the_transport(workdir: Path) -> None:
    async def guard(input: Dict[str, Any], tool_use_id: Any, ctx: Any) -> Dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "blocked",
            }
        }

    options = ClaudeAgentOptions(
        model=MOCK,
        cwd=str(workdir),
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [sdk.HookMatcher(matcher="Write", hooks=[guard])]},
    )
    await run("FAKE_WRITE h.txt", options)
    assert not (workdir / "h.txt").exists()
