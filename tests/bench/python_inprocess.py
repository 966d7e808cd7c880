#!/usr/bin/env python3
"""dcl in-process (``import dcl``) vs claude-agent-sdk driving a ``dcl`` subprocess, on the
mock model. Three measurements, printed as a table (``--json`` for the raw figures):

  a. one-shot ``query("say hi")``: time to the first message and to the result (and to
     the end of the iterator, which includes closing the session / the child's exit);
     medians over ``--runs`` runs after one warm-up;
  b. per-turn overhead: one client, ``--turns`` sequential turns after connecting
     (``dcl.Client`` vs ``ClaudeSDKClient``), ms per turn, median of ``--reps``; and the
     same without the Python packages: ``dcl._native`` with ``await recv()`` and with
     ``recv_blocking()``, vs the CLI over plain blocking pipes;
  c. memory: ``--sessions`` concurrent sessions, each connected and done with one turn,
     all open at the sample point. In-process: VmRSS growth of the Python process.
     Subprocess: the Python process's growth plus the children's RSS and PSS (summed
     from /proc while they are all alive; PSS splits the shared binary pages fairly).
     Each side runs in a fresh interpreter so allocations of the other runs don't count.

Both sides get the same options: ``model="mock-model"``, a fresh empty cwd and HOME, no
system prompt (claude-agent-sdk's ``--system-prompt ""``), default permission mode.

Usage (the venv of python/ci.sh, which has dcl and claude-agent-sdk installed):

    tests/.work/pyenv/bin/python tests/bench/python_inprocess.py [--dcl target/release/dcl]
        [--runs 20] [--turns 50] [--reps 3] [--sessions 100] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
MOCK = "mock-model"


# --------------------------------------------------------------------------- helpers


def status_kb(pid: str = "self", keys: tuple = ("VmRSS", "VmHWM")) -> Dict[str, int]:
    """Fields of /proc/<pid>/status in KiB."""
    out: Dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in keys:
                    out[name] = int(rest.split()[0])
    except OSError:
        pass
    return out


def pss_kb(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children_of(ppid: int) -> List[str]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...; comm may contain spaces: split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[1]) == ppid:
            out.append(entry)
    return out


def elf_sections(path: str) -> List[str]:
    """Section names of an ELF64 little-endian file (empty if it is not one)."""
    import struct

    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    str_off = headers[shstrndx][4]
    names = []
    for h in headers:
        start = str_off + h[0]
        names.append(data[start : data.index(b"\0", start)].decode("ascii", "replace"))
    return names


def build_kind(path: str) -> str:
    """``debug`` when the file has DWARF sections (the dev profile keeps line tables;
    the release profile strips debuginfo), else ``release``."""
    try:
        sections = elf_sections(path)
    except (OSError, ValueError, IndexError):
        return "?"
    if not sections:
        return "?"
    return "debug" if any(n.startswith(".debug_") for n in sections) else "release"


def native_path() -> str:
    import dcl._native as native

    return native.__file__


class Env:
    """A fresh cwd and HOME per session, removed at exit."""

    def __init__(self) -> None:
        self._dirs: List[tempfile.TemporaryDirectory] = []

    def dirs(self) -> Dict[str, str]:
        cwd = tempfile.TemporaryDirectory(prefix="dclbench-cwd-")
        home = tempfile.TemporaryDirectory(prefix="dclbench-home-")
        self._dirs += [cwd, home]
        return {"cwd": os.path.realpath(cwd.name), "home": os.path.realpath(home.name)}

    def cleanup(self) -> None:
        for d in self._dirs:
            d.cleanup()
        self._dirs.clear()


def make_options(side: str, dcl_bin: str, env: Env) -> Any:
    d = env.dirs()
    kw: Dict[str, Any] = dict(model=MOCK, cwd=d["cwd"], env={"HOME": d["home"]})
    if side == "in":
        import dcl

        return dcl.Options(**kw)
    import claude_agent_sdk as sdk

    return sdk.ClaudeAgentOptions(cli_path=dcl_bin, **kw)


def api(side: str) -> Any:
    if side == "in":
        import dcl

        return dcl
    import claude_agent_sdk

    return claude_agent_sdk


def client_class(side: str) -> Any:
    if side == "in":
        import dcl

        return dcl.Client
    import claude_agent_sdk

    return claude_agent_sdk.ClaudeSDKClient


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)


# --------------------------------------------------------------------------- a. one-shot


async def one_shot(side: str, dcl_bin: str) -> Dict[str, float]:
    env = Env()
    options = make_options(side, dcl_bin, env)
    first = result = None
    t0 = time.perf_counter()
    async for m in api(side).query(prompt="say hi", options=options):
        now = time.perf_counter()
        if first is None:
            first = now - t0
        if type(m).__name__ == "ResultMessage":
            result = now - t0
            assert m.result == "Hello from the fake model.", m
    end = time.perf_counter() - t0
    env.cleanup()
    assert first is not None and result is not None
    return {"first_ms": ms(first), "result_ms": ms(result), "end_ms": ms(end)}


async def bench_one_shot(side: str, dcl_bin: str, runs: int) -> Dict[str, float]:
    await one_shot(side, dcl_bin)  # warm-up
    samples = [await one_shot(side, dcl_bin) for _ in range(runs)]
    return {k: round(statistics.median(s[k] for s in samples), 2) for k in samples[0]}


# --------------------------------------------------------------------------- b. per turn


async def turns(side: str, dcl_bin: str, n: int) -> Dict[str, float]:
    env = Env()
    options = make_options(side, dcl_bin, env)
    t0 = time.perf_counter()
    client = client_class(side)(options)
    await client.connect()
    connected = time.perf_counter()
    try:
        for _ in range(n):
            await client.query("say hi")
            got = None
            async for m in client.receive_response():
                got = m
            assert type(got).__name__ == "ResultMessage" and not got.is_error, got
        done = time.perf_counter()
    finally:
        await client.disconnect()
    closed = time.perf_counter()
    env.cleanup()
    return {
        "connect_ms": ms(connected - t0),
        "per_turn_ms": ms((done - connected) / n),
        "disconnect_ms": ms(closed - done),
    }


async def bench_turns(side: str, dcl_bin: str, n: int, reps: int) -> Dict[str, float]:
    await turns(side, dcl_bin, 3)  # warm-up
    samples = [await turns(side, dcl_bin, n) for _ in range(reps)]
    return {k: round(statistics.median(s[k] for s in samples), 2) for k in samples[0]}


# --------------------------------------------------------------------------- b'. raw per turn

RAW_INIT = json.dumps({"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "hooks": None}})
RAW_USER = json.dumps(
    {"type": "user", "message": {"role": "user", "content": "say hi"}, "parent_tool_use_id": None, "session_id": "default"}
)


def raw_native_session(env: Env) -> Any:
    import dcl
    import dcl._native as native
    from dcl.options import session_options

    d = env.dirs()
    s = native.open(json.dumps(session_options(dcl.Options(model=MOCK, cwd=d["cwd"], env={"HOME": d["home"]}))))
    s.send(RAW_INIT)
    return s


async def raw_async(n: int) -> float:
    """``dcl._native``: ``send`` + ``await recv()`` per line, no package layer."""
    env = Env()
    s = raw_native_session(env)
    while json.loads(await s.recv())["type"] != "control_response":
        pass
    t0 = time.perf_counter()
    for _ in range(n):
        s.send(RAW_USER)
        while json.loads(await s.recv())["type"] != "result":
            pass
    dt = time.perf_counter() - t0
    s.close()
    env.cleanup()
    return ms(dt / n)


def raw_blocking(n: int) -> float:
    """``dcl._native``: ``send`` + ``recv_blocking()`` on this thread, no event loop."""
    env = Env()
    s = raw_native_session(env)
    while json.loads(s.recv_blocking())["type"] != "control_response":
        pass
    t0 = time.perf_counter()
    for _ in range(n):
        s.send(RAW_USER)
        while json.loads(s.recv_blocking())["type"] != "result":
            pass
    dt = time.perf_counter() - t0
    s.close()
    env.cleanup()
    return ms(dt / n)


def raw_pipes(n: int, dcl_bin: str) -> float:
    """The dcl CLI over blocking pipes, no SDK (the flags claude-agent-sdk passes)."""
    env = Env()
    d = env.dirs()
    p = subprocess.Popen(
        [dcl_bin, "--output-format", "stream-json", "--verbose", "--system-prompt", "", "--model", MOCK,
         "--input-format", "stream-json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=d["cwd"], env={**os.environ, "HOME": d["home"]},
    )
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(RAW_INIT.encode() + b"\n")
    p.stdin.flush()
    while json.loads(p.stdout.readline())["type"] != "control_response":
        pass
    t0 = time.perf_counter()
    for _ in range(n):
        p.stdin.write(RAW_USER.encode() + b"\n")
        p.stdin.flush()
        while json.loads(p.stdout.readline())["type"] != "result":
            pass
    dt = time.perf_counter() - t0
    p.stdin.close()
    p.wait()
    env.cleanup()
    return ms(dt / n)


def bench_raw(dcl_bin: str, n: int, reps: int) -> Dict[str, float]:
    raw_blocking(3), asyncio.run(raw_async(3)), raw_pipes(3, dcl_bin)  # warm-up
    samples: Dict[str, List[float]] = {"native_async_recv": [], "native_recv_blocking": [], "cli_pipes": []}
    for _ in range(reps):  # interleaved, so load changes hit all three alike
        samples["native_async_recv"].append(asyncio.run(raw_async(n)))
        samples["native_recv_blocking"].append(raw_blocking(n))
        samples["cli_pipes"].append(raw_pipes(n, dcl_bin))
    return {k: round(statistics.median(v), 3) for k, v in samples.items()}


# --------------------------------------------------------------------------- c. memory


async def memory_child(side: str, dcl_bin: str, sessions: int) -> Dict[str, Any]:
    """Runs in a fresh interpreter: ``sessions`` concurrent clients, one turn each, all
    open when memory is sampled."""
    api(side)  # import the package first: its import cost is not per-session
    env = Env()
    before = status_kb()
    # One session first: what the first session costs once (the in-process runtime, the
    # SDK's lazy imports) is then in ``warm`` and not counted per session.
    warm_client = client_class(side)(make_options(side, dcl_bin, env))
    await warm_client.connect()
    await warm_client.query("say hi")
    async for _ in warm_client.receive_response():
        pass
    await warm_client.disconnect()
    warm = status_kb()
    all_done = asyncio.Event()
    ready = 0
    sampled: Dict[str, Any] = {}

    async def session() -> None:
        nonlocal ready
        client = client_class(side)(make_options(side, dcl_bin, env))
        await client.connect()
        try:
            await client.query("say hi")
            async for m in client.receive_response():
                pass
            ready += 1
            if ready == sessions:
                all_done.set()
            await all_done.wait()
            if "self" not in sampled:  # the first to wake samples, all still open
                sampled["self"] = status_kb()
                kids = children_of(os.getpid())
                sampled["children"] = len(kids)
                sampled["children_rss_kb"] = sum(status_kb(k).get("VmRSS", 0) for k in kids)
                sampled["children_hwm_kb"] = sum(status_kb(k).get("VmHWM", 0) for k in kids)
                sampled["children_pss_kb"] = sum(pss_kb(k) for k in kids)
        finally:
            await client.disconnect()

    t0 = time.perf_counter()
    await asyncio.gather(*(session() for _ in range(sessions)))
    wall = time.perf_counter() - t0
    after = status_kb()
    env.cleanup()
    return {
        "sessions": sessions,
        "wall_ms": ms(wall),
        "rss_before_kb": before["VmRSS"],
        "rss_after_first_session_kb": warm["VmRSS"],
        "rss_open_kb": sampled["self"]["VmRSS"],
        "rss_growth_kb": sampled["self"]["VmRSS"] - before["VmRSS"],
        "rss_growth_after_first_kb": sampled["self"]["VmRSS"] - warm["VmRSS"],
        "rss_after_close_kb": after["VmRSS"],
        "hwm_kb": after["VmHWM"],
        "children": sampled["children"],
        "children_rss_kb": sampled["children_rss_kb"],
        "children_hwm_kb": sampled["children_hwm_kb"],
        "children_pss_kb": sampled["children_pss_kb"],
    }


def bench_memory(side: str, dcl_bin: str, sessions: int) -> Dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--mem-child", side, "--dcl", dcl_bin, "--sessions", str(sessions)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- main


def table(rows: List[List[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def ratio(a: float, b: float) -> str:
    return f"{b / a:.1f}x" if a else "-"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dcl", default=str(ROOT / "target" / "release" / "dcl"), help="the dcl CLI for the subprocess side")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--turns", type=int, default=50)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--sessions", type=int, default=100)
    p.add_argument("--only", choices=["oneshot", "turns", "raw", "memory"], action="append")
    p.add_argument("--json", action="store_true", help="also print the raw figures as JSON")
    p.add_argument("--mem-child", choices=["in", "sub"], help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.mem_child:
        print(json.dumps(asyncio.run(memory_child(args.mem_child, args.dcl, args.sessions))))
        return

    args.dcl = os.path.abspath(args.dcl)
    if not os.access(args.dcl, os.X_OK):
        sys.exit(f"no dcl binary at {args.dcl} (cargo build --release -p dcl-cli, or --dcl PATH)")
    only = set(args.only or ["oneshot", "turns", "raw", "memory"])
    info = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "dcl_cli": args.dcl,
        "dcl_cli_build": build_kind(args.dcl),
        "extension": native_path(),
        "extension_build": build_kind(native_path()),
    }
    import claude_agent_sdk

    info["claude_agent_sdk"] = claude_agent_sdk.__version__
    results: Dict[str, Any] = {"info": info}
    rows = [["measurement", "in-process", "subprocess", "subprocess / in-process"]]

    def run(name: str, fn: Callable[[str], Any]) -> Dict[str, Any]:
        res = {side: fn(side) for side in ("in", "sub")}
        results[name] = res
        print(f"[bench] {name}: {json.dumps(res)}", file=sys.stderr)
        return res

    if "oneshot" in only:
        r = run("oneshot", lambda s: asyncio.run(bench_one_shot(s, args.dcl, args.runs)))
        for key, label in (("first_ms", "first message"), ("result_ms", "result"), ("end_ms", "iterator end")):
            rows.append(
                [
                    f"one-shot query, ms to {label} (median of {args.runs})",
                    f"{r['in'][key]:.1f}",
                    f"{r['sub'][key]:.1f}",
                    ratio(r["in"][key], r["sub"][key]),
                ]
            )
    if "turns" in only:
        r = run("turns", lambda s: asyncio.run(bench_turns(s, args.dcl, args.turns, args.reps)))
        rows.append(
            [f"client connect, ms (median of {args.reps})", f"{r['in']['connect_ms']:.1f}", f"{r['sub']['connect_ms']:.1f}", ratio(r["in"]["connect_ms"], r["sub"]["connect_ms"])]
        )
        rows.append(
            [
                f"{args.turns} sequential turns, ms per turn (median of {args.reps})",
                f"{r['in']['per_turn_ms']:.2f}",
                f"{r['sub']['per_turn_ms']:.2f}",
                ratio(r["in"]["per_turn_ms"], r["sub"]["per_turn_ms"]),
            ]
        )
    if "raw" in only:
        r = bench_raw(args.dcl, args.turns, args.reps)
        results["raw"] = r
        print(f"[bench] raw: {json.dumps(r)}", file=sys.stderr)
        rows.append(
            [
                f"raw, no SDK layer: ms per turn ({args.turns} turns, median of {args.reps})",
                f"{r['native_async_recv']:.2f} (await recv) / {r['native_recv_blocking']:.2f} (recv_blocking)",
                f"{r['cli_pipes']:.2f} (pipes)",
                ratio(r["native_async_recv"], r["cli_pipes"]),
            ]
        )
    if "memory" in only:
        r = run("memory", lambda s: bench_memory(s, args.dcl, args.sessions))
        n = args.sessions
        mib = lambda kb: f"{kb / 1024:.1f}"  # noqa: E731
        rows.append(["first session: Python RSS growth (one-time), MiB", mib(r["in"]["rss_after_first_session_kb"] - r["in"]["rss_before_kb"]), mib(r["sub"]["rss_after_first_session_kb"] - r["sub"]["rss_before_kb"]), "-"])
        rows.append([f"{n} concurrent sessions: Python RSS growth, MiB", mib(r["in"]["rss_growth_kb"]), mib(r["sub"]["rss_growth_kb"]), "-"])
        rows.append(["  of which after the first session, MiB", mib(r["in"]["rss_growth_after_first_kb"]), mib(r["sub"]["rss_growth_after_first_kb"]), "-"])
        rows.append([f"{n} concurrent sessions: children RSS sum, MiB", "0 (no children)", mib(r["sub"]["children_rss_kb"]), "-"])
        rows.append([f"{n} concurrent sessions: children PSS sum, MiB", "0", mib(r["sub"]["children_pss_kb"]), "-"])
        tot_in = r["in"]["rss_growth_kb"]
        tot_sub = r["sub"]["rss_growth_kb"] + r["sub"]["children_pss_kb"]
        rows.append([f"{n} sessions total (growth + children PSS), MiB", mib(tot_in), mib(tot_sub), ratio(tot_in, tot_sub)])
        marg_in = r["in"]["rss_growth_after_first_kb"]
        marg_sub = r["sub"]["rss_growth_after_first_kb"] + r["sub"]["children_pss_kb"]
        rows.append([f"{n} sessions: per session after the first, KiB", f"{marg_in / n:.0f}", f"{marg_sub / n:.0f}", ratio(marg_in, marg_sub)])
        rows.append([f"{n} sessions: wall time to all done, ms", f"{r['in']['wall_ms']:.0f}", f"{r['sub']['wall_ms']:.0f}", ratio(r["in"]["wall_ms"], r["sub"]["wall_ms"])])

    info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(
        f"dcl CLI: {info['dcl_cli']} ({info['dcl_cli_build']}); extension: {info['extension']} "
        f"({info['extension_build']}); claude-agent-sdk {info['claude_agent_sdk']}; Python {info['python']}; "
        f"{info['cpus']} CPUs; load average {info['loadavg_start']} -> {info['loadavg_end']}"
    )
    print(table(rows))
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
