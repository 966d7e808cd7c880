#!/usr/bin/env python3
"""Start-up of several dcl binaries, interleaved so machine load hits them alike.

For each binary: `dcl -v` to exit, `dcl -p "say hi" --output-format json --model
mock-model` to exit, and the session an SDK opens (`stream`: stream-json, `initialize`, wait
for its answer, one user line, spawn to `result`); rounds alternate between the binaries;
prints the median and the 10th percentile of each (milliseconds), the file size, the
`stream` median over the `-v` median (issue 19's "within 2x of -v"), and the `stream`
session's own CPU time and minor page faults (medians, from `wait4`).

    python3 scripts/startup-compare.py [--rounds 60] NAME=path/to/dcl ...
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def once(exe: str, args: list[str], home: str) -> float:
    env = {"PATH": "/usr/bin:/bin", "HOME": home}
    t0 = time.perf_counter()
    r = subprocess.run([exe, *args], env=env, cwd=home, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{exe} {args} exited {r.returncode}")
    return dt * 1000


INIT = b'{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}\n'
USER = b'{"type":"user","message":{"role":"user","content":"say hi"}}\n'


def stream_session(exe: str, home: str) -> tuple[float, float, int]:
    """Spawn to the `result` line of an SDK-style session (`initialize`, its answer, a
    turn) in ms, and the session's CPU time (ms) and minor page faults."""
    env = {"PATH": "/usr/bin:/bin", "HOME": home}
    t0 = time.perf_counter()
    p = subprocess.Popen([exe, "--input-format", "stream-json", "--output-format", "stream-json",
                          "--verbose", "--model", "mock-model"], env=env, cwd=home,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(INIT)
    p.stdin.flush()
    dt = None
    sent = False
    for line in p.stdout:
        if b'"control_response"' in line and not sent:
            sent = True
            p.stdin.write(USER)
            p.stdin.flush()
        elif line.startswith(b'{"type":"result"'):
            dt = time.perf_counter() - t0
            p.stdin.close()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0 or dt is None:
        sys.exit(f"{exe}: the stream-json session ended without a result")
    return dt * 1000, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_minflt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("binaries", nargs="+", help="NAME=path")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.binaries]
    cases = {"-v": ["-v"], "-p json": ["-p", "say hi", "--output-format", "json", "--model", "mock-model"]}
    names = [*cases, "stream"]
    times = {(n, c): [] for n, _ in bins for c in names}
    cost = {n: ([], []) for n, _ in bins}  # the stream session's CPU ms and page faults

    def take(exe: str, c: str) -> tuple[float, float, int]:
        # A fresh HOME each time: a session writes its transcript under it.
        with tempfile.TemporaryDirectory() as home:
            if c == "stream":
                return stream_session(exe, home)
            return once(exe, cases[c], home), 0.0, 0

    for _ in range(3):  # warm-up: page cache
        for _, exe in bins:
            for c in names:
                take(exe, c)
    for _ in range(a.rounds):
        for n, exe in bins:
            for c in names:
                dt, cpu, faults = take(exe, c)
                times[(n, c)].append(dt)
                if c == "stream":
                    cost[n][0].append(cpu)
                    cost[n][1].append(faults)
    print(f"{'binary':<22} {'size':>8}  " + "  ".join(f"{c + ' median/p10 ms':>24}" for c in names)
          + "  stream/-v  stream CPU ms  faults")
    for n, exe in bins:
        cols = []
        for c in names:
            t = sorted(times[(n, c)])
            cols.append(f"{statistics.median(t):>14.2f} / {t[len(t) // 10]:>6.2f}")
        ratio = statistics.median(times[(n, "stream")]) / statistics.median(times[(n, "-v")])
        print(f"{n:<22} {os.path.getsize(exe) / 1e6:>6.1f}MB  " + "  ".join(f"{x:>24}" for x in cols)
              + f"  {ratio:>9.2f}  {statistics.median(cost[n][0]):>13.2f}"
              + f"  {statistics.median(cost[n][1]):>6.0f}")
    print(f"({a.rounds} interleaved rounds, load average {os.getloadavg()[0]:.1f})")


main()
