"""Shared fixtures: every test runs dcl in-process on the built-in mock model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import dcl

MOCK = "mock-model"

# The suite runs twice in CI: in process, and with DCL_CLI_PATH naming the dcl binary, so
# every session runs in a dcl child driven by the same Rust host. Tests of what only an
# in-process session is (its descriptor count, the shape of the native objects) say so.
in_process_only = pytest.mark.skipif(
    bool(os.environ.get("DCL_CLI_PATH")),
    reason="measures the in-process session itself (DCL_CLI_PATH runs sessions in a dcl child)",
)


@pytest.fixture(autouse=True)
def _temporary_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Transcripts go under a temporary HOME, never the runner's ~/.dcl or ~/.claude."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for var in ("DCL_CONFIG_DIR", "CLAUDE_CONFIG_DIR", "QODER_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A fresh working directory for one session (resolved: no symlinks)."""
    d = tmp_path / "work"
    d.mkdir()
    return Path(os.path.realpath(d))


def opts(workdir: Path, **kw: Any) -> dcl.Options:
    """Options on the mock model in ``workdir``."""
    return dcl.Options(model=MOCK, cwd=str(workdir), **kw)


def of_type(messages: List[Any], cls: type) -> List[Any]:
    return [m for m in messages if isinstance(m, cls)]


def tool_results(messages: List[Any]) -> List[dcl.ToolResultBlock]:
    out: List[dcl.ToolResultBlock] = []
    for m in of_type(messages, dcl.UserMessage):
        if isinstance(m.content, list):
            out.extend(b for b in m.content if isinstance(b, dcl.ToolResultBlock))
    return out


def text_of(messages: List[Any]) -> str:
    return "".join(
        b.text for m in of_type(messages, dcl.AssistantMessage) for b in m.content if isinstance(b, dcl.TextBlock)
    )


def init_data(messages: List[Any]) -> Dict[str, Any]:
    inits = [m for m in of_type(messages, dcl.SystemMessage) if m.subtype == "init"]
    assert inits, "no system/init message"
    return inits[0].data
