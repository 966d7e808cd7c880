"""A Messages API on 127.0.0.1 for the Java example (its model is deepseek-flash, pointed here
by DEEPSEEK_BASE_URL): every POST .../v1/messages streams one text answer (SSE) and is logged
to the file given as the second argument. Prints its base URL on stdout, then serves until
killed. Standard library only: it runs in the user environment of tests/install/run.sh.

    python3 fake_model.py <answer> <request-log>
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER, LOG = sys.argv[1], sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": self.path, "model": body.get("model"),
                                "messages": body.get("messages")}, ensure_ascii=False) + "\n")
        if not self.path.endswith("/v1/messages"):
            self.send_error(404)
            return
        half = len(ANSWER) // 2
        events = [
            ("message_start", {"type": "message_start", "message": {
                "id": "msg_install_1", "type": "message", "role": "assistant",
                "model": body.get("model"), "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            *[("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": part}})
              for part in (ANSWER[:half], ANSWER[half:])],
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 7}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        data = "".join(f"event: {e}\ndata: {json.dumps(d, ensure_ascii=False)}\n\n" for e, d in events)
        raw = data.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
