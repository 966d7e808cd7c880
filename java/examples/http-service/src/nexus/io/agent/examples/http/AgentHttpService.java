package nexus.io.agent.examples.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import nexus.io.agent.sdk.Agent;
import nexus.io.agent.sdk.AgentClient;
import nexus.io.agent.sdk.AgentException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.MessageStream;
import nexus.io.agent.sdk.PermissionMode;
import nexus.io.agent.sdk.ResultErrorException;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.hook.HookContext;
import nexus.io.agent.sdk.hook.HookEvent;
import nexus.io.agent.sdk.hook.HookOutput;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.json.JsonAccess;
import nexus.io.agent.sdk.json.JsonException;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.mcp.McpTool;
import nexus.io.agent.sdk.mcp.McpToolResult;
import nexus.io.agent.sdk.message.AssistantMessage;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.message.StreamEvent;
import nexus.io.agent.sdk.permission.PermissionResult;

/**
 * An HTTP service over dcl on the JDK's own HTTP server (no framework):
 *
 * <pre>
 * POST   /query                     {"prompt": "..."}   one-shot query, JSON result
 * GET    /stream?prompt=...                             the same as server-sent events
 * POST   /sessions                                      a multi-turn session: {"id": ...}
 * POST   /sessions/{id}/messages    {"prompt": "..."}   one turn in it
 * DELETE /sessions/{id}                                 closes it
 * GET    /policy                                        the tool-policy decisions so far
 * </pre>
 *
 * Every session gets the in-JVM MCP tool {@code mcp__app__server_time} and the server-side tool
 * policy of {@link #policy} (a {@code PreToolUse} hook, so it sees every tool call): no Bash, and
 * file writes only inside the workspace. Run it with {@code
 * java/examples/http-service/run.sh [--port 8080] [--workspace DIR] [--model mock-model]}.
 */
public final class AgentHttpService {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final File workspace;
  private final String model;
  private final TransportKind transport;
  private final Map<String, AgentClient> sessions = new ConcurrentHashMap<String, AgentClient>();
  private final List<Map<String, Object>> decisions =
      Collections.synchronizedList(new ArrayList<Map<String, Object>>());

  /**
   * @param port the port (0: any free one)
   * @param workspace the directory the agent works in
   * @param model the model ({@code mock-model} runs offline)
   * @param transport the SDK transport
   * @throws IOException when the port cannot be bound
   */
  public AgentHttpService(int port, File workspace, String model, TransportKind transport)
      throws IOException {
    this.workspace = workspace.getCanonicalFile();
    this.model = model;
    this.transport = transport;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.setExecutor(executor);
    server.createContext("/query", ex -> guard(ex, this::query));
    server.createContext("/stream", ex -> guard(ex, this::stream));
    server.createContext("/sessions", ex -> guard(ex, this::sessions));
    server.createContext("/policy", ex -> guard(ex, e -> json(e, 200, decisions())));
  }

  /** Starts serving. */
  public void start() {
    server.start();
  }

  /** @return the bound port */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops serving and closes every session. */
  public void stop() {
    server.stop(0);
    for (AgentClient c : sessions.values()) {
      c.close();
    }
    sessions.clear();
    executor.shutdownNow();
  }

  // ------------------------------------------------------------------ the agent's options

  private AgentOptions options() {
    return new AgentOptions()
        .transport(transport)
        .model(model)
        .cwd(workspace)
        .settingSources()
        .permissionMode(PermissionMode.DEFAULT)
        .mcpServer(appServer())
        .allowedTools("mcp__app__server_time")
        // The policy runs as a PreToolUse hook, so it sees every call, also the read-only
        // ones that never ask; what it lets through and still asks is approved here.
        .hook(HookEvent.PRE_TOOL_USE, null, this::policyHook)
        .canUseTool((tool, input, context) -> PermissionResult.allow());
  }

  private Map<String, Object> policyHook(Map<String, Object> input, String toolUseId, HookContext ctx) {
    String tool = JsonAccess.string(input, "tool_name");
    Map<String, Object> toolInput = JsonAccess.object(input, "tool_input");
    PermissionResult r =
        record(tool, toolInput, policy(tool, toolInput != null ? toolInput : new LinkedHashMap<String, Object>()));
    return r.isAllow() ? HookOutput.proceed() : HookOutput.denyToolUse(r.getMessage());
  }

  /** The in-JVM MCP server: tools that run inside this service. */
  static McpServer appServer() {
    return McpServer.create("app")
        .tool(
            new McpTool(
                "server_time",
                "The current time on the server (UTC)",
                null,
                args -> {
                  SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
                  f.setTimeZone(TimeZone.getTimeZone("UTC"));
                  return McpToolResult.text(f.format(new Date()));
                }));
  }

  /**
   * The server-side tool policy: Bash is off; file writes only inside the workspace; anything
   * else that asks is allowed.
   */
  PermissionResult policy(String tool, Map<String, Object> input) {
    if ("Bash".equals(tool)) {
      return PermissionResult.deny("Bash is disabled on this server");
    }
    Object path = input.get("file_path");
    if (path == null) {
      path = input.get("notebook_path");
    }
    if (path instanceof String) {
      try {
        File f = new File((String) path);
        File target = (f.isAbsolute() ? f : new File(workspace, (String) path)).getCanonicalFile();
        String root = workspace.getPath() + File.separator;
        if (!target.getPath().startsWith(root)) {
          return PermissionResult.deny("writes outside the workspace are not allowed");
        }
      } catch (IOException e) {
        return PermissionResult.deny("cannot resolve " + path);
      }
    }
    return PermissionResult.allow();
  }

  private PermissionResult record(String tool, Map<String, Object> input, PermissionResult r) {
    Map<String, Object> d = new LinkedHashMap<String, Object>();
    d.put("tool", tool);
    d.put("input", input);
    d.put("decision", r.isAllow() ? "allow" : "deny");
    if (!r.isAllow()) {
      d.put("message", r.getMessage());
    }
    decisions.add(d);
    return r;
  }

  private List<Map<String, Object>> decisions() {
    synchronized (decisions) {
      return new ArrayList<Map<String, Object>>(decisions);
    }
  }

  // ------------------------------------------------------------------ handlers

  private interface Handler {
    void handle(HttpExchange ex) throws IOException;
  }

  private static final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    HttpError(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  private void guard(HttpExchange ex, Handler h) {
    try {
      h.handle(ex);
    } catch (HttpError e) {
      error(ex, e.status, e.getMessage());
    } catch (AgentException e) {
      error(ex, 502, e.getMessage());
    } catch (Exception e) {
      error(ex, 500, String.valueOf(e));
    } finally {
      ex.close();
    }
  }

  private void query(HttpExchange ex) throws IOException {
    requireMethod(ex, "POST");
    String prompt = prompt(ex);
    ResultMessage r;
    try {
      r = Agent.query(prompt, options());
    } catch (ResultErrorException e) {
      r = e.getResultMessage(); // an error result is still an answer
    }
    json(ex, 200, resultJson(r));
  }

  private void stream(HttpExchange ex) throws IOException {
    String prompt = "GET".equals(ex.getRequestMethod()) ? param(ex, "prompt") : prompt(ex);
    if (prompt == null || prompt.isEmpty()) {
      throw new HttpError(400, "a prompt is needed (?prompt=...)");
    }
    ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    ex.sendResponseHeaders(200, 0);
    OutputStream out = ex.getResponseBody();
    try (MessageStream messages = Agent.stream(prompt, options().includePartialMessages(true))) {
      for (Message m : messages) {
        if (m instanceof StreamEvent) {
          String delta = ((StreamEvent) m).getTextDelta();
          if (delta != null) {
            sse(out, "delta", Collections.<String, Object>singletonMap("text", delta));
          }
        } else if (m instanceof AssistantMessage) {
          sse(out, "assistant", m.getRaw());
        } else if (m instanceof ResultMessage) {
          sse(out, "result", resultJson((ResultMessage) m));
        } else {
          sse(out, m.getType(), m.getRaw());
        }
      }
    } catch (IOException e) {
      // the client went away: closing the stream stops the session
    }
  }

  private void sessions(HttpExchange ex) throws IOException {
    String[] parts = ex.getRequestURI().getPath().split("/");
    // "", "sessions", id?, "messages"?
    String method = ex.getRequestMethod();
    if (parts.length == 2) {
      if ("POST".equals(method)) {
        AgentClient c = Agent.connect(options());
        String id = UUID.randomUUID().toString();
        sessions.put(id, c);
        json(ex, 201, Collections.<String, Object>singletonMap("id", id));
        return;
      }
      if ("GET".equals(method)) {
        json(ex, 200, Collections.<String, Object>singletonMap("sessions", new ArrayList<String>(sessions.keySet())));
        return;
      }
      throw new HttpError(405, "POST or GET /sessions");
    }
    String id = parts[2];
    AgentClient c = sessions.get(id);
    if (c == null) {
      throw new HttpError(404, "no session " + id);
    }
    if (parts.length == 3 && "DELETE".equals(method)) {
      sessions.remove(id);
      c.close();
      json(ex, 200, Collections.<String, Object>singletonMap("closed", id));
      return;
    }
    if (parts.length == 4 && "messages".equals(parts[3]) && "POST".equals(method)) {
      String prompt = prompt(ex);
      ResultMessage r;
      synchronized (c) { // one turn at a time per session
        r = c.send(prompt);
      }
      Map<String, Object> body = resultJson(r);
      body.put("id", id);
      json(ex, 200, body);
      return;
    }
    throw new HttpError(404, "unknown route " + ex.getRequestURI().getPath());
  }

  // ------------------------------------------------------------------ HTTP plumbing

  private static Map<String, Object> resultJson(ResultMessage r) {
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("result", r.getResult());
    out.put("is_error", r.isError());
    out.put("subtype", r.getSubtype());
    out.put("session_id", r.getSessionId());
    out.put("num_turns", r.getNumTurns());
    out.put("permission_denials", r.getPermissionDenials());
    return out;
  }

  private static void requireMethod(HttpExchange ex, String method) {
    if (!method.equals(ex.getRequestMethod())) {
      throw new HttpError(405, method + " only");
    }
  }

  private static String prompt(HttpExchange ex) throws IOException {
    String body = read(ex.getRequestBody());
    Map<String, Object> req;
    try {
      req = Json.parseObject(body);
    } catch (JsonException e) {
      throw new HttpError(400, "the body must be a JSON object: " + e.getMessage());
    }
    String prompt = JsonAccess.string(req, "prompt");
    if (prompt == null || prompt.isEmpty()) {
      throw new HttpError(400, "the body needs a \"prompt\" string");
    }
    return prompt;
  }

  private static String param(HttpExchange ex, String name) throws UnsupportedEncodingException {
    String q = ex.getRequestURI().getRawQuery();
    if (q == null) {
      return null;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return URLDecoder.decode(pair.substring(eq + 1), "UTF-8");
      }
    }
    return null;
  }

  private static String read(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    for (int n; (n = in.read(b)) > 0; ) {
      buf.write(b, 0, n);
      if (buf.size() > 1 << 20) {
        throw new HttpError(413, "the body is larger than 1 MiB");
      }
    }
    return new String(buf.toByteArray(), StandardCharsets.UTF_8);
  }

  private static void sse(OutputStream out, String event, Object data) throws IOException {
    String frame = "event: " + event + "\ndata: " + Json.write(data) + "\n\n";
    out.write(frame.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static void json(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private static void error(HttpExchange ex, int status, String message) {
    try {
      json(ex, status, Collections.<String, Object>singletonMap("error", message));
    } catch (IOException | RuntimeException ignored) {
      // headers were already sent (a stream that failed midway): nothing more to say
    }
  }

  /**
   * Starts the service and runs until killed.
   *
   * @param args {@code [--port N] [--workspace DIR] [--model ID]}
   * @throws IOException when the port cannot be bound
   */
  public static void main(String[] args) throws IOException {
    int port = 8080;
    File workspace = new File(".");
    String model = "mock-model";
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--port")) {
        port = Integer.parseInt(args[i + 1]);
      } else if (args[i].equals("--workspace")) {
        workspace = new File(args[i + 1]);
      } else if (args[i].equals("--model")) {
        model = args[i + 1];
      } else {
        System.err.println("unknown argument " + args[i]);
        System.exit(2);
      }
    }
    if (!workspace.isDirectory() && !workspace.mkdirs()) {
      System.err.println("cannot create the workspace " + workspace);
      System.exit(2);
    }
    final AgentHttpService s = new AgentHttpService(port, workspace, model, TransportKind.AUTO);
    s.start();
    Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
    System.out.println(
        "agent service on http://127.0.0.1:" + s.port() + "  (workspace " + s.workspace + ", model " + model + ")");
  }
}
