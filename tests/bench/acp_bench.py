#!/usr/bin/env python3
"""`dcl acp` figures for BENCHMARKS.md (stdlib only; raw JSON-RPC over the pipes):

* first chunk: process start -> `initialize` -> `session/new` -> `session/prompt` ->
  the first `agent_message_chunk`, on the mock model (median of N runs);
* many sessions: N sessions opened in one `dcl acp` process (its RSS after), then one
  prompt in each, all in flight at once (turns/s).

Usage: acp_bench.py [--dcl PATH] [--runs 10] [--sessions 1000]
       acp_bench.py --agent node <claude-agent-acp>/dist/index.js [--cli PATH] [--runs 5]

With --agent, the first chunk of another ACP agent — the `claude-agent-acp` adapter
(`npm install @agentclientprotocol/claude-agent-acp` into a scratch folder) driving the CLI
that --cli names (CLAUDE_CODE_EXECUTABLE): dcl on its mock model, or the reference CLI
(`@anthropic-ai/claude-code`), which gets a fake Messages API on 127.0.0.1 started here.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance" / "python"))
from fake_anthropic import sse_reply  # noqa: E402 - the conformance suite's reply


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


class FakeModel:
    """A Messages API on 127.0.0.1 that answers every call with one streamed text, so a
    CLI that needs a real model (the reference) runs offline."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_HEAD(self) -> None:  # noqa: N802 - a preconnect check
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if "count_tokens" in self.path:
                    data, kind = json.dumps({"input_tokens": 10}).encode(), "application/json"
                else:
                    try:
                        model = str(json.loads(raw or b"{}").get("model", ""))
                    except ValueError:
                        model = ""
                    data, kind = sse_reply(model, "Hello from the fake model."), "text/event-stream"
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"


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
                    "first chunk of (e.g. node <claude-agent-acp>/dist/index.js)")
    ap.add_argument("--cli", help="with --agent: the CLI the adapter drives "
                    "(CLAUDE_CODE_EXECUTABLE): a dcl, run on its mock model, or the reference "
                    "CLI, run against a fake model on 127.0.0.1")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, HOME=home, DCL_CONFIG_DIR=os.path.join(home, ".dcl"))
        if args.agent:
            # The adapter starts in "auto" unless the settings name a default mode.
            os.makedirs(os.path.join(home, ".claude"))
            with open(os.path.join(home, ".claude/settings.json"), "w") as f:
                json.dump({"permissions": {"defaultMode": "default"}}, f)
            fake = None
            if args.cli:
                env["CLAUDE_CODE_EXECUTABLE"] = args.cli
                if "dcl" in os.path.basename(args.cli):
                    env["DCL_MODEL"] = "mock-model"
                else:
                    fake = FakeModel()
                    env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="bench",
                               DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                               DISABLE_ERROR_REPORTING="1",
                               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                               # running as root: the reference refuses its bypass mode
                               # outside a declared sandbox
                               IS_SANDBOX="1")
            times = [first_chunk(args.agent, cwd, env) for _ in range(args.runs)]
            if fake:
                fake.server.shutdown()
            print(json.dumps({"agent": " ".join(args.agent), "cli": args.cli,
                              "first_chunk_ms_median": round(statistics.median(times) * 1000, 1),
                              "first_chunk_ms_min": round(min(times) * 1000, 1),
                              "runs": args.runs}))
            return
        # Absolute: the agent runs in a scratch cwd.
        cmd = [os.path.abspath(args.dcl), "acp", "--model", "mock-model"]
        times = [first_chunk(cmd, cwd, env) for _ in range(args.runs)]
        print(json.dumps({"first_chunk_ms_median": round(statistics.median(times) * 1000, 1),
                          "first_chunk_ms_min": round(min(times) * 1000, 1),
                          "runs": args.runs}))
        print(json.dumps(many(cmd, cwd, env, args.sessions)))


if __name__ == "__main__":
    main()
