"""Postgres and redis-server for the session-store tests, started on 127.0.0.1 in temp
dirs and stopped after the module (Postgres through ``initdb`` as an unprivileged user when
run as root). Without the server binaries a test using them skips with a loud message,
except under CI=true, where it fails (.ci/run installs them).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing(what: str) -> None:
    msg = f"*** {what} is not installed: session store tests SKIPPED ***"
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
        missing("Postgres")
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
        missing("redis-server")
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
