"""A scripted Messages API on 127.0.0.1 for the differential harness: the model calls of a
session answer with the script's tool calls, one per call (an optional setup Read, then
the scenario's call), then "done".

Both CLIs under test talk to the same kind of server, so both receive the identical
tool_use block and what differs is only what each does with it. Any request without a
`tools` list (side queries such as a title or a command-prefix
check) gets a plain text answer, so it never triggers a second tool call. Standard library
only.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _events(model: str, block: dict[str, Any], stop: str) -> bytes:
    if block["type"] == "tool_use":
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_diff_1", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


def _tool_results(body: dict[str, Any]) -> int:
    """How many tool results the conversation holds: the script step it has reached."""
    n = 0
    for msg in body.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, list):
            n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return n


# The ids the host tells apart: the setup Read it allows, and the call under test.
SETUP_ID = "toolu_diff_setup"
CALL_ID = "toolu_diff_1"


class ScriptedModel:
    """Serves one scenario's tool call, after a setup Read of `setup_read` when given (the
    reference refuses to Write or Edit an existing file the session has not read, before
    any permission decision); `tools_seen` records the tool names offered."""

    def __init__(self, tool: str, tool_input: dict[str, Any], setup_read: str | None = None) -> None:
        self.tool, self.tool_input = tool, tool_input
        self.script: list[dict[str, Any]] = []
        if setup_read is not None:
            self.script.append({"type": "tool_use", "id": SETUP_ID, "name": "Read",
                                "input": {"file_path": setup_read}})
        self.script.append({"type": "tool_use", "id": CALL_ID, "name": tool, "input": tool_input})
        self.tools_seen: list[str] = []
        lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_HEAD(self) -> None:  # noqa: N802 - the reference's preconnect check
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if "count_tokens" in self.path:
                    self._json({"input_tokens": max(1, len(raw) // 4)})
                    return
                if not self.path.startswith("/v1/messages"):
                    self.send_error(404)
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self.send_error(400)
                    return
                names = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
                with lock:
                    # The main loop's requests carry tools; side queries do not. The call is
                    # sent even when the tool is not listed (the reference defers some tools
                    # behind ToolSearch), and `tools_seen` tells whether it was.
                    main = bool(names)
                    if main and not model.tools_seen:
                        model.tools_seen = names
                step = _tool_results(body) if main else len(model.script)
                if step < len(model.script):
                    payload = _events(str(body.get("model", "")), model.script[step], "tool_use")
                else:
                    payload = _events(str(body.get("model", "")), {"type": "text", "text": "done"}, "end_turn")
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _json(self, obj: dict[str, Any]) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "ScriptedModel":
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
