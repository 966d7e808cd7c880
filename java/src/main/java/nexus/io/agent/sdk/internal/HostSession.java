package nexus.io.agent.sdk.internal;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.AgentException;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.ControlRequestException;
import nexus.io.agent.sdk.SessionClosedException;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.hook.HookCallback;
import nexus.io.agent.sdk.hook.HookMatcher;
import nexus.io.agent.sdk.json.Json;
import nexus.io.agent.sdk.json.JsonAccess;
import nexus.io.agent.sdk.json.JsonException;
import nexus.io.agent.sdk.mcp.McpServer;
import nexus.io.agent.sdk.transport.SubprocessTransport;
import nexus.io.agent.sdk.transport.Transport;

/**
 * The host side of the control protocol in pure Java, for the {@code dcl} subprocess (where the
 * native library may not load, so the Rust host is not available).
 *
 * <p>One reader thread pulls every outbound line. Normal messages go to the user's stream;
 * control requests from dcl ({@code can_use_tool}, {@code hook_callback}, {@code mcp_message})
 * each run on a pooled thread, which calls the user's function and answers with a {@code
 * control_response}, so a slow callback holds up only its own request; control responses
 * complete the requests this side made ({@code initialize}, {@code interrupt}, ...); {@code
 * control_cancel_request} interrupts the handler it names.
 */
final class HostSession extends Session {
  private static final Logger LOG = Logger.getLogger("nexus.io.agent.sdk");
  // close() wakes a waiting read at once; the slice only bounds how long a missed wake-up could last.
  private static final long READ_SLICE_MS = 2_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Transport transport;
  private final Map<String, CompletableFuture<Map<String, Object>>> pending =
      new ConcurrentHashMap<String, CompletableFuture<Map<String, Object>>>();
  private final Map<String, Future<?>> handlers = new ConcurrentHashMap<String, Future<?>>();
  private final AtomicLong counter = new AtomicLong();
  private volatile boolean closed;
  private Thread reader;

  private HostSession(AgentOptions options, Transport transport) {
    super(options, TransportKind.SUBPROCESS);
    this.transport = transport;
    this.sessionId = transport.sessionId();
  }

  /**
   * Starts {@code dcl}, its reader, and sends {@code initialize}.
   *
   * @param options the options (checked already)
   * @return the running session
   */
  static HostSession start(AgentOptions options) {
    Transport t =
        new SubprocessTransport(
            OptionsMapper.argv(options),
            OptionsMapper.environment(options),
            OptionsMapper.absoluteCwd(options));
    HostSession s = new HostSession(options, t);
    try {
      s.begin();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void begin() {
    reader = new Thread(this::readLoop, "dcl-reader");
    reader.setDaemon(true);
    reader.start();
    long timeout = Math.max(options.getControlRequestTimeoutMs(), 60_000);
    serverInfo = request(initializeRequest(), timeout);
  }

  private Map<String, Object> initializeRequest() {
    Map<String, Object> hookConfig = new LinkedHashMap<String, Object>();
    int n = 0;
    for (Map.Entry<String, List<HookMatcher>> e : options.getHooks().entrySet()) {
      List<Object> entries = new ArrayList<Object>();
      for (HookMatcher m : e.getValue()) {
        List<Object> ids = new ArrayList<Object>();
        for (HookCallback cb : m.getHooks()) {
          ids.add("hook_" + n++); // the order of Session.hooks
        }
        Map<String, Object> entry = new LinkedHashMap<String, Object>();
        entry.put("matcher", m.getMatcher());
        entry.put("hookCallbackIds", ids);
        if (m.getTimeoutSeconds() != null) {
          entry.put("timeout", m.getTimeoutSeconds());
        }
        entries.add(entry);
      }
      if (!entries.isEmpty()) {
        hookConfig.put(e.getKey(), entries);
      }
    }
    Map<String, Object> request = new LinkedHashMap<String, Object>();
    request.put("subtype", "initialize");
    request.put("hooks", hookConfig.isEmpty() ? null : hookConfig);
    if (!options.getMcpServers().isEmpty()) {
      request.put("sdkMcpServers", new ArrayList<String>(options.getMcpServers().keySet()));
    }
    return request;
  }

  // ------------------------------------------------------------------ output

  private void readLoop() {
    Throwable error = null;
    try {
      while (!closed) {
        List<String> lines = transport.recv(READ_SLICE_MS);
        if (lines == null) {
          break;
        }
        for (String line : lines) {
          Map<String, Object> msg;
          try {
            msg = Json.parseObject(line);
          } catch (JsonException e) {
            LOG.warning("dcl sent a line that is not a JSON object: " + abbreviate(line));
            continue;
          }
          route(msg);
        }
      }
    } catch (Throwable t) {
      error = t;
    } finally {
      AgentConnectionException gone =
          new AgentConnectionException("the session ended before answering" + transport.describe());
      finish(error);
      for (CompletableFuture<Map<String, Object>> f : pending.values()) {
        f.completeExceptionally(gone);
      }
    }
  }

  private void route(Map<String, Object> msg) {
    String type = JsonAccess.string(msg, "type");
    if ("control_response".equals(type)) {
      Map<String, Object> response = JsonAccess.object(msg, "response");
      CompletableFuture<Map<String, Object>> f =
          pending.get(String.valueOf(JsonAccess.string(response, "request_id")));
      if (f != null) {
        f.complete(response);
      }
      return;
    }
    if ("control_request".equals(type)) {
      final String rid = String.valueOf(msg.get("request_id"));
      Map<String, Object> r = JsonAccess.object(msg, "request");
      final Map<String, Object> request = r != null ? r : new LinkedHashMap<String, Object>();
      // Registered before it can run, so its own clean-up always finds it.
      FutureTask<Void> task = new FutureTask<Void>(() -> handle(rid, request), null);
      handlers.put(rid, task);
      CALLBACKS.execute(task);
      return;
    }
    if ("control_cancel_request".equals(type)) {
      Future<?> f = handlers.remove(String.valueOf(msg.get("request_id")));
      if (f != null) {
        f.cancel(true);
      }
      return;
    }
    if ("system".equals(type)
        && "session_state_changed".equals(JsonAccess.string(msg, "subtype"))
        && JsonAccess.bool(msg, "sdk_host_only", false)) {
      return;
    }
    deliver(msg);
  }

  // ------------------------------------------------------------------ input

  @Override
  public void write(Map<String, Object> message) {
    if (closed) {
      throw new SessionClosedException("the session is closed");
    }
    transport.send(Json.write(message));
  }

  @Override
  public Map<String, Object> request(Map<String, Object> request, long timeoutMs) {
    String subtype = String.valueOf(request.get("subtype"));
    String rid = "req_" + counter.incrementAndGet() + "_" + Integer.toHexString(RANDOM.nextInt());
    CompletableFuture<Map<String, Object>> f = new CompletableFuture<Map<String, Object>>();
    pending.put(rid, f);
    Map<String, Object> answer;
    try {
      if (isEnded()) {
        throw new SessionClosedException("the session has ended" + transport.describe());
      }
      Map<String, Object> line = new LinkedHashMap<String, Object>();
      line.put("type", "control_request");
      line.put("request_id", rid);
      line.put("request", request);
      write(line);
      answer = f.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new ControlRequestException(subtype, "Control request timeout");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof AgentException) {
        throw (AgentException) c;
      }
      throw new AgentConnectionException(String.valueOf(c), c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentException("interrupted while waiting for " + subtype, e);
    } finally {
      pending.remove(rid);
    }
    if ("error".equals(JsonAccess.string(answer, "subtype"))) {
      String error = JsonAccess.string(answer, "error");
      throw new ControlRequestException(subtype, error != null ? error : "Unknown error");
    }
    Map<String, Object> payload = JsonAccess.object(answer, "response");
    return payload != null ? payload : new LinkedHashMap<String, Object>();
  }

  @Override
  public void endInput() {
    if (!closed) {
      transport.endInput();
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Future<?> f : handlers.values()) {
      f.cancel(true);
    }
    transport.close();
    Thread r = reader;
    if (r != null && r != Thread.currentThread()) {
      try {
        r.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ------------------------------------------------------------------ requests from dcl

  private void handle(String rid, Map<String, Object> request) {
    String subtype = JsonAccess.string(request, "subtype");
    Map<String, Object> response = new LinkedHashMap<String, Object>();
    try {
      Map<String, Object> data;
      if ("can_use_tool".equals(subtype)) {
        data = canUseTool(request);
      } else if ("hook_callback".equals(subtype)) {
        data = hookCallback(request);
      } else if ("mcp_message".equals(subtype)) {
        data = mcpMessage(request);
      } else {
        throw new IllegalStateException("Unsupported control request subtype: " + subtype);
      }
      response.put("subtype", "success");
      response.put("request_id", rid);
      response.put("response", data);
    } catch (InterruptedException e) {
      return; // dcl withdrew the request: no answer
    } catch (Throwable e) {
      if (Thread.currentThread().isInterrupted() && !handlers.containsKey(rid)) {
        return; // cancelled while failing
      }
      response.put("subtype", "error");
      response.put("request_id", rid);
      response.put("error", describe(e));
    } finally {
      handlers.remove(rid);
    }
    Map<String, Object> line = new LinkedHashMap<String, Object>();
    line.put("type", "control_response");
    line.put("response", response);
    try {
      write(line);
    } catch (AgentException e) {
      LOG.log(Level.FINE, "answer to " + subtype + " " + rid + " not delivered: the session ended");
    }
  }

  private Map<String, Object> mcpMessage(Map<String, Object> request) {
    String name = JsonAccess.string(request, "server_name");
    Map<String, Object> message = JsonAccess.object(request, "message");
    if (name == null || message == null) {
      throw new IllegalArgumentException("Missing server_name or message for MCP request");
    }
    McpServer server = options.getMcpServers().get(name);
    Map<String, Object> response;
    if (server == null) {
      response = rpcError(message.get("id"), -32601, "Server '" + name + "' not found");
    } else {
      try {
        response = server.handle(message);
      } catch (RuntimeException e) {
        response = rpcError(message.get("id"), -32603, String.valueOf(e.getMessage()));
      }
    }
    if (response == null) { // a notification: acknowledged all the same
      response = new LinkedHashMap<String, Object>();
      response.put("jsonrpc", "2.0");
      response.put("result", new LinkedHashMap<String, Object>());
    }
    return Collections.<String, Object>singletonMap("mcp_response", response);
  }

  private static Map<String, Object> rpcError(Object id, int code, String message) {
    Map<String, Object> error = new LinkedHashMap<String, Object>();
    error.put("code", code);
    error.put("message", message);
    Map<String, Object> out = new LinkedHashMap<String, Object>();
    out.put("jsonrpc", "2.0");
    out.put("id", id);
    out.put("error", error);
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
