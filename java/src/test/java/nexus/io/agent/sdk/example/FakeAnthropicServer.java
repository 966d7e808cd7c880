package nexus.io.agent.sdk.example;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import nexus.io.agent.sdk.json.Json;

/**
 * A tiny Anthropic Messages API on 127.0.0.1: every {@code POST /v1/messages} streams one text
 * answer as SSE ({@code message_start} ... {@code message_stop}). Requests are kept for checks.
 */
final class FakeAnthropicServer implements AutoCloseable {
  static final class Request {
    final Map<String, Object> body;
    final String apiKey;

    Request(Map<String, Object> body, String apiKey) {
      this.body = body;
      this.apiKey = apiKey;
    }
  }

  private final HttpServer server;
  private final String answer;
  final List<Request> requests = new CopyOnWriteArrayList<Request>();

  FakeAnthropicServer(String answer) throws IOException {
    this.answer = answer;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/messages", this::messages);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void messages(HttpExchange ex) throws IOException {
    try {
      Map<String, Object> body = Json.parseObject(read(ex.getRequestBody()));
      String key = ex.getRequestHeaders().getFirst("x-api-key");
      if (key == null) {
        key = ex.getRequestHeaders().getFirst("Authorization");
      }
      requests.add(new Request(body, key));
      String model = String.valueOf(body.get("model"));
      ex.getResponseHeaders().set("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0);
      OutputStream out = ex.getResponseBody();
      event(out, "message_start",
          "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake_1\",\"type\":\"message\","
              + "\"role\":\"assistant\",\"model\":" + Json.write(model) + ",\"content\":[],"
              + "\"stop_reason\":null,\"stop_sequence\":null,"
              + "\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}");
      event(out, "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
      // Two deltas, so the client really assembles a stream.
      int half = answer.length() / 2;
      for (String part : new String[] {answer.substring(0, half), answer.substring(half)}) {
        event(out, "content_block_delta",
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
                + Json.write(part) + "}}");
      }
      event(out, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      event(out, "message_delta",
          "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
              + "\"usage\":{\"output_tokens\":9}}");
      event(out, "message_stop", "{\"type\":\"message_stop\"}");
    } finally {
      ex.close();
    }
  }

  private static void event(OutputStream out, String name, String data) throws IOException {
    out.write(("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static String read(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    for (int n; (n = in.read(b)) > 0; ) {
      buf.write(b, 0, n);
    }
    return new String(buf.toByteArray(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
