"""Drives one CLI through one scenario in stream-json mode, as an SDK host that denies every
`can_use_tool` request, and records what happened to the scripted tool call.

"asked" is observable as a can_use_tool request, "ran" as a tool_result that is not a
denial, "refused" as a denial the host was never asked about (a tool_result error that the
CLI also lists in `result.permission_denials`, or whose text says the permission was denied).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

DENY = "The user denied this tool use."
from fake_model import CALL_ID as TOOL_USE_ID
from fake_model import SETUP_ID
# Words either CLI uses when it refuses a call for permission reasons (not a tool failure).
_DENIAL_WORDS = ("denied", "permission", "not allowed", "refus", "protected", "haven't granted",
                 "blocked", "outside the", "deny rule")


@dataclass
class Run:
    """What one CLI did with the scenario's tool call."""

    asked: bool = False
    ask_inputs: list[dict[str, Any]] = field(default_factory=list)
    tool_result: str | None = None
    tool_error: bool = False
    in_denials: bool = False
    exit_code: int | None = None
    timed_out: bool = False
    stderr_tail: str = ""
    seconds: float = 0.0
    result_seen: bool = False

    @property
    def decision(self) -> str:
        """ran | asked | refused | none (the call never came back)."""
        if self.asked:
            return "asked"
        if self.tool_result is None:
            return "none"
        if self.tool_error and (self.in_denials or _looks_denied(self.tool_result)):
            return "refused"
        return "ran"


def _looks_denied(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in _DENIAL_WORDS)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, dict):
                parts.append(str(b.get("text") or b.get("content") or ""))
            else:
                parts.append(str(b))
        return "\n".join(parts)
    return "" if content is None else json.dumps(content)


def _send(proc: subprocess.Popen, obj: dict[str, Any]) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write((json.dumps(obj) + "\n").encode())
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


def drive(argv: list[str], env: dict[str, str], cwd: bytes, timeout: float) -> Run:
    run = Run()
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=cwd, start_new_session=True)
    err_chunks: list[bytes] = []
    err_reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)  # type: ignore[union-attr]
    err_reader.start()
    killer = threading.Timer(timeout, lambda: (setattr(run, "timed_out", True), proc.kill()))
    killer.start()
    try:
        _send(proc, {"type": "user", "message": {"role": "user", "content": "go"},
                     "parent_tool_use_id": None, "session_id": ""})
        assert proc.stdout is not None
        for raw in proc.stdout:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue
            _observe(proc, msg, run)
            if msg.get("type") == "result":
                run.result_seen = True
                proc.stdin.close()  # type: ignore[union-attr]
        run.exit_code = proc.wait()
    finally:
        killer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        err_reader.join(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                try:
                    stream.close()
                except OSError:
                    pass
    run.stderr_tail = b"".join(err_chunks).decode("utf-8", "replace")[-600:]
    run.seconds = time.monotonic() - t0
    return run


def _observe(proc: subprocess.Popen, msg: dict[str, Any], run: Run) -> None:
    kind = msg.get("type")
    if kind == "control_request":
        req = msg.get("request") or {}
        rid = msg.get("request_id")
        if req.get("subtype") == "can_use_tool" and req.get("tool_use_id") == SETUP_ID:
            _send(proc, {"type": "control_response", "response": {
                "subtype": "success", "request_id": rid,
                "response": {"behavior": "allow", "updatedInput": req.get("input") or {}}}})
        elif req.get("subtype") == "can_use_tool":
            run.asked = True
            run.ask_inputs.append(req.get("input") or {})
            answer = {"behavior": "deny", "message": DENY}
            _send(proc, {"type": "control_response",
                         "response": {"subtype": "success", "request_id": rid, "response": answer}})
        else:
            _send(proc, {"type": "control_response",
                         "response": {"subtype": "error", "request_id": rid,
                                      "error": f"the differential host does not handle {req.get('subtype')}"}})
    elif kind == "user":
        content = (msg.get("message") or {}).get("content")
        if isinstance(content, list):
            for block in content:
                if (isinstance(block, dict) and block.get("type") == "tool_result"
                        and block.get("tool_use_id") == TOOL_USE_ID):
                    run.tool_result = _text_of(block.get("content"))
                    run.tool_error = bool(block.get("is_error"))
    elif kind == "result":
        for d in msg.get("permission_denials") or []:
            if isinstance(d, dict) and d.get("tool_use_id") == TOOL_USE_ID:
                run.in_denials = True


def base_env(home: bytes, base_url: str, tmp: bytes) -> dict[str, str]:
    """The environment both CLIs get: scratch HOME, the fake model, no network extras."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.fsdecode(home),
        "TMPDIR": os.fsdecode(tmp),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "test",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "IS_SANDBOX": "1",
    }
