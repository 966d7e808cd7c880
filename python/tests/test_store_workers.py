"""Sessions across machines through the Python binding: two workers, each its own process
with its own HOME (two machines), share one Postgres or Redis. Worker A runs turn 1 in
process; worker B, with no local copy, resumes A's session id from the store and runs
turn 2, and its model request carries turn 1. The model is a fake Anthropic endpoint that
records every request (fake_model.py); the workers are store_worker.py.

Under DCL_CLI_PATH (CI's second run) the workers' sessions run in a dcl child driven by
the same binding, and the same assertions hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from db_servers import postgres_url, redis_url  # noqa: F401 (fixtures)
from dcl.store import DclSessionStore
from fake_model import FakeModel, request_text

WORKER = Path(__file__).with_name("store_worker.py")


class Cluster:
    """One project folder (the same path on every machine) and a HOME per worker."""

    def __init__(self, root: Path, model: FakeModel, store: str) -> None:
        self.root = Path(os.path.realpath(root))
        self.cwd = self.root / "repo"
        self.cwd.mkdir()
        self.model = model
        self.store = store

    def home(self, worker: str) -> Path:
        h = self.root / worker
        h.mkdir(exist_ok=True)
        return h

    def run(self, worker: str, prompt: str, resume: Optional[str] = None) -> Dict[str, Any]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "DCL_MODEL"))}
        for var in ("DCL_CONFIG_DIR", "CLAUDE_CONFIG_DIR", "QODER_CONFIG_DIR"):
            env.pop(var, None)
        env["HOME"] = str(self.home(worker))
        env["DCL_RETRY_BASE_MS"] = "1"
        args = {
            "cwd": str(self.cwd),
            "base_url": self.model.base_url,
            "store": self.store,
            "prompt": prompt,
            "resume": resume,
        }
        out = subprocess.run(
            [sys.executable, str(WORKER), json.dumps(args)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, f"worker {worker} failed:\n{out.stdout}\n{out.stderr}"
        return json.loads(out.stdout.strip().splitlines()[-1])

    def transcript(self, worker: str, session_id: str) -> Path:
        found = list((self.home(worker) / ".dcl" / "projects").glob(f"*/{session_id}.jsonl"))
        assert len(found) == 1, f"worker {worker}: transcripts of {session_id}: {found}"
        return found[0]


async def _stored(url: str, project_key: str, session_id: str) -> List[Dict[str, Any]]:
    return await DclSessionStore(url).load({"project_key": project_key, "session_id": session_id}) or []


def _assert_one_chain(entries: List[Dict[str, Any]]) -> None:
    seen = set()
    for e in entries:
        parent = e.get("parentUuid")
        assert parent is None or parent in seen, f"parent {parent} not before its child"
        if e.get("uuid"):
            assert e["uuid"] not in seen, f"uuid {e['uuid']} twice"
            seen.add(e["uuid"])


async def _two_workers(tmp_path: Path, url: str) -> None:
    with FakeModel() as model:
        cluster = Cluster(tmp_path, model, url)
        r1 = cluster.run("a", "remember the word walrus")
        assert r1["subtype"] == "success", r1
        sid = r1["session_id"]
        local_a = cluster.transcript("a", sid)
        project_key = local_a.parent.name
        after_a = await _stored(url, project_key, sid)
        assert len(after_a) == len(local_a.read_text().splitlines()), "worker A's transcript is not all in the store"

        assert not (cluster.home("b") / ".dcl").exists()
        r2 = cluster.run("b", "which word?", resume=sid)
        assert r2["subtype"] == "success", r2
        assert r2["session_id"] == sid
        turn2 = [request_text(b) for b in model.bodies if "which word?" in request_text(b)]
        assert turn2, f"no request of turn 2 among {len(model.bodies)}"
        assert "walrus" in turn2[-1], f"turn 1 missing from worker B's request: {turn2[-1]}"

        after_b = await _stored(url, project_key, sid)
        assert len(after_b) > len(after_a)
        _assert_one_chain(after_b)
        local_b = cluster.transcript("b", sid).read_text()
        assert "walrus" in local_b and "which word?" in local_b


@pytest.mark.asyncio
async def test_two_workers_share_a_session_through_postgres(tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    await _two_workers(tmp_path, f"{postgres_url}&table=w{uuid.uuid4().hex[:12]}")


@pytest.mark.asyncio
async def test_two_workers_share_a_session_through_redis(tmp_path: Path, redis_url: str) -> None:  # noqa: F811
    await _two_workers(tmp_path, f"{redis_url}?prefix=w{uuid.uuid4().hex[:12]}")
