#!/usr/bin/env python3
"""Start-up of dcl, and of the reference CLI in the same run when given.

Times what every SDK session pays before its first answer: `-v`; scenario `a` (stream-json:
`initialize`, one user message, `result`, stdin closed: spawn → `initialize` answer, spawn →
`result`, spawn → exit, peak RSS, CPU); `-p --output-format json`; and, for dcl, a turn with
one Bash call — contained as usual, and with `DCL_NO_NAMESPACES=1` — so the cost of the
namespace probe and the contained spawn shows separately. Each measurement is the median of
5 runs (`--runs`) after a warm-up, fresh HOME per run.

The reference runs against a fake Messages API on 127.0.0.1 answering at once (its turn
includes that loopback request, about 1 ms); dcl runs its built-in mock model.

Usage: python3 tests/bench/startup.py [path/to/dcl] [--reference path/to/claude] [--runs N]
       (default target/release/dcl; install the reference with
        `npm install @anthropic-ai/claude-code@2.1.332` and pass node_modules/.bin/claude)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance", "python"))
from fake_anthropic import _sse  # noqa: E402 - the conformance suite's SSE reply

RUNS = 5
INIT = b'{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}\n'


def user(text: str) -> bytes:
    return (json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n").encode()


class Program:
    """How to start one CLI: its path, base arguments and environment."""

    def __init__(self, path: str, model_args: list[str], env: dict[str, str]) -> None:
        self.path, self.model_args, self.env = path, model_args, env

    def spawn(self, args: list[str], home: str, cwd: str, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, **self.env, **(extra_env or {})}
        argv = [self.path, *args]
        if RSS_EXEC:
            # Peak RSS and CPU come from a small launcher (see rss_exec.c); the file it
            # writes is read by wait_rusage.
            argv = [RSS_EXEC, os.path.join(home, ".rss"), *argv]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        p.rss_file = os.path.join(home, ".rss") if RSS_EXEC else None  # type: ignore[attr-defined]
        return p


# Set while measuring peak RSS: the path of the compiled launcher.
RSS_EXEC: str | None = None


def wait_rusage(p: subprocess.Popen) -> tuple[float, int]:
    """CPU seconds and peak RSS (KB) of the exited child (0, 0 in timing runs)."""
    os.wait4(p.pid, 0)
    p.returncode = 0
    if not getattr(p, "rss_file", None):
        return 0.0, 0
    with open(p.rss_file) as f:
        rss, cpu = f.read().split()
    return float(cpu), int(rss)


def version(prog: Program) -> dict:
    with tempfile.TemporaryDirectory() as home:
        t0 = time.perf_counter()
        p = prog.spawn(["-v"], home, home)
        p.stdout.read()
        cpu, rss = wait_rusage(p)
        return {"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu}


def stream_turn(prog: Program, prompt: str, extra: list[str] | None = None,
                extra_env: dict[str, str] | None = None) -> dict:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        p = prog.spawn(["--input-format", "stream-json", "--output-format", "stream-json",
                        "--verbose", *prog.model_args, *(extra or [])], home, cwd, extra_env)
        p.stdin.write(INIT)
        p.stdin.flush()
        out: dict = {}
        for raw in p.stdout:
            msg = json.loads(raw)
            if msg.get("type") == "control_response" and "t_init_response_s" not in out:
                out["t_init_response_s"] = time.perf_counter() - t0
                p.stdin.write(user(prompt))
                p.stdin.flush()
            elif msg.get("type") == "result":
                out["t_result_s"] = time.perf_counter() - t0
                p.stdin.close()
        cpu, rss = wait_rusage(p)
        out.update({"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu})
        return out


def print_json(prog: Program) -> dict:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        p = prog.spawn(["-p", "say hi", "--output-format", "json", *prog.model_args], home, cwd)
        p.stdin.close()
        p.stdout.read()
        cpu, rss = wait_rusage(p)
        return {"t_exit_s": time.perf_counter() - t0, "maxrss_kb": rss, "cpu_s": cpu}


def medians(fn) -> dict:
    """Times from direct spawns; peak RSS and CPU from runs under the launcher."""
    global RSS_EXEC
    fn()  # warm-up
    launcher, RSS_EXEC = RSS_EXEC, None
    try:
        timed = [fn() for _ in range(RUNS)]
    finally:
        RSS_EXEC = launcher
    out = {k: round(statistics.median(r[k] for r in timed), 5)
           for k in timed[0] if k.startswith("t_")}
    if RSS_EXEC:
        sized = [fn() for _ in range(3)]
        out["maxrss_kb"] = int(statistics.median(r["maxrss_kb"] for r in sized))
        out["cpu_s"] = round(statistics.median(r["cpu_s"] for r in sized), 5)
    return out


def build_launcher(workdir: str) -> str | None:
    exe = os.path.join(workdir, "rss_exec")
    src = os.path.join(ROOT, "tests", "bench", "rss_exec.c")
    done = subprocess.run(["cc", "-O2", "-o", exe, src], capture_output=True)
    return exe if done.returncode == 0 else None


def fake_messages_api() -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 - the reference's preconnect check
            self.send_response(200)
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            payload = _sse(str(body.get("model", "")), "Hello from the fake model.")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(prog: Program, with_bash: bool) -> dict:
    out = {
        "version": medians(lambda: version(prog)),
        "a_stream_json": medians(lambda: stream_turn(prog, "say hi")),
        "print_json": medians(lambda: print_json(prog)),
    }
    if with_bash:
        bypass = ["--permission-mode", "bypassPermissions"]
        out["bash_turn"] = medians(lambda: stream_turn(prog, "please FAKE_BASH", bypass))
        out["bash_turn_no_namespaces"] = medians(
            lambda: stream_turn(prog, "please FAKE_BASH", bypass, {"DCL_NO_NAMESPACES": "1"}))
    return out


def main() -> None:
    global RSS_EXEC, RUNS
    RSS_EXEC = build_launcher(tempfile.mkdtemp(prefix="dcl-bench-"))
    if RSS_EXEC is None:
        print("no C compiler: peak RSS is not measured", file=sys.stderr)
    ap = argparse.ArgumentParser()
    ap.add_argument("dcl", nargs="?", default=os.path.join(ROOT, "target", "release", "dcl"))
    ap.add_argument("--reference", help="the reference CLI's executable")
    ap.add_argument("--runs", type=int, default=RUNS,
                    help="timed runs per measurement (the median is reported)")
    args = ap.parse_args()
    RUNS = max(1, args.runs)
    report = {"dcl": {"binary": args.dcl, **measure(Program(args.dcl, ["--model", "mock-model"], {}), True)}}
    if args.reference:
        server = fake_messages_api()
        host, port = server.server_address[:2]
        ref = Program(args.reference, ["--model", "claude-sonnet-4-5"], {
            "ANTHROPIC_BASE_URL": f"http://{host}:{port}", "ANTHROPIC_API_KEY": "test",
            "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        })
        report["reference"] = {"binary": args.reference, **measure(ref, False)}
        server.shutdown()
    d = report["dcl"]
    d["ratio_result_to_version"] = round(d["a_stream_json"]["t_result_s"] / d["version"]["t_exit_s"], 2)
    d["bash_turn_probe_and_containment_s"] = round(
        d["bash_turn"]["t_result_s"] - d["bash_turn_no_namespaces"]["t_result_s"], 5)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
