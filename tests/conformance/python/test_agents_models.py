"""Issue 13 (agents and models) through the public API of both PyPI SDKs, each scenario
``[claude]``/``[qoder]`` unless the SDK lacks the feature:

  m. a subagent call: its lines carry ``parent_tool_use_id``; the SDK's
     ``list_subagents`` / ``get_subagent_messages`` read its transcript
  n. agents from initialize (also twenty large ones), from ``--agents`` and from the
     project's agents folder, listed in ``system/init`` and the initialize answer
  o. an ``AskUserQuestion`` answered by the host's ``can_use_tool``
  p. the model catalogue (Qoder ``get_available_models``, Claude ``get_server_info``)
  q. (Qoder) a ``resolve_model`` policy resolving model ``auto``, seen by a fake server
  r. ``MAX_THINKING_TOKENS`` in the environment turns thinking on, seen by a fake server
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import HELLO, within
from fake_anthropic import REPLY, fake_anthropic
from sdks import Sdk, inits, one_shot, only_result, sdk, text_of  # noqa: F401  (sdk is a fixture)


def tool_uses(sdk: Sdk, msgs: list[Any], name: str) -> list[tuple[Any, Any]]:
    """(message, block) for every ``name`` tool call in assistant messages."""
    return [
        (m, b)
        for m in msgs
        if isinstance(m, sdk.AssistantMessage)
        for b in m.content
        if isinstance(b, sdk.ToolUseBlock) and b.name == name
    ]


def tool_result_text(sdk: Sdk, msgs: list[Any], tool_use_id: str) -> str:
    for m in msgs:
        if isinstance(m, sdk.UserMessage) and isinstance(m.content, list):
            for b in m.content:
                if isinstance(b, sdk.ToolResultBlock) and b.tool_use_id == tool_use_id:
                    c = b.content
                    return c if isinstance(c, str) else json.dumps(c)
    raise AssertionError(f"no tool_result for {tool_use_id} in {msgs!r}")


# m. a subagent call --------------------------------------------------------


async def test_m_subagent_lines_and_transcript(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    call = {"description": "run it", "prompt": "please FAKE_BASH", "subagent_type": "general-purpose"}
    opts = sdk.options(dcl_bin, workdir, permission_mode="bypassPermissions")
    msgs = await one_shot(sdk, f"FAKE_TOOL Agent {json.dumps(call)}", opts, "a subagent call")
    r = only_result(sdk, msgs)
    assert r.subtype == "success", r

    [(parent_msg, agent_call)] = tool_uses(sdk, msgs, "Agent")
    assert parent_msg.parent_tool_use_id is None
    child = [m for m in msgs if getattr(m, "parent_tool_use_id", None) == agent_call.id]
    assert child, f"no message carries parent_tool_use_id={agent_call.id}: {msgs!r}"
    assert any(
        isinstance(b, sdk.ToolUseBlock) and b.name == "Bash"
        for m in child
        if isinstance(m, sdk.AssistantMessage)
        for b in m.content
    ), child
    assert tool_result_text(sdk, msgs, agent_call.id), "the subagent's final text is the tool result"

    agents = sdk.mod.list_subagents(r.session_id, directory=str(workdir))
    assert len(agents) == 1, agents
    transcript = sdk.mod.get_subagent_messages(r.session_id, agents[0], directory=str(workdir))
    kinds = [m.type for m in transcript]
    assert kinds and kinds[0] == "user" and "assistant" in kinds, kinds
    assert "FAKE_BASH" in json.dumps(transcript[0].message), transcript[0]


# n. agents from every source are listed --------------------------------------


async def test_n_agents_from_initialize_flag_and_files_are_listed(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    folder = workdir / (".claude" if sdk.name == "claude" else ".qoder") / "agents"
    folder.mkdir(parents=True)
    (folder / "filer.md").write_text(
        "---\nname: filer\ndescription: An agent from a file\ntools: Read\n---\nYou read files.\n"
    )
    big = "x" * 40_000  # twenty of these make an initialize line of about 800 KB
    agents = {f"big{i:02d}": sdk.AgentDefinition(description=f"large agent {i}", prompt=big) for i in range(20)}
    agents["rev"] = sdk.AgentDefinition(description="reviews", prompt="You review.", tools=["Read"])
    flag = {"flagged": {"description": "from --agents", "prompt": "You were flagged."}}
    opts = sdk.options(
        dcl_bin,
        workdir,
        agents=agents,
        extra_args={"agents": json.dumps(flag)},
        setting_sources=["project"],
    )
    client = sdk.client(opts)
    await within(client.connect(), "connect")
    try:
        info = await within(client.get_server_info(), "server info")
        await within(client.query("say hi"), "send")
        msgs = [m async for m in client.receive_response()]
    finally:
        await within(client.disconnect(), "disconnect")
    want = {"rev", "flagged", "filer", *(f"big{i:02d}" for i in range(20))}
    answered = {a["name"] for a in (info or {}).get("agents", [])}
    assert want <= answered, f"initialize answer lacks {want - answered}"
    # Qoder sends one init at initialize and one per turn; each lists every agent.
    assert inits(sdk, msgs), msgs
    for init in inits(sdk, msgs):
        listed = set(init.data.get("agents") or [])
        assert want <= listed, f"system/init lacks {want - listed}"
    assert only_result(sdk, msgs).result == HELLO


# o. AskUserQuestion answered by the host ----------------------------------


async def test_o_ask_user_question_answered_by_the_host(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    question = "Which colour?"
    ask = {
        "questions": [
            {
                "question": question,
                "header": "Colour",
                "options": [{"label": "Blue", "description": "cool"}, {"label": "Red", "description": "warm"}],
                "multiSelect": False,
            }
        ]
    }
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: Any) -> Any:
        asked.append((name, dict(tool_input)))
        return sdk.PermissionResultAllow(updated_input={**tool_input, "answers": {question: "Blue"}})

    opts = sdk.options(dcl_bin, workdir, can_use_tool=can_use_tool, permission_mode="default")
    msgs = await one_shot(sdk, f"FAKE_TOOL AskUserQuestion {json.dumps(ask)}", opts, "AskUserQuestion")
    assert [a[0] for a in asked] == ["AskUserQuestion"], asked
    assert asked[0][1]["questions"][0]["question"] == question
    [(_, call)] = tool_uses(sdk, msgs, "AskUserQuestion")
    text = tool_result_text(sdk, msgs, call.id)
    assert f'"{question}"="Blue"' in text, text
    assert only_result(sdk, msgs).subtype == "success"


# p. the model catalogue ----------------------------------------------------


async def test_p_model_catalogue(sdk: Sdk, dcl_bin: str, workdir: Path) -> None:
    client = sdk.client(sdk.options(dcl_bin, workdir))
    await within(client.connect(), "connect")
    try:
        info = await within(client.get_server_info(), "server info")
        listed = await within(client.get_available_models(), "get_models") if sdk.name == "qoder" else None
    finally:
        await within(client.disconnect(), "disconnect")
    models = {m["value"]: m for m in (info or {}).get("models", [])}
    assert "mock-model" in models and "sonnet" in models, models
    sonnet = models["sonnet"]
    assert sonnet["resolvedModel"].startswith("claude-sonnet"), sonnet
    assert sonnet["supportsEffort"] is True and "high" in sonnet["supportedEffortLevels"], sonnet
    assert models["mock-model"]["supportsEffort"] is False
    if sdk.name == "claude":
        return
    catalogue = {m["value"]: m for m in listed or []}
    assert {"auto", "mock-model", "sonnet", "opus", "haiku"} <= set(catalogue), catalogue
    assert catalogue["auto"]["isEnabled"] is True
    window = catalogue["sonnet"]["context_config"]
    assert window == {"200K": {"token_count": 200_000, "is_default": True}}, window
    thinking = catalogue["sonnet"]["thinking_config"]
    assert set(thinking["enabled"]["efforts"]) == {"low", "medium", "high", "max"}, thinking
    assert "enabled" not in catalogue["mock-model"]["thinking_config"]


# q. a Qoder model policy resolving auto ----------------------------------


async def test_q_qoder_model_policy_resolves_auto(dcl_bin: str, workdir: Path) -> None:
    import qoder_agent_sdk

    sdk = Sdk("qoder", qoder_agent_sdk)
    seen: list[dict[str, Any]] = []

    def resolve_model(ctx: Any) -> Any:
        seen.append(dict(ctx))
        return {"model": "haiku"}

    with fake_anthropic() as server:
        opts = sdk.options(dcl_bin, workdir, model="auto", env=server.env(), resolve_model=resolve_model)
        msgs = await one_shot(sdk, "hello", opts, "a turn under a model policy")
        bodies = server.requests()
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and r.result == REPLY, r
    assert len(seen) == 1, seen
    ctx = seen[0]
    assert ctx["purpose"] == "main", ctx
    assert ctx["resolvedModel"].startswith("claude-"), "auto resolves to the default model first"
    assert "auto" in {m["value"] for m in ctx["availableModels"]}, ctx
    assert [b["model"] for b in bodies] == ["claude-haiku-4-5"], bodies


# r. MAX_THINKING_TOKENS turns thinking on ------------------------------------


@pytest.mark.parametrize("budget", ["3000", None])
async def test_r_max_thinking_tokens_turns_thinking_on(
    sdk: Sdk, dcl_bin: str, workdir: Path, budget: str | None
) -> None:
    with fake_anthropic() as server:
        env = server.env()
        if budget:
            env["MAX_THINKING_TOKENS"] = budget
        opts = sdk.options(dcl_bin, workdir, model="claude-sonnet-4-5", env=env)
        msgs = await one_shot(sdk, "think about it", opts, "a turn on the fake server")
        bodies = server.requests()
    r = only_result(sdk, msgs)
    assert r.subtype == "success" and r.result == REPLY, r
    assert len(bodies) == 1, bodies
    if budget:
        assert bodies[0].get("thinking") == {"type": "enabled", "budget_tokens": 3000}, bodies[0]
    else:
        assert "thinking" not in bodies[0], bodies[0]
