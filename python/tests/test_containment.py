"""Containment in-process: when the Python host running a dcl session is SIGKILLed, the
session's tool processes (however they detached) die with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

HOST = r"""
import asyncio, json, sys
import dcl

async def main():
    cwd, background, foreground = sys.argv[1], sys.argv[2], sys.argv[3]
    async def prompts():
        for command, bg in ((background, True), (foreground, False)):
            tool = {"command": command, "run_in_background": bg}
            yield {"type": "user", "message": {"role": "user",
                   "content": "FAKE_TOOL Bash " + json.dumps(tool)}}
    options = dcl.Options(model="mock-model", cwd=cwd, permission_mode="bypassPermissions")
    async for m in dcl.query(prompt=prompts(), options=options):
        print(type(m).__name__, flush=True)

asyncio.run(main())
"""


def survivors(marker: str, exact: bool = False) -> List[int]:
    """PIDs whose argv contains ``marker`` (``exact``: that are ``sleep <marker>``)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if (cmdline == f"sleep {marker} ") if exact else (marker in cmdline):
            out.append(int(name))
    return out


def wait_for(marker: str, pred, limit: float, exact: bool = False) -> List[int]:
    end = time.monotonic() + limit
    while True:
        left = survivors(marker, exact)
        if pred(len(left)) or time.monotonic() > end:
            return left
        time.sleep(0.05)


def namespaces_available() -> bool:
    probe = subprocess.run(["unshare", "-Urpf", "--mount-proc", "true"], capture_output=True)
    return probe.returncode == 0


def test_killed_host_leaves_no_tool_process(tmp_path: Path) -> None:
    if not namespaces_available():
        pytest.skip("user/PID namespaces are unavailable here: setsid'd processes can escape")
    m = f"1000.{os.getpid()}77"
    detach = (
        f"nohup sleep {m} >/dev/null 2>&1 & setsid sleep {m} >/dev/null 2>&1 & "
        f"(sleep {m} &) >/dev/null 2>&1; bash -c '(sleep {m} &) &' >/dev/null 2>&1"
    )
    background = f"setsid sleep {m} >/dev/null 2>&1 & {detach}; sleep {m}"
    foreground = f"{detach}; sleep {m}"
    work = tmp_path / "work"
    work.mkdir()
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(work), background, foreground],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # Six sleeps of the background shell, five of the running foreground call.
        running = wait_for(m, lambda n: n >= 11, 30, exact=True)
        time.sleep(0.1)
        assert len(survivors(m, exact=True)) == 11, (running, host.poll())
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        left = wait_for(m, lambda n: n == 0, 5)
        assert left == [], f"survivors after the host was killed: {left}"
    finally:
        for pid in survivors(m):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if host.poll() is None:
            host.kill()


async def test_session_end_in_process_ends_lingering_processes(workdir: Path) -> None:
    if not namespaces_available():
        pytest.skip("user/PID namespaces are unavailable here")
    import dcl

    m = f"1000.{os.getpid()}78"
    calls = [
        # A daemon with redirected output lives on after its call…
        ({"command": f"setsid nohup sleep {m} >/dev/null 2>&1 & echo started"}, False),
        # …and a background shell that ran setsid.
        ({"command": f"setsid sleep {m} >/dev/null 2>&1 & sleep {m}", "run_in_background": True}, True),
    ]

    import asyncio

    checked = asyncio.Event()

    async def prompts():
        for tool, _ in calls:
            yield {"type": "user", "message": {"role": "user",
                   "content": "FAKE_TOOL Bash " + json.dumps(tool)}}
        # The input stays open (the session alive) until the processes were counted.
        await checked.wait()

    options = dcl.Options(model="mock-model", cwd=str(workdir), permission_mode="bypassPermissions")
    results = 0
    during: List[int] = []
    try:
        async for message in dcl.query(prompt=prompts(), options=options):
            if isinstance(message, dcl.ResultMessage):
                results += 1
                if results == len(calls):
                    during = wait_for(m, lambda n: n >= 3, 10, exact=True)
                    checked.set()
        assert len(during) == 3, f"the daemon and the background shell ran: {during}"
        # The session is over; the processes it left must be gone with it.
        left = wait_for(m, lambda n: n == 0, 5)
        assert left == [], f"survivors after the session ended: {left}"
    finally:
        for pid in survivors(m):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
