package nexus.io.agent.examples.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.json.Json;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The example service answers the curl calls of java/README.md. */
class AgentHttpServiceTest {
  @TempDir Path dir;

  private static final class Reply {
    final int status;
    final String body;

    Reply(int status, String body) {
      this.status = status;
      this.body = body;
    }

    Map<String, Object> json() {
      return Json.parseObject(body);
    }
  }

  private static Reply call(int port, String method, String path, String body) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout(10_000);
    c.setReadTimeout(120_000);
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      OutputStream out = c.getOutputStream();
      out.write(body.getBytes(StandardCharsets.UTF_8));
      out.close();
    }
    int status = c.getResponseCode();
    InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream();
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    for (int n; in != null && (n = in.read(b)) > 0; ) {
      buf.write(b, 0, n);
    }
    return new Reply(status, new String(buf.toByteArray(), StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void answersItsCurlCalls(TransportKind kind) throws Exception {
    File workspace = Files.createDirectory(dir.resolve("ws")).toFile();
    AgentHttpService service = new AgentHttpService(0, workspace, "mock-model", kind);
    service.start();
    int port = service.port();
    try {
      // curl -s localhost:8080/query -d '{"prompt":"hi"}'
      Reply q = call(port, "POST", "/query", "{\"prompt\":\"hi\"}");
      assertEquals(200, q.status, q.body);
      assertEquals("Hello from the fake model.", q.json().get("result"));

      // curl -N 'localhost:8080/stream?prompt=hi'
      Reply s = call(port, "GET", "/stream?prompt=" + URLEncoder.encode("hi", "UTF-8"), null);
      assertEquals(200, s.status);
      StringBuilder text = new StringBuilder();
      String last = null;
      for (String frame : s.body.split("\n\n")) {
        String[] lines = frame.split("\n");
        String event = lines[0].substring("event: ".length());
        Map<String, Object> data = Json.parseObject(lines[1].substring("data: ".length()));
        if (event.equals("delta")) {
          text.append(data.get("text"));
        }
        last = event;
      }
      assertEquals("Hello from the fake model.", text.toString());
      assertEquals("result", last);

      // The in-JVM MCP tool: curl -s localhost:8080/query -d '{"prompt":"what time is it"}'
      Reply t = call(port, "POST", "/query", "{\"prompt\":\"what time is it\"}");
      String said = String.valueOf(t.json().get("result"));
      assertTrue(said.matches("Tool said: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"), said);

      // Multi-turn sessions by id.
      Reply created = call(port, "POST", "/sessions", null);
      assertEquals(201, created.status, created.body);
      String id = String.valueOf(created.json().get("id"));
      Reply turn1 = call(port, "POST", "/sessions/" + id + "/messages", "{\"prompt\":\"hi\"}");
      Reply turn2 = call(port, "POST", "/sessions/" + id + "/messages", "{\"prompt\":\"FAKE_WRITE notes.txt\"}");
      assertEquals(200, turn2.status, turn2.body);
      assertEquals(turn1.json().get("session_id"), turn2.json().get("session_id"));
      assertTrue(new File(workspace, "notes.txt").exists(), "the policy allows writes in the workspace");
      assertEquals(200, call(port, "DELETE", "/sessions/" + id, null).status);
      assertEquals(404, call(port, "POST", "/sessions/" + id + "/messages", "{\"prompt\":\"hi\"}").status);

      // The server-side tool policy: Bash is refused, and so are writes outside the workspace.
      Reply bash = call(port, "POST", "/query", "{\"prompt\":\"please FAKE_BASH\"}");
      List<?> denied = (List<?>) bash.json().get("permission_denials");
      assertEquals(1, denied.size(), bash.body);
      assertEquals("Bash", ((Map<?, ?>) denied.get(0)).get("tool_name"));
      File outside = new File(dir.toFile(), "outside.txt");
      String escape =
          "FAKE_TOOL Write " + Json.write(Json.parse("{\"file_path\":\"../outside.txt\",\"content\":\"x\"}"));
      Reply w = call(port, "POST", "/query", Json.write(java.util.Collections.singletonMap("prompt", escape)));
      assertEquals(1, ((List<?>) w.json().get("permission_denials")).size(), w.body);
      assertFalse(outside.exists(), "a write outside the workspace must not run");
      Reply policy = call(port, "GET", "/policy", null);
      assertTrue(policy.body.contains("Bash is disabled on this server"), policy.body);
      assertTrue(policy.body.contains("writes outside the workspace are not allowed"), policy.body);

      // Bad requests are clear errors.
      Reply bad = call(port, "POST", "/query", "{not json");
      assertEquals(400, bad.status);
      assertTrue(bad.json().get("error").toString().contains("JSON"), bad.body);
    } finally {
      service.stop();
    }
  }
}
