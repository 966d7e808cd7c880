// A fake Anthropic Messages endpoint on 127.0.0.1 that records every request body and
// answers each with a streamed text naming how many messages the request carried. Not a
// test file itself.
import http from "node:http";

const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

function sseText(text) {
  const usage = { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return [
    event({
      type: "message_start",
      message: { id: "msg_fake_1", type: "message", role: "assistant", model: "claude-fake", content: [], stop_reason: null, stop_sequence: null, usage },
    }),
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    event({ type: "content_block_stop", index: 0 }),
    event({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } }),
    event({ type: "message_stop" }),
  ].join("");
}

/** Starts the fake; `{ baseUrl, bodies, close }` (`bodies`: the /v1/messages requests in order). */
export async function startFakeModel() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const route = (req.url ?? "").split("?")[0];
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"type":"error","error":{"type":"invalid_request_error"}}');
        return;
      }
      if (req.method === "POST" && route === "/v1/messages") {
        bodies.push(body);
        const n = Array.isArray(body.messages) ? body.messages.length : 0;
        res.writeHead(200, { "content-type": "text/event-stream" }).end(sseText(`reply to ${n} messages`));
      } else if (req.method === "POST" && route === "/v1/messages/count_tokens") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"input_tokens":10}');
      } else {
        res.writeHead(404, { "content-type": "application/json" }).end('{"type":"error","error":{"type":"not_found_error"}}');
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every text of a request's messages, one message a line. */
export function requestText(body) {
  return (body.messages ?? [])
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content
              .filter((b) => typeof b?.text === "string")
              .map((b) => b.text)
              .join(" ")
          : "",
    )
    .join("\n");
}
