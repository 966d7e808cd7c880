"""Parity: the same scenarios in-process (``dcl.query`` / ``dcl.Client``) and through
claude-agent-sdk over a ``dcl`` subprocess (``ClaudeAgentOptions(cli_path=<dcl>)``) give
the same message sequence.

Each scenario runs once per side, each side in its own directory of the same shape
(``<tmp>/a/{work,home}`` and ``<tmp>/b/{work,home}``: equal path lengths, so texts that
count characters, like the mock's ``Done. The tool result had N chars.``, agree). Every
message is turned into plain data (class names kept) and normalised; then two things
are compared:

1. a summary — message class, subtype, content block types, texts, tool names and
   inputs, tool_result contents and ``is_error``, the result's subtype / is_error /
   result / num_turns / permission_denials, stream event types — readable on failure;
2. every field both SDKs' message classes have, after normalisation.

Normalisation (the differences are by design, not by behaviour):

- uuids (message uuids, session ids) and ``msg_mock_<hex>`` message ids are random per
  run: each becomes ``<uuid:N>`` / ``<msg:N>`` by first appearance, so "the same id
  again" still has to match;
- ``duration_ms`` / ``duration_api_ms`` are wall-clock: dropped;
- each side's working directory, home and tmp root become ``<cwd>``, ``<home>``, ``<tmp>``;
- fields only one package's classes have (claude-agent-sdk's ``user_message_uuid(s)``,
  ``ResultMessage.deferred_tool_use`` / ``origin``) are left out of the comparison but
  must be empty (``None``), or dcl would be losing data the SDK surfaces.

Token counts and costs are compared as they are: both sides send the same system
prompt. claude-agent-sdk passes ``--system-prompt ""`` when ``system_prompt`` is unset,
and ``dcl.Options`` with ``system_prompt=None`` sends ``systemPrompt: ""`` too; the
one-shot scenario also runs with an explicit prompt on both sides. Permission mode
(default), ``include_partial_messages`` and the options are the same on both sides;
``HOME`` points at a per-side empty directory so no user settings or memory files join
in.

The ``dcl`` binary is ``$DCL_BIN`` or ``target/debug/dcl`` (``cargo build -p dcl-cli``);
it must be built from the same sources as the extension, or the comparison is between
two dcl versions.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import dcl

sdk = pytest.importorskip("claude_agent_sdk")

ROOT = Path(__file__).resolve().parents[2]
DCL_BIN = os.environ.get("DCL_BIN") or str(ROOT / "target" / "debug" / "dcl")
MOCK = "mock-model"
TIMEOUT = 90.0  # seconds per side and scenario (a loaded 2-core machine is slow)

pytestmark = pytest.mark.skipif(
    not os.access(DCL_BIN, os.X_OK),
    reason=f"no dcl binary at {DCL_BIN} (cargo build -p dcl-cli, or set DCL_BIN)",
)


# --------------------------------------------------------------------------- sides


@dataclasses.dataclass
class Side:
    """One way of running dcl: ``api`` is the ``dcl`` package (in-process) or
    ``claude_agent_sdk`` (subprocess); both export the names the scenarios use
    (``PermissionResultAllow``, ``HookMatcher``, ``tool``, ``create_sdk_mcp_server``)."""

    name: str
    api: ModuleType
    root: Path
    cwd: Path
    home: Path

    @property
    def in_process(self) -> bool:
        return self.api is dcl

    def options(self, **kw: Any) -> Any:
        base: Dict[str, Any] = dict(model=MOCK, cwd=str(self.cwd), env={"HOME": str(self.home)})
        base.update(kw)
        if self.in_process:
            return dcl.Options(**base)
        return sdk.ClaudeAgentOptions(cli_path=DCL_BIN, **base)

    async def query(self, prompt: str, **kw: Any) -> List[Any]:
        """One prompt through ``query()``."""
        options = self.options(**kw)

        async def run() -> List[Any]:
            return [m async for m in self.api.query(prompt=prompt, options=options)]

        return await asyncio.wait_for(run(), TIMEOUT)

    async def client(self, prompts: List[str], **kw: Any) -> List[Any]:
        """Prompts one after another through ``dcl.Client`` / ``ClaudeSDKClient``, each
        turn read to its result."""
        options = self.options(**kw)
        cls = dcl.Client if self.in_process else sdk.ClaudeSDKClient

        async def run() -> List[Any]:
            out: List[Any] = []
            async with cls(options) as client:
                for prompt in prompts:
                    await client.query(prompt)
                    out.extend([m async for m in client.receive_response()])
            return out

        return await asyncio.wait_for(run(), TIMEOUT)


@pytest.fixture
def sides(tmp_path: Path) -> List[Side]:
    out = []
    for name, api, letter in (("in-process", dcl, "a"), ("subprocess", sdk, "b")):
        root = Path(os.path.realpath(tmp_path / letter))
        (root / "work").mkdir(parents=True)
        (root / "home").mkdir()
        out.append(Side(name, api, root, root / "work", root / "home"))
    return out


# --------------------------------------------------------------------------- normalising

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MSG_RE = re.compile(r"msg_mock_[0-9a-f]+")
WALL_CLOCK = {"duration_ms", "duration_api_ms"}


def _fields(module: ModuleType, name: str) -> Optional[set]:
    cls = getattr(module, name, None)
    if cls is None or not dataclasses.is_dataclass(cls):
        return None
    return {f.name for f in dataclasses.fields(cls)}


TRANSCRIPT_PATHS = {"transcript_path", "agent_transcript_path"}


class Normaliser:
    """Plain, comparable data from one side's messages (see the module docstring)."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.other = sdk if side.in_process else dcl
        self.ids: Dict[str, str] = {}
        self.dropped: List[Tuple[str, str, Any]] = []  # non-empty one-sided fields

    def _id(self, kind: str, value: str) -> str:
        return self.ids.setdefault(value, f"<{kind}:{sum(v.startswith(f'<{kind}:') for v in self.ids.values())}>")

    def text(self, s: str) -> str:
        for path, tag in ((self.side.cwd, "<cwd>"), (self.side.home, "<home>"), (self.side.root, "<tmp>")):
            s = s.replace(str(path), tag)
        s = UUID_RE.sub(lambda m: self._id("uuid", m.group(0)), s)
        return MSG_RE.sub(lambda m: self._id("msg", m.group(0)), s)

    def plain(self, obj: Any) -> Any:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            name = type(obj).__name__
            theirs = _fields(self.other, name)
            out: Dict[str, Any] = {"__class__": name}
            for f in dataclasses.fields(obj):
                value = getattr(obj, f.name)
                if f.name in WALL_CLOCK:
                    continue
                if theirs is not None and f.name not in theirs:
                    if value not in (None, [], {}):
                        self.dropped.append((name, f.name, value))
                    continue
                out[f.name] = self.plain(value)
            return out
        if isinstance(obj, dict):
            return {
                # Where a transcript lives differs by side by design (docs/protocol.md: an SDK-driven
                # CLI writes under the client home, an in-process binding under dcl home) and
                # names each side's own cwd: only its presence is compared.
                k: "<transcript>" if k in TRANSCRIPT_PATHS and isinstance(v, str) and v else self.plain(v)
                for k, v in obj.items()
                if k not in WALL_CLOCK
            }
        if isinstance(obj, (list, tuple)):
            return [self.plain(v) for v in obj]
        if isinstance(obj, str):
            return self.text(obj)
        return obj


def _block_summary(block: Dict[str, Any]) -> Tuple[Any, ...]:
    kind = block["__class__"]
    if kind == "TextBlock":
        return (kind, block["text"])
    if kind == "ThinkingBlock":
        return (kind, block["thinking"], block["signature"])
    if kind == "ToolUseBlock":
        return (kind, block["name"], block["input"])
    if kind == "ToolResultBlock":
        return (kind, block["content"], block["is_error"])
    return (kind,)


def summary(messages: List[Dict[str, Any]]) -> List[Tuple[Any, ...]]:
    """The fields the parity brief names, per message, from normalised messages."""
    out: List[Tuple[Any, ...]] = []
    for m in messages:
        kind = m["__class__"]
        if kind in ("AssistantMessage", "UserMessage"):
            content = m["content"]
            blocks = content if isinstance(content, str) else [_block_summary(b) for b in content]
            out.append((kind, blocks))
        elif kind == "SystemMessage":
            out.append((kind, m["subtype"]))
        elif kind == "ResultMessage":
            out.append(
                (kind, m["subtype"], m["is_error"], m["result"], m["num_turns"], m["permission_denials"])
            )
        elif kind == "StreamEvent":
            event = m["event"]
            detail = (event.get("delta") or event.get("content_block") or {}).get("type")
            out.append((kind, event.get("type"), detail))
        else:
            out.append((kind,))
    return out


def compare(sides: List[Side], results: List[List[Any]], extra: Optional[List[Any]] = None) -> None:
    """Asserts the two sides' messages (and ``extra`` per-side data) agree."""
    normalised = []
    for side, messages in zip(sides, results):
        norm = Normaliser(side)
        plain = [norm.plain(m) for m in messages]
        assert not norm.dropped, f"{side.name}: fields only its classes carry are set: {norm.dropped}"
        normalised.append((norm, plain))
    (n_in, a), (n_sub, b) = normalised
    assert summary(a) == summary(b)
    assert a == b
    if extra is not None:
        assert n_in.plain(extra[0]) == n_sub.plain(extra[1])


async def both(sides: List[Side], run: Callable[[Side], Any]) -> List[Any]:
    """Runs a scenario on each side, one after the other."""
    return [await run(side) for side in sides]


# --------------------------------------------------------------------------- scenarios


@pytest.mark.parametrize("system_prompt", [None, "You are the parity test's assistant."])
async def test_one_shot_text(sides: List[Side], system_prompt: Optional[str]) -> None:
    results = await both(sides, lambda s: s.query("say hi", system_prompt=system_prompt))
    compare(sides, results)
    assert [type(m).__name__ for m in results[0]] == ["SystemMessage", "AssistantMessage", "ResultMessage"]
    assert results[0][-1].result == "Hello from the fake model."


async def test_read_only_bash_turn(sides: List[Side]) -> None:
    results = await both(sides, lambda s: s.query("please FAKE_BASH"))
    compare(sides, results)
    tool_results = [
        b for m in results[0] if type(m).__name__ == "UserMessage" for b in m.content if hasattr(b, "tool_use_id")
    ]
    assert [(b.content, b.is_error) for b in tool_results] == [("hi", False)]


async def test_multi_turn_client(sides: List[Side]) -> None:
    results = await both(sides, lambda s: s.client(["hello", "please FAKE_BASH", "hello again"]))
    compare(sides, results)
    assert sum(type(m).__name__ == "ResultMessage" for m in results[0]) == 3


@pytest.mark.parametrize("decision", ["allow", "deny"])
async def test_can_use_tool_write(sides: List[Side], decision: str) -> None:
    asked: Dict[str, List[Any]] = {}

    async def run(side: Side) -> List[Any]:
        calls = asked.setdefault(side.name, [])

        async def can_use_tool(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
            calls.append(
                {
                    "tool_name": tool_name,
                    "input": tool_input,
                    "tool_use_id": context.tool_use_id,
                    "blocked_path": context.blocked_path,
                    "decision_reason": context.decision_reason,
                    "title": context.title,
                    "display_name": context.display_name,
                    "description": context.description,
                    "suggestions": [
                        s.to_dict() if hasattr(s, "to_dict") else dataclasses.asdict(s) for s in context.suggestions
                    ],
                }
            )
            if decision == "allow":
                return side.api.PermissionResultAllow()
            return side.api.PermissionResultDeny(message="not this file")

        return await side.client([f"FAKE_WRITE {side.cwd / 'out.txt'}"], can_use_tool=can_use_tool)

    results = await both(sides, run)
    compare(sides, results, extra=[asked[s.name] for s in sides])
    for side in sides:
        assert len(asked[side.name]) == 1 and asked[side.name][0]["tool_name"] == "Write"
        target = side.cwd / "out.txt"
        if decision == "allow":
            assert target.read_text() == "hello\n", side.name
        else:
            assert not target.exists(), side.name
    result = results[0][-1]
    assert result.subtype == "success"
    assert [d["tool_name"] for d in result.permission_denials] == ([] if decision == "allow" else ["Write"])


async def test_pre_tool_use_hook_denies_bash(sides: List[Side]) -> None:
    seen: Dict[str, List[Any]] = {}

    async def run(side: Side) -> List[Any]:
        calls = seen.setdefault(side.name, [])

        async def guard(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
            calls.append({"input": dict(hook_input), "tool_use_id": tool_use_id})
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no shell today",
                }
            }

        hooks = {"PreToolUse": [side.api.HookMatcher(matcher="Bash", hooks=[guard])]}
        return await side.client(["please FAKE_BASH"], hooks=hooks)

    results = await both(sides, run)
    compare(sides, results, extra=[seen[s.name] for s in sides])
    for side in sides:
        assert [c["input"]["tool_name"] for c in seen[side.name]] == ["Bash"], side.name
    blocks = [b for m in results[0] if type(m).__name__ == "UserMessage" for b in m.content]
    assert blocks[0].is_error and "no shell today" in str(blocks[0].content)


async def test_in_process_mcp_tool(sides: List[Side]) -> None:
    calls: Dict[str, List[Any]] = {}

    async def run(side: Side) -> List[Any]:
        seen = calls.setdefault(side.name, [])

        # dcl.tool on the in-process side, claude_agent_sdk.tool on the subprocess side.
        @side.api.tool("add", "Add two integers", {"a": int, "b": int})
        async def add(args: Dict[str, Any]) -> Dict[str, Any]:
            seen.append(dict(args))
            return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

        server = side.api.create_sdk_mcp_server("calc", "1.0.0", [add])
        return await side.query(
            'FAKE_TOOL mcp__calc__add {"a":2,"b":3}',
            mcp_servers={"calc": server},
            allowed_tools=["mcp__calc__add"],
        )

    results = await both(sides, run)
    compare(sides, results)
    assert calls == {s.name: [{"a": 2, "b": 3}] for s in sides}
    blocks = [b for m in results[0] if type(m).__name__ == "UserMessage" for b in m.content]
    assert not blocks[0].is_error and "5" in str(blocks[0].content)


async def test_partial_messages_thinking(sides: List[Side]) -> None:
    results = await both(sides, lambda s: s.query("FAKE_THINK", include_partial_messages=True))
    compare(sides, results)
    events = [m.event["type"] for m in results[0] if type(m).__name__ == "StreamEvent"]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert "content_block_delta" in events


async def test_user_settings_and_memory_from_home(sides: List[Side]) -> None:
    # HOME comes from options.env on both sides: the user settings allow Write (nobody
    # is asked) and the home CLAUDE.md joins the system prompt (same input tokens).
    for side in sides:
        (side.home / ".dcl").mkdir()
        (side.home / ".dcl" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Write"]}}))
        (side.home / "CLAUDE.md").write_text("Answer briefly. " * 40)
    results = await both(sides, lambda s: s.query(f"FAKE_WRITE {s.cwd / 'memo.txt'}"))
    compare(sides, results)
    for side in sides:
        assert (side.cwd / "memo.txt").read_text() == "hello\n", side.name
    baseline = await sides[0].query("FAKE_WRITE other.txt", env={"HOME": str(sides[0].root)})
    assert results[0][-1].usage["input_tokens"] > baseline[-1].usage["input_tokens"] + 100  # the memory file


@pytest.mark.parametrize(
    "prompt, options, subtype",
    [
        ("FAKE_ERR400", {}, "success"),  # an API error: is_error with subtype success
        ("please FAKE_BASH", {"max_turns": 1}, "error_max_turns"),
    ],
)
async def test_error_results(sides: List[Side], prompt: str, options: Dict[str, Any], subtype: str) -> None:
    # Both packages yield the error result, then raise their own ResultError (the
    # messages differ by design: "dcl returned an error result: ..." in-process, the
    # SDK's "Claude Code returned an error result: ... (exit code: 1)" after the CLI's
    # exit status); class name and subtype agree.
    raised: Dict[str, Tuple[str, Any]] = {}

    async def run(side: Side) -> List[Any]:
        out: List[Any] = []
        try:
            async for m in side.api.query(prompt=prompt, options=side.options(**options)):
                out.append(m)
        except Exception as e:  # noqa: BLE001 - compared below
            raised[side.name] = (type(e).__name__, getattr(e, "subtype", None))
        return out

    results = await both(sides, lambda s: asyncio.wait_for(run(s), TIMEOUT))
    compare(sides, results)
    assert raised == {s.name: ("ResultError", subtype) for s in sides}
    assert results[0][-1].is_error and results[0][-1].subtype == subtype
