"""dcl's session stores through the Python binding, against the SDKs' own conformance
suites: claude-agent-sdk's ``run_session_store_conformance`` and qoder-agent-sdk's, on a
real Postgres and redis-server started on 127.0.0.1 in temp dirs (and on a folder).

Without the server binaries the server cases skip with a loud message, except under
CI=true, where they fail (.ci/run installs them).
"""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator, Optional

import pytest

from dcl.store import DclSessionStore


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing(what: str) -> None:
    msg = f"*** {what} is not installed: session store conformance SKIPPED ***"
    if os.environ.get("CI") == "true":
        pytest.fail(msg + " (CI=true: refusing to skip)")
    print(msg, file=sys.stderr)
    pytest.skip(msg)


def _find(name: str) -> Optional[str]:
    found = shutil.which(name)
    if found:
        return found
    for d in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (d / name).is_file():
            return str(d / name)
    return None


def _wait(port: int, proc: subprocess.Popen) -> None:
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            time.sleep(0.3)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server on {port}")


def _as_db_user(cmd: list) -> list:
    # Postgres refuses to run as root.
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    initdb, postgres = _find("initdb"), _find("postgres")
    if not (initdb and postgres):
        _missing("Postgres")
    d = tempfile.mkdtemp(prefix="dcl-pypg-")
    if os.geteuid() == 0:
        shutil.chown(d, "nobody")
    subprocess.run(
        _as_db_user([initdb, "-U", "dcl", "--auth=trust", "--no-sync", "-D", f"{d}/data"]),
        check=True,
        capture_output=True,
    )
    port = _free_port()
    proc = subprocess.Popen(
        _as_db_user([postgres, "-D", f"{d}/data", "-p", str(port), "-h", "127.0.0.1", "-k", d, "-c", "fsync=off"]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(port, proc)
        yield f"postgres://dcl@127.0.0.1:{port}/postgres?sslmode=disable"
    finally:
        pid = Path(d, "data", "postmaster.pid")
        if pid.exists():
            subprocess.run(["kill", "-INT", pid.read_text().split()[0]], check=False)
        proc.wait(timeout=30)
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    server = _find("redis-server")
    if not server:
        _missing("redis-server")
    d = tempfile.mkdtemp(prefix="dcl-pyredis-")
    port = _free_port()
    proc = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", d],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(port, proc)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(d, ignore_errors=True)


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
            _missing("qoder-agent-sdk (run bash tests/setup.sh)")


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
