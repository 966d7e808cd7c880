#!/usr/bin/env python3
"""`dcl acp` figures for BENCHMARKS.md (stdlib only; raw JSON-RPC over the pipes):

* first chunk: process start -> `initialize` -> `session/new` -> `session/prompt` ->
  the first `agent_message_chunk`, on the mock model (median of N runs);
* many sessions: N sessions opened in one `dcl acp` process (its RSS after), then one
  prompt in each, all in flight at once (turns/s).

Usage: acp_bench.py [--dcl PATH] [--runs 10] [--sessions 1000]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


class Agent:
    def __init__(self, cmd: list[str], cwd: str, env: dict):
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method: str, params: dict, notify: bool = False) -> int:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            msg["id"] = self.next_id
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        return self.next_id

    def read(self) -> dict:
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("dcl acp ended")
        return json.loads(line)

    def call(self, method: str, params: dict) -> dict:
        rid = self.send(method, params)
        while True:
            m = self.read()
            if m.get("id") == rid and "method" not in m:
                if "error" in m:
                    raise RuntimeError(m["error"])
                return m["result"]

    def rss_mb(self) -> float:
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def first_chunk(cmd, cwd, env) -> float:
    a = Agent(cmd, cwd, env)
    a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    sid = a.call("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
    a.send("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]})
    while True:
        m = a.read()
        if m.get("method") == "session/update" and \
                m["params"]["update"].get("sessionUpdate") == "agent_message_chunk":
            took = time.perf_counter() - a.t0
            break
    a.close()
    return took


def many(cmd, cwd, env, n: int):
    a = Agent(cmd, cwd, env)
    a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    rss0 = a.rss_mb()
    t = time.perf_counter()
    ids = [a.send("session/new", {"cwd": cwd, "mcpServers": []}) for _ in range(n)]
    sessions, want = [], set(ids)
    while want:
        m = a.read()
        if m.get("id") in want and "method" not in m:
            want.discard(m["id"])
            sessions.append(m["result"]["sessionId"])
    opened = time.perf_counter() - t
    rss = a.rss_mb()
    t = time.perf_counter()
    want = {a.send("session/prompt", {"sessionId": s, "prompt": [{"type": "text", "text": "hello"}]})
            for s in sessions}
    while want:
        m = a.read()
        if m.get("id") in want and "method" not in m:
            if "error" in m:
                raise RuntimeError(m["error"])
            want.discard(m["id"])
    turns = time.perf_counter() - t
    rss_after = a.rss_mb()
    a.close()
    return {"sessions": n, "open_s": round(opened, 2), "rss_idle_mb": round(rss0, 1),
            "rss_open_mb": round(rss, 1), "rss_after_turns_mb": round(rss_after, 1),
            "turns_per_s": round(n / turns, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dcl", default=os.environ.get("DCL_BIN", "target/release/dcl"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--agent", nargs="+", help="another ACP agent command to time the "
                    "first chunk of (e.g. claude-agent-acp with CLAUDE_CODE_EXECUTABLE=dcl "
                    "and DCL_MODEL=mock-model in the environment)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, HOME=home, DCL_CONFIG_DIR=os.path.join(home, ".dcl"))
        if args.agent:
            # The adapter starts in "auto" unless the settings name a default mode.
            os.makedirs(os.path.join(home, ".claude"))
            with open(os.path.join(home, ".claude/settings.json"), "w") as f:
                json.dump({"permissions": {"defaultMode": "default"}}, f)
            times = [first_chunk(args.agent, cwd, env) for _ in range(args.runs)]
            print(json.dumps({"agent": " ".join(args.agent),
                              "first_chunk_ms_median": round(statistics.median(times) * 1000, 1),
                              "first_chunk_ms_min": round(min(times) * 1000, 1),
                              "runs": args.runs}))
            return
        cmd = [args.dcl, "acp", "--model", "mock-model"]
        times = [first_chunk(cmd, cwd, env) for _ in range(args.runs)]
        print(json.dumps({"first_chunk_ms_median": round(statistics.median(times) * 1000, 1),
                          "first_chunk_ms_min": round(min(times) * 1000, 1),
                          "runs": args.runs}))
        print(json.dumps(many(cmd, cwd, env, args.sessions)))


if __name__ == "__main__":
    main()
