"""A minimal Messages API server on 127.0.0.1 for the SDK scenarios that must see what
dcl sends to a real provider (the mock model never sees a request body): it records each
``POST /v1/messages`` body and answers every one with a short streamed text reply.

The Rust suites use ``core/test-support``'s scripted servers; this one is for the Python
suite, which drives the ``dcl`` binary and cannot link them. Standard library only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Hello from the fake Anthropic server."


def sse_reply(model: str, text: str) -> bytes:
    """One streamed text reply as the Messages API sends it (also used by
    tests/bench/acp_bench.py's fake model)."""
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_fake_1", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


class FakeAnthropic:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's spelling
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if not self.path.startswith("/v1/messages"):
                    self.send_error(404)
                    return
                body = json.loads(raw or b"{}")
                with fake._lock:
                    fake.bodies.append(body)
                payload = sse_reply(str(body.get("model", "")), REPLY)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *_: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def env(self) -> dict[str, str]:
        """What the child needs to call this server (dcl's own variables always win)."""
        return {"DCL_BASE_URL": self.base_url, "DCL_API_KEY": "sk-fake-conformance"}

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.bodies)


@contextmanager
def fake_anthropic() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic()
    fake._thread.start()
    try:
        yield fake
    finally:
        fake._server.shutdown()
        fake._server.server_close()
