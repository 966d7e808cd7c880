#!/usr/bin/env python3
"""Start-up of several dcl binaries, interleaved so machine load hits them alike.

For each binary: `dcl -v` to exit, and `dcl -p "say hi" --output-format json --model
mock-model` to exit, in a fresh HOME; rounds alternate between the binaries; prints the
median and the 10th percentile of each (milliseconds) and the file size.

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("binaries", nargs="+", help="NAME=path")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.binaries]
    cases = {"-v": ["-v"], "-p json": ["-p", "say hi", "--output-format", "json", "--model", "mock-model"]}
    times = {(n, c): [] for n, _ in bins for c in cases}
    with tempfile.TemporaryDirectory() as home:
        for _ in range(3):  # warm-up: page cache
            for _, exe in bins:
                for args in cases.values():
                    once(exe, args, home)
        for _ in range(a.rounds):
            for n, exe in bins:
                for c, args in cases.items():
                    times[(n, c)].append(once(exe, args, home))
    print(f"{'binary':<22} {'size':>8}  " + "  ".join(f"{c + ' median/p10 ms':>24}" for c in cases))
    for n, exe in bins:
        cols = []
        for c in cases:
            t = sorted(times[(n, c)])
            cols.append(f"{statistics.median(t):>14.2f} / {t[len(t) // 10]:>6.2f}")
        print(f"{n:<22} {os.path.getsize(exe) / 1e6:>6.1f}MB  " + "  ".join(f"{x:>24}" for x in cols))
    print(f"({a.rounds} interleaved rounds, load average {os.getloadavg()[0]:.1f})")


main()
