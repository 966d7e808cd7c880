"""dcl's session stores through the Python binding, against the SDKs' own conformance
suites: claude-agent-sdk's ``run_session_store_conformance`` and qoder-agent-sdk's, on a
real Postgres and redis-server started on 127.0.0.1 in temp dirs (and on a folder).

Without the server binaries the server cases skip with a loud message, except under
CI=true, where they fail (.ci/run installs them).
"""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path

import pytest

from db_servers import missing, postgres_url, redis_url  # noqa: F401 (fixtures)
from dcl.store import DclSessionStore


def _qoder_conformance():
    """qoder-agent-sdk's suite: from this environment, else from the conformance venv
    tests/setup.sh builds (tests/.work/venv), which has both SDKs."""
    try:
        return importlib.import_module("qoder_agent_sdk.testing").run_session_store_conformance
    except ImportError:
        root = Path(__file__).resolve().parents[2]
        for site in (root / "tests/.work/venv/lib").glob("python3*/site-packages"):
            sys.path.append(str(site))
        try:
            return importlib.import_module("qoder_agent_sdk.testing").run_session_store_conformance
        except ImportError:
            missing("qoder-agent-sdk (run bash tests/setup.sh)")


def _fresh(base: str, param: str):
    """A store per call, isolated by its own table or key prefix."""

    def make() -> DclSessionStore:
        sep = "&" if "?" in base else "?"
        return DclSessionStore(f"{base}{sep}{param}=t{uuid.uuid4().hex[:12]}")

    return make


def _fresh_folder(tmp_path: Path):
    def make() -> DclSessionStore:
        return DclSessionStore(f"file:{tmp_path / uuid.uuid4().hex}")

    return make


@pytest.mark.asyncio
async def test_claude_conformance_on_postgres(postgres_url: str) -> None:
    from claude_agent_sdk.testing import run_session_store_conformance

    await run_session_store_conformance(_fresh(postgres_url, "table"))


@pytest.mark.asyncio
async def test_claude_conformance_on_redis(redis_url: str) -> None:
    from claude_agent_sdk.testing import run_session_store_conformance

    await run_session_store_conformance(_fresh(redis_url, "prefix"))


@pytest.mark.asyncio
async def test_claude_conformance_on_a_folder(tmp_path: Path) -> None:
    from claude_agent_sdk.testing import run_session_store_conformance

    await run_session_store_conformance(_fresh_folder(tmp_path))


@pytest.mark.asyncio
async def test_qoder_conformance_on_postgres(postgres_url: str) -> None:
    await _qoder_conformance()(_fresh(postgres_url, "table"))


@pytest.mark.asyncio
async def test_qoder_conformance_on_redis(redis_url: str) -> None:
    await _qoder_conformance()(_fresh(redis_url, "prefix"))


@pytest.mark.asyncio
async def test_a_retried_batch_is_stored_once(redis_url: str) -> None:
    store = _fresh(redis_url, "prefix")()
    key = {"project_key": "p", "session_id": "s"}
    batch = [{"type": "user", "uuid": "u1"}, {"type": "assistant", "uuid": "u2"}]
    await store.append(key, batch)
    await store.append(key, batch)
    assert await store.load(key) == batch
