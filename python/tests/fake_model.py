"""A fake Anthropic Messages endpoint on 127.0.0.1 that records every request body and
answers each with a streamed text naming how many messages the request carried."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List


def _event(data: Dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def _sse_text(text: str) -> bytes:
    usage = {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {
        "id": "msg_fake_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return b"".join(
        [
            _event({"type": "message_start", "message": message}),
            _event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            _event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            _event({"type": "content_block_stop", "index": 0}),
            _event(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                }
            ),
            _event({"type": "message_stop"}),
        ]
    )


class FakeModel:
    """``with FakeModel() as m:`` serves on ``m.base_url``; ``m.bodies`` are the
    ``/v1/messages`` request bodies in arrival order."""

    def __init__(self) -> None:
        self.bodies: List[Dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if self.path.split("?")[0] == "/v1/messages":
                    model.bodies.append(body)
                    n = len(body.get("messages") or [])
                    self._send(200, "text/event-stream", _sse_text(f"reply to {n} messages"))
                elif self.path.split("?")[0] == "/v1/messages/count_tokens":
                    self._send(200, "application/json", json.dumps({"input_tokens": 10}).encode())
                else:
                    self._send(404, "application/json", b'{"type":"error","error":{"type":"not_found_error"}}')

            def _send(self, status: int, kind: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeModel":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()


def request_text(body: Dict[str, Any]) -> str:
    """Every text of a request's messages, one message a line."""
    out = []
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out.append(" ".join(b["text"] for b in c if isinstance(b, dict) and isinstance(b.get("text"), str)))
    return "\n".join(out)
