"""Shared fixtures for the Python SDK conformance suite.

The suite drives the ``dcl`` binary through the unmodified PyPI SDKs
(``claude-agent-sdk``, ``qoder-agent-sdk``), both installed from their sdists so
that no bundled CLI exists. ``DCL_BIN`` names the binary (default:
``<repo>/target/debug/dcl``).

Every session's stream-json traffic is recorded by ``tests/conformance/trace-dcl.sh`` (the
SDKs' CLI path) under ``DCL_RECORD_DIR`` (default ``<repo>/tests/.work/recorded``) in
``python/``, cleared when the suite starts; ``tests/run-all.sh`` then validates every line dcl
wrote against the protocol schema. ``DCL_RECORD=0`` runs dcl directly instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterable, Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[3]

# Text the mock model answers to any prompt without a trigger word.
HELLO = "Hello from the fake model."
# What the mock model answers after a tool result.
DONE_RE = r"^Done\. The tool result had \d+ chars\.$"

# Upper bound for one scenario; dcl's mock answers in milliseconds, so this only
# turns a hang into a clear failure instead of stalling CI.
SCENARIO_TIMEOUT = float(os.environ.get("DCL_CONFORMANCE_TIMEOUT", "60"))

T = TypeVar("T")


def dcl_path() -> Path:
    return Path(os.environ.get("DCL_BIN") or REPO / "target" / "debug" / "dcl").resolve()


def recording_cli(real: Path) -> str:
    """The CLI path the SDKs get: the trace wrapper around ``real``, or ``real`` itself."""
    if os.environ.get("DCL_RECORD", "1") == "0":
        return str(real)
    root = Path(os.environ.get("DCL_RECORD_DIR") or REPO / "tests" / ".work" / "recorded")
    out = root / "python"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # The SDKs hand their environment to the child, so the wrapper finds these.
    os.environ["DCL_REAL_BIN"] = str(real)
    os.environ["DCL_TRACE_DIR"] = str(out)
    return str(REPO / "tests" / "conformance" / "trace-dcl.sh")


@pytest.fixture(scope="session")
def dcl_bin() -> str:
    path = dcl_path()
    assert path.is_file() and os.access(path, os.X_OK), (
        f"dcl binary not found at {path}: build it (cargo build) or set DCL_BIN"
    )
    # Same probe the SDKs run (2 s budget there); a slow or failing -v means
    # every SDK session would start with a warning or a delay.
    out = subprocess.run(
        [str(path), "-v"], capture_output=True, text=True, timeout=5, check=False
    )
    assert out.returncode == 0, f"dcl -v exited {out.returncode}: {out.stderr}"
    return recording_cli(path)


@pytest.fixture(scope="session", autouse=True)
def scratch_home() -> Iterator[Path]:
    """One scratch HOME (and config dirs) for the whole test session.

    The SDKs pass their own environment to the child, so setting it here keeps
    dcl away from the real user's settings, sessions and credentials.
    """
    with tempfile.TemporaryDirectory(prefix="dcl-conf-home-") as home:
        mp = pytest.MonkeyPatch()
        mp.setenv("HOME", home)
        mp.setenv("XDG_CONFIG_HOME", os.path.join(home, ".config"))
        mp.setenv("XDG_DATA_HOME", os.path.join(home, ".local", "share"))
        # No real credentials should ever reach the mock-model runs.
        for var in (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CONFIG_DIR",
            "QODER_CONFIG_DIR",
            "QODERCLI_PATH",
            "QODER_PERSONAL_ACCESS_TOKEN",
            "CLAUDECODE",
            "CLAUDE_CODE_ENTRYPOINT",
            "QODER_AGENT_SDK_ENTRYPOINT",
        ):
            mp.delenv(var, raising=False)
        try:
            yield Path(home)
        finally:
            mp.undo()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A fresh, empty working directory per test (the session cwd)."""
    d = tmp_path / "work"
    d.mkdir()
    return d


async def within(aw: Awaitable[T], what: str, timeout: float = SCENARIO_TIMEOUT) -> T:
    try:
        return await asyncio.wait_for(aw, timeout)
    except asyncio.TimeoutError:
        pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


async def collect(stream: AsyncIterable[Any]) -> list[Any]:
    return [m async for m in stream]


def bundled_cli_files(package: str, names: tuple[str, ...]) -> list[Path]:
    """Files named like a bundled CLI inside ``<package>/_bundled``."""
    import importlib

    mod = importlib.import_module(package)
    bundled = Path(mod.__file__).resolve().parent / "_bundled"
    if not bundled.exists():
        return []
    return [p for p in bundled.iterdir() if p.name in names or p.stat().st_size > 1 << 20]
