"""The two PyPI SDKs behind one adapter, so every scenario runs once per SDK
(``[claude]`` = ``claude-agent-sdk``, ``[qoder]`` = ``qoder-agent-sdk``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import claude_agent_sdk
import pytest
import qoder_agent_sdk
from conftest import collect, within

QODER_DUMMY_TOKEN = "dcl-conformance-dummy-token"


@dataclass
class Sdk:
    name: str
    mod: ModuleType  # the package: message types, HookMatcher, tool, ... are re-exported there

    def options(self, dcl_bin: str, cwd: Path, model: str = "mock-model", **kw: Any) -> Any:
        if self.name == "claude":
            return self.mod.ClaudeAgentOptions(
                cli_path=dcl_bin, model=model, cwd=str(cwd), **kw
            )
        return self.mod.QoderAgentOptions(
            cli_path=dcl_bin,
            auth=self.mod.access_token(QODER_DUMMY_TOKEN),
            model=model,
            cwd=str(cwd),
            **kw,
        )

    def client(self, opts: Any) -> Any:
        cls = self.mod.ClaudeSDKClient if self.name == "claude" else self.mod.QoderSDKClient
        return cls(options=opts)

    def __getattr__(self, attr: str) -> Any:  # sdk.ResultMessage, sdk.HookMatcher, ...
        return getattr(self.mod, attr)


@pytest.fixture(params=["claude", "qoder"])
def sdk(request: pytest.FixtureRequest) -> Sdk:
    return Sdk(request.param, claude_agent_sdk if request.param == "claude" else qoder_agent_sdk)


def results(sdk: Sdk, msgs: list[Any]) -> list[Any]:
    return [m for m in msgs if isinstance(m, sdk.ResultMessage)]


def only_result(sdk: Sdk, msgs: list[Any]) -> Any:
    res = results(sdk, msgs)
    assert len(res) == 1, f"expected one ResultMessage, got {msgs!r}"
    return res[0]


def inits(sdk: Sdk, msgs: list[Any]) -> list[Any]:
    return [m for m in msgs if isinstance(m, sdk.SystemMessage) and m.subtype == "init"]


def text_of(sdk: Sdk, msg: Any) -> str:
    return "".join(b.text for b in msg.content if isinstance(b, sdk.TextBlock))


async def one_shot(sdk: Sdk, prompt: str, opts: Any, what: str) -> list[Any]:
    return await within(collect(sdk.query(prompt=prompt, options=opts)), what)


async def turn(client: Any, prompt: str, what: str) -> list[Any]:
    await within(client.query(prompt), f"sending {what}")
    return await within(collect(client.receive_response()), what)


