#!/usr/bin/env python3
"""Many concurrent in-process sessions in one Python process (``import dcl``), on the mock
model: what an idle session costs (memory, descriptors) and how many turns per second the
process serves when every session runs turns at once.

Steps, in one fresh interpreter (the issue's shape: all open, one turn each, then one more
turn on all at once):

  1. one warm-up client (the tokio runtime, the extension, the loop's waker start);
  2. open ``--sessions`` clients (``dcl.Client.connect``: session opened, ``initialize``
     answered) and leave them idle; sample VmRSS and the open descriptors by kind;
  3. ``--turns`` bursts: in each, every client runs one turn (``"hello"``) at once; turns
     per second over the wall time of the burst, and each thread's CPU per turn (the
     Python thread against the runtime's workers: which side is the limit); sample again
     after each burst. The last burst is the "one more turn on all at once" figure.

``--cli-path <dcl>`` runs every session in a ``dcl`` child through the same Rust host (the
subprocess transport); the children's memory is added as PSS (``/proc/<pid>/smaps_rollup``)
so shared pages count once.

``--allocators`` adds, at each sample, what each allocator holds: glibc's heap
(``mallinfo2``: the Rust side, and Python's objects over 512 bytes) and pymalloc's arenas
(``sys._debugmallocstats``: Python's small objects), in use and in total, so memory an
allocator keeps after a burst shows apart from memory that is held.

If opening fails, the failure and the count reached are reported and the last 100
sessions are closed. Descriptors are counted by kind. Usage (the venv of python/ci.sh)::

    tests/.work/pyenv/bin/python tests/bench/python_sessions.py --sessions 10000 --turns 2 [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import re
import resource
import sys
import tempfile
import time
from typing import Any, Dict, List

import dcl


def threads() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def thread_cpu() -> Dict[str, float]:
    """CPU seconds (user + system) of each of this process's threads, by ``name:tid``."""
    tick = os.sysconf("SC_CLK_TCK")
    out: Dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:  # the thread ended meanwhile
            continue
        out[f"{name}:{tid}"] = (int(fields[11]) + int(fields[12])) / tick
    return out


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def children_pss_kib() -> int:
    """PSS of this process's children (the dcl processes of the subprocess transport)."""
    total = 0
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
            if ppid != me:
                continue
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def fds() -> Dict[str, int]:
    kinds: Dict[str, int] = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if ":" in target:
            kind = target.split(":")[0]
        elif target.endswith(".jsonl"):
            kind = "transcript"
        else:
            kind = "file"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
    ]


def allocators() -> Dict[str, float]:
    """MiB held by glibc malloc (heap in total, in use) and by pymalloc (arenas, blocks in use)."""
    mib = 1 << 20
    out: Dict[str, float] = {}
    try:
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
        out["glibc_heap_mib"] = round((m.arena + m.hblkhd) / mib, 1)
        out["glibc_in_use_mib"] = round((m.uordblks + m.hblkhd) / mib, 1)
    except (OSError, AttributeError):  # not glibc
        pass
    # _debugmallocstats writes to the C-level stderr: read it back through a temporary file.
    with tempfile.TemporaryFile() as f:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read().decode(errors="replace")
    for key, pattern in (
        ("pymalloc_arenas_mib", r"\d+ arenas \* \d+ bytes/arena\s*=\s*([\d,]+)"),
        ("pymalloc_in_use_mib", r"# bytes in allocated blocks\s*=\s*([\d,]+)"),
    ):
        found = re.search(pattern, text)
        if found:
            out[key] = round(int(found.group(1).replace(",", "")) / mib, 1)
    return out


class Reserve:
    """Descriptors held back from the start, so the figures can still be read (reading
    /proc takes descriptors) when sessions have used up the process's limit."""

    def __init__(self, n: int = 8) -> None:
        self.fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(n)]

    def sample(self) -> "tuple[int, Dict[str, int]]":
        for fd in self.fds:
            os.close(fd)
        try:
            kinds = fds()
            kinds["file"] = kinds.get("file", 0) + len(self.fds)  # counted as if still held
            return rss_kib(), kinds
        finally:
            self.fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(len(self.fds))]


async def run(
    n: int, turns: int, persist: bool, cli_path: "str | None", hold: bool = False, by_allocator: bool = False
) -> Dict[str, Any]:
    home = tempfile.mkdtemp(prefix="dcl-bench-home-")
    cwd = tempfile.mkdtemp(prefix="dcl-bench-cwd-")
    os.environ["HOME"] = home

    def options() -> dcl.Options:
        return dcl.Options(model="mock-model", cwd=cwd, persist_session=persist, cli_path=cli_path)

    warm = dcl.Client(options())
    await warm.connect()
    await warm.query("hello")
    async for _ in warm.receive_response():
        pass
    reserve = Reserve()
    rss0, fds0 = reserve.sample()
    clients: List[dcl.Client] = []
    error = None
    t0 = time.perf_counter()
    try:
        for _ in range(n):
            c = dcl.Client(options())
            await c.connect()
            clients.append(c)
    except Exception as e:  # EMFILE shows up as an OSError or a dcl error naming it
        error = f"{type(e).__name__}: {e} (after {len(clients)} sessions)"
        # Room for the measurement itself (reading /proc needs a descriptor too).
        for c in clients[-100:]:
            await c.disconnect()
        del clients[-100:]
    open_s = time.perf_counter() - t0
    opened = len(clients)
    rss1, fds1 = reserve.sample()
    idle_allocators = allocators() if by_allocator else None
    idle_children = children_pss_kib()

    async def one_turn(c: dcl.Client) -> int:
        await c.query("hello")
        done = 0
        async for m in c.receive_response():
            if isinstance(m, dcl.ResultMessage):
                done += 1
        return done

    bursts: List[Dict[str, Any]] = []
    for _ in range(turns):
        cpu0 = thread_cpu()
        t1 = time.perf_counter()
        counts = await asyncio.gather(*(one_turn(c) for c in clients), return_exceptions=True)
        burst_s = time.perf_counter() - t1
        cpu1 = thread_cpu()
        done = sum(c for c in counts if isinstance(c, int))
        # Which side of a turn is the limit: the Python thread, or the runtime's workers.
        cpu_us = {
            k: round((v - cpu0.get(k, 0.0)) / max(done, 1) * 1e6, 1) for k, v in cpu1.items() if v > cpu0.get(k, 0.0)
        }
        rss, kinds = reserve.sample()
        bursts.append(
            {
                "turns": done,
                "failures": [repr(c) for c in counts if not isinstance(c, int)][:3],
                "seconds": round(burst_s, 3),
                "turns_per_second": round(done / burst_s, 1) if burst_s > 0 else None,
                "cpu_us_per_turn_by_thread": cpu_us,
                "rss_mib": round(rss / 1024, 1),
                "children_pss_mib": round(children_pss_kib() / 1024, 1),
                "fds": kinds,
                **({"allocators": allocators()} if by_allocator else {}),
            }
        )
    if not hold:
        for c in clients:
            await c.disconnect()
        await warm.disconnect()

    def grown(a: Dict[str, int], b: Dict[str, int]) -> Dict[str, int]:
        return {k: b.get(k, 0) - a.get(k, 0) for k in sorted(set(a) | set(b)) if b.get(k, 0) != a.get(k, 0)}

    per = max(opened, 1)
    last = bursts[-1] if bursts else None
    return {
        "transport": "subprocess" if cli_path else "in-process",
        "sessions_asked": n,
        "sessions_opened": opened,
        "open_error": error,
        "fd_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "open_seconds": round(open_s, 3),
        "rss_before_mib": round(rss0 / 1024, 1),
        "idle_rss_mib": round(rss1 / 1024, 1),
        **({"idle_allocators": idle_allocators} if by_allocator else {}),
        "idle_children_pss_mib": round(idle_children / 1024, 1),
        "idle_kib_per_session": round((rss1 - rss0 + idle_children) / per, 1),
        "idle_fds_grown_by_kind": grown(fds0, fds1),
        "idle_fds_per_session": round((sum(fds1.values()) - sum(fds0.values())) / per, 3),
        "threads": threads(),
        "bursts": [{k: v for k, v in b.items() if k != "fds"} for b in bursts],
        "last_burst_turns_per_second": last["turns_per_second"] if last else None,
        "after_turns_total_mib": round(last["rss_mib"] + last["children_pss_mib"], 1) if last else None,
        "after_turns_fds_grown_by_kind": grown(fds0, last["fds"]) if last else {},
        "extension": dcl._native.__file__,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sessions", type=int, default=1000)
    p.add_argument("--turns", type=int, default=2, help="bursts of one turn on every session")
    p.add_argument("--no-persist", action="store_true")
    p.add_argument("--cli-path", default=None, help="run each session in this dcl (subprocess transport)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--allocators", action="store_true", help="what glibc malloc and pymalloc hold at each sample")
    p.add_argument(
        "--hold",
        action="store_true",
        help="leave every session open and exit at once: under heaptrack, 'leaked' is then what the sessions hold",
    )
    a = p.parse_args()
    out = asyncio.run(run(a.sessions, a.turns, not a.no_persist, a.cli_path, a.hold, a.allocators))
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        for k, v in out.items():
            print(f"{k:32} {v}")
    sys.stdout.flush()
    if a.hold:
        os._exit(0)


if __name__ == "__main__":
    main()
