#!/usr/bin/env python3
"""Times dcl the way reference-cli/bench.txt timed the reference CLI: `-v`, scenario `a`
(stream-json: initialize, one user message, result, stdin closed) and `-p --output-format
json`, each 5 runs after 1 warm-up, fresh HOME per run; prints medians as JSON.

Usage: python3 tests/bench/startup.py [path/to/dcl]   (default target/release/dcl)
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DCL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "dcl")
RUNS = 5


def spawn(args: list[str], home: str, cwd: str) -> subprocess.Popen:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": home}
    return subprocess.Popen([DCL, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=cwd)


def wait_rusage(p: subprocess.Popen) -> tuple[float, int]:
    """CPU seconds and peak RSS (KB) of the exited child."""
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def version() -> dict:
    with tempfile.TemporaryDirectory() as home:
        t0 = time.perf_counter()
        p = spawn(["-v"], home, home)
        p.stdout.read()
        cpu, rss = wait_rusage(p)
        return {"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu}


def a_stream_json() -> dict:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        p = spawn(["--input-format", "stream-json", "--output-format", "stream-json",
                   "--model", "mock-model"], home, cwd)
        p.stdin.write(b'{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}\n')
        p.stdin.flush()
        out: dict = {}
        for raw in p.stdout:
            msg = json.loads(raw)
            if msg.get("type") == "control_response" and "t_init_response_s" not in out:
                out["t_init_response_s"] = time.perf_counter() - t0
                p.stdin.write(b'{"type":"user","message":{"role":"user","content":"say hi"}}\n')
                p.stdin.flush()
            elif msg.get("type") == "result":
                out["t_result_s"] = time.perf_counter() - t0
                p.stdin.close()
        cpu, rss = wait_rusage(p)
        out.update({"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu})
        return out


def print_json() -> dict:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        p = spawn(["-p", "say hi", "--output-format", "json", "--model", "mock-model"], home, cwd)
        p.stdin.close()
        p.stdout.read()
        cpu, rss = wait_rusage(p)
        return {"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu}


def medians(fn) -> dict:
    fn()  # warm-up
    runs = [fn() for _ in range(RUNS)]
    return {k: round(statistics.median(r[k] for r in runs), 4) for k in runs[0]}


if __name__ == "__main__":
    print(json.dumps({"binary": DCL, "version": medians(version),
                      "a_stream_json": medians(a_stream_json),
                      "print_json": medians(print_json)}, indent=1))
